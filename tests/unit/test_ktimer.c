/*
 * Kernel timers (sentry/kernel/ktimer.c) on a bare kernel object: callbacks
 * run in deadline order with k->lock held, on each clock; a cancelled timer
 * never runs; a re-armed one runs at its new time; an earlier timer armed
 * while the thread sleeps towards a later one wakes it; a callback may arm
 * timers; destroying the base stops the thread.
 */
#include "config.h"
#include "sentry/kernel/ktimer.h"
#include "sentry/kernel/kernel.h"
#include "lib/util.h"
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull

struct probe {
	struct ktimer kt;
	struct kernel *k;
	int order; /* when it ran (1, 2, ...), 0 never */
	uint64_t ran_at;
	bool lock_held;
	int rearm; /* times to arm itself again, 1 ms later */
};

static int ran;

static void probe_fn(struct ktimer *kt)
{
	struct probe *p = container_of(kt, struct probe, kt);

	/* k->lock is held: a trylock from this thread must fail. */
	p->lock_held = pthread_mutex_trylock(&p->k->lock) != 0;
	if (!p->lock_held)
		pthread_mutex_unlock(&p->k->lock);
	p->order = ++ran;
	p->ran_at = monotonic_ns();
	if (p->rearm > 0) {
		p->rearm--;
		ktimer_arm_locked(p->k, kt, CLOCK_MONOTONIC, monotonic_ns() + MS);
	}
}

static struct kernel *bare_kernel(void)
{
	struct kernel *k = xzalloc(sizeof(*k));

	pthread_mutex_init(&k->lock, NULL);
	ran = 0;
	return k;
}

static void arm(struct kernel *k, struct probe *p, int clock, uint64_t in_ns)
{
	p->k = k;
	pthread_mutex_lock(&k->lock);
	ktimer_arm_locked(k, &p->kt, clock, ktimer_clock_now(clock) + in_ns);
	pthread_mutex_unlock(&k->lock);
}

/* Wait (up to 5 s) until n callbacks ran. */
static void wait_ran(struct kernel *k, int n)
{
	for (int i = 0; i < 5000; i++) {
		int r;
		pthread_mutex_lock(&k->lock);
		r = ran;
		pthread_mutex_unlock(&k->lock);
		if (r >= n)
			return;
		usleep(1000);
	}
}

static void done(struct kernel *k)
{
	ktimer_base_destroy(k);
	ck_assert_ptr_null(k->ktimers);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

START_TEST(test_order_and_clocks)
{
	struct kernel *k = bare_kernel();
	struct probe a = {0}, b = {0}, c = {0}, d = {0};
	uint64_t start = monotonic_ns();

	ktimer_init(&a.kt, probe_fn);
	ktimer_init(&b.kt, probe_fn);
	ktimer_init(&c.kt, probe_fn);
	ktimer_init(&d.kt, probe_fn);
	a.rearm = b.rearm = c.rearm = d.rearm = 0;
	arm(k, &a, CLOCK_MONOTONIC, 40 * MS);
	arm(k, &b, CLOCK_REALTIME, 10 * MS);
	arm(k, &c, CLOCK_BOOTTIME, 25 * MS);
	arm(k, &d, CLOCK_TAI, 55 * MS);
	wait_ran(k, 4);
	ck_assert_int_eq(b.order, 1);
	ck_assert_int_eq(c.order, 2);
	ck_assert_int_eq(a.order, 3);
	ck_assert_int_eq(d.order, 4);
	ck_assert(a.lock_held && b.lock_held && c.lock_held && d.lock_held);
	ck_assert_uint_ge(b.ran_at - start, 10 * MS);
	ck_assert_uint_ge(a.ran_at - start, 40 * MS);
	ck_assert(!ktimer_queued(&a.kt));
	done(k);
}
END_TEST

START_TEST(test_cancel_and_rearm)
{
	struct kernel *k = bare_kernel();
	struct probe a = {0}, b = {0};

	ktimer_init(&a.kt, probe_fn);
	ktimer_init(&b.kt, probe_fn);
	a.rearm = b.rearm = 0;
	arm(k, &a, CLOCK_MONOTONIC, 20 * MS);
	arm(k, &b, CLOCK_MONOTONIC, 30 * MS);
	pthread_mutex_lock(&k->lock);
	ck_assert(ktimer_cancel_locked(k, &a.kt));
	ck_assert(!ktimer_cancel_locked(k, &a.kt));
	pthread_mutex_unlock(&k->lock);
	/* b moves before where a was, then a comes back after it. */
	arm(k, &b, CLOCK_MONOTONIC, 5 * MS);
	arm(k, &a, CLOCK_MONOTONIC, 35 * MS);
	wait_ran(k, 2);
	ck_assert_int_eq(b.order, 1);
	ck_assert_int_eq(a.order, 2);
	usleep(50000);
	ck_assert_int_eq(ran, 2);
	done(k);
}
END_TEST

START_TEST(test_earlier_wakes_sleeper)
{
	struct kernel *k = bare_kernel();
	struct probe late = {0}, early = {0};
	uint64_t start;

	ktimer_init(&late.kt, probe_fn);
	ktimer_init(&early.kt, probe_fn);
	late.rearm = early.rearm = 0;
	arm(k, &late, CLOCK_MONOTONIC, 10000 * MS);
	usleep(20000); /* the thread is asleep until the late one */
	start = monotonic_ns();
	arm(k, &early, CLOCK_MONOTONIC, 10 * MS);
	wait_ran(k, 1);
	ck_assert_int_eq(early.order, 1);
	ck_assert_int_eq(late.order, 0);
	ck_assert_uint_lt(early.ran_at - start, 2000 * MS);
	done(k); /* with late still armed: the thread stops anyway */
}
END_TEST

START_TEST(test_callback_rearms)
{
	struct kernel *k = bare_kernel();
	struct probe p = {0};

	ktimer_init(&p.kt, probe_fn);
	p.rearm = 4;
	arm(k, &p, CLOCK_MONOTONIC, 1 * MS);
	wait_ran(k, 5);
	ck_assert_int_eq(ran, 5);
	ck_assert_int_eq(p.rearm, 0);
	done(k);
}
END_TEST

START_TEST(test_destroy_unused)
{
	struct kernel *k = bare_kernel();

	ktimer_base_destroy(k); /* never used: nothing to stop */
	done(k);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ktimer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_order_and_clocks);
	tcase_add_test(tc, test_cancel_and_rearm);
	tcase_add_test(tc, test_earlier_wakes_sleeper);
	tcase_add_test(tc, test_callback_rearms);
	tcase_add_test(tc, test_destroy_unused);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
