/*
 * POSIX message queues (mqueue.h), as Linux's ipc/mqueue.c: the names
 * live in the sandbox's IPC namespace (one table, one lock); an open
 * queue is a file that holds a reference to it, so a queue outlives its
 * name (mq_unlink) until its last descriptor closes. Messages are kept
 * sorted, highest priority first and FIFO within one priority.
 */
#include "config.h"
#include "sentry/ipc/mqueue.h"
#include "sentry/ipc/ipc.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/timers.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"
#include "sentry/vfs/vfs.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MQ_PRIO_MAX_ 32768
/* Linux's HARD_MSGMAX and HARD_MSGSIZEMAX: not even CAP_SYS_RESOURCE passes them. */
#define MQ_HARD_MSGMAX	   65536
#define MQ_HARD_MSGSIZEMAX (16 * 1024 * 1024)
#ifndef SI_MESGQ
#define SI_MESGQ (-3)
#endif

/* struct mq_attr of x86-64 (what the calls copy in and out). */
struct mq_attr_guest {
	int64_t flags, maxmsg, msgsize, curmsgs;
	int64_t pad[4];
};
_Static_assert(sizeof(struct mq_attr_guest) == 64, "mq_attr layout");

/* The namespace's table and /proc/sys/fs/mqueue's limits (Linux's defaults). */
struct mq_ns {
	pthread_mutex_t lock;
	struct list_head queues; /* named queues, by ->node */
	unsigned count;		 /* queues alive, named or not (queues_max counts them) */
	unsigned queues_max, msg_max, msgsize_max, msg_default, msgsize_default;
	struct list_head users; /* struct mq_user: RLIMIT_MSGQUEUE's charges */
};

/* What a user's queues may hold at most, charged against RLIMIT_MSGQUEUE. */
struct mq_user {
	struct list_head node;
	uint32_t uid;
	uint64_t bytes;
};

struct mq_msg {
	struct list_head node;
	unsigned prio;
	size_t len;
	char text[];
};

struct mqueue {
	int refs; /* under ns->lock: the name's and each open file's */
	struct mq_ns *ns;
	struct list_head node; /* in ns->queues while named */
	bool named;
	char name[NAME_MAX + 1];
	uint32_t uid, gid;
	uint16_t mode;
	/* The rest under lock. */
	pthread_mutex_t lock;
	struct waitq wq; /* senders, receivers, poll/epoll */
	int64_t maxmsg, msgsize, curmsgs;
	uint64_t qsize;	      /* the sum of the queued messages' lengths */
	struct mq_user *user; /* charged bytes, for the queue's life */
	uint64_t charged;
	int receivers; /* receivers waiting: a message for one is told nobody */
	struct list_head msgs;
	/* mq_notify: the process to tell (a reference), how, and its pid. */
	struct thread_group *notify_tg;
	int notify_pid;
	struct ksigevent notify;
};

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

static struct mq_ns *mq_ns_of(struct kernel *k)
{
	struct ipc_ns *ipc = ipc_ns_of(k);
	struct mq_ns *ns;

	pthread_mutex_lock(&create_lock);
	if (!ipc->mq) {
		ns = xzalloc(sizeof(*ns));
		pthread_mutex_init(&ns->lock, NULL);
		list_init(&ns->queues);
		list_init(&ns->users);
		ns->queues_max = 256;
		ns->msg_max = ns->msg_default = 10;
		ns->msgsize_max = ns->msgsize_default = 8192;
		ipc->mq = ns;
	}
	ns = ipc->mq;
	pthread_mutex_unlock(&create_lock);
	return ns;
}

unsigned mq_limit(struct kernel *k, const char *name)
{
	struct mq_ns *ns = mq_ns_of(k);

	if (!strcmp(name, "msg_max"))
		return ns->msg_max;
	if (!strcmp(name, "msgsize_max"))
		return ns->msgsize_max;
	if (!strcmp(name, "queues_max"))
		return ns->queues_max;
	if (!strcmp(name, "msg_default"))
		return ns->msg_default;
	return ns->msgsize_default;
}

static void mq_drop_notify(struct mqueue *q)
{
	if (q->notify_tg)
		tg_put(q->notify_tg);
	q->notify_tg = NULL;
	q->notify_pid = 0;
}

static void mq_free(struct mqueue *q)
{
	struct mq_msg *m, *n;

	list_for_each_entry_safe(m, n, &q->msgs, node)
		free(m);
	mq_drop_notify(q);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* Drop a reference; under ns->lock. */
static void mq_put_locked(struct mqueue *q)
{
	if (--q->refs)
		return;
	q->ns->count--;
	q->user->bytes -= q->charged;
	mq_free(q);
}

void mq_ns_free(struct mq_ns *ns)
{
	struct mqueue *q, *n;

	if (!ns)
		return;
	pthread_mutex_lock(&ns->lock);
	list_for_each_entry_safe(q, n, &ns->queues, node) {
		list_del(&q->node);
		q->named = false;
		mq_put_locked(q);
	}
	/* The users stay while files hold queues charged to them. */
	pthread_mutex_unlock(&ns->lock);
	/* Files still open hold the rest (and the users they are charged to);
	 * the namespace goes with the sandbox. */
}

/* --- the file ---------------------------------------------------------------- */

static const struct file_ops mq_file_ops;

/* The queue of descriptor fd with a file reference in *fp, or -EBADF. */
static int mq_fd_get(struct task *t, int fd, struct file **fp)
{
	struct file *f = fd_get(t->files, fd);

	if (!f)
		return -EBADF;
	if (f->ops != &mq_file_ops) {
		file_put(f);
		return -EBADF;
	}
	*fp = f;
	return 0;
}

/* The line Linux's mqueue_read_file gives (QSIZE, notification); read at *pos. */
static long mq_file_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct mqueue *q = f->priv;
	char line[128];
	int64_t off = pos ? *pos : 0;
	int n;

	pthread_mutex_lock(&q->lock);
	n = snprintf(line, sizeof(line), "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
		     (unsigned long)q->qsize, q->notify_tg ? q->notify.notify : 0,
		     q->notify_tg && q->notify.notify == SIGEV_SIGNAL ? q->notify.signo : 0,
		     q->notify_tg ? q->notify_pid : 0);
	pthread_mutex_unlock(&q->lock);
	if (off < 0)
		return -EINVAL;
	if (off >= n)
		return 0;
	if (len > (size_t)(n - off))
		len = (size_t)(n - off);
	memcpy(buf, line + off, len);
	if (pos)
		*pos = off + (int64_t)len;
	return (long)len;
}

static unsigned mq_file_poll(struct file *f, struct poll_table *pt)
{
	struct mqueue *q = f->priv;
	unsigned events = 0;

	poll_wait(pt, &q->wq);
	pthread_mutex_lock(&q->lock);
	if (q->curmsgs)
		events |= POLLIN | POLLRDNORM;
	if (q->curmsgs < q->maxmsg)
		events |= POLLOUT | POLLWRNORM;
	pthread_mutex_unlock(&q->lock);
	return events;
}

static int64_t mq_file_llseek(struct file *f, int64_t off, int whence)
{
	return generic_llseek(f, off, whence, 0);
}

static void mq_file_release(struct file *f)
{
	struct mqueue *q = f->priv;
	struct mq_ns *ns = q->ns;

	pthread_mutex_lock(&ns->lock);
	mq_put_locked(q);
	pthread_mutex_unlock(&ns->lock);
}

static const struct file_ops mq_file_ops = {
	.read = mq_file_read,
	.llseek = mq_file_llseek,
	.poll = mq_file_poll,
	.release = mq_file_release,
};

/* --- names, open, unlink -------------------------------------------------------- */

/* The name (glibc strips the leading '/'): 0, -ENOENT (empty), -EACCES (a
 * '/' inside, ".", "..": what the lookup in the mqueue root says),
 * -ENAMETOOLONG, -EFAULT. */
static int mq_name_in(struct task *t, uint64_t uname, char name[NAME_MAX + 1])
{
	char buf[PATH_MAX];
	long n = mm_strncpy_in(t->mm, buf, uname, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT;
	if (strchr(buf, '/') || !strcmp(buf, ".") || !strcmp(buf, ".."))
		return -EACCES;
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, buf, (size_t)n + 1);
	return 0;
}

static struct mqueue *mq_lookup_locked(struct mq_ns *ns, const char *name)
{
	struct mqueue *q;

	list_for_each_entry(q, &ns->queues, node)
		if (!strcmp(q->name, name))
			return q;
	return NULL;
}

/* Linux's generic_permission on the queue's inode: mask of 4 (read), 2 (write). */
static bool mq_permitted(const struct mqueue *q, const struct creds *c, int mask)
{
	unsigned bits = q->mode;

	if (c->fsuid == q->uid)
		bits >>= 6;
	else if (creds_in_group(c, q->gid))
		bits >>= 3;
	if ((bits & (unsigned)mask & 7) == (unsigned)mask)
		return true;
	return creds_capable(c, KCAP_DAC_OVERRIDE);
}

/* Linux's mq_attr_ok. */
static int mq_attr_ok(struct mq_ns *ns, const struct creds *c, const struct mq_attr_guest *a)
{
	if (a->maxmsg <= 0 || a->msgsize <= 0)
		return -EINVAL;
	if (creds_capable(c, KCAP_SYS_RESOURCE)) {
		if (a->maxmsg > MQ_HARD_MSGMAX || a->msgsize > MQ_HARD_MSGSIZEMAX)
			return -EINVAL;
	} else if (a->maxmsg > ns->msg_max || a->msgsize > ns->msgsize_max) {
		return -EINVAL;
	}
	return 0;
}

/*
 * Charge what a queue of a's size may hold to the caller's user, as
 * Linux's mqueue_get_inode: the messages, plus the kernel's bookkeeping per
 * message and per priority (struct msg_msg and posix_msg_tree_node, 48
 * bytes each on x86-64). 0, or -EMFILE past RLIMIT_MSGQUEUE (for root too).
 * Under ns->lock.
 */
static int mq_charge(struct task *t, struct mq_ns *ns, int64_t maxmsg, int64_t msgsize,
		     struct mq_user **up, uint64_t *charged)
{
	uint64_t lim = t->tg->rlim[RLIMIT_MSGQUEUE].rlim_cur;
	uint64_t tree = (uint64_t)maxmsg * 48 +
			(uint64_t)(maxmsg < MQ_PRIO_MAX_ ? maxmsg : MQ_PRIO_MAX_) * 48;
	uint64_t bytes = tree + (uint64_t)maxmsg * (uint64_t)msgsize;
	struct mq_user *u;

	list_for_each_entry(u, &ns->users, node)
		if (u->uid == t->creds.uid)
			goto found;
	u = xzalloc(sizeof(*u));
	u->uid = t->creds.uid;
	list_add_tail(&u->node, &ns->users);
found:
	if (lim != RLIM_INFINITY && (u->bytes + bytes < u->bytes || u->bytes + bytes > lim))
		return -EMFILE;
	u->bytes += bytes;
	*up = u;
	*charged = bytes;
	return 0;
}

static struct mqueue *mq_new(struct task *t, struct mq_ns *ns, const char *name, uint32_t mode,
			     const struct mq_attr_guest *a)
{
	struct mqueue *q = xzalloc(sizeof(*q));

	q->ns = ns;
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->uid = t->creds.fsuid;
	q->gid = t->creds.fsgid;
	pthread_mutex_lock(&t->fs->lock);
	q->mode = (uint16_t)(mode & 07777 & ~t->fs->umask);
	pthread_mutex_unlock(&t->fs->lock);
	pthread_mutex_init(&q->lock, NULL);
	waitq_init(&q->wq);
	list_init(&q->msgs);
	q->maxmsg = a ? a->maxmsg : ns->msg_default;
	q->msgsize = a ? a->msgsize : ns->msgsize_default;
	q->refs = 1; /* the name's */
	q->named = true;
	list_add_tail(&q->node, &ns->queues);
	ns->count++;
	return q;
}

long mq_open_name(struct task *t, uint64_t uname, int oflag, uint32_t mode, uint64_t uattr)
{
	struct mq_ns *ns = mq_ns_of(t->k);
	struct mq_attr_guest attr, *a = NULL;
	char name[NAME_MAX + 1];
	struct mq_user *u;
	uint64_t charged;
	struct mqueue *q;
	struct file *f;
	int acc = oflag & O_ACCMODE, mask;
	long ret;

	ret = mq_name_in(t, uname, name);
	if (ret)
		return ret;
	if ((oflag & O_CREAT) && uattr) {
		if (mm_copy_in(t->mm, &attr, uattr, sizeof(attr)))
			return -EFAULT;
		a = &attr;
	}
	if (acc == O_ACCMODE)
		return -EINVAL;
	mask = acc == O_RDONLY ? 4 : acc == O_WRONLY ? 2 : 6;

	pthread_mutex_lock(&ns->lock);
	q = mq_lookup_locked(ns, name);
	if (q) {
		if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			ret = -EEXIST;
			goto out;
		}
		if (!mq_permitted(q, &t->creds, mask)) {
			ret = -EACCES;
			goto out;
		}
	} else {
		if (!(oflag & O_CREAT)) {
			ret = -ENOENT;
			goto out;
		}
		if (ns->count >= ns->queues_max && !creds_capable(&t->creds, KCAP_SYS_RESOURCE)) {
			ret = -ENOSPC;
			goto out;
		}
		if (a && (ret = mq_attr_ok(ns, &t->creds, a)))
			goto out;
		ret = mq_charge(t, ns, a ? a->maxmsg : ns->msg_default,
				a ? a->msgsize : ns->msgsize_default, &u, &charged);
		if (ret)
			goto out;
		q = mq_new(t, ns, name, mode, a);
		q->user = u;
		q->charged = charged;
	}
	q->refs++; /* the file's */
	pthread_mutex_unlock(&ns->lock);

	f = anon_file_new("[mqueue]", &mq_file_ops, acc | (oflag & O_NONBLOCK), q);
	f->fmode |= FMODE_ATPOS | FMODE_PREAD;
	ret = fd_install(t->files, f, 0, oflag & O_CLOEXEC, task_nofile(t));
	file_put(f);
	return ret;
out:
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

long mq_unlink_name(struct task *t, uint64_t uname)
{
	struct mq_ns *ns = mq_ns_of(t->k);
	char name[NAME_MAX + 1];
	struct mqueue *q;
	long ret;

	ret = mq_name_in(t, uname, name);
	if (ret)
		return ret;
	pthread_mutex_lock(&ns->lock);
	q = mq_lookup_locked(ns, name);
	if (!q) {
		ret = -ENOENT;
	} else if (t->creds.fsuid != q->uid && t->creds.fsuid != 0 &&
		   !creds_capable(&t->creds, KCAP_FOWNER)) {
		ret = -EPERM; /* the mqueue root is sticky (01777) and root's */
	} else {
		list_del(&q->node);
		q->named = false;
		mq_put_locked(q);
	}
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

/* --- send and receive ------------------------------------------------------------ */

/* An absolute CLOCK_REALTIME timeout as a CLOCK_MONOTONIC deadline (0:
 * none; 1: passed already): 0, -EFAULT or -EINVAL. */
static int mq_timeout_in(struct task *t, uint64_t uts, uint64_t *deadline)
{
	struct timespec ts, now;
	int64_t abs_ns, now_ns;

	*deadline = 0;
	if (!uts)
		return 0;
	if (mm_copy_in(t->mm, &ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -EINVAL;
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (ts.tv_sec > INT64_MAX / 1000000000 - 1) {
		*deadline = UINT64_MAX;
		return 0;
	}
	abs_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	*deadline = abs_ns <= now_ns ? 1 : monotonic_ns() + (uint64_t)(abs_ns - now_ns);
	return 0;
}

/* Wait on q->wq with q->lock held (returned held): 0 (look again),
 * -ETIMEDOUT or -ERESTARTSYS (SA_RESTART restarts the mq calls; their
 * deadline is absolute). */
static int mq_wait(struct task *t, struct mqueue *q, uint64_t deadline)
{
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (deadline == 1)
		return -ETIMEDOUT;
	snap = waiter_prepare(&q->wq, &w, t);
	pthread_mutex_unlock(&q->lock);
	ret = task_block(t, snap, deadline);
	waiter_finish(&q->wq, &w);
	pthread_mutex_lock(&q->lock);
	if (ret == -ETIMEDOUT)
		return -ETIMEDOUT;
	return ret < 0 ? -ERESTARTSYS : 0;
}

/* A message came to an empty queue: Linux's __do_notify, under q->lock
 * (Linux hands a message straight to a waiting receiver and tells no one).
 * The signal, if any, is sent by the caller after unlocking (*tg, *info). */
static void mq_notify_take(struct task *t, struct mqueue *q, struct thread_group **tg,
			   siginfo_t *info)
{
	*tg = NULL;
	if (!q->notify_tg || q->curmsgs != 1 || q->receivers)
		return;
	if (q->notify.notify == SIGEV_SIGNAL && q->notify.signo) {
		memset(info, 0, sizeof(*info));
		info->si_signo = q->notify.signo;
		info->si_code = SI_MESGQ;
		info->si_value.sival_ptr = (void *)(uintptr_t)q->notify.value;
		info->si_pid = t->tgid;
		info->si_uid = t->creds.uid;
		*tg = q->notify_tg;
		q->notify_tg = NULL;
		q->notify_pid = 0;
	} else {
		mq_drop_notify(q); /* SIGEV_NONE, or signal 0: unregistered, told nothing */
	}
}

long mq_timedsend_fd(struct task *t, int fd, uint64_t umsg, uint64_t len, unsigned prio,
		     uint64_t uts)
{
	struct thread_group *tg = NULL;
	struct mq_msg *m = NULL, *p;
	struct mqueue *q;
	uint64_t deadline;
	siginfo_t info;
	struct file *f;
	long ret;

	if (prio >= MQ_PRIO_MAX_)
		return -EINVAL;
	ret = mq_timeout_in(t, uts, &deadline);
	if (ret)
		return ret;
	ret = mq_fd_get(t, fd, &f);
	if (ret)
		return ret;
	q = f->priv;
	if (!flags_writable(f->flags)) {
		ret = -EBADF;
		goto out;
	}
	if (len > (uint64_t)q->msgsize) {
		ret = -EMSGSIZE;
		goto out;
	}
	m = malloc(sizeof(*m) + len);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->prio = prio;
	m->len = len;
	if (len && mm_copy_in(t->mm, m->text, umsg, len)) {
		ret = -EFAULT;
		goto out;
	}
	pthread_mutex_lock(&q->lock);
	while (q->curmsgs >= q->maxmsg) {
		if (f->flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		ret = mq_wait(t, q, deadline);
		if (ret)
			break;
	}
	if (!ret) {
		list_for_each_entry(p, &q->msgs, node)
			if (p->prio < prio)
				break;
		list_add_tail(&m->node, &p->node); /* before p, or at the end */
		m = NULL;
		q->curmsgs++;
		q->qsize += len;
		mq_notify_take(t, q, &tg, &info);
	}
	pthread_mutex_unlock(&q->lock);
	if (!ret)
		waitq_wake_events(&q->wq, POLLIN | POLLRDNORM);
	if (tg) {
		pthread_mutex_lock(&t->k->lock);
		signal_send_tg_locked(tg, &info);
		pthread_mutex_unlock(&t->k->lock);
		tg_put(tg);
	}
out:
	free(m);
	file_put(f);
	return ret;
}

long mq_timedreceive_fd(struct task *t, int fd, uint64_t umsg, uint64_t len, uint64_t uprio,
			uint64_t uts)
{
	struct mq_msg *m = NULL;
	struct mqueue *q;
	uint64_t deadline;
	struct file *f;
	long ret;

	ret = mq_timeout_in(t, uts, &deadline);
	if (ret)
		return ret;
	ret = mq_fd_get(t, fd, &f);
	if (ret)
		return ret;
	q = f->priv;
	if (!flags_readable(f->flags)) {
		ret = -EBADF;
		goto out;
	}
	if (len < (uint64_t)q->msgsize) {
		ret = -EMSGSIZE;
		goto out;
	}
	pthread_mutex_lock(&q->lock);
	while (!q->curmsgs) {
		if (f->flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		q->receivers++;
		ret = mq_wait(t, q, deadline);
		q->receivers--;
		if (ret)
			break;
	}
	if (!ret) {
		m = list_first_entry(&q->msgs, struct mq_msg, node);
		list_del(&m->node);
		q->curmsgs--;
		q->qsize -= m->len;
	}
	pthread_mutex_unlock(&q->lock);
	if (ret)
		goto out;
	waitq_wake_events(&q->wq, POLLOUT | POLLWRNORM);
	/* As Linux, a message that cannot be copied out is lost. */
	if ((uprio && mm_copy_out(t->mm, uprio, &m->prio, sizeof(m->prio))) ||
	    (m->len && mm_copy_out(t->mm, umsg, m->text, m->len)))
		ret = -EFAULT;
	else
		ret = (long)m->len;
out:
	free(m);
	file_put(f);
	return ret;
}

/* --- notify, attributes ---------------------------------------------------------- */

long mq_notify_fd(struct task *t, int fd, uint64_t usev)
{
	struct ksigevent ev;
	struct thread_group *old = NULL;
	struct mqueue *q;
	struct file *f;
	long ret;

	if (usev) {
		if (mm_copy_in(t->mm, &ev, usev, sizeof(ev)))
			return -EFAULT;
		switch (ev.notify) {
		case SIGEV_NONE:
			break;
		case SIGEV_SIGNAL:
			if (ev.signo < 0 || ev.signo > GUEST_NSIG)
				return -EINVAL;
			break;
		case SIGEV_THREAD:
			/* Needs a netlink socket to post the cookie to: not offered. */
			return -EINVAL;
		default:
			return -EINVAL;
		}
	}
	ret = mq_fd_get(t, fd, &f);
	if (ret)
		return ret;
	q = f->priv;
	pthread_mutex_lock(&q->lock);
	if (!usev) {
		if (q->notify_tg == t->tg) {
			old = q->notify_tg;
			q->notify_tg = NULL;
			q->notify_pid = 0;
		}
	} else if (q->notify_tg) {
		ret = -EBUSY;
	} else {
		q->notify = ev;
		q->notify_tg = tg_get(t->tg);
		q->notify_pid = t->tgid;
	}
	pthread_mutex_unlock(&q->lock);
	if (old)
		tg_put(old);
	file_put(f);
	return ret;
}

long mq_getsetattr_fd(struct task *t, int fd, uint64_t unew, uint64_t uold)
{
	struct mq_attr_guest na, oa;
	struct mqueue *q;
	struct file *f;
	long ret;

	if (unew) {
		if (mm_copy_in(t->mm, &na, unew, sizeof(na)))
			return -EFAULT;
		if (na.flags & ~(int64_t)O_NONBLOCK)
			return -EINVAL;
	}
	ret = mq_fd_get(t, fd, &f);
	if (ret)
		return ret;
	q = f->priv;
	memset(&oa, 0, sizeof(oa));
	pthread_mutex_lock(&q->lock);
	oa.flags = f->flags & O_NONBLOCK;
	oa.maxmsg = q->maxmsg;
	oa.msgsize = q->msgsize;
	oa.curmsgs = q->curmsgs;
	if (unew) {
		if (na.flags & O_NONBLOCK)
			__atomic_or_fetch(&f->flags, O_NONBLOCK, __ATOMIC_RELAXED);
		else
			__atomic_and_fetch(&f->flags, ~O_NONBLOCK, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&q->lock);
	if (uold && mm_copy_out(t->mm, uold, &oa, sizeof(oa)))
		ret = -EFAULT;
	file_put(f);
	return ret;
}
