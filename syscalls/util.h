/* Helpers shared by the syscall handlers. */
#ifndef RUNG_SYSCALL_UTIL_H
#define RUNG_SYSCALL_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/uio.h>

#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/vfs/vfs.h"

struct file;

/* Copy a guest path (VFS_PATH_MAX bytes of buf): 0, -EFAULT, -ENAMETOOLONG,
 * or -ENOENT for an empty path. */
static inline int path_in(struct task *t, uint64_t addr, char *buf)
{
	long n = mm_strncpy_in(t->mm, buf, addr, VFS_PATH_MAX);

	if (n < 0)
		return (int)n;
	return n == 0 ? -ENOENT : 0;
}

/* Like path_in, but an empty path is fine (for AT_EMPTY_PATH). */
static inline int path_in_empty_ok(struct task *t, uint64_t addr, char *buf)
{
	long n = mm_strncpy_in(t->mm, buf, addr, VFS_PATH_MAX);

	return n < 0 ? (int)n : 0;
}

/* The records getdents64 and getdents write (linux/dirent.h has no header). */
struct linux_dirent64_hdr {
	uint64_t ino;
	int64_t off;
	uint16_t reclen;
	uint8_t type;
	char name[];
};

struct linux_dirent_hdr {
	uint64_t ino;
	uint64_t off;
	uint16_t reclen;
	char name[]; /* then NUL, padding, and the type in the last byte */
};

/* Linux's MAX_RW_COUNT (the most one read or write moves) and UIO_MAXIOV. */
#define MAX_RW_COUNT  (INT_MAX & ~(PAGE_SIZE - 1))
#define GUEST_IOV_MAX 1024

/* A write's result n: -EPIPE also raises SIGPIPE, as on Linux (sys_rw.c). */
long write_result(struct task *t, long n);
/* Copy in and check a guest iovec array of cnt (at most 1024) entries into
 * iov: the total length, clipped at MAX_RW_COUNT, or -EINVAL, -EFAULT. */
long iov_import(struct task *t, uint64_t uiov, uint64_t cnt, struct iovec *iov);

/* read/pread and write/pwrite on an open file (off < 0: at its position
 * or on its stream), as the system calls do after looking up the fd. */
long rw_read_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off);
long rw_write_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off);
/* preadv2/pwritev2 on an open file with an iovec array iov_import checked
 * (total: what it returned); rwf: RWF_* flags. */
long rw_readv_file(struct task *t, struct file *f, const struct iovec *iov, size_t cnt, long total,
		   int64_t off, unsigned rwf);
long rw_writev_file(struct task *t, struct file *f, const struct iovec *iov, size_t cnt,
		    int64_t off, unsigned rwf);

/* fstat of an open file (its ops, else its inode). */
int file_stat(struct file *f, struct kstat *st);

/* RLIMIT_MEMLOCK for more bytes locked (sys_mlock.c): 0; -EPERM when
 * can_lock (mlock, MAP_LOCKED) and the limit is 0; over past the limit
 * (mlock's ENOMEM, mmap's and mremap's EAGAIN). CAP_IPC_LOCK passes. */
long mlock_limit_check(struct task *t, bool can_lock, uint64_t more, long over);

#endif
