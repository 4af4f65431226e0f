#include "config.h"
#include "sentry/kernel/wait.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void waitq_init(struct waitq *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	list_init(&wq->waiters);
}

uint32_t waiter_prepare(struct waitq *wq, struct waiter *w, struct task *t)
{
	uint32_t snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);

	w->t = t;
	pthread_mutex_lock(&wq->lock);
	if (!w->queued) {
		list_add_tail(&w->link, &wq->waiters);
		w->queued = true;
	}
	pthread_mutex_unlock(&wq->lock);
	return snap;
}

void waiter_finish(struct waitq *wq, struct waiter *w)
{
	pthread_mutex_lock(&wq->lock);
	if (w->queued) {
		list_del(&w->link);
		w->queued = false;
	}
	pthread_mutex_unlock(&wq->lock);
}

void waitq_add(struct waitq *wq, struct waiter *w)
{
	w->t = NULL;
	pthread_mutex_lock(&wq->lock);
	if (!w->queued) {
		list_add_tail(&w->link, &wq->waiters);
		w->queued = true;
	}
	pthread_mutex_unlock(&wq->lock);
}

bool waitq_active(struct waitq *wq)
{
	bool active;

	pthread_mutex_lock(&wq->lock);
	active = !list_empty(&wq->waiters);
	pthread_mutex_unlock(&wq->lock);
	return active;
}

uint32_t task_wake_snapshot(struct task *t)
{
	return __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
}

void task_wake(struct task *t)
{
	__atomic_add_fetch(&t->wake_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &t->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wake w (queue locked); did it take the wake-up? */
static bool wake_waiter(struct waiter *w, unsigned events)
{
	if (w->func)
		return w->func(w, events);
	if (w->exclusive) {
		/* The next wake-up goes to the next waiter, even before w runs. */
		list_del(&w->link);
		w->queued = false;
	}
	task_wake(w->t);
	return true;
}

void waitq_wake_events(struct waitq *wq, unsigned events)
{
	struct waiter *w, *n;
	bool taken = false;

	pthread_mutex_lock(&wq->lock);
	list_for_each_entry_safe(w, n, &wq->waiters, link) {
		if (!w->exclusive)
			wake_waiter(w, events);
		else if (!taken)
			taken = wake_waiter(w, events);
	}
	pthread_mutex_unlock(&wq->lock);
}

void waitq_wake_all(struct waitq *wq)
{
	waitq_wake_events(wq, 0);
}

void waitq_wake_one(struct waitq *wq)
{
	pthread_mutex_lock(&wq->lock);
	if (!list_empty(&wq->waiters))
		wake_waiter(list_first_entry(&wq->waiters, struct waiter, link), 0);
	pthread_mutex_unlock(&wq->lock);
}

int task_block(struct task *t, uint32_t snapshot, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};

	for (;;) {
		long r;
		if (task_interrupted(t))
			return -EINTR;
		if (__atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST) != snapshot)
			return 0;
		task_sleep_enter(t);
		r = syscall(SYS_futex, &t->wake_seq, FUTEX_WAIT_BITSET_PRIVATE, snapshot,
			    deadline_ns ? &ts : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
		task_sleep_leave(t);
		if (r < 0 && errno == ETIMEDOUT)
			return -ETIMEDOUT;
	}
}
