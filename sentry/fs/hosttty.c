/*
 * The host terminal as a guest tty (see hosttty.h). Its files wrap plain
 * host files (sentry/fs/hostfile.c) for the data, and add what a terminal
 * does in the sentry: job control for the guest's process groups, and
 * reads that a signal can interrupt. A read first waits for input through
 * the host file's poll op (the host poller, sentry/fs/hostpoll.c), so a
 * blocked read never holds a task thread in the host.
 *
 * There is one host terminal per sandbox process.
 */
#include "config.h"
#include "sentry/fs/hosttty.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hostjob.h"
#include "sentry/fs/tty.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

struct hosttty {
	struct tty tty;
	int fd;	       /* rung's descriptor on the terminal */
	uint64_t rdev; /* the terminal's host device */
	bool job_control;

	pthread_mutex_t lock;
	struct winsize ws; /* the size the guest was last told of */
	bool self_stopped; /* rung stopped itself with the guest's init */
};

static struct hosttty *host;

static const struct file_ops hosttty_fops;

#define INNER(f) ((struct file *)(f)->priv)

/* --- the host side ----------------------------------------------------------------- */

bool hosttty_job_control(int fd)
{
	return hostjob_job_control(fd);
}

/* --- the tty driver ------------------------------------------------------------------ */

static long host_result(long r)
{
	return r < 0 ? -errno : r;
}

static int host_get_termios(struct tty *tty, struct ktermios *kt)
{
	memset(kt, 0, sizeof(*kt));
	if (ioctl(host->fd, TCGETS, kt) < 0)
		return -errno;
	tty_termios_speeds(kt);
	return 0;
}

static int host_set_termios(struct tty *tty, const struct ktermios *kt, int when)
{
	unsigned long cmd = when == TTY_SET_FLUSH   ? TCSETSF
			    : when == TTY_SET_DRAIN ? TCSETSW
						    : TCSETS;
	struct ktermios copy = *kt;

	return (int)host_result(ioctl(host->fd, cmd, &copy));
}

static int host_get_winsize(struct tty *tty, struct winsize *ws)
{
	return (int)host_result(ioctl(host->fd, TIOCGWINSZ, ws));
}

static int host_set_winsize(struct tty *tty, const struct winsize *ws)
{
	struct winsize copy = *ws;

	if (ioctl(host->fd, TIOCSWINSZ, &copy) < 0)
		return -errno;
	pthread_mutex_lock(&host->lock);
	host->ws = *ws;
	pthread_mutex_unlock(&host->lock);
	return 0;
}

static long host_driver_ioctl(struct tty *tty, struct file *f, bool master, unsigned long cmd,
			      void *arg)
{
	long v = 0;

	memcpy(&v, arg, sizeof(v));
	switch (cmd) {
	case FIONREAD:
	case TIOCOUTQ:
		return host_result(ioctl(host->fd, cmd, arg));
	case TCFLSH:
	case TCXONC:
		return host_result(ioctl(host->fd, cmd, v));
	case TCSBRK:
	case TCSBRKP:
		/* Wait for the output to drain; never a break on the host's line. */
		return host_result(ioctl(host->fd, TCSBRK, 1));
	case TIOCSBRK:
	case TIOCCBRK:
		return 0;
	case TIOCSTI:
		return -EIO; /* no input is faked on the host's terminal */
	default:
		return -ENOTTY;
	}
}

static struct file *host_file(int fd);

static int host_reopen(struct tty *tty, int flags, struct file **out)
{
	int fd = fcntl(host->fd, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	*out = host_file(fd);
	return 0;
}

static const struct tty_ops host_tty_ops = {
	.get_termios = host_get_termios,
	.set_termios = host_set_termios,
	.get_winsize = host_get_winsize,
	.set_winsize = host_set_winsize,
	.ioctl = host_driver_ioctl,
	.reopen = host_reopen,
};

/* --- files ---------------------------------------------------------------------------- */

/* A poll table that queues one waiter for a task (on the host file's queue). */
struct read_wait {
	struct poll_table pt;
	struct task *t;
	struct waitq *wq;
	struct waiter w;
};

static void read_wait_queue(struct poll_table *pt, struct waitq *wq)
{
	struct read_wait *rw = container_of(pt, struct read_wait, pt);

	if (rw->wq)
		return;
	rw->wq = wq;
	waiter_prepare(wq, &rw->w, rw->t);
}

/* Wait until a read of the terminal will not block (or f does not block). */
static int wait_readable(struct file *f)
{
	struct task *t = current_task();
	struct file *in = INNER(f);

	if (!t || !in->ops->poll || (file_getfl(f) & O_NONBLOCK))
		return 0;
	for (;;) {
		struct read_wait rw = {.pt = {.queue = read_wait_queue, .key = POLLIN}, .t = t};
		unsigned ready = POLLIN | POLLHUP | POLLERR;
		uint32_t snap;
		int r = 0;
		/* rung in the host's background: stop as a job would. */
		if (host->job_control && !hostjob_in_foreground(host->fd)) {
			host_stop_self(SIGTTIN);
			if (task_interrupted(t))
				return -ERESTARTSYS;
			continue;
		}
		snap = task_wake_snapshot(t);
		ready &= in->ops->poll(in, &rw.pt);
		if (!ready)
			r = task_block(t, snap, 0);
		if (rw.wq)
			waiter_finish(rw.wq, &rw.w);
		if (ready)
			return 0;
		if (r == -EINTR)
			return -ERESTARTSYS;
	}
}

static long hosttty_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	long ret = tty_check_change(&host->tty, SIGTTIN);

	if (ret == 0)
		ret = wait_readable(f);
	if (ret == 0)
		ret = INNER(f)->ops->read(INNER(f), buf, len, NULL);
	return ret;
}

static long hosttty_read_iov(struct file *f, const struct iovec *iov, int n, int64_t *pos)
{
	long ret = tty_check_change(&host->tty, SIGTTIN);

	if (ret == 0)
		ret = wait_readable(f);
	if (ret == 0)
		ret = INNER(f)->ops->read_iov(INNER(f), iov, n, NULL);
	return ret;
}

/* A background writer with TOSTOP set gets SIGTTOU. */
static int write_check(void)
{
	struct task *t = current_task();
	struct ktermios kt;
	bool bg;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->k->lock);
	bg = t->tg->tty == &host->tty && host->tty.pgrp != TTY_NONE &&
	     host->tty.pgrp != t->tg->pgid;
	pthread_mutex_unlock(&t->k->lock);
	if (!bg || host_get_termios(&host->tty, &kt) < 0 || !(kt.c_lflag & TOSTOP))
		return 0;
	return tty_check_change(&host->tty, SIGTTOU);
}

static long hosttty_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	long ret = write_check();

	return ret ? ret : INNER(f)->ops->write(INNER(f), buf, len, NULL);
}

static long hosttty_write_iov(struct file *f, const struct iovec *iov, int n, int64_t *pos)
{
	long ret = write_check();

	return ret ? ret : INNER(f)->ops->write_iov(INNER(f), iov, n, NULL);
}

static int64_t hosttty_llseek(struct file *f, int64_t off, int whence)
{
	return -ESPIPE;
}

/* A terminal file opened through a node is that node (/dev/console,
 * /dev/tty); stdio is /dev/console too when the guest has one. */
static int hosttty_fstat(struct file *f, struct kstat *st)
{
	if (f->inode) {
		inode_stat(f->inode, st);
		return 0;
	}
	return INNER(f)->ops->fstat(INNER(f), st);
}

static long hosttty_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	return tty_ioctl(&host->tty, f, false, cmd, arg);
}

static int hosttty_getfl(struct file *f)
{
	return file_getfl(INNER(f));
}

static int hosttty_setfl(struct file *f, int flags)
{
	return INNER(f)->ops->setfl(INNER(f), flags);
}

static unsigned hosttty_poll(struct file *f, struct poll_table *pt)
{
	return file_poll(INNER(f), pt);
}

static void hosttty_release(struct file *f)
{
	file_put(INNER(f));
}

static const struct file_ops hosttty_fops = {
	.read = hosttty_read,
	.write = hosttty_write,
	.read_iov = hosttty_read_iov,
	.write_iov = hosttty_write_iov,
	.llseek = hosttty_llseek,
	.fstat = hosttty_fstat,
	.ioctl = hosttty_ioctl,
	.getfl = hosttty_getfl,
	.setfl = hosttty_setfl,
	.poll = hosttty_poll,
	.release = hosttty_release,
};

static struct file *host_file(int fd)
{
	return file_alloc(&hosttty_fops, 0, hostfile_new(fd));
}

struct tty *hosttty_file_tty(struct file *f)
{
	return f->ops == &hosttty_fops ? &host->tty : NULL;
}

int hosttty_setup(struct kernel *k, int fd, bool job_control)
{
	unsigned dev;

	/* The terminal behind /dev/tty, to know its other descriptors by. */
	if (ioctl(fd, TIOCGDEV, &dev) < 0)
		return -errno;
	host = xzalloc(sizeof(*host));
	tty_init(&host->tty, k, &host_tty_ops, DEV_CONSOLE);
	host->fd = fd;
	host->rdev = makedev((dev & 0xfff00) >> 8, (dev & 0xff) | ((dev >> 12) & 0xfff00));
	host->job_control = job_control;
	pthread_mutex_init(&host->lock, NULL);
	ioctl(fd, TIOCGWINSZ, &host->ws);
	return 0;
}

struct file *hosttty_stdio_file(struct task *t, int hostfd)
{
	struct stat st;
	struct file *f;
	struct path p;

	if (!host || fstat(hostfd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != host->rdev)
		return hostfile_new(hostfd);
	f = host_file(hostfd);
	if (t && vfs_lookup(t, AT_FDCWD, "/dev/console", LOOKUP_FOLLOW, &p) == 0) {
		if (S_ISCHR(p.dentry->inode->mode) && p.dentry->inode->rdev == DEV_CONSOLE)
			file_set_path(f, &p);
		path_put(&p);
	}
	return f;
}

int hosttty_open_console(struct inode *inode, int flags, struct file **out)
{
	int ret;

	if (!host)
		return -ENXIO;
	ret = host_reopen(&host->tty, flags, out);
	if (ret == 0)
		(*out)->inode = inode_get(inode);
	return ret;
}

void hosttty_attach_init(struct thread_group *tg)
{
	struct kernel *k = tg->k;

	if (!host)
		return;
	pthread_mutex_lock(&k->lock);
	/* Not a session's leader (a container's init is): a job of its own. */
	if (tg->sid != tg->tgid)
		tg->pgid = tg->tgid;
	tty_set_ctty_locked(&host->tty, tg);
	pthread_mutex_unlock(&k->lock);
}

/* --- host signals ------------------------------------------------------------------ */

bool hosttty_forward_signal(int sig)
{
	struct kernel *k;
	bool ours;

	if (!host)
		return false;
	k = host->tty.k;
	pthread_mutex_lock(&k->lock);
	ours = host->tty.session != TTY_NONE;
	if (ours && host->tty.pgrp != TTY_NONE)
		tty_kill_pgrp_locked(k, host->tty.pgrp, sig);
	pthread_mutex_unlock(&k->lock);
	return ours;
}

void hosttty_resized(void)
{
	struct winsize ws;
	bool changed = false;

	if (!host || ioctl(host->fd, TIOCGWINSZ, &ws) < 0)
		return;
	pthread_mutex_lock(&host->tty.resize);
	pthread_mutex_lock(&host->lock);
	if (memcmp(&ws, &host->ws, sizeof(ws)) != 0) {
		host->ws = ws;
		changed = true;
	}
	pthread_mutex_unlock(&host->lock);
	if (changed)
		tty_signal_fg(&host->tty, SIGWINCH);
	pthread_mutex_unlock(&host->tty.resize);
}

void hosttty_continued(struct kernel *k)
{
	bool stopped;

	if (!host)
		return;
	pthread_mutex_lock(&host->lock);
	stopped = host->self_stopped;
	host->self_stopped = false;
	pthread_mutex_unlock(&host->lock);
	if (!stopped)
		return;
	/* fg/bg continued rung's job: the guest's part of it goes on too. */
	pthread_mutex_lock(&k->lock);
	if (k->init_tg)
		tty_kill_pgrp_locked(k, k->init_tg->pgid, SIGCONT);
	pthread_mutex_unlock(&k->lock);
}

void hosttty_init_job(struct kernel *k, int why, int sig)
{
	if (!host || !host->job_control || why != CLD_STOPPED)
		return;
	log_debug("the guest's init stopped (signal %d): so does rung", sig);
	pthread_mutex_lock(&host->lock);
	host->self_stopped = true;
	pthread_mutex_unlock(&host->lock);
	host_stop_self(sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU ? sig : SIGSTOP);
}
