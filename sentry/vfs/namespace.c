/*
 * Operations on names: mkdir, mknod, symlink, link, unlink, rmdir, rename,
 * with Linux's rules for the last component, permissions and errors.
 * Each takes the parent directory's dir_lock around the check and the
 * filesystem call, so the name cannot change in between.
 */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/vfs/fsnotify.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parent and (negative) dentry for creating a name: Linux's filename_create. */
struct create_ctx {
	struct parent_lookup pl;
	struct dentry *d;
	struct inode *dir;
};

static int create_begin(struct task *t, int dirfd, const char *path, bool is_dir,
			struct create_ctx *cc)
{
	int ret = vfs_lookup_parent(t, dirfd, path, 0, &cc->pl);

	cc->d = NULL;
	if (ret)
		return ret;
	if (cc->pl.type != LAST_NORM) {
		path_put(&cc->pl.parent);
		return -EEXIST;
	}
	cc->dir = cc->pl.parent.dentry->inode;
	pthread_mutex_lock(&cc->dir->dir_lock);
	ret = vfs_lookup_child_locked(&cc->pl.parent, cc->pl.last, &cc->d);
	if (ret == 0 && cc->d->inode)
		ret = -EEXIST;
	else if (ret == 0 && cc->pl.trailing_slash && !is_dir)
		ret = -ENOENT;
	else if (ret == 0 && (cc->pl.parent.mnt->flags & MNT_RDONLY))
		ret = -EROFS;
	else if (ret == 0)
		ret = inode_permission(&t->creds, cc->dir, MAY_WRITE | MAY_EXEC);
	if (ret == 0)
		ret = vfs_prepare_change(cc->pl.parent.dentry);
	if (ret) {
		pthread_mutex_unlock(&cc->dir->dir_lock);
		if (cc->d)
			dentry_put(cc->d);
		path_put(&cc->pl.parent);
	}
	return ret;
}

/* Finish: on success put inode in the tree (its path to *out when asked);
 * always unlock and release. */
static int create_end_path(struct create_ctx *cc, int ret, struct inode *inode, struct path *out)
{
	if (ret == 0) {
		struct dentry *d = dentry_add(cc->pl.parent.dentry, cc->pl.last, inode);
		if (out) {
			out->mnt = mount_get(cc->pl.parent.mnt);
			out->dentry = d;
		} else {
			dentry_put(d);
		}
		inode_touch(cc->dir, ATTR_MTIME | ATTR_CTIME);
		fsnotify_create(cc->dir, cc->pl.last, inode);
	}
	if (inode)
		inode_put(inode);
	pthread_mutex_unlock(&cc->dir->dir_lock);
	dentry_put(cc->d);
	path_put(&cc->pl.parent);
	return ret;
}

static int create_end(struct create_ctx *cc, int ret, struct inode *inode)
{
	return create_end_path(cc, ret, inode, NULL);
}

int vfs_mkdir(struct task *t, int dirfd, const char *path, uint32_t mode)
{
	struct create_ctx cc;
	struct posix_acl_inherit acls;
	struct inode *inode = NULL;
	int ret = create_begin(t, dirfd, path, true, &cc);

	if (ret)
		return ret;
	mode = posix_acl_create(cc.dir, (mode & 07777) | S_IFDIR, t->fs->umask, &acls);
	ret = landlock_check_make(t, &cc.pl.parent, S_IFDIR);
	if (ret == 0)
		ret = cc.dir->ops->mkdir
			      ? cc.dir->ops->mkdir(cc.dir, cc.pl.last, mode, &t->creds, &inode)
			      : -EPERM;
	posix_acl_inherit_apply(ret ? NULL : inode, &acls);
	return create_end(&cc, ret, inode);
}

static int do_mknod(struct task *t, int dirfd, const char *path, uint32_t mode, uint64_t dev,
		    struct path *out)
{
	struct create_ctx cc;
	struct posix_acl_inherit acls;
	struct inode *inode = NULL;
	int ret;

	switch (mode & S_IFMT) {
	case 0:
		mode |= S_IFREG;
		break;
	case S_IFREG:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	case S_IFCHR:
	case S_IFBLK:
		if (!creds_capable(&t->creds, KCAP_MKNOD))
			return -EPERM;
		break;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
	ret = create_begin(t, dirfd, path, false, &cc);
	if (ret)
		return ret;
	mode = posix_acl_create(cc.dir, (mode & S_IFMT) | (mode & 07777), t->fs->umask, &acls);
	ret = landlock_check_make(t, &cc.pl.parent, mode);
	if (ret == 0)
		ret = cc.dir->ops->mknod
			      ? cc.dir->ops->mknod(cc.dir, cc.pl.last, mode, dev, &t->creds, &inode)
			      : -EPERM;
	posix_acl_inherit_apply(ret ? NULL : inode, &acls);
	return create_end_path(&cc, ret, inode, out);
}

int vfs_mknod(struct task *t, int dirfd, const char *path, uint32_t mode, uint64_t dev)
{
	return do_mknod(t, dirfd, path, mode, dev, NULL);
}

int vfs_mknod_path(struct task *t, int dirfd, const char *path, uint32_t mode, struct path *out)
{
	if (!S_ISSOCK(mode) && !S_ISFIFO(mode))
		return -EINVAL;
	return do_mknod(t, dirfd, path, mode, 0, out);
}

int vfs_symlink(struct task *t, const char *target, int dirfd, const char *path)
{
	struct create_ctx cc;
	struct inode *inode = NULL;
	int ret;

	if (!*target)
		return -ENOENT;
	ret = create_begin(t, dirfd, path, false, &cc);
	if (ret)
		return ret;
	ret = landlock_check_make(t, &cc.pl.parent, S_IFLNK);
	if (ret == 0)
		ret = cc.dir->ops->symlink
			      ? cc.dir->ops->symlink(cc.dir, cc.pl.last, target, &t->creds, &inode)
			      : -EPERM;
	return create_end(&cc, ret, inode);
}

/* Linux's protected_hardlinks (on by default): may c link to inode? */
static bool may_link_to(const struct creds *c, struct inode *inode)
{
	if (inode_owner_or_capable(c, inode))
		return true;
	if (!S_ISREG(inode->mode) || (inode->mode & S_ISUID) ||
	    ((inode->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)))
		return false;
	return inode_permission(c, inode, MAY_READ | MAY_WRITE) == 0;
}

int vfs_link(struct task *t, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	     int flags)
{
	struct create_ctx cc;
	struct path old;
	struct inode *src;
	int ret;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	ret = vfs_lookup(t, olddirfd, oldpath,
			 ((flags & AT_SYMLINK_FOLLOW) ? LOOKUP_FOLLOW : 0) |
				 ((flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0),
			 &old);
	if (ret)
		return ret;
	ret = create_begin(t, newdirfd, newpath, false, &cc);
	if (ret) {
		path_put(&old);
		return ret;
	}
	src = old.dentry->inode;
	if (src->ops->getattr)
		src->ops->getattr(src); /* its link count, where it can change behind us */
	if (old.mnt != cc.pl.parent.mnt)
		ret = -EXDEV;
	else if (src->nlink == 0 && !inode_has(src, I_LINKABLE))
		ret = -ENOENT; /* an unlinked file stays so (but O_TMPFILE ones) */
	else if ((ret = vfs_prepare_change(old.dentry)))
		;
	else if (S_ISDIR(src->mode))
		ret = -EPERM;
	else if (!may_link_to(&t->creds, src))
		ret = -EPERM;
	else if ((ret = landlock_check_link(t, &old, &cc.pl.parent)))
		;
	else if (!cc.dir->ops->link)
		ret = -EPERM;
	else
		ret = cc.dir->ops->link(cc.dir, cc.pl.last, src);
	if (ret == 0) {
		inode_clear(src, I_LINKABLE);
		inode_touch(src, ATTR_CTIME);
		fsnotify_link_count(src);
	}
	path_put(&old);
	return create_end(&cc, ret, ret == 0 ? inode_get(src) : NULL);
}

int vfs_unlink(struct task *t, int dirfd, const char *path, bool rmdir)
{
	struct parent_lookup pl;
	struct inode *dir, *victim;
	struct dentry *d;
	uint64_t nlink;
	int ret = vfs_lookup_parent(t, dirfd, path, 0, &pl);

	if (ret)
		return ret;
	if (pl.type != LAST_NORM) {
		path_put(&pl.parent);
		if (!rmdir)
			return -EISDIR;
		return pl.type == LAST_DOT ? -EINVAL : pl.type == LAST_DOTDOT ? -ENOTEMPTY : -EBUSY;
	}
	dir = pl.parent.dentry->inode;
	pthread_mutex_lock(&dir->dir_lock);
	ret = vfs_lookup_child_locked(&pl.parent, pl.last, &d);
	if (ret)
		goto out_unlock;
	victim = d->inode;
	if (!victim)
		ret = -ENOENT;
	else if (!rmdir && pl.trailing_slash)
		ret = S_ISDIR(victim->mode) ? -EISDIR : -ENOTDIR;
	else if (pl.parent.mnt->flags & MNT_RDONLY)
		ret = -EROFS;
	else if (!(ret = landlock_check_remove(t, &pl.parent, rmdir)))
		ret = may_delete(&t->creds, dir, victim, rmdir);
	if (ret == 0 && d->nmounts)
		ret = -EBUSY;
	if (ret == 0)
		ret = vfs_prepare_change(pl.parent.dentry);
	nlink = ret == 0 ? victim->nlink : 0; /* before: a layer may not count it down */
	if (ret == 0 && rmdir) {
		/* Under the victim's own lock, so that nothing is made in it meanwhile. */
		pthread_mutex_lock(&victim->dir_lock);
		ret = dir->ops->rmdir ? dir->ops->rmdir(dir, pl.last, victim) : -EPERM;
		if (ret == 0)
			inode_set(victim, I_DEAD);
		pthread_mutex_unlock(&victim->dir_lock);
	} else if (ret == 0) {
		ret = dir->ops->unlink ? dir->ops->unlink(dir, pl.last, victim) : -EPERM;
	}
	if (ret == 0) {
		dentry_delete(d);
		inode_touch(dir, ATTR_MTIME | ATTR_CTIME);
		inode_touch(victim, ATTR_CTIME);
		fsnotify_delete(dir, pl.last, victim, rmdir || nlink <= 1);
	}
	dentry_put(d);
out_unlock:
	pthread_mutex_unlock(&dir->dir_lock);
	path_put(&pl.parent);
	return ret;
}

/* Is a an ancestor of (or equal to) d, within one filesystem? */
static bool is_ancestor(struct dentry *a, struct dentry *d)
{
	struct dentry *p = dentry_get(d);

	for (;;) {
		struct dentry *up;
		if (p == a) {
			dentry_put(p);
			return true;
		}
		up = dentry_get_parent(p);
		if (up == p) {
			dentry_put(up);
			dentry_put(p);
			return false;
		}
		dentry_put(p);
		p = up;
	}
}

/* Lock two directories for a rename: parent before child, else by address. */
static void lock_two(struct dentry *a, struct dentry *b)
{
	struct inode *ia = a->inode, *ib = b->inode;

	if (ia == ib) {
		pthread_mutex_lock(&ia->dir_lock);
		return;
	}
	if (is_ancestor(a, b) || (!is_ancestor(b, a) && ia < ib)) {
		pthread_mutex_lock(&ia->dir_lock);
		pthread_mutex_lock(&ib->dir_lock);
	} else {
		pthread_mutex_lock(&ib->dir_lock);
		pthread_mutex_lock(&ia->dir_lock);
	}
}

static void unlock_two(struct dentry *a, struct dentry *b)
{
	pthread_mutex_unlock(&a->inode->dir_lock);
	if (a->inode != b->inode)
		pthread_mutex_unlock(&b->inode->dir_lock);
}

/* Are the inodes a and b (b may be NULL) one file? A layered filesystem
 * may have an inode per name of a hard-linked file (the overlay), all with
 * the file's device and number; a directory has only one name. */
static bool same_file(struct inode *a, struct inode *b)
{
	struct kstat sa, sb;

	if (a == b)
		return true;
	if (!b || a->sb != b->sb || S_ISDIR(a->mode) || S_ISDIR(b->mode))
		return false;
	inode_stat(a, &sa);
	inode_stat(b, &sb);
	return sa.dev == sb.dev && sa.ino == sb.ino;
}

/* Linux's vfs_rename checks once both dentries are known. */
static int rename_checks(struct task *t, struct parent_lookup *op, struct dentry *od,
			 struct parent_lookup *np, struct dentry *nd, unsigned flags)
{
	struct inode *src = od->inode, *dst = nd->inode;
	bool src_dir = S_ISDIR(src->mode);
	int ret;

	if ((flags & RENAME_NOREPLACE) && dst)
		return -EEXIST;
	if ((flags & RENAME_EXCHANGE) && !dst)
		return -ENOENT;
	if ((flags & RENAME_EXCHANGE) && !S_ISDIR(dst->mode) && np->trailing_slash)
		return -ENOTDIR;
	if (!src_dir && (op->trailing_slash || (!(flags & RENAME_EXCHANGE) && np->trailing_slash)))
		return -ENOTDIR;
	/* Source may not be an ancestor of the target, nor the target of the source. */
	if (is_ancestor(od, np->parent.dentry))
		return -EINVAL;
	if (dst && is_ancestor(nd, op->parent.dentry))
		return (flags & RENAME_EXCHANGE) ? -EINVAL : -ENOTEMPTY;
	ret = landlock_check_rename(t, &op->parent, od, &np->parent, nd, flags & RENAME_EXCHANGE);
	if (ret)
		return ret;
	if (same_file(src, dst))
		return 1; /* the same file: nothing to do */
	ret = may_delete(&t->creds, op->parent.dentry->inode, src, src_dir);
	if (ret)
		return ret;
	if (dst) {
		bool dst_dir = S_ISDIR(dst->mode);
		if (flags & RENAME_EXCHANGE)
			ret = may_delete(&t->creds, np->parent.dentry->inode, dst, dst_dir);
		else if (src_dir && !dst_dir)
			ret = -ENOTDIR;
		else if (!src_dir && dst_dir)
			ret = -EISDIR;
		else
			ret = may_delete(&t->creds, np->parent.dentry->inode, dst, dst_dir);
	} else {
		ret = inode_permission(&t->creds, np->parent.dentry->inode, MAY_WRITE | MAY_EXEC);
	}
	if (ret)
		return ret;
	if (od->nmounts || (nd->nmounts && dst))
		return -EBUSY;
	/* A directory that changes parent rewrites its "..": it must be writable. */
	if (op->parent.dentry != np->parent.dentry) {
		if (src_dir && (ret = inode_permission(&t->creds, src, MAY_WRITE)))
			return ret;
		if ((flags & RENAME_EXCHANGE) && S_ISDIR(dst->mode) &&
		    (ret = inode_permission(&t->creds, dst, MAY_WRITE)))
			return ret;
	}
	return 0;
}

int vfs_rename(struct task *t, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	       unsigned flags)
{
	struct parent_lookup op, np;
	struct dentry *od = NULL, *nd = NULL;
	struct super_block *sb;
	char oldname[VFS_NAME_MAX + 1];
	int ret;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL; /* only overlay filesystems make whiteouts */
	ret = vfs_lookup_parent(t, olddirfd, oldpath, 0, &op);
	if (ret)
		return ret;
	ret = vfs_lookup_parent(t, newdirfd, newpath, 0, &np);
	if (ret) {
		path_put(&op.parent);
		return ret;
	}
	if (op.parent.mnt != np.parent.mnt)
		ret = -EXDEV;
	else if (op.type != LAST_NORM)
		ret = -EBUSY;
	else if (np.type != LAST_NORM)
		ret = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	else if (op.parent.mnt->flags & MNT_RDONLY)
		ret = -EROFS;
	if (ret)
		goto out;

	sb = op.parent.dentry->sb;
	pthread_mutex_lock(&sb->rename_lock);
	lock_two(op.parent.dentry, np.parent.dentry);
	ret = vfs_lookup_child_locked(&op.parent, op.last, &od);
	if (ret == 0 && !od->inode)
		ret = -ENOENT;
	if (ret == 0)
		ret = vfs_lookup_child_locked(&np.parent, np.last, &nd);
	if (ret == 0)
		ret = rename_checks(t, &op, od, &np, nd, flags);
	if (ret == 0)
		ret = vfs_prepare_change(op.parent.dentry);
	if (ret == 0)
		ret = vfs_prepare_change(np.parent.dentry);
	if (ret == 0 && !S_ISDIR(od->inode->mode))
		ret = vfs_prepare_change(od);
	if (ret == 0 && (flags & RENAME_EXCHANGE) && !S_ISDIR(nd->inode->mode))
		ret = vfs_prepare_change(nd);
	if (ret == 0) {
		struct inode *odir = op.parent.dentry->inode, *ndir = np.parent.dentry->inode;
		/* A directory replaced by the rename dies with it (under its own
		 * lock, as rmdir; rename_checks made sure it is no ancestor). */
		struct inode *victim = NULL, *target = nd->inode;
		uint64_t target_nlink = target ? target->nlink : 0;

		if (nd->inode && S_ISDIR(nd->inode->mode) && !(flags & RENAME_EXCHANGE))
			victim = nd->inode;
		if (victim)
			pthread_mutex_lock(&victim->dir_lock);
		ret = odir->ops->rename ? odir->ops->rename(odir, op.last, ndir, np.last, flags)
					: -EPERM;
		if (victim) {
			if (ret == 0)
				inode_set(victim, I_DEAD);
			pthread_mutex_unlock(&victim->dir_lock);
		}
		if (ret == 0) {
			snprintf(oldname, sizeof(oldname), "%s", od->name);
			if (flags & RENAME_EXCHANGE) {
				/* Swap the two names. */
				dentry_move(nd, op.parent.dentry, "\x01rename");
				dentry_move(od, np.parent.dentry, np.last);
				dentry_move(nd, op.parent.dentry, oldname);
			} else {
				dentry_move(od, np.parent.dentry, np.last);
			}
			inode_touch(odir, ATTR_MTIME | ATTR_CTIME);
			if (ndir != odir)
				inode_touch(ndir, ATTR_MTIME | ATTR_CTIME);
			inode_touch(od->inode, ATTR_CTIME);
			fsnotify_rename(odir, oldname, ndir, np.last, od->inode, target,
					flags & RENAME_EXCHANGE,
					target && (S_ISDIR(target->mode) || target_nlink <= 1));
		}
	} else if (ret == 1) {
		ret = 0;
	}
	unlock_two(op.parent.dentry, np.parent.dentry);
	pthread_mutex_unlock(&sb->rename_lock);
	if (od)
		dentry_put(od);
	if (nd)
		dentry_put(nd);
out:
	path_put(&op.parent);
	path_put(&np.parent);
	return ret;
}
