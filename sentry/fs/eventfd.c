/*
 * eventfd (Linux's fs/eventfd.c): the counter holds at most 2^64-2. A
 * read takes it all (EFD_SEMAPHORE: takes 1) and blocks at 0; a write adds
 * and blocks when the sum would pass the maximum. Readers are woken with
 * POLLIN, writers with POLLOUT; a counter at 2^64-1 (never reachable from
 * user space) would be POLLERR.
 */
#include "config.h"
#include "sentry/fs/eventfd.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
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

struct eventfd_ctx {
	pthread_mutex_t lock; /* count */
	struct waitq wq;      /* readers and writers, and poll/epoll */
	uint64_t count;
	bool semaphore;
	int id; /* fdinfo's eventfd-id */
};

static int eventfd_ids; /* the next id (Linux's eventfd_ida, never reused here) */

/* Wait on ctx->wq with ctx->lock held (returned held): 0 or -ERESTARTSYS. */
static int eventfd_wait(struct eventfd_ctx *ctx)
{
	struct task *t = current_task();
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (!t)
		return -ERESTARTSYS;
	snap = waiter_prepare(&ctx->wq, &w, t);
	pthread_mutex_unlock(&ctx->lock);
	ret = task_block(t, snap, 0);
	waiter_finish(&ctx->wq, &w);
	pthread_mutex_lock(&ctx->lock);
	return ret < 0 ? -ERESTARTSYS : 0;
}

static long eventfd_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct eventfd_ctx *ctx = f->priv;
	uint64_t cnt;
	int ret;

	if (len < sizeof(cnt))
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	while (!ctx->count) {
		if (f->flags & O_NONBLOCK) {
			pthread_mutex_unlock(&ctx->lock);
			return -EAGAIN;
		}
		ret = eventfd_wait(ctx);
		if (ret < 0) {
			pthread_mutex_unlock(&ctx->lock);
			return ret;
		}
	}
	cnt = ctx->semaphore ? 1 : ctx->count;
	ctx->count -= cnt;
	pthread_mutex_unlock(&ctx->lock);
	waitq_wake_events(&ctx->wq, POLLOUT);
	memcpy(buf, &cnt, sizeof(cnt));
	return sizeof(cnt);
}

static long eventfd_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct eventfd_ctx *ctx = f->priv;
	uint64_t ucnt;
	int ret;

	/* Exactly 8 bytes (Linux 6.8 on; earlier ones took more and ignored it). */
	if (len != sizeof(ucnt))
		return -EINVAL;
	memcpy(&ucnt, buf, sizeof(ucnt));
	if (ucnt == UINT64_MAX)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	while (UINT64_MAX - ctx->count <= ucnt) {
		if (f->flags & O_NONBLOCK) {
			pthread_mutex_unlock(&ctx->lock);
			return -EAGAIN;
		}
		ret = eventfd_wait(ctx);
		if (ret < 0) {
			pthread_mutex_unlock(&ctx->lock);
			return ret;
		}
	}
	ctx->count += ucnt;
	pthread_mutex_unlock(&ctx->lock);
	waitq_wake_events(&ctx->wq, POLLIN);
	return sizeof(ucnt);
}

static unsigned eventfd_poll(struct file *f, struct poll_table *pt)
{
	struct eventfd_ctx *ctx = f->priv;
	unsigned events = 0;
	uint64_t count;

	poll_wait(pt, &ctx->wq);
	pthread_mutex_lock(&ctx->lock);
	count = ctx->count;
	pthread_mutex_unlock(&ctx->lock);
	if (count > 0)
		events |= POLLIN;
	if (count == UINT64_MAX)
		events |= POLLERR;
	if (UINT64_MAX - 1 > count)
		events |= POLLOUT;
	return events;
}

static int64_t eventfd_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* noop_llseek */
}

static void eventfd_release(struct file *f)
{
	struct eventfd_ctx *ctx = f->priv;

	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

static void eventfd_show_fdinfo(struct file *f, struct strbuf *o)
{
	struct eventfd_ctx *ctx = f->priv;
	uint64_t cnt;

	pthread_mutex_lock(&ctx->lock);
	cnt = ctx->count;
	pthread_mutex_unlock(&ctx->lock);
	strbuf_printf(o, "eventfd-count: %16llx\neventfd-id: %d\n", (unsigned long long)cnt,
		      ctx->id);
}

static const struct file_ops eventfd_ops = {
	.show_fdinfo = eventfd_show_fdinfo,
	.read = eventfd_read,
	.write = eventfd_write,
	.llseek = eventfd_llseek,
	.poll = eventfd_poll,
	.release = eventfd_release,
};

bool file_is_eventfd(struct file *f)
{
	return f->ops == &eventfd_ops;
}

/* Linux's eventfd_signal: add n without blocking, stopping at the maximum. */
void eventfd_signal(struct file *f, uint64_t n)
{
	struct eventfd_ctx *ctx = f->priv;

	pthread_mutex_lock(&ctx->lock);
	ctx->count = UINT64_MAX - ctx->count < n ? UINT64_MAX : ctx->count + n;
	pthread_mutex_unlock(&ctx->lock);
	waitq_wake_events(&ctx->wq, POLLIN);
}

struct file *eventfd_file_new(uint64_t count, int flags)
{
	struct eventfd_ctx *ctx = xzalloc(sizeof(*ctx));

	pthread_mutex_init(&ctx->lock, NULL);
	waitq_init(&ctx->wq);
	ctx->count = count;
	ctx->semaphore = flags & EFD_SEMAPHORE_FLAG;
	ctx->id = __atomic_fetch_add(&eventfd_ids, 1, __ATOMIC_RELAXED);
	return anon_file_new("[eventfd]", &eventfd_ops, O_RDWR | (flags & O_NONBLOCK), ctx);
}
