/* Names: mkdir, rmdir, unlink, rename, link, symlink, mknod (and their *at forms). */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

/* Copy in one or two paths; the buffers are freed by the caller. */
static int two_paths(struct task *t, uint64_t a, uint64_t b, char **pa, char **pb)
{
	int ret;

	*pa = xmalloc(VFS_PATH_MAX);
	*pb = xmalloc(VFS_PATH_MAX);
	ret = path_in(t, a, *pa);
	if (ret == 0)
		ret = path_in(t, b, *pb);
	return ret;
}

static long do_mkdir(struct task *t, int dirfd, uint64_t upath, uint32_t mode)
{
	char path[VFS_PATH_MAX];
	int ret = path_in(t, upath, path);

	return ret ? ret : vfs_mkdir(t, dirfd, path, mode);
}

SYSCALL(mkdir)
{
	return do_mkdir(t, AT_FDCWD, a->a[0], (uint32_t)a->a[1]);
}

SYSCALL(mkdirat)
{
	return do_mkdir(t, (int)a->a[0], a->a[1], (uint32_t)a->a[2]);
}

static long do_unlink(struct task *t, int dirfd, uint64_t upath, bool rmdir)
{
	char path[VFS_PATH_MAX];
	int ret = path_in(t, upath, path);

	return ret ? ret : vfs_unlink(t, dirfd, path, rmdir);
}

SYSCALL(rmdir)
{
	return do_unlink(t, AT_FDCWD, a->a[0], true);
}

SYSCALL(unlink)
{
	return do_unlink(t, AT_FDCWD, a->a[0], false);
}

SYSCALL(unlinkat)
{
	int flags = (int)a->a[2];

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return do_unlink(t, (int)a->a[0], a->a[1], flags & AT_REMOVEDIR);
}

static long do_rename(struct task *t, int olddirfd, uint64_t oldp, int newdirfd, uint64_t newp,
		      unsigned flags)
{
	char *o, *n;
	long ret = two_paths(t, oldp, newp, &o, &n);

	if (ret == 0)
		ret = vfs_rename(t, olddirfd, o, newdirfd, n, flags);
	free(o);
	free(n);
	return ret;
}

SYSCALL(rename)
{
	return do_rename(t, AT_FDCWD, a->a[0], AT_FDCWD, a->a[1], 0);
}

SYSCALL(renameat)
{
	return do_rename(t, (int)a->a[0], a->a[1], (int)a->a[2], a->a[3], 0);
}

SYSCALL(renameat2)
{
	return do_rename(t, (int)a->a[0], a->a[1], (int)a->a[2], a->a[3], (unsigned)a->a[4]);
}

static long do_link(struct task *t, int olddirfd, uint64_t oldp, int newdirfd, uint64_t newp,
		    int flags)
{
	char *o = xmalloc(VFS_PATH_MAX), *n = xmalloc(VFS_PATH_MAX);
	long ret = (flags & AT_EMPTY_PATH) ? path_in_empty_ok(t, oldp, o) : path_in(t, oldp, o);

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH (Linux). */
	if (ret == 0 && (flags & AT_EMPTY_PATH) && !creds_capable(&t->creds, KCAP_DAC_READ_SEARCH))
		ret = -ENOENT;
	if (ret == 0)
		ret = path_in(t, newp, n);
	if (ret == 0)
		ret = vfs_link(t, olddirfd, o, newdirfd, n, flags);
	free(o);
	free(n);
	return ret;
}

SYSCALL(link)
{
	return do_link(t, AT_FDCWD, a->a[0], AT_FDCWD, a->a[1], 0);
}

SYSCALL(linkat)
{
	return do_link(t, (int)a->a[0], a->a[1], (int)a->a[2], a->a[3], (int)a->a[4]);
}

static long do_symlink(struct task *t, uint64_t utarget, int dirfd, uint64_t upath)
{
	char *target, *path;
	long ret = two_paths(t, utarget, upath, &target, &path);

	if (ret == 0)
		ret = vfs_symlink(t, target, dirfd, path);
	free(target);
	free(path);
	return ret;
}

SYSCALL(symlink)
{
	return do_symlink(t, a->a[0], AT_FDCWD, a->a[1]);
}

SYSCALL(symlinkat)
{
	return do_symlink(t, a->a[0], (int)a->a[1], a->a[2]);
}

static long do_mknod(struct task *t, int dirfd, uint64_t upath, uint32_t mode, uint64_t dev)
{
	char path[VFS_PATH_MAX];
	int ret = path_in(t, upath, path);

	return ret ? ret : vfs_mknod(t, dirfd, path, mode, dev);
}

SYSCALL(mknod)
{
	return do_mknod(t, AT_FDCWD, a->a[0], (uint32_t)a->a[1], a->a[2]);
}

SYSCALL(mknodat)
{
	return do_mknod(t, (int)a->a[0], a->a[1], (uint32_t)a->a[2], a->a[3]);
}
