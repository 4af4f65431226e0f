/*
 * splice(2), tee(2) and vmsplice(2): data between a pipe and another file,
 * another pipe or guest memory, copied through the sentry (the pipe side in
 * sentry/fs/pipe.c). Zero copy is not modelled, Linux's checks, blocking
 * and partial counts are (fs/splice.c).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fsize.h"
#include "sentry/fs/pipe.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>

#define SPLICE_F_ALL (SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)
/* The most one splice between a host pipe and a file moves. */
#define COPY_ONCE_MAX 65536

/* The other file of a splice, at *off or (off NULL) its position. */
struct file_end {
	struct file *f;
	int64_t *off;
};

static long file_end_read(void *arg, void *buf, size_t len)
{
	struct file_end *e = arg;

	return file_read_at(e->f, buf, len, e->off);
}

static long file_end_write(void *arg, void *buf, size_t len)
{
	struct file_end *e = arg;

	return file_write_at(e->f, buf, len, e->off);
}

/* Guest memory (vmsplice): iovecs iov_import checked, and how far in. */
struct guest_end {
	struct task *t;
	const struct iovec *iov;
	size_t n, i, at;
};

/* Copy len bytes between buf and the next guest segments; stops at a fault. */
static long guest_end_copy(struct guest_end *g, void *buf, size_t len, bool to_guest)
{
	size_t done = 0;

	while (done < len && g->i < g->n) {
		uint64_t addr = (uint64_t)(uintptr_t)g->iov[g->i].iov_base + g->at;
		size_t want = MIN(len - done, g->iov[g->i].iov_len - g->at), got;
		got = to_guest ? mm_copy_out_partial(g->t->mm, addr, (char *)buf + done, want)
			       : mm_copy_in_partial(g->t->mm, (char *)buf + done, addr, want);
		done += got;
		g->at += got;
		if (got < want)
			return done ? (long)done : -EFAULT;
		if (g->at == g->iov[g->i].iov_len) {
			g->i++;
			g->at = 0;
		}
	}
	return (long)done;
}

static long guest_end_read(void *arg, void *buf, size_t len)
{
	return guest_end_copy(arg, buf, len, false);
}

static long guest_end_write(void *arg, void *buf, size_t len)
{
	return guest_end_copy(arg, buf, len, true);
}

/* Is f a host pipe (stdio the sandbox inherited)? splice takes it for a
 * pipe end, but its data is the host's: see copy_once. */
static bool is_host_pipe(struct file *f)
{
	struct kstat st;

	return hostfile_fd(f) >= 0 && file_stat(f, &st) == 0 && S_ISFIFO(st.mode);
}

/*
 * A splice with a host pipe at one end (or both) and no pipe of the
 * sentry's: one read of up to 64 KiB and the write of all of it, each
 * blocking as its file does; SPLICE_F_NONBLOCK asks the host pipe ends for
 * readiness first. Unlike a pipe of the sentry's, a host pipe cannot take
 * back bytes the other end failed to take: a failed write loses them.
 */
static long copy_once(struct file *in, int64_t *ioff, bool ihost, struct file *out, int64_t *ooff,
		      bool ohost, size_t len, bool nonblock)
{
	char *buf;
	long n, w, done = 0;

	if (nonblock && ((ihost && !(file_poll(in, NULL) & (POLLIN | POLLHUP))) ||
			 (ohost && !(file_poll(out, NULL) & (POLLOUT | POLLERR)))))
		return -EAGAIN;
	len = MIN(len, (size_t)COPY_ONCE_MAX);
	buf = xmalloc(len);
	n = file_read_at(in, buf, len, ioff);
	while (done < n) {
		w = file_write_at(out, buf + done, (size_t)(n - done), ooff);
		if (w <= 0) {
			n = done ? done : w;
			break;
		}
		done += w;
	}
	free(buf);
	return n;
}

/* Linux's rw_verify_area: len bytes at *off (or the file position) stay
 * within a nonnegative loff_t. */
static bool range_ok(struct file *f, const int64_t *off, size_t len)
{
	int64_t pos = off ? *off : __atomic_load_n(&f->pos, __ATOMIC_RELAXED);

	return pos >= 0 && (uint64_t)pos + len <= INT64_MAX;
}

/* Linux's do_splice, once both files are known: offsets already copied in. */
static long do_splice(struct file *in, int64_t *ioff, struct file *out, int64_t *ooff, size_t len,
		      bool nonblock)
{
	int ifl = file_getfl(in), ofl = file_getfl(out);
	bool ipipe = file_is_pipe(in), opipe = file_is_pipe(out);
	bool ihost = !ipipe && is_host_pipe(in), ohost = !opipe && is_host_pipe(out);
	struct file_end e;

	if (ifl < 0 || ofl < 0)
		return ifl < 0 ? ifl : ofl;
	if (!flags_readable(ifl) || !flags_writable(ofl))
		return -EBADF;
	len = MIN(len, (size_t)MAX_RW_COUNT);
	if (ipipe && opipe) {
		if (in->priv == out->priv)
			return -EINVAL;
		return pipe_splice_pipe(in, out, len, nonblock || ((ifl | ofl) & O_NONBLOCK),
					false);
	}
	if (!(ipipe || ihost) && !(opipe || ohost))
		return -EINVAL;
	if (!(ipipe || ihost) && ioff && !(in->fmode & FMODE_PREAD))
		return -EINVAL;
	if (!(opipe || ohost) && ooff && !(out->fmode & FMODE_PREAD))
		return -EINVAL;
	if (!range_ok(in, ioff, len) || !range_ok(out, ooff, len) || !in->ops->read ||
	    !out->ops->write)
		return -EINVAL;
	if (!(opipe || ohost) && (ofl & O_APPEND))
		return -EINVAL;
	if (ipipe) {
		e = (struct file_end){out, ooff};
		return pipe_splice_out(in, len, nonblock || (ifl & O_NONBLOCK), file_end_write, &e);
	}
	if (opipe) {
		e = (struct file_end){in, ioff};
		return pipe_splice_in(out, len, nonblock || (ofl & O_NONBLOCK), file_end_read, &e);
	}
	return copy_once(in, ioff, ihost, out, ooff, ohost, len, nonblock);
}

/* An offset argument: NULL, or copied into *off and pointed to by *p. */
static int offset_in(struct task *t, uint64_t uoff, int64_t *off, int64_t **p)
{
	*p = NULL;
	if (!uoff)
		return 0;
	if (mm_copy_in(t->mm, off, uoff, sizeof(*off)) < 0)
		return -EFAULT;
	*p = off;
	return 0;
}

static long splice_files(struct task *t, struct file *in, uint64_t uoff_in, struct file *out,
			 uint64_t uoff_out, size_t len, unsigned flags)
{
	int64_t ioff, ooff, *pin, *pout;
	long ret;

	if (((file_is_pipe(in) || is_host_pipe(in)) && uoff_in) ||
	    ((file_is_pipe(out) || is_host_pipe(out)) && uoff_out))
		return -ESPIPE;
	if (offset_in(t, uoff_out, &ooff, &pout) < 0 || offset_in(t, uoff_in, &ioff, &pin) < 0)
		return -EFAULT;
	/* Into a file: RLIMIT_FSIZE cuts it or refuses it, as a write. */
	ret = fsize_write_check(t, out, pout ? *pout : -1, &len);
	if (ret < 0)
		return ret;
	ret = do_splice(in, pin, out, pout, len, flags & SPLICE_F_NONBLOCK);
	if (ret < 0)
		return ret;
	if ((pout && mm_copy_out(t->mm, uoff_out, pout, sizeof(*pout)) < 0) ||
	    (pin && mm_copy_out(t->mm, uoff_in, pin, sizeof(*pin)) < 0))
		return -EFAULT;
	return ret;
}

SYSCALL(splice)
{
	size_t len = a->a[4];
	unsigned flags = (unsigned)a->a[5];
	struct file *in, *out;
	long ret;

	if (len == 0)
		return 0;
	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	in = fd_get(t->files, (int)a->a[0]);
	if (!in)
		return -EBADF;
	out = fd_get(t->files, (int)a->a[2]);
	if (!out) {
		file_put(in);
		return -EBADF;
	}
	ret = splice_files(t, in, a->a[1], out, a->a[3], len, flags);
	file_put(out);
	file_put(in);
	return write_result(t, ret);
}

/* Linux's do_tee: two different pipes, the data copied and left in. */
static long tee_files(struct file *in, struct file *out, size_t len, unsigned flags)
{
	int ifl = file_getfl(in), ofl = file_getfl(out);

	if (ifl < 0 || ofl < 0)
		return ifl < 0 ? ifl : ofl;
	if (!flags_readable(ifl) || !flags_writable(ofl))
		return -EBADF;
	if (!file_is_pipe(in) || !file_is_pipe(out) || in->priv == out->priv)
		return -EINVAL;
	return pipe_splice_pipe(in, out, MIN(len, (size_t)MAX_RW_COUNT),
				(flags & SPLICE_F_NONBLOCK) || ((ifl | ofl) & O_NONBLOCK), true);
}

SYSCALL(tee)
{
	size_t len = a->a[2];
	unsigned flags = (unsigned)a->a[3];
	struct file *in, *out;
	long ret;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if (len == 0)
		return 0;
	in = fd_get(t->files, (int)a->a[0]);
	if (!in)
		return -EBADF;
	out = fd_get(t->files, (int)a->a[1]);
	if (!out) {
		file_put(in);
		return -EBADF;
	}
	ret = tee_files(in, out, len, flags);
	file_put(out);
	file_put(in);
	return write_result(t, ret);
}

/* vmsplice on f: guest memory into the pipe (f writable), or out of it. */
static long vmsplice_file(struct task *t, struct file *f, uint64_t uiov, uint64_t cnt,
			  unsigned flags)
{
	int fl = file_getfl(f);
	bool to_pipe = flags_writable(fl), nonblock = flags & SPLICE_F_NONBLOCK;
	struct guest_end g = {.t = t, .n = cnt};
	struct iovec *iov;
	long ret;

	if (fl < 0)
		return fl;
	if (!to_pipe && !flags_readable(fl))
		return -EBADF;
	if (cnt > GUEST_IOV_MAX)
		return -EINVAL;
	iov = xmalloc(MAX(cnt, (uint64_t)1) * sizeof(*iov));
	ret = iov_import(t, uiov, cnt, iov);
	g.iov = iov;
	if (ret > 0 && !file_is_pipe(f))
		ret = -EBADF;
	else if (ret > 0 && to_pipe)
		ret = write_result(t, pipe_splice_in(f, (size_t)ret, nonblock, guest_end_read, &g));
	else if (ret > 0)
		ret = pipe_splice_out(f, (size_t)ret, nonblock, guest_end_write, &g);
	free(iov);
	return ret;
}

SYSCALL(vmsplice)
{
	unsigned flags = (unsigned)a->a[3];
	struct file *f;
	long ret;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	ret = vmsplice_file(t, f, a->a[1], a->a[2], flags);
	file_put(f);
	return ret;
}
