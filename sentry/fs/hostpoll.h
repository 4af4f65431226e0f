/*
 * Waiting on host descriptors (inherited stdio, /dev/tty, the host timerfds
 * behind guest timerfds). Their readiness comes from the host: a poll op
 * asks the host now (ppoll with a zero timeout), and a guest that must wait
 * sleeps on the descriptor's host_waitq like on any sentry wait queue.
 *
 * One host poller thread per sandbox process (the sentry runs one kernel)
 * owns a host epoll instance. A descriptor is registered, edge-triggered,
 * for the events guest waiters asked for, the first time one waits; the
 * thread turns each host event into waitq_wake_events() on the queue, and
 * drops the registration once nobody waits any more. So the thread only
 * wakes for events someone waits for, and costs nothing on the guest's hot
 * paths (a guest write to a host pipe never wakes it).
 */
#ifndef RUNG_HOSTPOLL_H
#define RUNG_HOSTPOLL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/rbtree.h"
#include "sentry/kernel/wait.h"

struct poll_table;

struct host_waitq {
	int fd;		     /* the host descriptor (not owned) */
	struct waitq wq;     /* woken with the host's events (POLL*) */
	uint64_t id;	     /* in the poller's registry (0: not registered) */
	unsigned armed;	     /* the events registered with the host */
	bool permanent;	     /* stays registered while nobody waits */
	struct rb_node node; /* in the registry, by id */
};

/* Does the host's epoll accept fd (does its file have a poll operation)? */
bool hostpoll_can_poll(int fd);

void host_waitq_init(struct host_waitq *hw, int fd);
/* Register hw for events (POLL*) for good: every host event reaches the
 * queue, waiter or not (timerfds, whose expirations epoll must see). */
int host_waitq_register(struct host_waitq *hw, unsigned events);
/* Leave the poller (before the descriptor is closed). */
void host_waitq_release(struct host_waitq *hw);
/* A poll op on a host descriptor: queue on hw for pt (asking the host for
 * pt->key), and return the host's readiness now. */
unsigned host_waitq_poll(struct host_waitq *hw, struct poll_table *pt);

/* The host's readiness of fd now (POLL*). */
unsigned host_poll_now(int fd);

#endif
