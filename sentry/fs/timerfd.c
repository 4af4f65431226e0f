#include "config.h"
#include "sentry/fs/timerfd.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hostpoll.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

struct timerfd {
	int fd; /* the host timerfd, non-blocking */
	struct host_waitq hw;
};

static const struct file_ops timerfd_ops;

bool file_is_timerfd(struct file *f)
{
	return f->ops == &timerfd_ops;
}

/* The expirations since the last read (8 bytes), -EAGAIN, -ECANCELED ... */
static long timerfd_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct timerfd *tf = f->priv;
	struct task *t = current_task();

	for (;;) {
		struct waiter w = {0};
		uint32_t snap = 0;
		long n;
		int ret;

		if (t && !(f->flags & O_NONBLOCK))
			snap = waiter_prepare(&tf->hw.wq, &w, t);
		do {
			n = read(tf->fd, buf, len);
		} while (n < 0 && errno == EINTR);
		if (n >= 0 || errno != EAGAIN || !t || (f->flags & O_NONBLOCK)) {
			n = n < 0 ? -errno : n;
			if (w.queued)
				waiter_finish(&tf->hw.wq, &w);
			return n;
		}
		/* Not expired yet: the poller wakes us at the expiration. */
		ret = task_block(t, snap, 0);
		waiter_finish(&tf->hw.wq, &w);
		if (ret < 0)
			return -ERESTARTSYS;
	}
}

static unsigned timerfd_poll(struct file *f, struct poll_table *pt)
{
	struct timerfd *tf = f->priv;

	poll_wait(pt, &tf->hw.wq);
	return host_poll_now(tf->fd) & (POLLIN | POLLRDNORM | POLLERR);
}

static int64_t timerfd_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* noop_llseek */
}

static void timerfd_release(struct file *f)
{
	struct timerfd *tf = f->priv;

	host_waitq_release(&tf->hw);
	close(tf->fd);
	free(tf);
}

static const struct file_ops timerfd_ops = {
	.read = timerfd_read,
	.llseek = timerfd_llseek,
	.poll = timerfd_poll,
	.release = timerfd_release,
};

int timerfd_file_new(int clock, int flags, struct file **out)
{
	struct timerfd *tf;
	int fd, ret;

	fd = timerfd_create(clock, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	tf = xzalloc(sizeof(*tf));
	tf->fd = fd;
	host_waitq_init(&tf->hw, fd);
	ret = host_waitq_register(&tf->hw, POLLIN);
	if (ret < 0) {
		close(fd);
		free(tf);
		return ret;
	}
	*out = anon_file_new("[timerfd]", &timerfd_ops, O_RDWR | (flags & O_NONBLOCK), tf);
	return 0;
}

int timerfd_file_settime(struct file *f, int flags, const struct itimerspec *new,
			 struct itimerspec *old)
{
	struct timerfd *tf = f->priv;

	return timerfd_settime(tf->fd, flags, new, old) < 0 ? -errno : 0;
}

int timerfd_file_gettime(struct file *f, struct itimerspec *cur)
{
	struct timerfd *tf = f->priv;

	return timerfd_gettime(tf->fd, cur) < 0 ? -errno : 0;
}
