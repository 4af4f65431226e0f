/* Extended attributes: {get,set,list,remove}xattr, their l*, f* and *at forms. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/fsnotify.h"
#include "sentry/vfs/posix_acl.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#define XATTR_NAME_MAX_LEN 255
#define XATTR_SIZE_MAX_LEN 65536
#define XATTR_LIST_MAX_LEN 65536

/*
 * Where a call's inode is: the file open at fd (the f* calls), or path
 * (a guest string) from dirfd, with the *at calls' AT_SYMLINK_NOFOLLOW and
 * AT_EMPTY_PATH (an empty or NULL path then names dirfd's open file).
 */
struct xattr_at {
	int dirfd;
	uint64_t upath;
	bool byfd;
	unsigned flags;
	/* An empty path from AT_FDCWD names the cwd (getxattrat and setxattrat;
	 * the others look for a descriptor: EBADF, as Linux 6.13). */
	bool cwd_ok;
};

#define XATTR_FD(fd) ((struct xattr_at){.dirfd = (fd), .byfd = true})
#define XATTR_PATH(p, flags_) \
	((struct xattr_at){.dirfd = AT_FDCWD, .upath = (p), .flags = (flags_)})

/* Resolve the inode the call is about. */
static int xattr_target(struct task *t, const struct xattr_at *at, struct path *p, bool *rdonly)
{
	char path[VFS_PATH_MAX];
	bool byfd = at->byfd;

	if (!byfd && (at->flags & AT_EMPTY_PATH)) {
		int ret = at->upath ? path_in_empty_ok(t, at->upath, path) : 0;
		if (ret)
			return ret;
		byfd = !at->upath || !path[0];
	} else if (!byfd) {
		int ret = path_in(t, at->upath, path);
		if (ret)
			return ret;
	}
	if (byfd && at->cwd_ok && at->dirfd == AT_FDCWD) {
		fs_get_cwd(t->fs, p);
	} else if (byfd) {
		struct file *f = fd_get(t->files, at->dirfd);
		if (!f)
			return -EBADF;
		if (!f->path.dentry || !f->path.dentry->inode) {
			file_put(f);
			return -EOPNOTSUPP;
		}
		*p = f->path;
		path_get(p);
		file_put(f);
	} else {
		int ret = vfs_lookup(t, at->dirfd, path,
				     (at->flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, p);
		if (ret)
			return ret;
	}
	*rdonly = p->mnt && (p->mnt->flags & MNT_RDONLY);
	return 0;
}

/*
 * Linux's xattr_permission: the VFS's say on name for inode (mask MAY_READ
 * or MAY_WRITE). user.* names belong to regular files and directories only
 * (elsewhere reading finds nothing, writing is EPERM), and in a sticky
 * directory to its owner; trusted.* needs CAP_SYS_ADMIN; security.* and
 * system.* are the filesystem's business.
 */
static int xattr_permission(struct task *t, struct inode *inode, const char *name, int mask)
{
	if (!strncmp(name, "security.", 9) || !strncmp(name, "system.", 7))
		return 0;
	if (!strncmp(name, "trusted.", 8))
		return creds_capable(&t->creds, KCAP_SYS_ADMIN) ? 0
		       : (mask & MAY_WRITE)			? -EPERM
								: -ENODATA;
	if (!strncmp(name, "user.", 5)) {
		if (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode))
			return (mask & MAY_WRITE) ? -EPERM : -ENODATA;
		if (S_ISDIR(inode->mode) && (inode->mode & S_ISVTX) && (mask & MAY_WRITE) &&
		    !inode_owner_or_capable(&t->creds, inode))
			return -EPERM;
	}
	return inode_permission(&t->creds, inode, mask);
}

static int name_in(struct task *t, uint64_t uname, char *name)
{
	long n = mm_strncpy_in(t->mm, name, uname, XATTR_NAME_MAX_LEN + 1);

	if (n == -ENAMETOOLONG)
		return -ERANGE;
	if (n < 0)
		return (int)n;
	return n == 0 ? -ERANGE : 0;
}

static long do_getxattr(struct task *t, const struct xattr_at *at, uint64_t uname, uint64_t uval,
			uint64_t size)
{
	char name[XATTR_NAME_MAX_LEN + 1];
	struct path p;
	bool ro;
	void *buf = NULL;
	long ret = name_in(t, uname, name);

	if (ret)
		return ret;
	ret = xattr_target(t, at, &p, &ro);
	if (ret)
		return ret;
	size = MIN(size, (uint64_t)XATTR_SIZE_MAX_LEN);
	if (size)
		buf = xmalloc(size);
	if (posix_acl_type(name) >= 0)
		ret = posix_acl_xattr_get(t, p.dentry->inode, posix_acl_type(name), buf, size);
	else if ((ret = xattr_permission(t, p.dentry->inode, name, MAY_READ)))
		;
	else
		ret = p.dentry->inode->ops->getxattr
			      ? p.dentry->inode->ops->getxattr(p.dentry->inode, name, buf, size)
			      : -EOPNOTSUPP;
	if (ret > 0 && size && mm_copy_out(t->mm, uval, buf, (size_t)ret) < 0)
		ret = -EFAULT;
	free(buf);
	path_put(&p);
	return ret;
}

static long do_setxattr(struct task *t, const struct xattr_at *at, uint64_t uname, uint64_t uval,
			uint64_t size, int flags)
{
	char name[XATTR_NAME_MAX_LEN + 1];
	struct path p;
	bool ro;
	void *buf;
	long ret;

	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	if (size > XATTR_SIZE_MAX_LEN)
		return -E2BIG;
	ret = name_in(t, uname, name);
	if (ret)
		return ret;
	buf = xmalloc(size ? size : 1);
	if (size && mm_copy_in(t->mm, buf, uval, size) < 0) {
		free(buf);
		return -EFAULT;
	}
	ret = xattr_target(t, at, &p, &ro);
	if (ret == 0) {
		struct inode *i = p.dentry->inode;
		if (ro)
			ret = -EROFS;
		else if (posix_acl_type(name) >= 0)
			ret = posix_acl_xattr_set(t, p.dentry, posix_acl_type(name), buf, size,
						  false);
		else if ((ret = xattr_permission(t, i, name, MAY_WRITE)))
			;
		else if (!i->ops->setxattr)
			ret = -EOPNOTSUPP;
		else if ((ret = vfs_prepare_change(p.dentry)))
			;
		else
			ret = i->ops->setxattr(i, name, buf, size, flags);
		if (ret == 0) {
			if (posix_acl_type(name) < 0)
				inode_touch(i, ATTR_CTIME);
			fsnotify_xattr(p.dentry);
		}
		path_put(&p);
	}
	free(buf);
	return ret;
}

static long do_listxattr(struct task *t, const struct xattr_at *at, uint64_t ulist, uint64_t size)
{
	struct path p;
	bool ro;
	char *buf = NULL;
	long ret = xattr_target(t, at, &p, &ro);

	if (ret)
		return ret;
	size = MIN(size, (uint64_t)XATTR_LIST_MAX_LEN);
	if (size)
		buf = xmalloc(size);
	if (!p.dentry->inode->ops->listxattr)
		ret = 0; /* no attributes */
	else
		ret = p.dentry->inode->ops->listxattr(p.dentry->inode, buf, size);
	if (ret > 0 && size && mm_copy_out(t->mm, ulist, buf, (size_t)ret) < 0)
		ret = -EFAULT;
	free(buf);
	path_put(&p);
	return ret;
}

static long do_removexattr(struct task *t, const struct xattr_at *at, uint64_t uname)
{
	char name[XATTR_NAME_MAX_LEN + 1];
	struct path p;
	bool ro;
	long ret = name_in(t, uname, name);

	if (ret)
		return ret;
	ret = xattr_target(t, at, &p, &ro);
	if (ret)
		return ret;
	if (ro)
		ret = -EROFS;
	else if (posix_acl_type(name) >= 0)
		ret = posix_acl_xattr_set(t, p.dentry, posix_acl_type(name), NULL, 0, true);
	else if ((ret = xattr_permission(t, p.dentry->inode, name, MAY_WRITE)))
		;
	else if (!p.dentry->inode->ops->removexattr)
		ret = -EOPNOTSUPP;
	else if ((ret = vfs_prepare_change(p.dentry)))
		;
	else
		ret = p.dentry->inode->ops->removexattr(p.dentry->inode, name);
	if (ret == 0)
		fsnotify_xattr(p.dentry);
	path_put(&p);
	return ret;
}

SYSCALL(getxattr)
{
	return do_getxattr(t, &XATTR_PATH(a->a[0], 0), a->a[1], a->a[2], a->a[3]);
}

SYSCALL(lgetxattr)
{
	return do_getxattr(t, &XATTR_PATH(a->a[0], AT_SYMLINK_NOFOLLOW), a->a[1], a->a[2], a->a[3]);
}

SYSCALL(fgetxattr)
{
	return do_getxattr(t, &XATTR_FD((int)a->a[0]), a->a[1], a->a[2], a->a[3]);
}

SYSCALL(setxattr)
{
	return do_setxattr(t, &XATTR_PATH(a->a[0], 0), a->a[1], a->a[2], a->a[3], (int)a->a[4]);
}

SYSCALL(lsetxattr)
{
	return do_setxattr(t, &XATTR_PATH(a->a[0], AT_SYMLINK_NOFOLLOW), a->a[1], a->a[2], a->a[3],
			   (int)a->a[4]);
}

SYSCALL(fsetxattr)
{
	return do_setxattr(t, &XATTR_FD((int)a->a[0]), a->a[1], a->a[2], a->a[3], (int)a->a[4]);
}

SYSCALL(listxattr)
{
	return do_listxattr(t, &XATTR_PATH(a->a[0], 0), a->a[1], a->a[2]);
}

SYSCALL(llistxattr)
{
	return do_listxattr(t, &XATTR_PATH(a->a[0], AT_SYMLINK_NOFOLLOW), a->a[1], a->a[2]);
}

SYSCALL(flistxattr)
{
	return do_listxattr(t, &XATTR_FD((int)a->a[0]), a->a[1], a->a[2]);
}

SYSCALL(removexattr)
{
	return do_removexattr(t, &XATTR_PATH(a->a[0], 0), a->a[1]);
}

SYSCALL(lremovexattr)
{
	return do_removexattr(t, &XATTR_PATH(a->a[0], AT_SYMLINK_NOFOLLOW), a->a[1]);
}

SYSCALL(fremovexattr)
{
	return do_removexattr(t, &XATTR_FD((int)a->a[0]), a->a[1]);
}

/*
 * The *at calls (Linux 6.13): set and get take their value in a struct
 * xattr_args of usize bytes, which may grow; bytes past the ones known must
 * be zero (copy_struct_from_user).
 */
struct guest_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

#define XATTR_ARGS_SIZE_VER0 16
#define XATTR_AT_FLAGS	     (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)

static int xattr_args_in(struct task *t, uint64_t uargs, uint64_t usize,
			 struct guest_xattr_args *args)
{
	if (usize < XATTR_ARGS_SIZE_VER0)
		return -EINVAL;
	if (usize > 4096)
		return -E2BIG;
	memset(args, 0, sizeof(*args));
	if (mm_copy_in(t->mm, args, uargs, MIN(usize, sizeof(*args))) < 0)
		return -EFAULT;
	for (uint64_t off = sizeof(*args); off < usize;) {
		uint8_t rest[256];
		size_t n = (size_t)MIN(usize - off, (uint64_t)sizeof(rest));
		if (mm_copy_in(t->mm, rest, uargs + off, n) < 0)
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (rest[i])
				return -E2BIG;
		off += n;
	}
	return 0;
}

/* setxattrat(dirfd, path, at_flags, name, args, usize) */
SYSCALL(setxattrat)
{
	struct xattr_at at = {.dirfd = (int)a->a[0],
			      .upath = a->a[1],
			      .flags = (unsigned)a->a[2],
			      .cwd_ok = true};
	struct guest_xattr_args args;
	int ret = xattr_args_in(t, a->a[4], a->a[5], &args);

	if (ret)
		return ret;
	if (at.flags & ~(unsigned)XATTR_AT_FLAGS)
		return -EINVAL;
	return do_setxattr(t, &at, a->a[3], args.value, args.size, (int)args.flags);
}

/* getxattrat(dirfd, path, at_flags, name, args, usize) */
SYSCALL(getxattrat)
{
	struct xattr_at at = {.dirfd = (int)a->a[0],
			      .upath = a->a[1],
			      .flags = (unsigned)a->a[2],
			      .cwd_ok = true};
	struct guest_xattr_args args;
	int ret = xattr_args_in(t, a->a[4], a->a[5], &args);

	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	if (at.flags & ~(unsigned)XATTR_AT_FLAGS)
		return -EINVAL;
	return do_getxattr(t, &at, a->a[3], args.value, args.size);
}

/* listxattrat(dirfd, path, at_flags, list, size) */
SYSCALL(listxattrat)
{
	struct xattr_at at = {.dirfd = (int)a->a[0], .upath = a->a[1], .flags = (unsigned)a->a[2]};

	if (at.flags & ~(unsigned)XATTR_AT_FLAGS)
		return -EINVAL;
	return do_listxattr(t, &at, a->a[3], a->a[4]);
}

/* removexattrat(dirfd, path, at_flags, name) */
SYSCALL(removexattrat)
{
	struct xattr_at at = {.dirfd = (int)a->a[0], .upath = a->a[1], .flags = (unsigned)a->a[2]};

	if (at.flags & ~(unsigned)XATTR_AT_FLAGS)
		return -EINVAL;
	return do_removexattr(t, &at, a->a[3]);
}
