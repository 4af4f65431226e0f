/*
 * Guest test: futex_wait, futex_wake and futex_requeue (Linux 6.7). Flag
 * and width checks (EINVAL), a count of 0 that wakes nobody, bitsets,
 * EAGAIN, an absolute deadline, a wake of a waiter, and a requeue that
 * compares the first word, wakes one and moves one.
 */
#include "guest.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <time.h>

#define NR_futex_wake	 454
#define NR_futex_wait	 455
#define NR_futex_requeue 456
#define SIZE_U32	 0x02
#define SIZE_U64	 0x03
#define F2_PRIVATE	 0x80
#define ANY		 0xffffffffu

struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static uint32_t word_a, word_b;
static int woken;

static long fwake(uint32_t *w, unsigned long mask, int nr, unsigned flags)
{
	return syscall(NR_futex_wake, w, mask, nr, flags);
}

static long fwait(uint32_t *w, unsigned long val, unsigned long mask, unsigned flags,
		  struct timespec *ts, int clk)
{
	return syscall(NR_futex_wait, w, val, mask, flags, ts, clk);
}

static long waiters_on(uint32_t *w)
{
	return syscall(SYS_futex, w, FUTEX_CMP_REQUEUE_PRIVATE, 0, INT_MAX, w, *w);
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

static int wait_waiters(uint32_t *w, long n)
{
	for (int i = 0; i < 10000; i++) {
		if (waiters_on(w) == n)
			return 1;
		pause_ms(1);
	}
	return 0;
}

static int woken_settles_at(int n)
{
	for (int i = 0; i < 10000 && __atomic_load_n(&woken, __ATOMIC_SEQ_CST) < n; i++)
		pause_ms(1);
	pause_ms(50);
	return __atomic_load_n(&woken, __ATOMIC_SEQ_CST) == n;
}

/* Wait on word_a (0, bitset 1) until woken. */
static void *waiter(void *arg)
{
	(void)arg;
	while (fwait(&word_a, 0, 1, SIZE_U32 | F2_PRIVATE, NULL, 0) != 0)
		pause_ms(1);
	__atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(void)
{
	struct timespec ts;
	struct waitv rq[2] = {
		{.val = 0, .uaddr = (uintptr_t)&word_a, .flags = SIZE_U32 | F2_PRIVATE},
		{.val = 0, .uaddr = (uintptr_t)&word_b, .flags = SIZE_U32 | F2_PRIVATE},
	};
	pthread_t th[3];

	/* futex_wake's checks. */
	CHECK_ERRNO(fwake(&word_a, ANY, 1, SIZE_U64), EINVAL, "futex_wake of FUTEX2_SIZE_U64");
	CHECK_ERRNO(fwake(&word_a, ANY, 1, 0), EINVAL, "futex_wake of FUTEX2_SIZE_U8");
	CHECK_ERRNO(fwake(&word_a, ANY, 1, SIZE_U32 | 0x100), EINVAL,
		    "futex_wake with an unknown flag");
	CHECK_ERRNO(fwake(&word_a, 1ul << 32, 1, SIZE_U32), EINVAL,
		    "futex_wake with a 33-bit mask");
	CHECK_ERRNO(fwake(&word_a, 0, 1, SIZE_U32), EINVAL, "futex_wake with mask 0");
	CHECK_ERRNO(fwake((uint32_t *)((char *)&word_a + 2), ANY, 1, SIZE_U32), EINVAL,
		    "futex_wake of an unaligned word");
	CHECK_EQ(fwake(&word_a, ANY, 1, SIZE_U32), 0, "futex_wake with no waiter");

	/* futex_wait's checks. */
	CHECK_ERRNO(fwait(&word_a, 0, ANY, SIZE_U64, NULL, 0), EINVAL,
		    "futex_wait of FUTEX2_SIZE_U64");
	CHECK_ERRNO(fwait(&word_a, 1ul << 32, ANY, SIZE_U32, NULL, 0), EINVAL,
		    "futex_wait of a 33-bit value");
	CHECK_ERRNO(fwait(&word_a, 0, 0, SIZE_U32, NULL, 0), EINVAL, "futex_wait with mask 0");
	ts = (struct timespec){0, 0};
	CHECK_ERRNO(fwait(&word_a, 0, ANY, SIZE_U32, &ts, CLOCK_TAI), EINVAL,
		    "futex_wait on CLOCK_TAI");
	CHECK_ERRNO(fwait(&word_a, 1, ANY, SIZE_U32, NULL, 0), EAGAIN,
		    "futex_wait of a changed word");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 30000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	CHECK_ERRNO(fwait(&word_a, 0, ANY, SIZE_U32 | F2_PRIVATE, &ts, CLOCK_MONOTONIC),
		    ETIMEDOUT, "futex_wait until an absolute deadline");

	/* Wakes: a count of 0 and a disjoint bitset wake nobody. */
	woken = 0;
	pthread_create(&th[0], NULL, waiter, NULL);
	CHECK(wait_waiters(&word_a, 1), "a waiter queued");
	CHECK_EQ(fwake(&word_a, ANY, 0, SIZE_U32 | F2_PRIVATE), 0, "futex_wake of 0 wakes none");
	CHECK_EQ(fwake(&word_a, 2, 1, SIZE_U32 | F2_PRIVATE), 0,
		 "futex_wake of another bitset wakes none");
	CHECK_EQ(fwake(&word_a, ANY, 1, SIZE_U32), 0, "a shared futex_wake does not meet it");
	CHECK_EQ(fwake(&word_a, 3, INT_MAX, SIZE_U32 | F2_PRIVATE), 1,
		 "futex_wake of a matching bitset wakes it");
	CHECK(woken_settles_at(1), "the waiter woke");
	pthread_join(th[0], NULL);

	/* futex_requeue */
	CHECK_ERRNO(syscall(NR_futex_requeue, rq, 1, 1, 1), EINVAL, "futex_requeue with flags");
	CHECK_ERRNO(syscall(NR_futex_requeue, NULL, 0, 1, 1), EINVAL, "futex_requeue of NULL");
	CHECK_ERRNO(syscall(NR_futex_requeue, rq, 0, -1, 1), EINVAL,
		    "futex_requeue of a negative count");
	rq[1].flags = SIZE_U64;
	CHECK_ERRNO(syscall(NR_futex_requeue, rq, 0, 1, 1), EINVAL,
		    "futex_requeue to a FUTEX2_SIZE_U64 word");
	rq[1].flags = SIZE_U32 | F2_PRIVATE;
	woken = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, waiter, NULL);
	CHECK(wait_waiters(&word_a, 3), "three waiters queued");
	rq[0].val = 1;
	CHECK_ERRNO(syscall(NR_futex_requeue, rq, 0, 1, 1), EAGAIN,
		    "futex_requeue of a changed word");
	rq[0].val = 0;
	CHECK_EQ(syscall(NR_futex_requeue, rq, 0, 1, 1), 2, "futex_requeue wakes one, moves one");
	CHECK(woken_settles_at(1), "one woke");
	CHECK_EQ(waiters_on(&word_a), 1, "one left at the first word");
	CHECK_EQ(waiters_on(&word_b), 1, "one moved to the second word");
	CHECK_EQ(fwake(&word_b, ANY, INT_MAX, SIZE_U32 | F2_PRIVATE), 1,
		 "futex_wake at the second word");
	CHECK_EQ(fwake(&word_a, ANY, INT_MAX, SIZE_U32 | F2_PRIVATE), 1,
		 "futex_wake at the first word");
	CHECK(woken_settles_at(3), "all three woke");
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return GUEST_DONE();
}
