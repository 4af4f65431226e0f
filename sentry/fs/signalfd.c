/*
 * signalfd (Linux's fs/signalfd.c). A read dequeues, for the reading task,
 * the pending signals of the file's mask, thread-directed ones first, as
 * struct signalfd_siginfo. Readers and pollers wait on one queue that
 * every queued signal wakes (signalfd_notify): signalfds are few, and a
 * waiter looks again at its own pending signals.
 */
#include "config.h"
#include "sentry/fs/signalfd.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

struct signalfd_ctx {
	uint64_t mask; /* under the kernel's task lock */
};

static struct waitq signalfd_wq = WAITQ_INIT(signalfd_wq);
static int signalfd_count; /* open signalfds: nobody to wake without one */

static const struct file_ops signalfd_ops;

void signalfd_notify(void)
{
	if (__atomic_load_n(&signalfd_count, __ATOMIC_SEQ_CST))
		waitq_wake_events(&signalfd_wq, POLLIN | POLLRDNORM);
}

/* Linux's siginfo_layout, reduced to what signalfd copies. */
enum layout { SIL_KILL, SIL_TIMER, SIL_POLL, SIL_FAULT, SIL_CHLD, SIL_RT };

static enum layout layout_of(int sig, int code)
{
	if (code > SI_USER && code < SI_KERNEL) {
		switch (sig) {
		case SIGILL:
		case SIGFPE:
		case SIGSEGV:
		case SIGBUS:
		case SIGTRAP:
			return SIL_FAULT;
		case SIGCHLD:
			return SIL_CHLD;
		case SIGPOLL:
			return SIL_POLL;
		default:
			return code <= 6 /* NSIGPOLL */ ? SIL_POLL : SIL_KILL;
		}
	}
	if (code == SI_TIMER)
		return SIL_TIMER;
	if (code == SI_SIGIO)
		return SIL_POLL;
	return code < 0 ? SIL_RT : SIL_KILL;
}

static void copy_info(struct signalfd_siginfo *s, const siginfo_t *info)
{
	memset(s, 0, sizeof(*s));
	s->ssi_signo = (uint32_t)info->si_signo;
	s->ssi_errno = info->si_errno;
	s->ssi_code = info->si_code;
	switch (layout_of(info->si_signo, info->si_code)) {
	case SIL_KILL:
		s->ssi_pid = (uint32_t)info->si_pid;
		s->ssi_uid = info->si_uid;
		break;
	case SIL_TIMER:
		s->ssi_tid = (uint32_t)info->si_timerid;
		s->ssi_overrun = (uint32_t)info->si_overrun;
		s->ssi_ptr = (uint64_t)(uintptr_t)info->si_ptr;
		s->ssi_int = info->si_int;
		break;
	case SIL_POLL:
		s->ssi_band = (uint32_t)info->si_band;
		s->ssi_fd = info->si_fd;
		break;
	case SIL_FAULT:
		s->ssi_addr = (uint64_t)(uintptr_t)info->si_addr;
		break;
	case SIL_CHLD:
		s->ssi_pid = (uint32_t)info->si_pid;
		s->ssi_uid = info->si_uid;
		s->ssi_status = info->si_status;
		s->ssi_utime = (uint64_t)info->si_utime;
		s->ssi_stime = (uint64_t)info->si_stime;
		break;
	case SIL_RT:
		s->ssi_pid = (uint32_t)info->si_pid;
		s->ssi_uid = info->si_uid;
		s->ssi_ptr = (uint64_t)(uintptr_t)info->si_ptr;
		s->ssi_int = info->si_int;
		break;
	}
}

static long signalfd_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct signalfd_ctx *ctx = f->priv;
	struct task *t = current_task();
	struct signalfd_siginfo *out = buf;
	size_t want = len / sizeof(*out), got = 0;
	struct waiter w = {0};
	long ret = 0;

	if (!want)
		return -EINVAL;
	if (!t)
		return -EAGAIN;
	pthread_mutex_lock(&t->k->lock);
	while (got < want) {
		siginfo_t info;
		uint32_t snap;
		int sig = dequeue_signal_locked(t, ~ctx->mask, &info);
		if (sig) {
			copy_info(&out[got++], &info);
			continue;
		}
		if (got)
			break;
		if (file_getfl(f) & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (task_interrupted(t)) {
			ret = -ERESTARTSYS;
			break;
		}
		snap = waiter_prepare(&signalfd_wq, &w, t);
		pthread_mutex_unlock(&t->k->lock);
		task_block(t, snap, 0);
		pthread_mutex_lock(&t->k->lock);
	}
	pthread_mutex_unlock(&t->k->lock);
	waiter_finish(&signalfd_wq, &w);
	return got ? (long)(got * sizeof(*out)) : ret;
}

static unsigned signalfd_poll(struct file *f, struct poll_table *pt)
{
	struct signalfd_ctx *ctx = f->priv;
	struct task *t = current_task();
	unsigned mask = 0;

	poll_wait(pt, &signalfd_wq);
	if (!t)
		return 0;
	pthread_mutex_lock(&t->k->lock);
	if ((t->pending.set | t->tg->shared.set) & ctx->mask)
		mask = POLLIN | POLLRDNORM;
	pthread_mutex_unlock(&t->k->lock);
	return mask;
}

static int64_t signalfd_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* noop_llseek */
}

static int signalfd_setfl(struct file *f, int flags)
{
	f->flags = flags;
	return 0;
}

static void signalfd_release(struct file *f)
{
	__atomic_sub_fetch(&signalfd_count, 1, __ATOMIC_SEQ_CST);
	free(f->priv);
}

/* The mask as given (less SIGKILL and SIGSTOP), as render_sigset_t prints it. */
static void signalfd_show_fdinfo(struct file *f, struct strbuf *o)
{
	struct signalfd_ctx *ctx = f->priv;
	struct task *t = current_task();
	uint64_t mask;

	if (t)
		pthread_mutex_lock(&t->k->lock);
	mask = ctx->mask;
	if (t)
		pthread_mutex_unlock(&t->k->lock);
	strbuf_printf(o, "sigmask:\t%016llx\n", (unsigned long long)mask);
}

static const struct file_ops signalfd_ops = {
	.show_fdinfo = signalfd_show_fdinfo,
	.read = signalfd_read,
	.llseek = signalfd_llseek,
	.setfl = signalfd_setfl,
	.poll = signalfd_poll,
	.release = signalfd_release,
};

struct file *signalfd_new(uint64_t mask, int flags)
{
	struct signalfd_ctx *ctx = xzalloc(sizeof(*ctx));

	ctx->mask = mask & ~SIG_UNBLOCKABLE;
	__atomic_add_fetch(&signalfd_count, 1, __ATOMIC_SEQ_CST);
	return anon_file_new("[signalfd]", &signalfd_ops, O_RDWR | (flags & O_NONBLOCK), ctx);
}

bool signalfd_set_mask(struct file *f, uint64_t mask)
{
	struct signalfd_ctx *ctx = f->priv;
	struct task *t = current_task();

	if (f->ops != &signalfd_ops)
		return false;
	if (t)
		pthread_mutex_lock(&t->k->lock);
	ctx->mask = mask & ~SIG_UNBLOCKABLE;
	if (t)
		pthread_mutex_unlock(&t->k->lock);
	waitq_wake_events(&signalfd_wq, POLLIN | POLLRDNORM);
	return true;
}
