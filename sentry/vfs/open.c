/*
 * open(2) and its relatives: resolve, create when asked, check the access
 * the flags ask for (Linux's may_open), truncate, and let the filesystem
 * make the file description.
 */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/vfs/fsnotify.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's __O_TMPFILE (glibc's includes O_DIRECTORY). */
#define TMPFILE_BIT 020000000

/* Flags a file description keeps (Linux drops these at open). */
#define OPEN_TRANSIENT (O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC)

/* An O_PATH file: a position in the tree, nothing else. */
static const struct file_ops path_file_ops = {0};

static int acc_mask(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return MAY_READ;
	case O_WRONLY:
		return MAY_WRITE;
	case O_RDWR:
		return MAY_READ | MAY_WRITE;
	default:
		return 0; /* 3: neither (ioctl-only opens) */
	}
}

/* Linux's may_open: what the file's type and the mount allow. */
static int may_open(struct task *t, const struct path *p, int flags)
{
	struct inode *inode = p->dentry->inode;
	/* O_TRUNC asks for write access whatever the access mode (Linux's
	 * build_open_flags). */
	int acc = acc_mask(flags) | ((flags & O_TRUNC) ? MAY_WRITE : 0), ret;

	switch (inode->mode & S_IFMT) {
	case S_IFLNK:
		return -ELOOP;
	case S_IFDIR:
		if (acc & MAY_WRITE)
			return -EISDIR;
		break;
	case S_IFBLK:
	case S_IFCHR:
		if (p->mnt->flags & MNT_NODEV)
			return -EACCES;
		break;
	default:
		break;
	}
	if ((acc & MAY_WRITE) && (p->mnt->flags & MNT_RDONLY) &&
	    (S_ISREG(inode->mode) || S_ISDIR(inode->mode) || S_ISLNK(inode->mode)))
		return -EROFS;
	ret = inode_permission(&t->creds, inode, acc);
	if (ret)
		return ret;
	if ((flags & O_NOATIME) && !inode_owner_or_capable(&t->creds, inode))
		return -EPERM;
	return 0;
}

static int truncate_on_open(struct task *t, const struct path *p)
{
	struct inode *inode = p->dentry->inode;
	struct iattr attr = {.valid = ATTR_SIZE | ATTR_MTIME | ATTR_CTIME, .size = 0};
	int ret = vfs_prepare_change(p->dentry);

	if (ret)
		return ret;
	if (!inode->ops->setattr)
		return -EPERM;
	attr.valid |= ATTR_MTIME_NOW;
	return inode->ops->setattr(inode, &attr);
}

int vfs_open_path(struct task *t, const struct path *p, int flags, struct file **out)
{
	struct inode *inode = p->dentry->inode;
	bool truncated = false;
	struct file *f;
	int ret;

	if (flags & O_PATH) {
		f = file_alloc(&path_file_ops, O_PATH | (flags & (O_DIRECTORY | O_NOFOLLOW)), NULL);
		f->fmode = FMODE_PATH;
		file_set_path(f, p);
		*out = f;
		return 0;
	}
	ret = may_open(t, p, flags);
	if (ret == 0)
		ret = landlock_check_open(t, p, flags);
	if (ret)
		return ret;
	if ((flags & O_TRUNC) && S_ISREG(inode->mode)) {
		ret = truncate_on_open(t, p);
		if (ret)
			return ret;
		truncated = true;
	}
	if (!inode->ops->open)
		return -ENXIO;
	/* do_dentry_open: only a regular file may take O_DIRECT (FMODE_CAN_ODIRECT) */
	if ((flags & O_DIRECT) && S_ISDIR(inode->mode))
		return -EINVAL;
	ret = inode->ops->open(inode, p->dentry, flags & ~OPEN_TRANSIENT, &f);
	if (ret)
		return ret;
	if (!f->path.dentry)
		file_set_path(f, p);
	/* IN_OPEN, then the truncation's IN_MODIFY (Linux 6.10 on). */
	fsnotify_open(f, flags);
	if (truncated)
		fsnotify_change(p->dentry, ATTR_SIZE | ATTR_MTIME | ATTR_CTIME);
	*out = f;
	return 0;
}

/* Create name in the locked directory dir (a negative dentry d there). */
static int create_locked(struct task *t, const struct path *dir, struct dentry *d, int flags,
			 uint32_t mode, struct file **out)
{
	struct inode *dirnode = dir->dentry->inode, *inode = NULL;
	struct posix_acl_inherit acls;
	struct file *f = NULL;
	struct dentry *nd;
	struct path p;
	int ret;

	if (dir->mnt->flags & MNT_RDONLY)
		return -EROFS;
	ret = inode_permission(&t->creds, dirnode, MAY_WRITE | MAY_EXEC);
	if (ret == 0)
		ret = landlock_check_make(t, dir, S_IFREG);
	if (ret)
		return ret;
	if (!dirnode->ops->create)
		return -EACCES;
	ret = vfs_prepare_change(dir->dentry);
	if (ret)
		return ret;
	mode = posix_acl_create(dirnode, (mode & 07777) | S_IFREG, t->fs->umask, &acls);
	ret = dirnode->ops->create(dirnode, d->name, mode, &t->creds, flags & ~OPEN_TRANSIENT,
				   &inode, &f);
	posix_acl_inherit_apply(ret ? NULL : inode, &acls);
	if (ret)
		return ret;
	inode_touch(dirnode, ATTR_MTIME | ATTR_CTIME);
	nd = dentry_add(dir->dentry, d->name, inode);
	fsnotify_create(dirnode, d->name, inode);
	inode_put(inode);
	p.mnt = dir->mnt;
	p.dentry = nd;
	if (f) {
		if (!f->path.dentry)
			file_set_path(f, &p);
		ret = 0;
	} else {
		/* The filesystem created the file but did not open it. */
		ret = inode->ops->open ? inode->ops->open(inode, nd, flags & ~OPEN_TRANSIENT, &f)
				       : -ENXIO;
		if (ret == 0 && !f->path.dentry)
			file_set_path(f, &p);
	}
	if (ret == 0 && (ret = landlock_check_open(t, &p, flags)))
		file_put(f); /* made, but not to be opened so (as Linux) */
	dentry_put(nd);
	if (ret == 0) {
		fsnotify_open(f, flags);
		*out = f;
	}
	return ret;
}

/* What to do with an existing last component d (O_CREAT without O_EXCL). */
static int open_existing(struct task *t, const struct path *dir, struct dentry *d, int flags,
			 struct file **out)
{
	struct path p = {.mnt = mount_get(dir->mnt), .dentry = dentry_get(d)};
	struct mount *m;
	int ret;

	/* Something mounted on it is what we open. */
	if (d->nmounts && (m = mount_lookup(p.mnt, d))) {
		path_put(&p);
		p.mnt = m;
		p.dentry = dentry_get(m->root);
	}
	if (S_ISDIR(p.dentry->inode->mode))
		ret = -EISDIR; /* O_CREAT on an existing directory */
	else if (flags & O_DIRECTORY)
		ret = -ENOTDIR;
	else
		ret = vfs_open_path(t, &p, flags, out);
	path_put(&p);
	return ret;
}

/*
 * O_TMPFILE: an unnamed regular file in the directory path names (Linux's
 * vfs_tmpfile). Its dentry is anonymous ("#ino", found by no lookup);
 * linkat can give it a name unless O_EXCL said it never may.
 */
static int open_tmpfile(struct task *t, int dirfd, const char *path, int flags, uint32_t mode,
			unsigned lookup, struct file **out)
{
	struct inode *dirnode, *inode = NULL;
	struct posix_acl_inherit acls = {0};
	struct path dir, p;
	struct file *f;
	char name[32];
	int ret = vfs_lookup(t, dirfd, path, lookup | LOOKUP_DIRECTORY, &dir);

	if (ret)
		return ret;
	dirnode = dir.dentry->inode;
	if (dir.mnt->flags & MNT_RDONLY)
		ret = -EROFS;
	else
		ret = inode_permission(&t->creds, dirnode, MAY_WRITE | MAY_EXEC);
	if (ret == 0 && !dirnode->ops->tmpfile)
		ret = -EOPNOTSUPP;
	if (ret == 0)
		ret = vfs_prepare_change(dir.dentry);
	if (ret == 0) {
		mode = posix_acl_create(dirnode, (mode & 07777) | S_IFREG, t->fs->umask, &acls);
		ret = dirnode->ops->tmpfile(dirnode, mode, &t->creds, &inode);
		posix_acl_inherit_apply(ret ? NULL : inode, &acls);
	}
	if (ret) {
		path_put(&dir);
		return ret;
	}
	snprintf(name, sizeof(name), "#%llu", (unsigned long long)inode->ino);
	p.mnt = dir.mnt;
	p.dentry = dentry_alloc_anon(dir.dentry, name, inode);
	ret = landlock_check_open(t, &p, flags);
	if (ret == 0)
		ret = inode->ops->open
			      ? inode->ops->open(inode, p.dentry, flags & ~OPEN_TRANSIENT, &f)
			      : -EOPNOTSUPP;
	if (ret == 0) {
		if (!f->path.dentry)
			file_set_path(f, &p);
		if (!(flags & O_EXCL))
			inode_set(inode, I_LINKABLE);
		fsnotify_open(f, flags);
		*out = f;
	}
	dentry_put(p.dentry);
	inode_put(inode);
	path_put(&dir);
	return ret;
}

int vfs_open(struct task *t, int dirfd, const char *path, int flags, uint32_t mode,
	     unsigned resolve, struct file **out)
{
	unsigned lf = resolve | ((flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
		      ((flags & O_DIRECTORY) ? LOOKUP_DIRECTORY : 0);
	struct path from = {0};
	char *cur;
	int ret, depth = 0;

	if (flags & TMPFILE_BIT) {
		/* O_TMPFILE includes O_DIRECTORY; no O_CREAT; writable (Linux's checks). */
		if ((flags & (TMPFILE_BIT | O_DIRECTORY | O_CREAT)) != O_TMPFILE ||
		    !(acc_mask(flags) & MAY_WRITE))
			return -EINVAL;
		return open_tmpfile(t, dirfd, path, flags, mode, lf, out);
	}
	if (flags & O_PATH)
		flags &= O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
	if (!(flags & O_CREAT)) {
		struct path p;
		ret = vfs_lookup(t, dirfd, path, lf | ((flags & O_PATH) ? LOOKUP_EMPTY : 0), &p);
		if (ret)
			return ret;
		if (S_ISLNK(p.dentry->inode->mode) && !(flags & O_PATH))
			ret = -ELOOP; /* O_NOFOLLOW on a symlink */
		else
			ret = vfs_open_path(t, &p, flags, out);
		path_put(&p);
		return ret;
	}

	/* O_CREAT: the last component may be created. A symlink there is
	 * followed, and a dangling one creates its target, unless O_EXCL or
	 * O_NOFOLLOW say otherwise: resolve the target from the link's
	 * directory and go round again. */
	cur = xstrdup(path);
	for (;;) {
		struct parent_lookup pl;
		struct inode *dirnode;
		struct dentry *d;
		char *target;
		long len;

		ret = vfs_lookup_parent_from(t, dirfd, from.dentry ? &from : NULL, cur, resolve,
					     &pl);
		if (ret)
			break;
		if (pl.type != LAST_NORM || pl.trailing_slash) {
			path_put(&pl.parent);
			ret = -EISDIR;
			break;
		}
		dirnode = pl.parent.dentry->inode;
		pthread_mutex_lock(&dirnode->dir_lock);
		ret = vfs_lookup_child_locked(&pl.parent, pl.last, &d);
		if (ret) {
			pthread_mutex_unlock(&dirnode->dir_lock);
			path_put(&pl.parent);
			break;
		}
		if (!d->inode) {
			ret = create_locked(t, &pl.parent, d, flags, mode, out);
			pthread_mutex_unlock(&dirnode->dir_lock);
			dentry_put(d);
			path_put(&pl.parent);
			break;
		}
		pthread_mutex_unlock(&dirnode->dir_lock);
		if (flags & O_EXCL || !S_ISLNK(d->inode->mode) || (flags & O_NOFOLLOW) ||
		    d->inode->ops->get_link) {
			if (flags & O_EXCL)
				ret = -EEXIST;
			else if (!S_ISLNK(d->inode->mode))
				ret = open_existing(t, &pl.parent, d, flags, out);
			else if (flags & O_NOFOLLOW)
				ret = -ELOOP;
			else {
				/* A magic link (/proc/self/fd/N): open what it points at. */
				struct path p;
				ret = d->inode->ops->get_link(d->inode, t, &p);
				if (ret == 0) {
					ret = vfs_open_path(t, &p, flags, out);
					path_put(&p);
				} else if (ret == -ENXIO && (flags & O_DIRECTORY)) {
					/* A file with no path to open again (an eventfd,
					 * a socket) is no directory either. */
					ret = -ENOTDIR;
				}
			}
			dentry_put(d);
			path_put(&pl.parent);
			break;
		}
		/* A symlink to follow. */
		target = xmalloc(VFS_PATH_MAX);
		len = d->inode->ops->readlink
			      ? d->inode->ops->readlink(d->inode, target, VFS_PATH_MAX)
			      : -EINVAL;
		dentry_put(d);
		if (++depth > VFS_MAXSYMLINKS || len <= 0 || len >= VFS_PATH_MAX) {
			ret = len < 0 ? (int)len : (len == 0 ? -ENOENT : -ELOOP);
			free(target);
			path_put(&pl.parent);
			break;
		}
		target[len] = '\0';
		free(cur);
		cur = target;
		path_put(&from);
		from = pl.parent;
	}
	path_put(&from);
	free(cur);
	return ret;
}
