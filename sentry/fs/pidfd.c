/* Process file descriptors (pidfd.h). The process's exit wakes its
 * exit_wait queue (sentry/kernel/process.c), which a pidfd's pollers wait
 * on. */
#include "config.h"
#include "sentry/fs/pidfd.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/task.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>

static unsigned pidfd_poll(struct file *f, struct poll_table *pt)
{
	struct thread_group *tg = pidfd_tg(f);
	unsigned flags;

	if (!tg)
		return 0;
	poll_wait(pt, &tg->exit_wait);
	flags = __atomic_load_n(&tg->flags, __ATOMIC_ACQUIRE);
	/* Linux's pidfd_poll: readable once every thread is gone. */
	return flags & (TG_ZOMBIE | TG_REAPED) ? POLLIN | POLLRDNORM : 0;
}

static long pidfd_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	return -EINVAL;
}

static void pidfd_release(struct file *f)
{
	if (f->priv)
		tg_put(f->priv);
}

static const struct file_ops pidfd_ops = {
	.read = pidfd_read,
	.poll = pidfd_poll,
	.release = pidfd_release,
};

struct file *pidfd_file_new(struct thread_group *tg, int flags)
{
	return anon_file_new("[pidfd]", &pidfd_ops, O_RDWR | (flags & O_NONBLOCK),
			     tg ? tg_get(tg) : NULL);
}

void pidfd_set_process(struct file *f, struct thread_group *tg)
{
	__atomic_store_n(&f->priv, tg_get(tg), __ATOMIC_RELEASE);
}

struct thread_group *pidfd_tg(struct file *f)
{
	return f && f->ops == &pidfd_ops ? __atomic_load_n(&f->priv, __ATOMIC_ACQUIRE) : NULL;
}

struct file *pidfd_fget(struct fdtable *files, int fd, struct thread_group **tg)
{
	struct file *f = fd_get(files, fd);

	*tg = pidfd_tg(f);
	if (*tg)
		return f;
	if (f)
		file_put(f);
	return NULL;
}
