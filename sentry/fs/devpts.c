/*
 * devpts, mounted at /dev/pts (Linux's fs/devpts): a directory of "ptmx"
 * and one character device per live pty pair, named by its number. The
 * numbers are the lowest free, as Linux hands them out; a pair's node goes
 * when its master closes, its number when both ends are gone.
 *
 * Options are fixed to what container runtimes mount: gid=5, mode=620,
 * ptmxmode=666.
 */
#include "config.h"
#include "sentry/fs/devpts.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/file.h"
#include "sentry/fs/pty.h"
#include "sentry/kernel/creds.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

struct devpts {
	struct super_block *sb;
	pthread_mutex_t lock;
	struct inode *ptmx;
	uint64_t used[DEVPTS_MAX / 64];	 /* numbers taken (until the pair is gone) */
	struct inode *nodes[DEVPTS_MAX]; /* the directory's entries, referenced */
};

struct devpts *devpts_of(struct super_block *sb)
{
	return sb->priv;
}

struct super_block *devpts_sb(struct devpts *fs)
{
	return fs->sb;
}

/* Inode numbers as Linux gives them: root 1, ptmx 2, pair N at N + 3. */
#define PTMX_INO    2
#define NODE_INO(n) ((uint64_t)(n) + 3)

static const struct inode_ops devpts_node_ops;

/* Parse a pair number ("0", "17"), or -1. */
static int parse_index(const char *name)
{
	char *end;
	long n;

	if (name[0] < '0' || name[0] > '9' || (name[0] == '0' && name[1]))
		return -1;
	n = strtol(name, &end, 10);
	return *end || n < 0 || n >= DEVPTS_MAX ? -1 : (int)n;
}

static int devpts_lookup(struct inode *dir, const char *name, struct inode **out)
{
	struct devpts *fs = devpts_of(dir->sb);
	int n = parse_index(name);
	int ret = -ENOENT;

	pthread_mutex_lock(&fs->lock);
	if (strcmp(name, "ptmx") == 0) {
		*out = inode_get(fs->ptmx);
		ret = 0;
	} else if (n >= 0 && fs->nodes[n]) {
		*out = inode_get(fs->nodes[n]);
		ret = 0;
	}
	pthread_mutex_unlock(&fs->lock);
	return ret;
}

static int devpts_getdents(struct file *f, struct dir_emitter *e)
{
	struct devpts *fs = devpts_of(f->inode->sb);
	char name[16];

	/* Positions: 0 ".", 1 "..", 2 "ptmx", 3 + N pair N. */
	if (f->pos == 0) {
		if (!e->emit(e, ".", 1, f->inode->ino, DT_DIR, 1))
			return 0;
		f->pos = 1;
	}
	if (f->pos == 1) {
		if (!e->emit(e, "..", 2, f->inode->ino, DT_DIR, 2))
			return 0;
		f->pos = 2;
	}
	if (f->pos == 2) {
		if (!e->emit(e, "ptmx", 4, PTMX_INO, DT_CHR, 3))
			return 0;
		f->pos = 3;
	}
	pthread_mutex_lock(&fs->lock);
	for (int64_t n = f->pos - 3; n < DEVPTS_MAX; n++) {
		if (!fs->nodes[n])
			continue;
		snprintf(name, sizeof(name), "%d", (int)n);
		if (!e->emit(e, name, strlen(name), NODE_INO(n), DT_CHR, n + 4))
			break;
		f->pos = n + 4;
	}
	pthread_mutex_unlock(&fs->lock);
	return 0;
}

static int64_t devpts_dir_llseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_SET && off >= 0)
		return off;
	if (whence == SEEK_CUR && f->pos + off >= 0)
		return f->pos + off;
	return -EINVAL;
}

static int devpts_dir_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	return 0;
}

static const struct file_ops devpts_dir_ops = {
	.getdents = devpts_getdents,
	.llseek = devpts_dir_llseek,
	.fstat = devpts_dir_fstat,
};

static int devpts_dir_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	struct file *f = file_alloc(&devpts_dir_ops, flags, NULL);

	f->inode = inode_get(inode);
	f->fmode = FMODE_PREAD;
	*out = f;
	return 0;
}

/* chmod and chown of the nodes (grantpt of old C libraries). */
static int devpts_setattr(struct inode *inode, const struct iattr *a)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&inode->lock);
	if (a->valid & ATTR_MODE)
		inode->mode = (inode->mode & S_IFMT) | (a->mode & 07777);
	if (a->valid & ATTR_UID)
		inode->uid = a->uid;
	if (a->valid & ATTR_GID)
		inode->gid = a->gid;
	if (a->valid & ATTR_ATIME)
		inode->atime = (a->valid & ATTR_ATIME_NOW) ? now : a->atime;
	if (a->valid & ATTR_MTIME)
		inode->mtime = (a->valid & ATTR_MTIME_NOW) ? now : a->mtime;
	inode->ctime = now;
	pthread_mutex_unlock(&inode->lock);
	return 0;
}

static const struct inode_ops devpts_dir_inode_ops = {
	.lookup = devpts_lookup,
	.open = devpts_dir_open,
	.setattr = devpts_setattr,
};

static int devpts_ptmx_open(struct inode *inode, struct dentry *dentry, int flags,
			    struct file **out)
{
	return pty_open_master(devpts_of(inode->sb), inode, flags, out);
}

static const struct inode_ops devpts_ptmx_ops = {
	.open = devpts_ptmx_open,
	.setattr = devpts_setattr,
};

static int devpts_node_open(struct inode *inode, struct dentry *dentry, int flags,
			    struct file **out)
{
	return pty_open_slave(inode->priv, inode, flags, out);
}

static void devpts_node_evict(struct inode *inode)
{
	pty_put(inode->priv);
}

static const struct inode_ops devpts_node_ops = {
	.open = devpts_node_open,
	.setattr = devpts_setattr,
	.evict = devpts_node_evict,
};

int devpts_new_node(struct devpts *fs, struct pty *pty, const struct creds *c, int *index,
		    struct inode **node)
{
	struct inode *i;
	int n;

	pthread_mutex_lock(&fs->lock);
	for (n = 0; n < DEVPTS_MAX; n++)
		if (!(fs->used[n / 64] & (1ull << (n % 64))))
			break;
	if (n == DEVPTS_MAX) {
		pthread_mutex_unlock(&fs->lock);
		return -ENOSPC;
	}
	fs->used[n / 64] |= 1ull << (n % 64);
	i = inode_new(fs->sb, &devpts_node_ops, S_IFCHR | 0620);
	i->ino = NODE_INO(n);
	i->rdev = makedev(PTY_SLAVE_MAJOR, n);
	i->uid = c->fsuid;
	i->gid = TTY_GROUP;
	i->priv = pty_get(pty);
	fs->nodes[n] = inode_get(i);
	pthread_mutex_unlock(&fs->lock);
	*index = n;
	*node = i;
	return 0;
}

void devpts_remove_node(struct devpts *fs, int index)
{
	struct inode *i;

	pthread_mutex_lock(&fs->lock);
	i = fs->nodes[index];
	fs->nodes[index] = NULL;
	pthread_mutex_unlock(&fs->lock);
	inode_put(i);
}

void devpts_free_index(struct devpts *fs, int index)
{
	pthread_mutex_lock(&fs->lock);
	fs->used[index / 64] &= ~(1ull << (index % 64));
	pthread_mutex_unlock(&fs->lock);
}

/* A cached name is right while its node is still in the directory. */
static int devpts_revalidate(struct dentry *d)
{
	struct inode *i = NULL;
	int ret = devpts_lookup(d->parent->inode, d->name, &i);

	if (ret == 0) {
		ret = i == d->inode ? 0 : -ESTALE;
		inode_put(i);
		return ret;
	}
	return d->inode ? -ESTALE : 0;
}

static int devpts_statfs(struct super_block *sb, struct statfs_info *out)
{
	*out = (struct statfs_info){
		.type = DEVPTS_SUPER_MAGIC,
		.bsize = 4096,
		.namelen = 255,
		.frsize = 4096,
	};
	return 0;
}

static void devpts_release(struct super_block *sb)
{
	struct devpts *fs = sb->priv;

	inode_put(fs->ptmx);
	pthread_mutex_destroy(&fs->lock);
	free(fs);
}

static const struct super_ops devpts_super_ops = {
	.statfs = devpts_statfs,
	.revalidate = devpts_revalidate,
	.release = devpts_release,
};

struct super_block *devpts_new(void)
{
	struct super_block *sb = sb_new(&devpts_super_ops, "devpts", DEVPTS_SUPER_MAGIC);
	struct devpts *fs = xzalloc(sizeof(*fs));
	struct inode *root;

	fs->sb = sb;
	pthread_mutex_init(&fs->lock, NULL);
	sb->priv = fs;
	sb->cached = false;
	root = inode_new(sb, &devpts_dir_inode_ops, S_IFDIR | 0755);
	root->ino = 1;
	root->nlink = 2;
	fs->ptmx = inode_new(sb, &devpts_ptmx_ops, S_IFCHR | 0666);
	fs->ptmx->ino = PTMX_INO;
	fs->ptmx->rdev = DEV_PTMX;
	sb->root = dentry_make_root(sb, root);
	inode_put(root);
	return sb;
}
