/* stat and friends, statfs, access, readlink. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int file_stat(struct file *f, struct kstat *st)
{
	if (f->ops->fstat)
		return f->ops->fstat(f, st);
	if (f->inode) {
		if (f->inode->ops->getattr)
			f->inode->ops->getattr(f->inode);
		inode_stat(f->inode, st);
		return 0;
	}
	return -EBADF;
}

static int stat_out(struct task *t, uint64_t addr, const struct kstat *k)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = k->dev;
	st.st_ino = k->ino;
	st.st_nlink = k->nlink;
	st.st_mode = k->mode;
	st.st_uid = uid_out(t->creds.user_ns, k->uid);
	st.st_gid = gid_out(t->creds.user_ns, k->gid);
	st.st_rdev = k->rdev;
	st.st_size = (off_t)k->size;
	st.st_blksize = k->blksize;
	st.st_blocks = (blkcnt_t)k->blocks;
	st.st_atim = k->atime;
	st.st_mtim = k->mtime;
	st.st_ctim = k->ctime;
	return mm_copy_out(t->mm, addr, &st, sizeof(st));
}

/* stat of dirfd/path with AT_* flags, including the descriptor-only forms. */
static int do_stat(struct task *t, int dirfd, uint64_t upath, int flags, struct kstat *st)
{
	char path[VFS_PATH_MAX];
	long n = mm_strncpy_in(t->mm, path, upath, sizeof(path));

	if (n < 0)
		return (int)n;
	if (n == 0 && (flags & AT_EMPTY_PATH)) {
		struct file *f;
		int ret;
		if (dirfd == AT_FDCWD)
			return vfs_stat(t, AT_FDCWD, ".", LOOKUP_FOLLOW, st);
		f = fd_get_raw(t->files, dirfd);
		if (!f)
			return -EBADF;
		ret = file_stat(f, st);
		file_put(f);
		return ret;
	}
	return vfs_stat(t, dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, st);
}

SYSCALL(fstat)
{
	struct file *f = fd_get_raw(t->files, (int)a->a[0]);
	struct kstat st;
	int ret;

	if (!f)
		return -EBADF;
	ret = file_stat(f, &st);
	file_put(f);
	return ret ? ret : stat_out(t, a->a[1], &st);
}

SYSCALL(stat)
{
	struct kstat st;
	int ret = do_stat(t, AT_FDCWD, a->a[0], 0, &st);

	return ret ? ret : stat_out(t, a->a[1], &st);
}

SYSCALL(lstat)
{
	struct kstat st;
	int ret = do_stat(t, AT_FDCWD, a->a[0], AT_SYMLINK_NOFOLLOW, &st);

	return ret ? ret : stat_out(t, a->a[1], &st);
}

SYSCALL(newfstatat)
{
	int flags = (int)a->a[3];
	struct kstat st;
	int ret;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH))
		return -EINVAL;
	ret = do_stat(t, (int)a->a[0], a->a[1], flags, &st);
	return ret ? ret : stat_out(t, a->a[2], &st);
}

SYSCALL(statx)
{
	int flags = (int)a->a[2];
	unsigned mask = (unsigned)a->a[3];
	struct statx sx;
	struct kstat st;
	int ret;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (mask & STATX__RESERVED)
		return -EINVAL;
	ret = do_stat(t, (int)a->a[0], a->a[1], flags, &st);
	if (ret)
		return ret;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = STATX_BASIC_STATS;
	sx.stx_blksize = st.blksize;
	sx.stx_nlink = (uint32_t)st.nlink;
	sx.stx_uid = uid_out(t->creds.user_ns, st.uid);
	sx.stx_gid = gid_out(t->creds.user_ns, st.gid);
	sx.stx_mode = (uint16_t)st.mode;
	sx.stx_ino = st.ino;
	sx.stx_size = st.size;
	sx.stx_blocks = st.blocks;
	sx.stx_atime.tv_sec = st.atime.tv_sec;
	sx.stx_atime.tv_nsec = (uint32_t)st.atime.tv_nsec;
	sx.stx_mtime.tv_sec = st.mtime.tv_sec;
	sx.stx_mtime.tv_nsec = (uint32_t)st.mtime.tv_nsec;
	sx.stx_ctime.tv_sec = st.ctime.tv_sec;
	sx.stx_ctime.tv_nsec = (uint32_t)st.ctime.tv_nsec;
	sx.stx_rdev_major = major(st.rdev);
	sx.stx_rdev_minor = minor(st.rdev);
	sx.stx_dev_major = major(st.dev);
	sx.stx_dev_minor = minor(st.dev);
	return mm_copy_out(t->mm, a->a[4], &sx, sizeof(sx));
}

static int statfs_out(struct task *t, uint64_t addr, const struct statfs_info *s)
{
	struct statfs out;

	memset(&out, 0, sizeof(out));
	out.f_type = (long)s->type;
	out.f_bsize = (long)s->bsize;
	out.f_blocks = s->blocks;
	out.f_bfree = s->bfree;
	out.f_bavail = s->bavail;
	out.f_files = s->files;
	out.f_ffree = s->ffree;
	out.f_namelen = (long)s->namelen;
	out.f_frsize = (long)s->frsize;
	out.f_flags = (long)s->flags | 0x20 /* ST_VALID */;
	return mm_copy_out(t->mm, addr, &out, sizeof(out));
}

SYSCALL(statfs)
{
	char path[VFS_PATH_MAX];
	struct statfs_info s;
	struct path p;
	int ret = path_in(t, a->a[0], path);

	if (ret)
		return ret;
	ret = vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	ret = vfs_statfs(&p, &s);
	path_put(&p);
	return ret ? ret : statfs_out(t, a->a[1], &s);
}

SYSCALL(fstatfs)
{
	struct file *f = fd_get_raw(t->files, (int)a->a[0]);
	struct statfs_info s;
	int ret;

	if (!f)
		return -EBADF;
	if (f->path.dentry) {
		ret = vfs_statfs(&f->path, &s);
	} else {
		/* Pipes and inherited host streams: an anonymous filesystem. */
		memset(&s, 0, sizeof(s));
		s.bsize = s.frsize = 4096;
		s.namelen = 255;
		s.type = f->inode ? f->inode->sb->magic : 0x50495045;
		ret = 0;
	}
	file_put(f);
	return ret ? ret : statfs_out(t, a->a[1], &s);
}

static long do_access(struct task *t, int dirfd, uint64_t upath, int mode, int flags)
{
	char path[VFS_PATH_MAX];
	long n = mm_strncpy_in(t->mm, path, upath, sizeof(path));

	if (n < 0)
		return n;
	if (n == 0 && !(flags & AT_EMPTY_PATH))
		return -ENOENT;
	return vfs_access(t, dirfd, path, mode, flags);
}

SYSCALL(access)
{
	return do_access(t, AT_FDCWD, a->a[0], (int)a->a[1], 0);
}

SYSCALL(faccessat)
{
	return do_access(t, (int)a->a[0], a->a[1], (int)a->a[2], 0);
}

SYSCALL(faccessat2)
{
	return do_access(t, (int)a->a[0], a->a[1], (int)a->a[2], (int)a->a[3]);
}

static long do_readlink(struct task *t, int dirfd, uint64_t upath, uint64_t ubuf, uint64_t size)
{
	char path[VFS_PATH_MAX], target[VFS_PATH_MAX];
	long n;

	if ((int64_t)size <= 0)
		return -EINVAL;
	n = mm_strncpy_in(t->mm, path, upath, sizeof(path));
	if (n < 0)
		return n;
	if (n == 0 && dirfd == AT_FDCWD)
		return -ENOENT;
	n = vfs_readlink(t, dirfd, path, target, sizeof(target));
	if (n < 0)
		return n;
	n = MIN(n, (long)size);
	if (mm_copy_out(t->mm, ubuf, target, (size_t)n) < 0)
		return -EFAULT;
	return n;
}

SYSCALL(readlink)
{
	return do_readlink(t, AT_FDCWD, a->a[0], a->a[1], a->a[2]);
}

SYSCALL(readlinkat)
{
	return do_readlink(t, (int)a->a[0], a->a[1], a->a[2], a->a[3]);
}
