/*
 * Kernel timers: callbacks at absolute deadlines on CLOCK_MONOTONIC,
 * CLOCK_REALTIME, CLOCK_BOOTTIME or CLOCK_TAI, run by one timer thread per
 * sandbox (Linux's hrtimers, for the sentry).
 *
 * The thread is made with the first timer armed. It sleeps on a futex until
 * the earliest deadline (converted to CLOCK_MONOTONIC when it goes to
 * sleep) and is woken early only when a timer is armed before that
 * deadline: with no timer armed it never wakes, so an idle sandbox costs
 * nothing. A step of the host's CLOCK_REALTIME is noticed at the next
 * wake-up (Linux re-evaluates at once; the guest cannot set the clock).
 *
 * Locking: timers are armed and cancelled with k->lock held, and callbacks
 * run on the timer thread with k->lock held (they send signals). So a
 * cancel under k->lock never races with its callback: when ktimer_cancel
 * returns the callback has either run or never will.
 */
#ifndef RUNG_KTIMER_H
#define RUNG_KTIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/rbtree.h"

struct kernel;
struct ktimer;

typedef void (*ktimer_fn)(struct ktimer *kt);

struct ktimer {
	struct rb_node node;
	uint64_t expires; /* ns on clock; kept after the timer fired */
	uint64_t seq;	  /* arming order, for equal deadlines */
	int clock;	  /* CLOCK_MONOTONIC, REALTIME, BOOTTIME or TAI */
	bool queued;
	ktimer_fn fn;
};

/* Before first use. */
void ktimer_init(struct ktimer *kt, ktimer_fn fn);

/* Arm kt (again) for the absolute time expires on clock. k->lock held. */
void ktimer_arm_locked(struct kernel *k, struct ktimer *kt, int clock, uint64_t expires);
/* Disarm kt; true if it was armed. k->lock held. */
bool ktimer_cancel_locked(struct kernel *k, struct ktimer *kt);

static inline bool ktimer_queued(const struct ktimer *kt)
{
	return kt->queued;
}

/* The host's clock (one of the four above), in ns. */
uint64_t ktimer_clock_now(int clock);

/* Stop the timer thread (every task is gone) and free the timers' state. */
void ktimer_base_destroy(struct kernel *k);

#endif
