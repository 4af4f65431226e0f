/* Attributes and data: chmod, chown, utimes, truncate, fallocate, fsync. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fsize.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/fsnotify.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* Apply attr to dirfd/path (or to dirfd itself when path is NULL/empty). */
static long setattr_at(struct task *t, int dirfd, uint64_t upath, bool follow, bool empty_ok,
		       struct iattr *attr)
{
	char path[VFS_PATH_MAX];
	struct path p;
	long ret;

	if (upath) {
		ret = empty_ok ? path_in_empty_ok(t, upath, path) : path_in(t, upath, path);
		if (ret)
			return ret;
	}
	if (upath && empty_ok && !path[0] && dirfd == AT_FDCWD) {
		fs_get_cwd(t->fs, &p); /* an empty path from AT_FDCWD: the cwd */
	} else if (!upath || (empty_ok && !path[0])) {
		/* fchmod/fchown/futimens need an open file; an empty path
		 * (AT_EMPTY_PATH) names what the descriptor is at, O_PATH too. */
		struct file *f = upath ? fd_get_raw(t->files, dirfd) : fd_get(t->files, dirfd);
		if (!f)
			return -EBADF;
		if (!f->path.dentry) {
			file_put(f);
			return -EPERM; /* pipes and host streams: nothing to change */
		}
		p = f->path;
		path_get(&p);
		file_put(f);
	} else {
		ret = vfs_lookup(t, dirfd, path, follow ? LOOKUP_FOLLOW : 0, &p);
		if (ret)
			return ret;
	}
	ret = vfs_setattr(t, &p, attr);
	path_put(&p);
	return ret;
}

/* chmod of a path (never NULL: that is EFAULT, not the descriptor). */
static long do_chmod(struct task *t, int dirfd, uint64_t upath, uint32_t mode, unsigned flags)
{
	struct iattr attr = {.valid = ATTR_MODE, .mode = mode & 07777};

	if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!upath)
		return -EFAULT;
	return setattr_at(t, dirfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), flags & AT_EMPTY_PATH,
			  &attr);
}

SYSCALL(chmod)
{
	return do_chmod(t, AT_FDCWD, a->a[0], (uint32_t)a->a[1], 0);
}

SYSCALL(fchmod)
{
	struct iattr attr = {.valid = ATTR_MODE, .mode = (uint32_t)a->a[1] & 07777};

	return setattr_at(t, (int)a->a[0], 0, true, false, &attr);
}

SYSCALL(fchmodat)
{
	/* fchmodat has no flags argument in the kernel ABI (fchmodat2 does). */
	return do_chmod(t, (int)a->a[0], a->a[1], (uint32_t)a->a[2], 0);
}

/* fchmodat2(dirfd, path, mode, flags): fchmodat with AT_SYMLINK_NOFOLLOW
 * (a symlink's mode: EOPNOTSUPP) and AT_EMPTY_PATH. */
SYSCALL(fchmodat2)
{
	return do_chmod(t, (int)a->a[0], a->a[1], (uint32_t)a->a[2], (unsigned)a->a[3]);
}

/* chown's ids, from the caller's user namespace (-1: unchanged); an id
 * without a name there is EINVAL. */
static int chown_attr(const struct task *t, uint32_t uid, uint32_t gid, struct iattr *attr)
{
	if (!uid_in(t->creds.user_ns, uid, &uid) || !gid_in(t->creds.user_ns, gid, &gid))
		return -EINVAL;
	if (uid != (uint32_t)-1) {
		attr->valid |= ATTR_UID;
		attr->uid = uid;
	}
	if (gid != (uint32_t)-1) {
		attr->valid |= ATTR_GID;
		attr->gid = gid;
	}
	return 0;
}

static long do_chown(struct task *t, int dirfd, uint64_t upath, uint32_t uid, uint32_t gid,
		     int flags)
{
	struct iattr attr = {0};

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (chown_attr(t, uid, gid, &attr) < 0)
		return -EINVAL;
	return setattr_at(t, dirfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), flags & AT_EMPTY_PATH,
			  &attr);
}

SYSCALL(chown)
{
	return do_chown(t, AT_FDCWD, a->a[0], (uint32_t)a->a[1], (uint32_t)a->a[2], 0);
}

SYSCALL(lchown)
{
	return do_chown(t, AT_FDCWD, a->a[0], (uint32_t)a->a[1], (uint32_t)a->a[2],
			AT_SYMLINK_NOFOLLOW);
}

SYSCALL(fchown)
{
	struct iattr attr = {0};
	uint32_t uid = (uint32_t)a->a[1], gid = (uint32_t)a->a[2];

	if (chown_attr(t, uid, gid, &attr) < 0)
		return -EINVAL;
	return setattr_at(t, (int)a->a[0], 0, true, false, &attr);
}

SYSCALL(fchownat)
{
	return do_chown(t, (int)a->a[0], a->a[1], (uint32_t)a->a[2], (uint32_t)a->a[3],
			(int)a->a[4]);
}

/* Turn two timespecs (or NULL: now) into the time part of an iattr. */
static int times_in(struct task *t, uint64_t utimes, struct iattr *attr)
{
	struct timespec ts[2];

	attr->valid |= ATTR_ATIME | ATTR_MTIME;
	if (!utimes) {
		attr->valid |= ATTR_ATIME_NOW | ATTR_MTIME_NOW;
		return 0;
	}
	if (mm_copy_in(t->mm, ts, utimes, sizeof(ts)) < 0)
		return -EFAULT;
	for (int i = 0; i < 2; i++) {
		unsigned set = i ? ATTR_MTIME : ATTR_ATIME,
			 now = i ? ATTR_MTIME_NOW : ATTR_ATIME_NOW;
		if (ts[i].tv_nsec == UTIME_OMIT) {
			attr->valid &= ~set;
		} else if (ts[i].tv_nsec == UTIME_NOW) {
			attr->valid |= now;
		} else if (ts[i].tv_nsec < 0 || ts[i].tv_nsec >= 1000000000) {
			return -EINVAL;
		}
	}
	attr->atime = ts[0];
	attr->mtime = ts[1];
	return 0;
}

SYSCALL(utimensat)
{
	int flags = (int)a->a[3];
	struct iattr attr = {0};
	int ret;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	ret = times_in(t, a->a[2], &attr);
	if (ret)
		return ret;
	if (!(attr.valid & (ATTR_ATIME | ATTR_MTIME)))
		return 0; /* both UTIME_OMIT */
	return setattr_at(t, (int)a->a[0], a->a[1], !(flags & AT_SYMLINK_NOFOLLOW),
			  flags & AT_EMPTY_PATH, &attr);
}

/* utimes/futimesat take microseconds. */
static long do_utimes(struct task *t, int dirfd, uint64_t upath, uint64_t utv)
{
	struct iattr attr = {.valid = ATTR_ATIME | ATTR_MTIME};
	struct {
		int64_t sec, usec;
	} tv[2];

	if (!utv) {
		attr.valid |= ATTR_ATIME_NOW | ATTR_MTIME_NOW;
	} else {
		if (mm_copy_in(t->mm, tv, utv, sizeof(tv)) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			if (tv[i].usec < 0 || tv[i].usec >= 1000000)
				return -EINVAL;
		attr.atime = (struct timespec){tv[0].sec, tv[0].usec * 1000};
		attr.mtime = (struct timespec){tv[1].sec, tv[1].usec * 1000};
	}
	return setattr_at(t, dirfd, upath, true, false, &attr);
}

SYSCALL(utimes)
{
	return do_utimes(t, AT_FDCWD, a->a[0], a->a[1]);
}

SYSCALL(futimesat)
{
	return do_utimes(t, (int)a->a[0], a->a[1], a->a[2]);
}

SYSCALL(utime)
{
	struct iattr attr = {.valid = ATTR_ATIME | ATTR_MTIME};
	int64_t tb[2];

	if (!a->a[1]) {
		attr.valid |= ATTR_ATIME_NOW | ATTR_MTIME_NOW;
	} else {
		if (mm_copy_in(t->mm, tb, a->a[1], sizeof(tb)) < 0)
			return -EFAULT;
		attr.atime = (struct timespec){tb[0], 0};
		attr.mtime = (struct timespec){tb[1], 0};
	}
	return setattr_at(t, AT_FDCWD, a->a[0], true, false, &attr);
}

SYSCALL(truncate)
{
	char path[VFS_PATH_MAX];
	/* notify_change: a size change sets ctime and mtime, as ftruncate's */
	struct iattr attr = {.valid = ATTR_SIZE | ATTR_MTIME | ATTR_MTIME_NOW | ATTR_CTIME};
	struct path p;
	int ret;

	if ((int64_t)a->a[1] < 0)
		return -EINVAL;
	attr.size = a->a[1];
	ret = path_in(t, a->a[0], path);
	if (ret)
		return ret;
	ret = vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	if (S_ISDIR(p.dentry->inode->mode))
		ret = -EISDIR;
	else if (!S_ISREG(p.dentry->inode->mode))
		ret = -EINVAL;
	else
		ret = inode_permission(&t->creds, p.dentry->inode, MAY_WRITE);
	if (ret == 0 && !(p.mnt->flags & MNT_RDONLY))
		ret = vfs_prepare_change(p.dentry);
	if (ret == 0 && !(p.mnt->flags & MNT_RDONLY))
		ret = (int)fsize_grow_check(t, p.dentry->inode, attr.size);
	if (ret == 0) {
		/* Truncating needs write access, not ownership. */
		ret = (p.mnt->flags & MNT_RDONLY) ? -EROFS
		      : p.dentry->inode->ops->setattr
			      ? p.dentry->inode->ops->setattr(p.dentry->inode, &attr)
			      : -EPERM;
	}
	if (ret == 0)
		fsnotify_change(p.dentry, attr.valid);
	path_put(&p);
	return ret;
}

SYSCALL(ftruncate)
{
	struct iattr attr = {.valid = ATTR_SIZE | ATTR_MTIME | ATTR_MTIME_NOW | ATTR_CTIME};
	struct file *f;
	int ret;

	if ((int64_t)a->a[1] < 0)
		return -EINVAL;
	attr.size = a->a[1];
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	if (!f->inode || !S_ISREG(f->inode->mode) || !flags_writable(file_getfl(f)))
		ret = -EINVAL;
	else if (!f->inode->ops->setattr)
		ret = -EINVAL;
	else if (fsize_grow_check(t, f->inode, attr.size))
		ret = -EFBIG; /* (and SIGXFSZ) */
	else
		ret = f->inode->ops->setattr(f->inode, &attr);
	if (ret == 0 && f->path.dentry)
		fsnotify_change(f->path.dentry, attr.valid);
	file_put(f);
	return ret;
}

SYSCALL(fallocate)
{
	struct file *f;
	int mode = (int)a->a[1];
	int64_t off = (int64_t)a->a[2], len = (int64_t)a->a[3];
	int ret;

	if (off < 0 || len <= 0)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	if (!flags_writable(file_getfl(f)))
		ret = -EBADF;
	else if (f->inode && S_ISFIFO(f->inode->mode))
		ret = -ESPIPE;
	else if (f->inode && S_ISDIR(f->inode->mode))
		ret = -EISDIR;
	else if (!f->inode || !S_ISREG(f->inode->mode))
		ret = -ENODEV;
	else if (!f->ops->fallocate)
		ret = -EOPNOTSUPP;
	else if (len > INT64_MAX - off)
		ret = -EFBIG;
	else if (!(mode & FALLOC_FL_KEEP_SIZE) && fsize_grow_check(t, f->inode, off + len))
		ret = -EFBIG; /* (and SIGXFSZ) */
	else
		ret = f->ops->fallocate(f, mode, off, len);
	if (ret == 0)
		fsnotify_modify(f);
	file_put(f);
	return ret;
}

static long do_fsync(struct task *t, int fd, bool datasync)
{
	struct file *f = fd_get(t->files, fd);
	int ret;

	if (!f)
		return -EBADF;
	ret = f->ops->fsync ? f->ops->fsync(f, datasync) : -EINVAL;
	file_put(f);
	return ret;
}

/* The file type of f (S_IFMT bits): its inode's, or its host file's. */
static uint32_t file_type(struct file *f)
{
	int hostfd = hostfile_fd(f);
	struct stat st;

	if (f->inode)
		return f->inode->mode & S_IFMT;
	return hostfd >= 0 && fstat(hostfd, &st) == 0 ? st.st_mode & S_IFMT : 0;
}

/* posix_fadvise: Linux's checks (generic_fadvise), then nothing to do: the
 * sentry keeps no read-ahead state and its caches are memory anyway. */
SYSCALL(fadvise64)
{
	int64_t len = (int64_t)a->a[2];
	int advice = (int)a->a[3];
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret = 0;

	if (!f)
		return -EBADF;
	if (file_type(f) == S_IFIFO)
		ret = -ESPIPE;
	else if (len < 0 || advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE)
		ret = -EINVAL;
	file_put(f);
	return ret;
}

/* readahead: a hint (as fadvise's WILLNEED), for a file open for reading
 * that has pages: a regular file (Linux: EINVAL for others). */
SYSCALL(readahead)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret = 0;

	if (!f)
		return -EBADF;
	if (!flags_readable(file_getfl(f)))
		ret = -EBADF;
	else if (file_type(f) != S_IFREG)
		ret = -EINVAL;
	file_put(f);
	return ret;
}

/* sync_file_range: Linux's checks, then fdatasync's work for the range's
 * file when SYNC_FILE_RANGE_WRITE is asked (the sandbox writes back a
 * file's pages as a whole). */
SYSCALL(sync_file_range)
{
	int64_t off = (int64_t)a->a[1], n = (int64_t)a->a[2];
	unsigned flags = (unsigned)a->a[3];
	uint32_t type;
	struct file *f;
	long ret = 0;

	if (flags & ~7u) /* WAIT_BEFORE | WRITE | WAIT_AFTER */
		return -EINVAL;
	if (off < 0 || n < 0 || off > INT64_MAX - n)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	type = file_type(f);
	if (type != S_IFREG && type != S_IFDIR && type != S_IFBLK)
		ret = -ESPIPE;
	else if ((flags & 2) && f->ops->fsync)
		ret = f->ops->fsync(f, true);
	file_put(f);
	return ret;
}

SYSCALL(fsync)
{
	return do_fsync(t, (int)a->a[0], false);
}

SYSCALL(fdatasync)
{
	return do_fsync(t, (int)a->a[0], true);
}

SYSCALL(sync)
{
	return 0;
}

SYSCALL(syncfs)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);

	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}
