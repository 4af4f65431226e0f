/* Futexes in the sentry (never the host's, on guest memory). */
#ifndef RUNG_FUTEX_H
#define RUNG_FUTEX_H

#include <stdint.h>

struct task;

/* futex(2): op with FUTEX_PRIVATE_FLAG / FUTEX_CLOCK_REALTIME. -errno on failure. */
long do_futex(struct task *t, uint64_t addr, int op, uint32_t val, uint64_t utime, uint64_t addr2,
	      uint32_t val3);
/* Wake one waiter on the (shared-keyed) futex at addr: thread exit's clear_child_tid. */
void futex_wake_addr(struct task *t, uint64_t addr);
/* A robust-list lock the exiting thread t holds at addr: mark it
 * FUTEX_OWNER_DIED and wake a waiter (Linux's handle_futex_death). */
void futex_owner_died(struct task *t, uint64_t addr);

#endif
