/*
 * io_setup, io_destroy, io_submit, io_getevents, io_pgetevents, io_cancel:
 * Linux's native AIO with the checks and errors of its fs/aio.c. A read,
 * write or sync is done at submit (as Linux does for files without
 * asynchronous I/O: a pipe read blocks io_submit until there is data) and
 * completes into the ring; IOCB_CMD_POLL waits (sentry/kernel/aio.c).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/aio.h"
#include "sentry/kernel/ioprio.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/eventfd.h"
#include "sentry/fs/file.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/aio_abi.h>
#include <poll.h>
#include <stddef.h>

/* RWF_* (linux/fs.h): Linux's RWF_SUPPORTED and RWF_NOWAIT. */
#define AIO_RWF_SUPPORTED 0x1f
#define AIO_RWF_DSYNC	  0x02
#define AIO_RWF_SYNC	  0x04
#define AIO_RWF_NOWAIT	  0x08

SYSCALL(io_setup)
{
	uint64_t ctx, id;
	long ret;

	if (mm_copy_in(t->mm, &ctx, a->a[1], sizeof(ctx)) < 0)
		return -EFAULT;
	if (ctx || (unsigned)a->a[0] == 0)
		return -EINVAL;
	ret = aio_setup(t, (unsigned)a->a[0], &id);
	if (ret)
		return ret;
	if (mm_copy_out(t->mm, a->a[1], &id, sizeof(id)) < 0) {
		struct aio_ctx *c = aio_lookup(t, id);
		if (c) {
			aio_kill(c);
			aio_ctx_put(c);
		}
		return -EFAULT;
	}
	return 0;
}

SYSCALL(io_destroy)
{
	struct aio_ctx *c = aio_lookup(t, a->a[0]);
	long ret;

	if (!c)
		return -EINVAL;
	ret = aio_kill(c);
	aio_ctx_put(c);
	return ret;
}

/* A read or write's file checks and range (Linux's aio_read/aio_write up
 * to rw_verify_area): 0 or the error io_submit returns. */
static long rw_prepare(struct task *t, struct file *f, const struct iocb *cb, bool write,
		       bool vectored, struct iovec *iov, long *total)
{
	int flags = file_getfl(f);

	if (cb->aio_flags & IOCB_FLAG_IOPRIO) {
		int ret = ioprio_check_cap(t, cb->aio_reqprio);
		if (ret)
			return ret;
	}
	if (cb->aio_rw_flags & ~AIO_RWF_SUPPORTED)
		return -EOPNOTSUPP;
	if ((cb->aio_rw_flags & AIO_RWF_NOWAIT) && !(f->inode && S_ISREG(f->inode->mode)))
		return -EOPNOTSUPP;
	if (flags < 0)
		return flags;
	if (write ? !flags_writable(flags) : !flags_readable(flags))
		return -EBADF;
	if (write ? !f->ops->write : !f->ops->read)
		return -EINVAL;
	if (vectored) {
		*total = iov_import(t, cb->aio_buf, cb->aio_nbytes, iov);
		if (*total < 0)
			return *total;
	} else {
		*total = (long)MIN(cb->aio_nbytes, (uint64_t)MAX_RW_COUNT);
		if (!mm_range_ok(cb->aio_buf, (size_t)*total))
			return -EFAULT;
	}
	if (cb->aio_offset < 0 || *total > INT64_MAX - cb->aio_offset)
		return -EINVAL;
	return 0;
}

/* The read or write itself: its result, for the event. */
static long rw_do(struct task *t, struct file *f, const struct iocb *cb, bool write, bool vectored,
		  const struct iovec *iov, long total)
{
	/* A file without positions (a pipe) reads and writes its stream. */
	int64_t off = (f->fmode & FMODE_PREAD) ? cb->aio_offset : -1;
	unsigned rwf = cb->aio_rw_flags;
	long n;

	if (vectored)
		n = write ? rw_writev_file(t, f, iov, cb->aio_nbytes, off, rwf)
			  : rw_readv_file(t, f, iov, cb->aio_nbytes, total, off, rwf);
	else
		n = write ? rw_write_file(t, f, cb->aio_buf, (size_t)total, off)
			  : rw_read_file(t, f, cb->aio_buf, (size_t)total, off);
	if (!vectored && write && n > 0 && (rwf & (AIO_RWF_DSYNC | AIO_RWF_SYNC)) &&
	    f->ops->fsync) {
		int err = f->ops->fsync(f, !(rwf & AIO_RWF_SYNC));
		if (err)
			n = err;
	}
	/* A restart cannot be had once other requests may be running (Linux's aio_rw_done). */
	if (n == -ERESTARTSYS || n == -ERESTARTNOINTR || n == -ERESTARTNOHAND ||
	    n == -ERESTART_RESTARTBLOCK)
		n = -EINTR;
	return n;
}

/* One request whose room in the ring is reserved: 0 when it was taken
 * (completed, or a poll waiting), else the error io_submit returns. */
static long submit_one(struct task *t, struct aio_ctx *c, const struct iocb *cb, uint64_t ucb,
		       struct file *f, struct file *resfd)
{
	bool write = false, vectored = false;
	long total = 0, ret;

	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PWRITEV:
		vectored = true;
		__attribute__((fallthrough));
	case IOCB_CMD_PWRITE:
		write = true;
		break;
	case IOCB_CMD_PREADV:
		vectored = true;
		break;
	case IOCB_CMD_PREAD:
		break;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		if (cb->aio_buf || cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
			return -EINVAL;
		if (!f->ops->fsync)
			return -EINVAL;
		ret = f->ops->fsync(f, cb->aio_lio_opcode == IOCB_CMD_FDSYNC);
		aio_complete(c, ucb, cb->aio_data, ret, 0, resfd);
		return 0;
	case IOCB_CMD_POLL:
		if ((uint16_t)cb->aio_buf != cb->aio_buf)
			return -EINVAL;
		if (cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
			return -EINVAL;
		return aio_poll_start(c, f, (unsigned)cb->aio_buf | POLLERR | POLLHUP, ucb,
				      cb->aio_data, resfd);
	default:
		return -EINVAL;
	}
	{
		struct iovec viov[GUEST_IOV_MAX];
		ret = rw_prepare(t, f, cb, write, vectored, viov, &total);
		if (ret)
			return ret;
		ret = rw_do(t, f, cb, write, vectored, viov, total);
	}
	aio_complete(c, ucb, cb->aio_data, ret, 0, resfd);
	return 0;
}

/* Linux's io_submit_one: 0 or -errno. */
static long io_submit_one(struct task *t, struct aio_ctx *c, uint64_t ucb)
{
	struct file *f, *resfd = NULL;
	struct iocb cb;
	uint32_t key = 0;
	long ret;

	if (mm_copy_in(t->mm, &cb, ucb, sizeof(cb)) < 0)
		return -EFAULT;
	if (cb.aio_reserved2)
		return -EINVAL;
	if ((int64_t)cb.aio_nbytes < 0)
		return -EINVAL;
	if (aio_reserve(c))
		return -EAGAIN;
	f = fd_get(t->files, (int)cb.aio_fildes);
	if (!f) {
		ret = -EBADF;
		goto unreserve;
	}
	if (cb.aio_flags & IOCB_FLAG_RESFD) {
		resfd = fd_get(t->files, (int)cb.aio_resfd);
		if (!resfd || !file_is_eventfd(resfd)) {
			ret = resfd ? -EINVAL : -EBADF;
			goto put;
		}
	}
	if (mm_copy_out(t->mm, ucb + offsetof(struct iocb, aio_key), &key, sizeof(key)) < 0) {
		ret = -EFAULT;
		goto put;
	}
	ret = submit_one(t, c, &cb, ucb, f, resfd);
	file_put(f);
	if (resfd)
		file_put(resfd);
	/* A poll that could not wait gave its room back itself. */
	return ret;
put:
	file_put(f);
	if (resfd)
		file_put(resfd);
unreserve:
	aio_unreserve(c);
	return ret;
}

SYSCALL(io_submit)
{
	long nr = (long)a->a[1], i, ret = 0;
	struct aio_ctx *c;

	if (nr < 0)
		return -EINVAL;
	c = aio_lookup(t, a->a[0]);
	if (!c)
		return -EINVAL;
	if (nr > (long)aio_nr_events(c))
		nr = (long)aio_nr_events(c);
	for (i = 0; i < nr; i++) {
		uint64_t ucb;
		if (mm_copy_in(t->mm, &ucb, a->a[2] + (uint64_t)i * sizeof(ucb), sizeof(ucb)) < 0) {
			ret = -EFAULT;
			break;
		}
		ret = io_submit_one(t, c, ucb);
		if (ret)
			break;
	}
	aio_ctx_put(c);
	return i ? i : ret;
}

/* Linux's do_io_getevents with a relative timeout (NULL: none). */
static long do_getevents(struct task *t, const struct syscall_args *a, const int64_t *ts)
{
	long min_nr = (long)a->a[1], nr = (long)a->a[2], ret = -EINVAL;
	uint64_t deadline = 0;
	bool nowait = false;
	struct aio_ctx *c;

	if (ts) {
		/* ktime: saturating, and a timeout at or below zero only looks. */
		__int128 ns = (__int128)ts[0] * 1000000000 + ts[1];
		if (ns <= 0)
			nowait = true;
		else if (ns < (__int128)(INT64_MAX - monotonic_ns()))
			deadline = monotonic_ns() + (uint64_t)ns;
	}
	c = aio_lookup(t, a->a[0]);
	if (!c)
		return -EINVAL;
	if (min_nr <= nr && min_nr >= 0)
		ret = aio_getevents(t, c, min_nr, nr, a->a[3], nowait, deadline);
	aio_ctx_put(c);
	return ret;
}

SYSCALL(io_getevents)
{
	int64_t ts[2];
	long ret;

	if (a->a[4] && mm_copy_in(t->mm, ts, a->a[4], sizeof(ts)) < 0)
		return -EFAULT;
	ret = do_getevents(t, a, a->a[4] ? ts : NULL);
	if (ret == -EINTR || (!ret && task_signal_pending(t)))
		ret = -EINTR;
	return ret;
}

SYSCALL(io_pgetevents)
{
	struct {
		uint64_t sigmask, sigsetsize;
	} usig = {0, 0};
	uint64_t mask;
	int64_t ts[2];
	bool interrupted;
	long ret;

	if (a->a[4] && mm_copy_in(t->mm, ts, a->a[4], sizeof(ts)) < 0)
		return -EFAULT;
	if (a->a[5] && mm_copy_in(t->mm, &usig, a->a[5], sizeof(usig)) < 0)
		return -EFAULT;
	if (usig.sigmask) {
		if (usig.sigsetsize != sizeof(mask))
			return -EINVAL;
		if (mm_copy_in(t->mm, &mask, usig.sigmask, sizeof(mask)) < 0)
			return -EFAULT;
		task_set_temp_sigmask(t, mask);
	}
	ret = do_getevents(t, a, a->a[4] ? ts : NULL);
	if (ret == -EINTR)
		ret = 0;
	interrupted = task_signal_pending(t);
	/* Linux's restore_saved_sigmask_unless: a handler that runs sees the
	 * temporary mask's end through the signal frame. */
	if (usig.sigmask && !(interrupted && !ret))
		task_restore_sigmask(t);
	if (interrupted && !ret)
		ret = -ERESTARTNOHAND;
	return ret;
}

SYSCALL(io_cancel)
{
	struct aio_ctx *c;
	uint32_t key;
	long ret;

	if (mm_copy_in(t->mm, &key, a->a[1] + offsetof(struct iocb, aio_key), sizeof(key)) < 0)
		return -EFAULT;
	if (key != 0) /* KIOCB_KEY */
		return -EINVAL;
	c = aio_lookup(t, a->a[0]);
	if (!c)
		return -EINVAL;
	ret = aio_cancel(c, a->a[1]);
	aio_ctx_put(c);
	return ret ? ret : -EINPROGRESS;
}
