/* Inodes and superblocks: lifetime, attributes and permission checks. */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/kernel/creds.h"
#include "sentry/fs/pipe.h"
#include "sentry/fs/locks.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_ino = 1;
static uint64_t next_dev = 1;

uint64_t vfs_new_dev(void)
{
	/* Anonymous devices as Linux numbers them: major 0, minor from 1 up. */
	return __atomic_fetch_add(&next_dev, 1, __ATOMIC_RELAXED);
}

struct inode *inode_new(struct super_block *sb, const struct inode_ops *ops, uint32_t mode)
{
	struct inode *i = xzalloc(sizeof(*i));
	struct timespec now;

	i->refs = 1;
	i->sb = sb_get(sb);
	i->ops = ops;
	i->mode = mode;
	i->nlink = 1;
	i->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_REALTIME, &now);
	i->atime = i->mtime = i->ctime = now;
	pthread_mutex_init(&i->lock, NULL);
	pthread_mutex_init(&i->dir_lock, NULL);
	return i;
}

struct inode *inode_get(struct inode *i)
{
	__atomic_add_fetch(&i->refs, 1, __ATOMIC_RELAXED);
	return i;
}

void inode_put(struct inode *i)
{
	struct super_block *sb;

	if (!i)
		return;
	if (i->hash_key) {
		/* Hashed inodes may be found again: drop the last reference
		 * under the hash lock so a lookup cannot revive a dying one. */
		sb = i->sb;
		pthread_mutex_lock(&sb->inodes_lock);
		if (__atomic_sub_fetch(&i->refs, 1, __ATOMIC_ACQ_REL) != 0) {
			pthread_mutex_unlock(&sb->inodes_lock);
			return;
		}
		rb_erase(&sb->inodes, &i->hash_node);
		i->hash_key = 0;
		pthread_mutex_unlock(&sb->inodes_lock);
	} else if (__atomic_sub_fetch(&i->refs, 1, __ATOMIC_ACQ_REL) != 0) {
		return;
	}
	if (i->ops && i->ops->evict)
		i->ops->evict(i);
	if (i->pipe)
		pipe_inode_release(i);
	locks_inode_release(i);
	sb = i->sb;
	pthread_mutex_destroy(&i->lock);
	pthread_mutex_destroy(&i->dir_lock);
	free(i);
	sb_put(sb);
}

void inode_stat(struct inode *i, struct kstat *st)
{
	pthread_mutex_lock(&i->lock);
	*st = (struct kstat){
		.ino = i->ino,
		.dev = i->dev ? i->dev : i->sb->dev,
		.mode = i->mode,
		.uid = i->uid,
		.gid = i->gid,
		.nlink = i->nlink,
		.rdev = i->rdev,
		.size = i->size,
		.blocks = i->blocks ? i->blocks : (i->size + 511) / 512,
		.blksize = 4096,
		.atime = i->atime,
		.mtime = i->mtime,
		.ctime = i->ctime,
		.btime = i->ctime,
	};
	pthread_mutex_unlock(&i->lock);
}

void inode_touch(struct inode *i, unsigned which)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&i->lock);
	if (which & ATTR_ATIME)
		i->atime = now;
	if (which & ATTR_MTIME)
		i->mtime = now;
	if (which & ATTR_CTIME)
		i->ctime = now;
	pthread_mutex_unlock(&i->lock);
}

struct inode *sb_find_inode(struct super_block *sb, uint64_t key)
{
	struct rb_node *n;
	struct inode *found = NULL;

	pthread_mutex_lock(&sb->inodes_lock);
	for (n = sb->inodes.node; n;) {
		struct inode *i = rb_entry(n, struct inode, hash_node);
		if (key < i->hash_key) {
			n = n->left;
		} else if (key > i->hash_key) {
			n = n->right;
		} else {
			found = inode_get(i);
			break;
		}
	}
	pthread_mutex_unlock(&sb->inodes_lock);
	return found;
}

struct inode *sb_insert_inode(struct super_block *sb, struct inode *i, uint64_t key)
{
	struct rb_node **link, *parent = NULL;

	pthread_mutex_lock(&sb->inodes_lock);
	link = &sb->inodes.node;
	while (*link) {
		struct inode *o = rb_entry(*link, struct inode, hash_node);
		parent = *link;
		if (key < o->hash_key) {
			link = &parent->left;
		} else if (key > o->hash_key) {
			link = &parent->right;
		} else {
			/* Someone else got there first: use theirs. */
			inode_get(o);
			pthread_mutex_unlock(&sb->inodes_lock);
			return o;
		}
	}
	i->hash_key = key;
	rb_link(&i->hash_node, parent, link);
	rb_insert_fixup(&sb->inodes, &i->hash_node);
	pthread_mutex_unlock(&sb->inodes_lock);
	return i;
}

void sb_forget_inode(struct inode *i)
{
	struct super_block *sb = i->sb;

	pthread_mutex_lock(&sb->inodes_lock);
	if (i->hash_key) {
		rb_erase(&sb->inodes, &i->hash_node);
		i->hash_key = 0;
	}
	pthread_mutex_unlock(&sb->inodes_lock);
}

struct super_block *sb_new(const struct super_ops *ops, const char *fstype, uint64_t magic)
{
	struct super_block *sb = xzalloc(sizeof(*sb));

	sb->refs = 1;
	sb->ops = ops;
	sb->fstype = fstype;
	sb->magic = magic;
	sb->dev = vfs_new_dev();
	sb->cached = true;
	pthread_mutex_init(&sb->rename_lock, NULL);
	pthread_mutex_init(&sb->inodes_lock, NULL);
	return sb;
}

struct super_block *sb_get(struct super_block *sb)
{
	__atomic_add_fetch(&sb->refs, 1, __ATOMIC_RELAXED);
	return sb;
}

void sb_put(struct super_block *sb)
{
	if (!sb || __atomic_sub_fetch(&sb->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (sb->ops && sb->ops->release)
		sb->ops->release(sb);
	pthread_mutex_destroy(&sb->rename_lock);
	pthread_mutex_destroy(&sb->inodes_lock);
	free(sb);
}

/* --- permission -------------------------------------------------------------- */

/* Linux's acl_permission_check: the owner's bits; for anyone else an
 * access ACL, when there is one (the group bits are its mask: none, no
 * ACL asked); else the group's or other bits. */
static int mode_permission(const struct creds *c, struct inode *inode, int mask)
{
	uint32_t mode = inode->mode;

	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (c->fsuid == inode->uid) {
		mode >>= 6;
	} else {
		if ((mode & S_IRWXG) && inode->sb && inode->sb->posix_acl) {
			int ret = posix_acl_check(c, inode, mask);
			if (ret != -EAGAIN)
				return ret;
		}
		if (creds_in_group(c, inode->gid))
			mode >>= 3;
	}
	return (mask & ~mode & 7) ? -EACCES : 0;
}

static bool creds_capable_wrt(const struct creds *c, int cap, const struct inode *i)
{
	return creds_capable_ids(c, cap, i->uid, i->gid);
}

int inode_permission(const struct creds *c, struct inode *inode, int mask)
{
	int ret = mode_permission(c, inode, mask);

	if (ret == 0)
		return 0;
	if (S_ISDIR(inode->mode)) {
		if (!(mask & MAY_WRITE) && creds_capable_wrt(c, KCAP_DAC_READ_SEARCH, inode))
			return 0;
		return creds_capable_wrt(c, KCAP_DAC_OVERRIDE, inode) ? 0 : -EACCES;
	}
	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (mask == MAY_READ && creds_capable_wrt(c, KCAP_DAC_READ_SEARCH, inode))
		return 0;
	/* Executing needs at least one execute bit, even for root. */
	if (!(mask & MAY_EXEC) || (inode->mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		if (creds_capable_wrt(c, KCAP_DAC_OVERRIDE, inode))
			return 0;
	return -EACCES;
}

bool inode_owner_or_capable(const struct creds *c, struct inode *inode)
{
	return c->fsuid == inode->uid || creds_capable_wrt(c, KCAP_FOWNER, inode);
}

int may_delete(const struct creds *c, struct inode *dir, struct inode *victim, bool isdir)
{
	int ret = inode_permission(c, dir, MAY_WRITE | MAY_EXEC);

	if (ret)
		return ret;
	/* The sticky bit: only the owner of the file or the directory may. */
	if ((dir->mode & S_ISVTX) && c->fsuid != victim->uid && c->fsuid != dir->uid &&
	    !creds_capable_wrt(c, KCAP_FOWNER, victim))
		return -EPERM;
	if (isdir && !S_ISDIR(victim->mode))
		return -ENOTDIR;
	if (!isdir && S_ISDIR(victim->mode))
		return -EISDIR;
	return 0;
}
