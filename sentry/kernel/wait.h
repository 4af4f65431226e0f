/*
 * Wait queues: how a task sleeps until something happens (data in a pipe,
 * a child's exit, a futex wake) or it is interrupted.
 *
 * A task sleeps on its own futex word (task->wake_seq). To wait for a
 * condition: take a snapshot with waiter_prepare() (which queues the
 * waiter), test the condition, and if it does not hold call task_block()
 * with the snapshot. Anyone who makes the condition true calls
 * waitq_wake_*(), which bumps the waiters' words, so a wake between the
 * test and the sleep is never lost.
 */
#ifndef RUNG_WAIT_H
#define RUNG_WAIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"

struct task;

struct waitq {
	pthread_mutex_t lock;
	struct list_head waiters;
};

struct waiter {
	struct list_head link;
	struct task *t;
	bool queued;
	/* Woken one at a time, as Linux's exclusive waits are: a wake-up wakes
	 * every other waiter but only the first exclusive one that takes it
	 * (a task waiter always does, and leaves the queue as it is woken). */
	bool exclusive;
	/* Called under the queue's lock on every wake-up of the queue, with the
	 * events that happened (POLL* bits; 0: anything); returns whether it
	 * took the wake-up. NULL: wake t. epoll and poll use it to learn which
	 * file became ready. */
	bool (*func)(struct waiter *w, unsigned events);
};

#define WAITQ_INIT(name)                                                  \
	{                                                                 \
		PTHREAD_MUTEX_INITIALIZER, LIST_HEAD_INIT((name).waiters) \
	}

void waitq_init(struct waitq *wq);
/* Queue w for t on wq and return t's wake snapshot. */
uint32_t waiter_prepare(struct waitq *wq, struct waiter *w, struct task *t);
void waiter_finish(struct waitq *wq, struct waiter *w);
/* Queue a callback waiter (w->func set) that belongs to no task: epoll's
 * entries on the files it watches. waiter_finish() takes it off. */
void waitq_add(struct waitq *wq, struct waiter *w);
/* Is anyone waiting on wq? (A hint: it may change as soon as it returns.) */
bool waitq_active(struct waitq *wq);
/* t's wake snapshot now, for a wait whose waiters are queued by callbacks
 * (poll, select): take it before testing the condition, then task_block(). */
uint32_t task_wake_snapshot(struct task *t);
/* Wake every waiter (exclusive ones: see struct waiter). */
void waitq_wake_all(struct waitq *wq);
void waitq_wake_one(struct waitq *wq);
/* waitq_wake_all, telling callbacks which events (POLL*) happened. */
void waitq_wake_events(struct waitq *wq, unsigned events);

/*
 * Sleep until t's wake word moves past snapshot, the absolute CLOCK_MONOTONIC
 * deadline (ns; 0 for none) passes, or t is interrupted. Returns 0 (woken:
 * re-test the condition), -ETIMEDOUT, or -EINTR.
 */
int task_block(struct task *t, uint32_t snapshot, uint64_t deadline_ns);
/* Wake t's sleep (any thread). */
void task_wake(struct task *t);

#endif
