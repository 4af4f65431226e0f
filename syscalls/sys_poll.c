/*
 * I/O multiplexing: poll, ppoll, select, pselect6 (Linux's fs/select.c),
 * the epoll calls, eventfd and timerfd. A waiting task queues one waiter
 * per wait queue of each file it polls (struct poll_wqueues) and sleeps on
 * its own wake word; any wake-up with an event it asked for ends the sleep
 * and the files are polled again.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/epoll.h"
#include "sentry/fs/eventfd.h"
#include "sentry/fs/file.h"
#include "sentry/fs/timerfd.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>

#define NSEC_PER_SEC  1000000000LL
#define NSEC_PER_USEC 1000LL
#define USEC_PER_SEC  1000000LL
#define NSEC_PER_MSEC 1000000LL
#define TIME64_MAX    INT64_MAX
/* Linux's nr_open: no RLIMIT_NOFILE goes beyond it. */
#define NR_OPEN_MAX 1048576

#define EP_MAX_EVENTS (INT_MAX / (int)sizeof(struct epoll_uevent))

/* struct timespec and struct timeval as the x86-64 ABI has them. */
struct kts {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct ktv {
	int64_t tv_sec;
	int64_t tv_usec;
};

/* --- timeouts --------------------------------------------------------------------- */

static struct kts kts_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (struct kts){ts.tv_sec, ts.tv_nsec};
}

static bool kts_valid(struct kts ts)
{
	return ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < NSEC_PER_SEC;
}

static bool kts_zero(const struct kts *ts)
{
	return !ts->tv_sec && !ts->tv_nsec;
}

/*
 * Linux's poll_select_set_timeout: the end of a timeout of sec + nsec from
 * now on CLOCK_MONOTONIC (saturating), {0, 0} for a zero timeout (do not
 * wait), or -EINVAL.
 */
static int set_timeout(struct kts *end, int64_t sec, int64_t nsec)
{
	struct kts ts = {sec, nsec}, now;

	if (!kts_valid(ts))
		return -EINVAL;
	if (!sec && !nsec) {
		*end = ts;
		return 0;
	}
	now = kts_now();
	end->tv_nsec = now.tv_nsec + nsec;
	end->tv_sec = now.tv_sec;
	if (end->tv_nsec >= NSEC_PER_SEC) {
		end->tv_nsec -= NSEC_PER_SEC;
		end->tv_sec++;
	}
	if (__builtin_add_overflow(end->tv_sec, sec, &end->tv_sec)) {
		end->tv_sec = TIME64_MAX;
		end->tv_nsec = 0;
	}
	return 0;
}

/* The task_block() deadline of an end time (0: none, too far to matter). */
static uint64_t end_deadline(const struct kts *end)
{
	if (!end || end->tv_sec >= (int64_t)(UINT64_MAX / 2 / NSEC_PER_SEC))
		return 0;
	return (uint64_t)end->tv_sec * NSEC_PER_SEC + (uint64_t)end->tv_nsec;
}

static int timespec_in(struct task *t, uint64_t addr, struct kts *ts)
{
	return mm_copy_in(t->mm, ts, addr, sizeof(*ts)) < 0 ? -EFAULT : 0;
}

enum poll_time_type { PT_TIMEVAL, PT_TIMESPEC };

/*
 * Linux's poll_select_finish: the old signal mask back unless a signal
 * interrupted (umask: the call set a temporary one), and the time left
 * written back (select, pselect6, ppoll) unless the timeout was zero or
 * absent. When it cannot be written the result stands, but a restart
 * becomes EINTR (the restarted call would wait all over again).
 */
static long poll_select_finish(struct task *t, const struct kts *end, uint64_t uaddr,
			       enum poll_time_type type, long ret, uint64_t umask)
{
	struct kts rts, now;
	int err;

	if (umask && ret != -ERESTARTNOHAND)
		task_restore_sigmask(t);
	if (!uaddr || kts_zero(end))
		return ret;
	now = kts_now();
	rts.tv_sec = end->tv_sec - now.tv_sec;
	rts.tv_nsec = end->tv_nsec - now.tv_nsec;
	if (rts.tv_nsec < 0) {
		rts.tv_nsec += NSEC_PER_SEC;
		rts.tv_sec--;
	}
	if (rts.tv_sec < 0)
		rts.tv_sec = rts.tv_nsec = 0;
	if (type == PT_TIMEVAL) {
		struct ktv rtv = {rts.tv_sec, rts.tv_nsec / NSEC_PER_USEC};
		err = mm_copy_out(t->mm, uaddr, &rtv, sizeof(rtv));
	} else {
		err = mm_copy_out(t->mm, uaddr, &rts, sizeof(rts));
	}
	if (err == 0)
		return ret;
	return ret == -ERESTARTNOHAND ? -EINTR : ret;
}

/* ppoll, pselect6 and epoll_pwait's mask: in effect until the call returns. */
static int set_user_sigmask(struct task *t, uint64_t umask, uint64_t size)
{
	uint64_t mask;

	if (!umask)
		return 0;
	if (size != sizeof(mask))
		return -EINVAL;
	if (mm_copy_in(t->mm, &mask, umask, sizeof(mask)) < 0)
		return -EFAULT;
	task_set_temp_sigmask(t, mask);
	return 0;
}

/* --- the waiting side of poll and select ------------------------------------------ */

struct poll_entry {
	struct waiter w;
	struct waitq *wq;
	struct file *file; /* referenced: its queue lives as long */
	unsigned key;	   /* the events that end the wait (POLL*) */
};

#define POLL_CHUNK 32

struct poll_chunk {
	struct poll_chunk *next;
	unsigned n;
	struct poll_entry e[POLL_CHUNK];
};

struct poll_wqueues {
	struct poll_table pt;
	struct task *t;
	struct file *cur; /* the file being polled */
	struct poll_chunk first;
	struct poll_chunk *last;
};

/* A wake-up of a polled file: wake the task if it is one it waits for. */
static bool pollwake(struct waiter *w, unsigned events)
{
	struct poll_entry *e = container_of(w, struct poll_entry, w);

	if (events && !(events & e->key))
		return false;
	task_wake(w->t);
	return true;
}

static void poll_queue(struct poll_table *pt, struct waitq *wq)
{
	struct poll_wqueues *p = container_of(pt, struct poll_wqueues, pt);
	struct poll_entry *e;

	if (p->last->n == POLL_CHUNK) {
		struct poll_chunk *c = xmalloc(sizeof(*c));
		c->next = NULL;
		c->n = 0;
		p->last->next = c;
		p->last = c;
	}
	e = &p->last->e[p->last->n++];
	memset(&e->w, 0, sizeof(e->w));
	e->w.func = pollwake;
	e->wq = wq;
	e->file = file_get(p->cur);
	e->key = pt->key;
	waiter_prepare(wq, &e->w, p->t);
}

static void poll_initwait(struct poll_wqueues *p, struct task *t)
{
	p->pt.queue = poll_queue;
	p->pt.key = 0;
	p->t = t;
	p->cur = NULL;
	p->first.next = NULL;
	p->first.n = 0;
	p->last = &p->first;
}

static void poll_freewait(struct poll_wqueues *p)
{
	struct poll_chunk *c = &p->first, *next;

	while (c) {
		for (unsigned i = 0; i < c->n; i++) {
			waiter_finish(c->e[i].wq, &c->e[i].w);
			file_put(c->e[i].file);
		}
		next = c->next;
		if (c != &p->first)
			free(c);
		c = next;
	}
}

/* Poll f for key, queueing on it when pt is set. */
static unsigned poll_one(struct poll_wqueues *p, struct poll_table *pt, struct file *f,
			 unsigned key)
{
	if (pt) {
		pt->key = key;
		p->cur = f;
	}
	return file_poll(f, pt);
}

/* --- poll ------------------------------------------------------------------------- */

struct kpollfd {
	int32_t fd;
	int16_t events;
	int16_t revents;
};

/* One entry: its revents, POLLNVAL for a closed fd, nothing for fd < 0. */
static unsigned do_pollfd(struct task *t, struct poll_wqueues *p, struct poll_table *pt,
			  struct kpollfd *pfd)
{
	unsigned mask = 0, filter;
	struct file *f;

	if (pfd->fd >= 0) {
		mask = POLLNVAL;
		f = fd_get(t->files, pfd->fd);
		if (f) {
			filter = (uint16_t)pfd->events | POLLERR | POLLHUP;
			mask = poll_one(p, pt, f, filter) & filter;
			file_put(f);
		}
	}
	pfd->revents = (int16_t)mask;
	return mask;
}

/*
 * After a pass of poll or select over its descriptors found *ready of them
 * ready: true when the wait is over (*ready is then the result, or
 * -ERESTARTNOHAND for a signal); otherwise block until a wake-up, the
 * deadline or a signal, which the next pass looks at.
 */
static bool pass_ends_wait(struct task *t, uint32_t snap, uint64_t deadline, long *ready,
			   bool *timed_out, bool *interrupted)
{
	int ret;

	if (!*ready && (*interrupted || task_signal_pending(t)))
		*ready = -ERESTARTNOHAND;
	if (*ready || *timed_out)
		return true;
	ret = task_block(t, snap, deadline);
	if (ret == -ETIMEDOUT)
		*timed_out = true;
	else if (ret == -EINTR)
		*interrupted = true;
	return false;
}

static long do_poll(struct task *t, struct kpollfd *fds, unsigned nfds, const struct kts *end)
{
	struct poll_wqueues table;
	struct poll_table *pt = &table.pt;
	bool timed_out = false, interrupted = false;
	uint64_t deadline = end_deadline(end);
	long count = 0;

	poll_initwait(&table, t);
	/* A zero timeout: look once, queue nowhere. */
	if (end && kts_zero(end)) {
		pt = NULL;
		timed_out = true;
	}
	for (;;) {
		uint32_t snap = task_wake_snapshot(t);

		for (unsigned i = 0; i < nfds; i++)
			if (do_pollfd(t, &table, pt, &fds[i])) {
				count++;
				/* Found one: no need to queue on the rest. */
				pt = NULL;
			}
		pt = NULL;
		if (pass_ends_wait(t, snap, deadline, &count, &timed_out, &interrupted))
			break;
	}
	poll_freewait(&table);
	return count;
}

static long do_sys_poll(struct task *t, uint64_t ufds, unsigned nfds, const struct kts *end)
{
	struct kpollfd *fds = NULL;
	long count;

	if (nfds > t->tg->rlim[RLIMIT_NOFILE].rlim_cur || nfds > NR_OPEN_MAX)
		return -EINVAL;
	if (nfds) {
		fds = xmalloc(nfds * sizeof(*fds));
		if (mm_copy_in(t->mm, fds, ufds, nfds * sizeof(*fds)) < 0) {
			free(fds);
			return -EFAULT;
		}
	}
	count = do_poll(t, fds, nfds, end);
	/* Only revents is written back, entry by entry, as Linux does. */
	for (unsigned i = 0; i < nfds; i++) {
		uint64_t at = ufds + i * sizeof(*fds) + offsetof(struct kpollfd, revents);
		if (mm_copy_out(t->mm, at, &fds[i].revents, sizeof(fds[i].revents)) < 0) {
			count = -EFAULT;
			break;
		}
	}
	free(fds);
	return count;
}

/*
 * An interrupted poll restarts through restart_syscall with the same end
 * time (Linux's do_restart_poll): arg[0] the array, arg[1] nfds (bit 32:
 * there is a timeout), arg[2] and arg[3] its end.
 */
static long poll_restartable(struct task *t, uint64_t ufds, unsigned nfds, const struct kts *end);

static long do_restart_poll(struct task *t, struct restart_block *rb)
{
	struct kts end = {(int64_t)rb->arg[2], (int64_t)rb->arg[3]};

	return poll_restartable(t, rb->arg[0], (unsigned)rb->arg[1],
				(rb->arg[1] >> 32) ? &end : NULL);
}

static long poll_restartable(struct task *t, uint64_t ufds, unsigned nfds, const struct kts *end)
{
	long ret = do_sys_poll(t, ufds, nfds, end);

	if (ret != -ERESTARTNOHAND)
		return ret;
	t->restart.fn = do_restart_poll;
	t->restart.arg[0] = ufds;
	t->restart.arg[1] = nfds | (end ? 1ull << 32 : 0);
	t->restart.arg[2] = end ? (uint64_t)end->tv_sec : 0;
	t->restart.arg[3] = end ? (uint64_t)end->tv_nsec : 0;
	return -ERESTART_RESTARTBLOCK;
}

SYSCALL(poll)
{
	int timeout = (int)a->a[2];
	struct kts end, *to = NULL;

	if (timeout >= 0) {
		to = &end;
		set_timeout(to, timeout / 1000, NSEC_PER_MSEC * (timeout % 1000));
	}
	return poll_restartable(t, a->a[0], (unsigned)a->a[1], to);
}

SYSCALL(ppoll)
{
	struct kts ts, end, *to = NULL;
	long ret;

	if (a->a[2]) {
		if (timespec_in(t, a->a[2], &ts) < 0)
			return -EFAULT;
		to = &end;
		if (set_timeout(to, ts.tv_sec, ts.tv_nsec) < 0)
			return -EINVAL;
	}
	ret = set_user_sigmask(t, a->a[3], a->a[4]);
	if (ret)
		return ret;
	ret = do_sys_poll(t, a->a[0], (unsigned)a->a[1], to);
	return poll_select_finish(t, &end, a->a[2], PT_TIMESPEC, ret, a->a[3]);
}

/* --- select ----------------------------------------------------------------------- */

#define BITS_PER_LONG 64
#define FDS_LONGS(n)  (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define FDS_BYTES(n)  (FDS_LONGS(n) * sizeof(unsigned long))

#define POLLIN_SET  (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET  (POLLPRI)

struct fd_set_bits {
	unsigned long *in, *out, *ex, *res_in, *res_out, *res_ex;
};

/* The size of the descriptor table (Linux's max_fds: 64 at least). */
static unsigned long fdtable_max_fds(struct fdtable *ft)
{
	unsigned long n;

	pthread_mutex_lock(&ft->lock);
	n = ft->size;
	pthread_mutex_unlock(&ft->lock);
	return n < BITS_PER_LONG ? BITS_PER_LONG : n;
}

/* Linux's max_select_fd: one past the highest fd in the sets, or -EBADF
 * when one of them is not open. */
static long max_select_fd(struct task *t, unsigned long n, const struct fd_set_bits *fds)
{
	struct fdtable *ft = t->files;
	long max = 0;

	pthread_mutex_lock(&ft->lock);
	for (unsigned long w = 0; w < FDS_LONGS(n); w++) {
		unsigned long set = fds->in[w] | fds->out[w] | fds->ex[w];
		if (w == n / BITS_PER_LONG && n % BITS_PER_LONG)
			set &= ~(~0ul << (n % BITS_PER_LONG));
		while (set) {
			unsigned long fd = w * BITS_PER_LONG + (unsigned long)__builtin_ctzl(set);
			if (fd >= ft->size || !ft->fds[fd].file) {
				pthread_mutex_unlock(&ft->lock);
				return -EBADF;
			}
			max = (long)fd + 1;
			set &= set - 1;
		}
	}
	pthread_mutex_unlock(&ft->lock);
	return max;
}

static long do_select(struct task *t, unsigned long n, struct fd_set_bits *fds,
		      const struct kts *end)
{
	struct poll_wqueues table;
	struct poll_table *pt = &table.pt;
	bool timed_out = false, interrupted = false;
	uint64_t deadline = end_deadline(end);
	long retval;

	retval = max_select_fd(t, n, fds);
	if (retval < 0)
		return retval;
	n = (unsigned long)retval;

	poll_initwait(&table, t);
	if (end && kts_zero(end)) {
		pt = NULL;
		timed_out = true;
	}
	for (;;) {
		uint32_t snap = task_wake_snapshot(t);

		retval = 0;
		for (unsigned long w = 0; w < FDS_LONGS(n); w++) {
			unsigned long in = fds->in[w], out = fds->out[w], ex = fds->ex[w];
			unsigned long all = in | out | ex, res_in = 0, res_out = 0, res_ex = 0;

			for (unsigned j = 0; all && j < BITS_PER_LONG; j++) {
				unsigned long bit = 1ul << j, i = w * BITS_PER_LONG + j;
				unsigned mask = POLLNVAL, key;
				struct file *f;

				if (i >= n)
					break;
				if (!(bit & all))
					continue;
				f = fd_get(t->files, (int)i);
				if (f) {
					key = POLLEX_SET | ((in & bit) ? POLLIN_SET : 0) |
					      ((out & bit) ? POLLOUT_SET : 0);
					mask = poll_one(&table, pt, f, key);
					file_put(f);
				}
				if ((mask & POLLIN_SET) && (in & bit)) {
					res_in |= bit;
					retval++;
					pt = NULL;
				}
				if ((mask & POLLOUT_SET) && (out & bit)) {
					res_out |= bit;
					retval++;
					pt = NULL;
				}
				if ((mask & POLLEX_SET) && (ex & bit)) {
					res_ex |= bit;
					retval++;
					pt = NULL;
				}
			}
			if (res_in)
				fds->res_in[w] = res_in;
			if (res_out)
				fds->res_out[w] = res_out;
			if (res_ex)
				fds->res_ex[w] = res_ex;
		}
		pt = NULL;
		if (pass_ends_wait(t, snap, deadline, &retval, &timed_out, &interrupted))
			break;
	}
	poll_freewait(&table);
	return retval;
}

static long core_sys_select(struct task *t, int64_t n, uint64_t inp, uint64_t outp, uint64_t exp,
			    const struct kts *end)
{
	struct fd_set_bits fds;
	unsigned long max_fds, *bits;
	size_t size;
	long ret;

	if (n < 0)
		return -EINVAL;
	/* Bits past the table are never looked at (nor written). */
	max_fds = fdtable_max_fds(t->files);
	if ((unsigned long)n > max_fds)
		n = (int64_t)max_fds;
	size = FDS_BYTES((unsigned long)n);
	bits = xzalloc(6 * size + 1);
	fds.in = bits;
	fds.out = (unsigned long *)((char *)bits + size);
	fds.ex = (unsigned long *)((char *)bits + 2 * size);
	fds.res_in = (unsigned long *)((char *)bits + 3 * size);
	fds.res_out = (unsigned long *)((char *)bits + 4 * size);
	fds.res_ex = (unsigned long *)((char *)bits + 5 * size);
	ret = -EFAULT;
	if ((inp && mm_copy_in(t->mm, fds.in, inp, size) < 0) ||
	    (outp && mm_copy_in(t->mm, fds.out, outp, size) < 0) ||
	    (exp && mm_copy_in(t->mm, fds.ex, exp, size) < 0))
		goto out;
	ret = do_select(t, (unsigned long)n, &fds, end);
	if (ret < 0)
		goto out;
	if ((inp && mm_copy_out(t->mm, inp, fds.res_in, size) < 0) ||
	    (outp && mm_copy_out(t->mm, outp, fds.res_out, size) < 0) ||
	    (exp && mm_copy_out(t->mm, exp, fds.res_ex, size) < 0))
		ret = -EFAULT;
out:
	free(bits);
	return ret;
}

SYSCALL(select)
{
	struct kts end, *to = NULL;
	struct ktv tv;
	long ret;

	if (a->a[4]) {
		if (mm_copy_in(t->mm, &tv, a->a[4], sizeof(tv)) < 0)
			return -EFAULT;
		to = &end;
		/* Wrapping like Linux's arithmetic; a negative part is EINVAL. */
		if (set_timeout(
			    to,
			    (int64_t)((uint64_t)tv.tv_sec + (uint64_t)(tv.tv_usec / USEC_PER_SEC)),
			    (tv.tv_usec % USEC_PER_SEC) * NSEC_PER_USEC) < 0)
			return -EINVAL;
	}
	ret = core_sys_select(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], to);
	return poll_select_finish(t, &end, a->a[4], PT_TIMEVAL, ret, 0);
}

SYSCALL(pselect6)
{
	struct {
		uint64_t ss;
		uint64_t len;
	} pack = {0, 0};
	struct kts ts, end, *to = NULL;
	long ret;

	if (a->a[5] && mm_copy_in(t->mm, &pack, a->a[5], sizeof(pack)) < 0)
		return -EFAULT;
	if (a->a[4]) {
		if (timespec_in(t, a->a[4], &ts) < 0)
			return -EFAULT;
		to = &end;
		if (set_timeout(to, ts.tv_sec, ts.tv_nsec) < 0)
			return -EINVAL;
	}
	ret = set_user_sigmask(t, pack.ss, pack.len);
	if (ret)
		return ret;
	ret = core_sys_select(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], to);
	return poll_select_finish(t, &end, a->a[4], PT_TIMESPEC, ret, pack.ss);
}

/* --- epoll ------------------------------------------------------------------------- */

static long do_epoll_create(struct task *t, int flags)
{
	struct file *f;
	long fd;

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	f = epoll_file_new(0);
	fd = fd_install(t->files, f, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(f);
	return fd;
}

SYSCALL(epoll_create)
{
	if ((int)a->a[0] <= 0)
		return -EINVAL;
	return do_epoll_create(t, 0);
}

SYSCALL(epoll_create1)
{
	return do_epoll_create(t, (int)a->a[0]);
}

SYSCALL(epoll_ctl)
{
	int epfd = (int)a->a[0], op = (int)a->a[1], fd = (int)a->a[2];
	struct epoll_uevent ev = {0, 0};
	struct file *f, *tf;
	long ret;

	if (op != EPOLL_CTL_DEL && mm_copy_in(t->mm, &ev, a->a[3], sizeof(ev)) < 0)
		return -EFAULT;
	f = fd_get(t->files, epfd);
	if (!f)
		return -EBADF;
	tf = fd_get(t->files, fd);
	if (!tf) {
		file_put(f);
		return -EBADF;
	}
	ret = epoll_ctl_file(f, op, fd, tf, &ev);
	file_put(tf);
	file_put(f);
	return ret;
}

/* deadline: NULL for ever, 0 not at all, else absolute (CLOCK_MONOTONIC ns). */
static long do_epoll_wait(struct task *t, int epfd, uint64_t uevents, int maxevents,
			  const uint64_t *deadline)
{
	struct file *f;
	long ret;

	if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
		return -EINVAL;
	if (!mm_range_ok(uevents, (size_t)maxevents * sizeof(struct epoll_uevent)))
		return -EFAULT;
	f = fd_get(t->files, epfd);
	if (!f)
		return -EBADF;
	ret = epoll_wait_file(t, f, uevents, maxevents, deadline);
	file_put(f);
	return ret;
}

/* epoll_wait's milliseconds as a deadline (see do_epoll_wait). */
static const uint64_t *ms_deadline(int ms, uint64_t *buf)
{
	struct kts end;

	if (ms < 0)
		return NULL;
	set_timeout(&end, ms / 1000, NSEC_PER_MSEC * (ms % 1000));
	*buf = kts_zero(&end) ? 0 : end_deadline(&end);
	/* Too far to matter: for ever. */
	return !kts_zero(&end) && !*buf ? NULL : buf;
}

SYSCALL(epoll_wait)
{
	uint64_t dl;

	return do_epoll_wait(t, (int)a->a[0], a->a[1], (int)a->a[2],
			     ms_deadline((int)a->a[3], &dl));
}

/* epoll_pwait's end: the old mask back unless a signal interrupted. */
static long epoll_pwait_finish(struct task *t, uint64_t umask, long ret)
{
	if (umask && ret != -EINTR)
		task_restore_sigmask(t);
	return ret;
}

SYSCALL(epoll_pwait)
{
	uint64_t dl;
	long ret = set_user_sigmask(t, a->a[4], a->a[5]);

	if (ret)
		return ret;
	ret = do_epoll_wait(t, (int)a->a[0], a->a[1], (int)a->a[2], ms_deadline((int)a->a[3], &dl));
	return epoll_pwait_finish(t, a->a[4], ret);
}

SYSCALL(epoll_pwait2)
{
	struct kts ts, end;
	const uint64_t *deadline = NULL;
	uint64_t dl;
	long ret;

	if (a->a[3]) {
		if (timespec_in(t, a->a[3], &ts) < 0)
			return -EFAULT;
		if (set_timeout(&end, ts.tv_sec, ts.tv_nsec) < 0)
			return -EINVAL;
		dl = kts_zero(&end) ? 0 : end_deadline(&end);
		deadline = !kts_zero(&end) && !dl ? NULL : &dl;
	}
	ret = set_user_sigmask(t, a->a[4], a->a[5]);
	if (ret)
		return ret;
	ret = do_epoll_wait(t, (int)a->a[0], a->a[1], (int)a->a[2], deadline);
	return epoll_pwait_finish(t, a->a[4], ret);
}

/* --- eventfd ---------------------------------------------------------------------- */

static long do_eventfd(struct task *t, unsigned count, int flags)
{
	struct file *f;
	long fd;

	if (flags & ~(EFD_SEMAPHORE_FLAG | O_NONBLOCK | O_CLOEXEC))
		return -EINVAL;
	f = eventfd_file_new(count, flags);
	fd = fd_install(t->files, f, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(f);
	return fd;
}

SYSCALL(eventfd)
{
	return do_eventfd(t, (unsigned)a->a[0], 0);
}

SYSCALL(eventfd2)
{
	return do_eventfd(t, (unsigned)a->a[0], (int)a->a[1]);
}

/* --- timerfd ---------------------------------------------------------------------- */

#ifndef CLOCK_REALTIME_ALARM
#define CLOCK_REALTIME_ALARM 8
#endif
#ifndef CLOCK_BOOTTIME_ALARM
#define CLOCK_BOOTTIME_ALARM 9
#endif
#ifndef TFD_TIMER_CANCEL_ON_SET
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif

struct kitimerspec {
	struct kts it_interval;
	struct kts it_value;
};

SYSCALL(timerfd_create)
{
	int clock = (int)a->a[0], flags = (int)a->a[1];
	struct file *f;
	long ret;

	if ((flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) ||
	    (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_REALTIME_ALARM &&
	     clock != CLOCK_BOOTTIME && clock != CLOCK_BOOTTIME_ALARM))
		return -EINVAL;
	/* Alarm clocks need CAP_WAKE_ALARM, which the sandbox never has. */
	if (clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM)
		return -EPERM;
	ret = timerfd_file_new(clock, flags, &f);
	if (ret < 0)
		return ret;
	ret = fd_install(t->files, f, 0, flags & TFD_CLOEXEC, task_nofile(t));
	file_put(f);
	return ret;
}

static struct itimerspec its_to_host(const struct kitimerspec *k)
{
	return (struct itimerspec){
		.it_interval = {k->it_interval.tv_sec, k->it_interval.tv_nsec},
		.it_value = {k->it_value.tv_sec, k->it_value.tv_nsec},
	};
}

static struct kitimerspec its_from_host(const struct itimerspec *h)
{
	return (struct kitimerspec){
		.it_interval = {h->it_interval.tv_sec, h->it_interval.tv_nsec},
		.it_value = {h->it_value.tv_sec, h->it_value.tv_nsec},
	};
}

/* The timerfd at fd (referenced), or NULL with *err (EBADF, EINVAL). */
static struct file *timerfd_get(struct task *t, int fd, long *err)
{
	struct file *f = fd_get(t->files, fd);

	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	if (!file_is_timerfd(f)) {
		file_put(f);
		*err = -EINVAL;
		return NULL;
	}
	return f;
}

SYSCALL(timerfd_settime)
{
	int flags = (int)a->a[1];
	struct kitimerspec knew, kold;
	struct itimerspec new, old;
	struct file *f;
	long ret;

	if (mm_copy_in(t->mm, &knew, a->a[2], sizeof(knew)) < 0)
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !kts_valid(knew.it_value) ||
	    !kts_valid(knew.it_interval))
		return -EINVAL;
	f = timerfd_get(t, (int)a->a[0], &ret);
	if (!f)
		return ret;
	new = its_to_host(&knew);
	ret = timerfd_file_settime(f, flags, &new, &old);
	file_put(f);
	if (ret)
		return ret;
	kold = its_from_host(&old);
	if (a->a[3] && mm_copy_out(t->mm, a->a[3], &kold, sizeof(kold)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(timerfd_gettime)
{
	struct kitimerspec kcur;
	struct itimerspec cur;
	struct file *f;
	long ret;

	f = timerfd_get(t, (int)a->a[0], &ret);
	if (!f)
		return ret;
	ret = timerfd_file_gettime(f, &cur);
	file_put(f);
	if (ret)
		return ret;
	kcur = its_from_host(&cur);
	return mm_copy_out(t->mm, a->a[1], &kcur, sizeof(kcur)) < 0 ? -EFAULT : 0;
}
