/* Futexes in the sentry (never the host's, on guest memory). */
#ifndef RUNG_FUTEX_H
#define RUNG_FUTEX_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* futex(2): op with FUTEX_PRIVATE_FLAG / FUTEX_CLOCK_REALTIME. -errno on failure. */
long do_futex(struct task *t, uint64_t addr, int op, uint32_t val, uint64_t utime, uint64_t addr2,
	      uint32_t val3);
/* Wake one waiter on the (shared-keyed) futex at addr: thread exit's clear_child_tid. */
void futex_wake_addr(struct task *t, uint64_t addr);
/* A robust-list lock the exiting thread t holds at addr: mark it
 * FUTEX_OWNER_DIED and wake a waiter (Linux's handle_futex_death; a PI
 * futex's waiter is woken by futex_pi_owner_exit). */
void futex_owner_died(struct task *t, uint64_t addr, bool pi);
/* The exiting thread t no longer owns PI futexes: their waiters wake and
 * take them over (Linux's exit_pi_state_list). After the robust list. */
void futex_pi_owner_exit(struct task *t);

/* The timeout at utime (a guest struct timespec; 0: none) as an absolute
 * CLOCK_MONOTONIC deadline in ns (0: none). EFAULT, EINVAL. */
int futex_deadline(struct task *t, uint64_t utime, bool absolute, bool realtime,
		   uint64_t *deadline);

/* One futex of a futex2 call: its word's address, expected value, and
 * whether it is process-private (FUTEX2_PRIVATE). */
struct futex_vec {
	uint64_t uaddr;
	uint32_t val;
	bool private;
};

/* futex_wait(2): 0 when woken, -EAGAIN, -ETIMEDOUT, -ERESTARTSYS. */
long futex2_wait(struct task *t, uint64_t addr, bool private, uint32_t val, uint32_t bitset,
		 uint64_t deadline);
/* futex_wake(2): the number woken (n == 0 wakes none). */
long futex2_wake(struct task *t, uint64_t addr, bool private, int n, uint32_t bitset);
/* futex_requeue(2): v[0] holds v[0].val or -EAGAIN; wake nr_wake there and
 * move up to nr_requeue of its waiters to v[1]. */
long futex2_requeue(struct task *t, const struct futex_vec v[2], int nr_wake, int nr_requeue);
/* futex_waitv(2): sleep on n futexes at once; the index of the one woken. */
long futex2_wait_multiple(struct task *t, const struct futex_vec *v, unsigned n, uint64_t deadline);

#endif
