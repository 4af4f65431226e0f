/* open, openat, openat2, creat, close_range, pipe, pipe2, memfd_create. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/fs/file.h"
#include "sentry/fs/memfd.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/pipe.h"
#include "sentry/fs/tty.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* The O_* flags open() knows (Linux's VALID_OPEN_FLAGS). */
#define VALID_OPEN_FLAGS                                                                     \
	(O_RDONLY | O_WRONLY | O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND |   \
	 O_NDELAY | O_NONBLOCK | O_DSYNC | O_ASYNC | O_DIRECT | KO_LARGEFILE | O_DIRECTORY | \
	 O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_SYNC | O_PATH | O_TMPFILE)
#ifndef OPEN_HOW_SIZE_VER0
#define OPEN_HOW_SIZE_VER0 24
#endif
#define VALID_RESOLVE                                                                      \
	(RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | \
	 RESOLVE_IN_ROOT | RESOLVE_CACHED)

static unsigned resolve_to_lookup(uint64_t resolve)
{
	return ((resolve & RESOLVE_NO_XDEV) ? LOOKUP_NO_XDEV : 0) |
	       ((resolve & RESOLVE_NO_MAGICLINKS) ? LOOKUP_NO_MAGICLINKS : 0) |
	       ((resolve & RESOLVE_NO_SYMLINKS) ? LOOKUP_NO_SYMLINKS : 0) |
	       ((resolve & RESOLVE_BENEATH) ? LOOKUP_BENEATH : 0) |
	       ((resolve & RESOLVE_IN_ROOT) ? LOOKUP_IN_ROOT : 0);
}

static long do_open(struct task *t, int dirfd, uint64_t upath, int flags, uint32_t mode,
		    unsigned lookup, bool legacy)
{
	char path[VFS_PATH_MAX];
	struct file *f;
	long ret = path_in(t, upath, path);

	if (ret)
		return ret;
	/* open, openat and creat imply O_LARGEFILE on 64-bit (openat2 does
	 * not), O_PATH keeps only its own flags (build_open_how). */
	if (legacy && !(flags & O_PATH))
		flags |= KO_LARGEFILE;
	else if (legacy)
		flags &= O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
	ret = vfs_open(t, dirfd, path, flags, mode & 07777, lookup, &f);
	if (ret)
		return ret;
	if (!(flags & O_NOCTTY))
		tty_open_ctty_file(t, f);
	ret = fd_install(t->files, f, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(f);
	return ret;
}

SYSCALL(open)
{
	return do_open(t, AT_FDCWD, a->a[0], (int)a->a[1], (uint32_t)a->a[2], 0, true);
}

SYSCALL(openat)
{
	return do_open(t, (int)a->a[0], a->a[1], (int)a->a[2], (uint32_t)a->a[3], 0, true);
}

SYSCALL(creat)
{
	return do_open(t, AT_FDCWD, a->a[0], O_CREAT | O_WRONLY | O_TRUNC, (uint32_t)a->a[1], 0,
		       true);
}

SYSCALL(openat2)
{
	struct open_how how;
	uint64_t size = a->a[3];
	char extra[64];

	if (size < OPEN_HOW_SIZE_VER0)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	memset(&how, 0, sizeof(how));
	if (mm_copy_in(t->mm, &how, a->a[2], MIN(size, sizeof(how))) < 0)
		return -EFAULT;
	/* A bigger struct from a newer guest: the part we do not know must be zero. */
	for (uint64_t off = sizeof(how); off < size; off += sizeof(extra)) {
		size_t n = (size_t)MIN(size - off, sizeof(extra));
		if (mm_copy_in(t->mm, extra, a->a[2] + off, n) < 0)
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (extra[i])
				return -E2BIG;
	}
	if (how.flags & ~(uint64_t)VALID_OPEN_FLAGS)
		return -EINVAL;
	if (how.resolve & ~(uint64_t)VALID_RESOLVE)
		return -EINVAL;
	if ((how.resolve & RESOLVE_BENEATH) && (how.resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if (how.mode & ~(uint64_t)07777)
		return -EINVAL;
	if (how.mode && !(how.flags & (O_CREAT | 020000000 /* the kernel's __O_TMPFILE */)))
		return -EINVAL;
	if ((how.flags & O_PATH) &&
	    (how.flags & ~(uint64_t)(O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)))
		return -EINVAL;
	return do_open(t, (int)a->a[0], a->a[1], (int)how.flags, (uint32_t)how.mode,
		       resolve_to_lookup(how.resolve), false);
}

SYSCALL(close_range)
{
	unsigned lo = (unsigned)a->a[0], hi = (unsigned)a->a[1];
	unsigned flags = (unsigned)a->a[2];

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (lo > hi)
		return -EINVAL;
	if (flags & CLOSE_RANGE_UNSHARE)
		task_unshare_files(t);
	fd_close_range(t->files, lo, hi, flags & CLOSE_RANGE_CLOEXEC);
	return 0;
}

static long do_pipe(struct task *t, uint64_t ufds, int flags)
{
	struct file *rd, *wr;
	int fds[2];
	long ret;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	ret = pipe_create(flags, &rd, &wr);
	if (ret)
		return ret;
	fds[0] = fd_install(t->files, rd, 0, flags & O_CLOEXEC, task_nofile(t));
	fds[1] = fds[0] < 0 ? fds[0]
			    : fd_install(t->files, wr, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(rd);
	file_put(wr);
	if (fds[0] < 0 || fds[1] < 0) {
		if (fds[0] >= 0)
			fd_close(t->files, fds[0]);
		return fds[0] < 0 ? fds[0] : fds[1];
	}
	if (mm_copy_out(t->mm, ufds, fds, sizeof(fds)) < 0) {
		fd_close(t->files, fds[0]);
		fd_close(t->files, fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL(pipe)
{
	return do_pipe(t, a->a[0], 0);
}

SYSCALL(pipe2)
{
	return do_pipe(t, a->a[0], (int)a->a[1]);
}

/* memfd_create: a file of its own on the memfd tmpfs (sentry/fs/memfd.c). */
SYSCALL(memfd_create)
{
	char name[256], full[262];
	unsigned flags = (unsigned)a->a[1];
	struct file *f = NULL;
	long ret;

	/* 6.1's flags: MFD_NOEXEC_SEAL and MFD_EXEC came later (EINVAL). With
	 * MFD_HUGETLB, the huge page size bits may be set too. */
	if (flags & ~(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB |
		      ((flags & MFD_HUGETLB) ? ((unsigned)MAP_HUGE_MASK << MAP_HUGE_SHIFT) : 0)))
		return -EINVAL;
	if (flags & MFD_HUGETLB)
		return -ENOSYS; /* as a kernel built without hugetlbfs */
	ret = mm_strncpy_in(t->mm, name, a->a[0], sizeof(name) - 6);
	if (ret < 0)
		return ret == -ENAMETOOLONG ? -EINVAL : ret;
	/* Its anonymous dentry "memfd:NAME" is what /proc/self/fd shows. */
	snprintf(full, sizeof(full), "memfd:%s", name);
	ret = memfd_file_new(t->k, full, 0, &t->creds, &f);
	if (ret == 0 && (flags & MFD_ALLOW_SEALING))
		tmpfs_allow_sealing(f->inode);
	if (ret == 0) {
		ret = fd_install(t->files, f, 0, flags & MFD_CLOEXEC, task_nofile(t));
		file_put(f);
	}
	return ret;
}
