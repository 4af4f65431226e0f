/*
 * read, write and friends. Data moves through a per-thread bounce buffer:
 * the host call may block, and guest memory is never borrowed across a
 * blocking call (that would hold the address space's lock).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#define BOUNCE_SIZE   65536
#define MAX_RW_COUNT  (INT_MAX & ~(PAGE_SIZE - 1))
#define GUEST_IOV_MAX 1024

static __thread char bounce[BOUNCE_SIZE];

/* A write that hit a closed pipe earns the writer SIGPIPE, as on Linux. */
static long write_result(struct task *t, long n)
{
	if (n == -EPIPE)
		task_force_signal(t, SIGPIPE);
	return n;
}

static long do_read(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	int flags = file_getfl(f);
	size_t chunk;
	long n;

	if (flags < 0)
		return flags;
	if (!flags_readable(flags))
		return -EBADF;
	if (!f->ops->read)
		return -EINVAL;
	if (count == 0)
		return 0;
	chunk = MIN(MIN(count, (size_t)MAX_RW_COUNT), (size_t)BOUNCE_SIZE);
	/* Check before reading, so a bad buffer does not swallow the data. */
	if (!mm_access_ok(t->mm, buf, chunk, true))
		return -EFAULT;
	n = f->ops->read(f, bounce, chunk, off);
	if (n <= 0)
		return n;
	n = (long)mm_copy_out_partial(t->mm, buf, bounce, (size_t)n);
	return n ? n : -EFAULT;
}

static long do_write(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	int flags = file_getfl(f);
	size_t total = 0;

	if (flags < 0)
		return flags;
	if (!flags_writable(flags))
		return -EBADF;
	if (!f->ops->write)
		return -EINVAL;
	count = MIN(count, (size_t)MAX_RW_COUNT);
	while (total < count) {
		size_t chunk = MIN(count - total, (size_t)BOUNCE_SIZE);
		size_t got = mm_copy_in_partial(t->mm, bounce, buf + total, chunk);
		long n;
		if (got == 0)
			return total ? (long)total : -EFAULT;
		n = f->ops->write(f, bounce, got, off < 0 ? -1 : off + (int64_t)total);
		if (n < 0)
			return total ? (long)total : write_result(t, n);
		total += (size_t)n;
		if ((size_t)n < got || got < chunk)
			break;
	}
	return (long)total;
}

SYSCALL(read)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = do_read(t, f, a->a[1], a->a[2], -1);
	file_put(f);
	return ret;
}

SYSCALL(write)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = do_write(t, f, a->a[1], a->a[2], -1);
	file_put(f);
	return ret;
}

SYSCALL(pread64)
{
	struct file *f;
	long ret;

	if ((int64_t)a->a[3] < 0)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	ret = do_read(t, f, a->a[1], a->a[2], (int64_t)a->a[3]);
	file_put(f);
	return ret;
}

SYSCALL(pwrite64)
{
	struct file *f;
	long ret;

	if ((int64_t)a->a[3] < 0)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	ret = do_write(t, f, a->a[1], a->a[2], (int64_t)a->a[3]);
	file_put(f);
	return ret;
}

/* Copy in and check an iovec array; returns the total length (clipped) or -errno. */
static long iov_import(struct task *t, uint64_t uiov, uint64_t cnt, struct iovec *iov)
{
	size_t total = 0;

	if (cnt > GUEST_IOV_MAX)
		return -EINVAL;
	if (cnt && mm_copy_in(t->mm, iov, uiov, cnt * sizeof(*iov)) < 0)
		return -EFAULT;
	for (size_t i = 0; i < cnt; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		if (iov[i].iov_len > MAX_RW_COUNT - total)
			iov[i].iov_len = MAX_RW_COUNT - total;
		total += iov[i].iov_len;
	}
	return (long)total;
}

SYSCALL(readv)
{
	struct iovec iov[GUEST_IOV_MAX];
	size_t want, done = 0, i;
	struct file *f;
	long total, n;
	int flags;

	total = iov_import(t, a->a[1], a->a[2], iov);
	if (total < 0)
		return total;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	flags = file_getfl(f);
	if (flags < 0 || !flags_readable(flags) || !f->ops->read) {
		file_put(f);
		return flags < 0 ? flags : -EBADF;
	}
	want = MIN((size_t)total, (size_t)BOUNCE_SIZE);
	/* The first bytes' destinations must be writable before data is consumed. */
	for (i = 0, n = 0; i < a->a[2] && (size_t)n < want; i++) {
		size_t part = MIN(iov[i].iov_len, want - (size_t)n);
		if (!mm_access_ok(t->mm, (uint64_t)(uintptr_t)iov[i].iov_base, part, true)) {
			file_put(f);
			return -EFAULT;
		}
		n += (long)part;
	}
	n = want ? f->ops->read(f, bounce, want, -1) : 0;
	file_put(f);
	if (n <= 0)
		return n;
	for (i = 0; i < a->a[2] && done < (size_t)n; i++) {
		size_t part = MIN(iov[i].iov_len, (size_t)n - done);
		size_t c = mm_copy_out_partial(t->mm, (uint64_t)(uintptr_t)iov[i].iov_base,
					       bounce + done, part);
		done += c;
		if (c < part)
			break;
	}
	return done ? (long)done : -EFAULT;
}

SYSCALL(writev)
{
	struct iovec iov[GUEST_IOV_MAX];
	size_t i, filled = 0, written = 0, off = 0;
	struct file *f;
	long total, n;
	int flags;
	bool fault = false;

	total = iov_import(t, a->a[1], a->a[2], iov);
	if (total < 0)
		return total;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	flags = file_getfl(f);
	if (flags < 0 || !flags_writable(flags) || !f->ops->write) {
		file_put(f);
		return flags < 0 ? flags : -EBADF;
	}
	/* Gather into the bounce buffer and write it in as few host calls as
	 * possible, so that small writev()s stay atomic. */
	for (i = 0; i < a->a[2] && !fault;) {
		size_t part = MIN(iov[i].iov_len - off, (size_t)BOUNCE_SIZE - filled);
		size_t c = mm_copy_in_partial(t->mm, bounce + filled,
					      (uint64_t)(uintptr_t)iov[i].iov_base + off, part);
		filled += c;
		off += c;
		if (c < part)
			fault = true;
		if (off == iov[i].iov_len) {
			i++;
			off = 0;
		}
		if (filled == BOUNCE_SIZE || fault || i == a->a[2]) {
			if (!filled)
				break;
			n = f->ops->write(f, bounce, filled, -1);
			if (n < 0) {
				file_put(f);
				return written ? (long)written : write_result(t, n);
			}
			written += (size_t)n;
			if ((size_t)n < filled)
				break;
			filled = 0;
		}
	}
	file_put(f);
	if (fault && !written)
		return -EFAULT;
	return (long)written;
}

SYSCALL(lseek)
{
	struct file *f;
	int64_t ret;

	if (a->a[2] > SEEK_HOLE)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	ret = f->ops->llseek ? f->ops->llseek(f, (int64_t)a->a[1], (int)a->a[2]) : -ESPIPE;
	file_put(f);
	return ret;
}
