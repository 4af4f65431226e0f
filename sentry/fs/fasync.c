/*
 * Owners and O_ASYNC of files (see fasync.h). Arming puts callback waiters
 * on the file's wait queues (through its poll op, as epoll does); a
 * wake-up only records POLL_IN or POLL_OUT and hands the owner record to
 * a worker thread, which sends the signals: wakers hold their own locks,
 * and sending needs the kernel's.
 */
#include "config.h"
#include "sentry/fs/fasync.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FOWN_WQS 4
#define DUE_IN	 1u
#define DUE_OUT	 2u
#define DUE_MSG	 4u /* dnotify's POLL_MSG, armed or not */
#define KSIG_MAX 64

struct fown_wait {
	struct waiter w;
	struct waitq *wq;
	struct fown *o;
};

struct fown {
	int refs;
	pthread_mutex_t lock; /* everything below */
	struct kernel *k;
	int type, pid, sig, fd;
	int msg_fd; /* the descriptor dnotify's signal names */
	bool readable, writable;
	bool armed;
	unsigned nwait;
	struct fown_wait waits[FOWN_WQS];
	unsigned due;	       /* DUE_* (worker.lock) */
	bool queued;	       /* worker.lock */
	struct list_head work; /* worker.lock */
};

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct list_head queue;
	bool running;
} worker = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, LIST_HEAD_INIT(worker.queue),
	    false};

static void fown_put(struct fown *o)
{
	if (__atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_destroy(&o->lock);
	free(o);
}

static struct fown *fown_of(struct file *f)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);

	if (o)
		return o;
	pthread_mutex_lock(&create_lock);
	if (!f->fown) {
		o = xzalloc(sizeof(*o));
		o->refs = 1; /* the file's */
		pthread_mutex_init(&o->lock, NULL);
		list_init(&o->work);
		__atomic_store_n(&f->fown, o, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&create_lock);
	return f->fown;
}

/* Does anyone by that number exist (Linux's find_vpid)? */
static bool pid_exists(struct kernel *k, int type, int pid)
{
	struct task *p;
	siginfo_t si;

	if (type == FOWN_PGRP) {
		memset(&si, 0, sizeof(si)); /* signal 0: only the check */
		if (signal_send_pgrp(k, pid, &si) == 0)
			return true;
	}
	p = kernel_find_task(k, pid);
	if (p)
		task_put(p);
	return p != NULL;
}

long fasync_setown(struct task *t, struct file *f, int type, int pid)
{
	struct fown *o;

	if (pid && !pid_exists(t->k, type, pid))
		return -ESRCH;
	o = fown_of(f);
	pthread_mutex_lock(&o->lock);
	o->k = t->k;
	o->type = type;
	o->pid = pid;
	pthread_mutex_unlock(&o->lock);
	return 0;
}

void fasync_getown(struct file *f, int *type, int *pid)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);

	*type = FOWN_TID;
	*pid = 0;
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	*type = o->type;
	*pid = o->pid;
	pthread_mutex_unlock(&o->lock);
}

long fasync_setsig(struct file *f, int sig)
{
	struct fown *o;

	if (sig < 0 || sig > KSIG_MAX)
		return -EINVAL;
	o = fown_of(f);
	pthread_mutex_lock(&o->lock);
	o->sig = sig;
	pthread_mutex_unlock(&o->lock);
	return 0;
}

int fasync_getsig(struct file *f)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);
	int sig;

	if (!o)
		return 0;
	pthread_mutex_lock(&o->lock);
	sig = o->sig;
	pthread_mutex_unlock(&o->lock);
	return sig;
}

/* --- sending ------------------------------------------------------------------ */

/* Linux's band_table for POLL_IN, POLL_OUT and POLL_MSG. */
#define BAND_IN	 (POLLIN | POLLRDNORM)
#define BAND_OUT (POLLOUT | POLLWRNORM | POLLWRBAND)
#define BAND_MSG (POLLIN | POLLRDNORM | 0x400 /* POLLMSG */)

static void send_one(struct kernel *k, int type, int pid, int sig, int fd, int reason)
{
	struct task *p;
	siginfo_t si;

	if (sig) {
		memset(&si, 0, sizeof(si));
		si.si_signo = sig;
		si.si_code = reason;
		si.si_band = reason == POLL_IN ? BAND_IN : reason == POLL_MSG ? BAND_MSG : BAND_OUT;
		si.si_fd = fd;
	} else {
		siginfo_kernel(&si, SIGIO);
	}
	if (type == FOWN_PGRP) {
		signal_send_pgrp(k, pid, &si);
		return;
	}
	p = kernel_find_task(k, pid);
	if (!p)
		return;
	signal_send(p, &si, type == FOWN_PID);
	task_put(p);
}

static void worker_run(struct fown *o, unsigned due)
{
	int type, pid, sig, fd, msg_fd;
	struct kernel *k;
	bool armed;

	pthread_mutex_lock(&o->lock);
	k = o->k;
	type = o->type;
	pid = o->pid;
	sig = o->sig;
	fd = o->fd;
	msg_fd = o->msg_fd;
	armed = o->armed;
	pthread_mutex_unlock(&o->lock);
	if (!pid || !k)
		return;
	if (due & DUE_MSG)
		send_one(k, type, pid, sig, msg_fd, POLL_MSG);
	if (!armed)
		return;
	if (due & DUE_IN)
		send_one(k, type, pid, sig, fd, POLL_IN);
	if (due & DUE_OUT)
		send_one(k, type, pid, sig, fd, POLL_OUT);
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&worker.lock);
	for (;;) {
		struct fown *o;
		unsigned due;
		while (list_empty(&worker.queue))
			pthread_cond_wait(&worker.cond, &worker.lock);
		o = list_first_entry(&worker.queue, struct fown, work);
		list_del(&o->work);
		o->queued = false;
		due = o->due;
		o->due = 0;
		pthread_mutex_unlock(&worker.lock);
		worker_run(o, due);
		fown_put(o);
		pthread_mutex_lock(&worker.lock);
	}
	return NULL;
}

static void worker_start_locked(void)
{
	int ret;

	if (worker.running)
		return;
	ret = thread_start_detached(worker_main, NULL, 256 * 1024);
	if (ret == 0)
		worker.running = true;
	else
		log_warning("fasync: cannot start the signal worker: %s", strerror(ret));
}

/* Hand o to the worker with due (DUE_*) added. */
static void queue_due(struct fown *o, unsigned due)
{
	pthread_mutex_lock(&worker.lock);
	o->due |= due;
	if (!o->queued) {
		o->queued = true;
		__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
		list_add_tail(&o->work, &worker.queue);
		pthread_cond_signal(&worker.cond);
	}
	pthread_mutex_unlock(&worker.lock);
}

/* A wake-up of one of the file's queues (its lock held): what it means
 * for this end (0: anything, as a close's wake-up). */
static bool fown_wake(struct waiter *w, unsigned events)
{
	struct fown *o = list_entry(w, struct fown_wait, w)->o;
	unsigned due = 0;

	if (o->readable && (!events || (events & (POLLIN | POLLRDNORM | POLLHUP))))
		due |= DUE_IN;
	if (o->writable && (!events || (events & (POLLOUT | POLLWRNORM | POLLERR))))
		due |= DUE_OUT;
	if (due)
		queue_due(o, due);
	return false;
}

struct fown_table {
	struct poll_table pt;
	struct fown *o;
};

static void fown_queue(struct poll_table *pt, struct waitq *wq)
{
	struct fown *o = ((struct fown_table *)pt)->o;
	struct fown_wait *fw;

	if (o->nwait == FOWN_WQS)
		return;
	fw = &o->waits[o->nwait++];
	fw->wq = wq;
	fw->o = o;
	fw->w.func = fown_wake;
	waitq_add(wq, &fw->w);
}

/* Linux sends SIGIO for pipes and sockets (their fasync ops). */
static bool has_fasync(struct file *f)
{
	return f->inode && (S_ISFIFO(f->inode->mode) || S_ISSOCK(f->inode->mode));
}

static void unhook(struct fown *o)
{
	for (unsigned i = 0; i < o->nwait; i++)
		waiter_finish(o->waits[i].wq, &o->waits[i].w);
	o->nwait = 0;
}

void fasync_set(struct file *f, int fd, bool on)
{
	struct fown_table ft = {.pt = {.queue = fown_queue, .key = 0}};
	struct fown *o;
	int flags;

	if (!has_fasync(f))
		return;
	if (!on && !__atomic_load_n(&f->fown, __ATOMIC_ACQUIRE))
		return;
	o = fown_of(f);
	pthread_mutex_lock(&o->lock);
	o->fd = fd;
	if (on == o->armed) {
		pthread_mutex_unlock(&o->lock);
		return;
	}
	o->armed = on;
	if (!on) {
		unhook(o);
		pthread_mutex_unlock(&o->lock);
		return;
	}
	flags = file_getfl(f);
	o->readable = flags >= 0 && flags_readable(flags);
	o->writable = flags >= 0 && flags_writable(flags);
	pthread_mutex_lock(&worker.lock);
	worker_start_locked();
	pthread_mutex_unlock(&worker.lock);
	/* Wake-ups may come at once: they take the worker's lock only. */
	ft.o = o;
	file_poll(f, &ft.pt);
	pthread_mutex_unlock(&o->lock);
}

void fasync_release(struct file *f)
{
	struct fown *o = f->fown;

	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->armed = false;
	unhook(o);
	pthread_mutex_unlock(&o->lock);
	fown_put(o);
}

/* --- dnotify's owners ------------------------------------------------------------ */

struct fown *fasync_owner_hold(struct file *f)
{
	struct fown *o = fown_of(f);

	__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&worker.lock);
	worker_start_locked();
	pthread_mutex_unlock(&worker.lock);
	return o;
}

void fasync_owner_put(struct fown *o)
{
	fown_put(o);
}

void fasync_owner_msg(struct fown *o, int fd)
{
	pthread_mutex_lock(&o->lock);
	o->msg_fd = fd;
	pthread_mutex_unlock(&o->lock);
	queue_due(o, DUE_MSG);
}
