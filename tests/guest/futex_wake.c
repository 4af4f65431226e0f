/*
 * Guest test: the counts futex(2) returns and how many waiters it wakes.
 * FUTEX_WAKE of 1 with two waiters returns 1 and wakes exactly one;
 * FUTEX_WAKE of 0 still wakes one (Linux counts after waking);
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE return woken plus moved;
 * FUTEX_WAKE_OP returns the waiters woken at both words, the second only
 * when its old value compares as asked. Waiters are counted with a
 * requeue of a word onto itself (which wakes none and moves all).
 */
#include "guest.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

static uint32_t word_a, word_b;
static int woken;

static long futex(uint32_t *uaddr, int op, uint32_t val, long val2, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);
}

/* Wait on the word (0) until woken, then count the wake. */
static void *waiter(void *arg)
{
	uint32_t *w = arg;

	while (futex(w, FUTEX_WAIT, 0, 0, NULL, 0) != 0)
		sched_yield(); /* EAGAIN/EINTR: not woken yet */
	__atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The number of waiters on w (a requeue onto itself moves them in place). */
static long waiters_on(uint32_t *w)
{
	return futex(w, FUTEX_CMP_REQUEUE, 0, INT_MAX, w, 0);
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

/* Wait until n waiters are queued on w (at most 10 s). */
static int wait_waiters(uint32_t *w, long n)
{
	for (int i = 0; i < 10000; i++) {
		if (waiters_on(w) == n)
			return 1;
		pause_ms(1);
	}
	return 0;
}

/* Wait until the wake count reaches n, then a little longer: it must stay. */
static int woken_settles_at(int n)
{
	for (int i = 0; i < 10000 && __atomic_load_n(&woken, __ATOMIC_SEQ_CST) < n; i++)
		pause_ms(1);
	pause_ms(50);
	return __atomic_load_n(&woken, __ATOMIC_SEQ_CST) == n;
}

static void start(pthread_t *th, int n, uint32_t *w)
{
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, waiter, w);
}

static void join(pthread_t *th, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

int main(void)
{
	pthread_t th[3];

	/* FUTEX_WAKE */
	woken = 0;
	start(th, 2, &word_a);
	CHECK(wait_waiters(&word_a, 2), "two waiters queued");
	CHECK_EQ(futex(&word_a, FUTEX_WAKE, 1, 0, NULL, 0), 1, "FUTEX_WAKE 1 returns 1");
	CHECK(woken_settles_at(1), "exactly one waiter woke");
	CHECK_EQ(waiters_on(&word_a), 1, "one waiter still queued");
	CHECK_EQ(futex(&word_a, FUTEX_WAKE, 0, 0, NULL, 0), 1, "FUTEX_WAKE 0 wakes one");
	CHECK(woken_settles_at(2), "the second waiter woke");
	CHECK_EQ(futex(&word_a, FUTEX_WAKE, 1, 0, NULL, 0), 0, "FUTEX_WAKE with none queued");
	join(th, 2);
	CHECK_EQ(futex(&word_a, FUTEX_WAKE_PRIVATE, INT_MAX, 0, NULL, 0), 0,
		 "FUTEX_WAKE_PRIVATE with none queued");

	/* FUTEX_REQUEUE: wake one, move one, leave one. */
	woken = 0;
	start(th, 3, &word_a);
	CHECK(wait_waiters(&word_a, 3), "three waiters queued");
	CHECK_EQ(futex(&word_a, FUTEX_REQUEUE, 1, 1, &word_b, 0), 2,
		 "FUTEX_REQUEUE returns woken plus moved");
	CHECK(woken_settles_at(1), "FUTEX_REQUEUE woke one");
	CHECK_EQ(waiters_on(&word_a), 1, "one waiter left at the first word");
	CHECK_EQ(waiters_on(&word_b), 1, "one waiter moved to the second word");
	CHECK_ERRNO(futex(&word_a, FUTEX_CMP_REQUEUE, 1, 1, &word_b, 1), EAGAIN,
		    "FUTEX_CMP_REQUEUE of a changed word");
	CHECK_EQ(futex(&word_a, FUTEX_CMP_REQUEUE, 0, 1, &word_b, 0), 1,
		 "FUTEX_CMP_REQUEUE moves the last one");
	CHECK_EQ(waiters_on(&word_b), 2, "two waiters at the second word");
	CHECK_ERRNO(futex(&word_a, FUTEX_REQUEUE, (uint32_t)-1, 1, &word_b, 0), EINVAL,
		    "FUTEX_REQUEUE of a negative count");
	CHECK_EQ(futex(&word_b, FUTEX_WAKE, INT_MAX, 0, NULL, 0), 2, "FUTEX_WAKE of all");
	CHECK(woken_settles_at(3), "all three woke");
	join(th, 3);
	/* A private futex that is only woken needs no memory: NULL, unmapped. */
	{
		uint32_t w = 1;
		CHECK_EQ(futex(NULL, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 0, 0, &w,
			       FUTEX_OP(FUTEX_OP_SET, 9, FUTEX_OP_CMP_EQ, 0)),
			 0, "private FUTEX_WAKE_OP at NULL wakes nobody");
		CHECK_EQ(w, 9, "and still sets the second word");
	}
	CHECK_EQ(futex(NULL, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, NULL, 0), 0,
		 "private FUTEX_WAKE at NULL: 0");
	CHECK_ERRNO(futex(NULL, FUTEX_WAKE, 1, 0, NULL, 0), EFAULT,
		    "a shared FUTEX_WAKE at NULL is EFAULT");
	CHECK_ERRNO(futex((uint32_t *)2, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, NULL, 0), EINVAL,
		    "a misaligned one EINVAL");

	/* FUTEX_WAKE_OP: one waiter at each word. */
	woken = 0;
	start(th, 1, &word_a);
	start(th + 1, 1, &word_b);
	CHECK(wait_waiters(&word_a, 1) && wait_waiters(&word_b, 1), "one waiter at each word");
	/* word_b = 5 (old 0); wake word_b's waiter if old == 1: it is not. */
	CHECK_EQ(futex(&word_a, FUTEX_WAKE_OP, 1, 1, &word_b,
		       FUTEX_OP(FUTEX_OP_SET, 5, FUTEX_OP_CMP_EQ, 1)),
		 1, "FUTEX_WAKE_OP whose comparison fails wakes the first word only");
	CHECK_EQ(word_b, 5, "FUTEX_WAKE_OP set the second word");
	CHECK(woken_settles_at(1), "one waiter woke");
	start(th + 2, 1, &word_a);
	CHECK(wait_waiters(&word_a, 1), "a new waiter at the first word");
	/* word_b = 5 + 1 (old 5); wake word_b's waiter if old >= 5: it is. */
	CHECK_EQ(futex(&word_a, FUTEX_WAKE_OP, 1, 1, &word_b,
		       FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_GE, 5)),
		 2, "FUTEX_WAKE_OP whose comparison holds wakes both");
	CHECK_EQ(word_b, 6, "FUTEX_WAKE_OP added to the second word");
	CHECK(woken_settles_at(3), "all three woke");
	join(th, 3);
	CHECK_EQ(futex(&word_a, FUTEX_WAKE_OP, 1, 1, &word_b,
		       FUTEX_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 6)),
		 0, "FUTEX_WAKE_OP with none queued");
	CHECK_EQ(word_b, 0, "and it still set the word");
	return GUEST_DONE();
}
