/*
 * Guest test: priority-inheritance futexes. The word protocol of
 * FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI and FUTEX_UNLOCK_PI (the owner's tid,
 * FUTEX_WAITERS while someone waits, ownership handed to the waiter on
 * unlock) with Linux's errors; glibc's PTHREAD_PRIO_INHERIT mutexes under
 * contention; a robust PI mutex whose owner exits (EOWNERDEAD for the next
 * one, the waiter taking it over); FUTEX_CMP_REQUEUE_PI handing a PI lock
 * to a FUTEX_WAIT_REQUEUE_PI waiter.
 */
#include "guest.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

static long futex(uint32_t *uaddr, int op, uint32_t val, const void *ts, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

static uint32_t gettid32(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

/* Wait (at most 10 s) until the word shows FUTEX_WAITERS. */
static int wait_for_waiters(uint32_t *w)
{
	for (int i = 0; i < 10000; i++) {
		if (__atomic_load_n(w, __ATOMIC_SEQ_CST) & FUTEX_WAITERS)
			return 1;
		pause_ms(1);
	}
	return 0;
}

static uint32_t word;
static uint32_t locker_tid;
static long locker_ret;

/* Take the PI futex in the kernel, note who we are, release it. */
static void *locker(void *arg)
{
	(void)arg;
	locker_tid = gettid32();
	locker_ret = futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
	if (locker_ret == 0 && (word & FUTEX_TID_MASK) == locker_tid)
		locker_ret = futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
	else if (locker_ret == 0)
		locker_ret = -2;
	return NULL;
}

static void word_protocol(void)
{
	uint32_t me = gettid32();
	pthread_t th;

	printf("-- the word protocol\n");
	word = 0;
	CHECK_EQ(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "LOCK_PI of a free word");
	CHECK_EQ(word, me, "... the word holds our tid");
	CHECK_ERRNO(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0), EDEADLK,
		    "LOCK_PI of our own lock");
	CHECK_ERRNO(futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0), EDEADLK,
		    "TRYLOCK_PI of our own lock");
	CHECK_EQ(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "UNLOCK_PI");
	CHECK_EQ(word, 0, "... the word is free");
	CHECK_ERRNO(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0), EPERM,
		    "UNLOCK_PI of a lock we do not own");
	CHECK_EQ(futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "TRYLOCK_PI");
	CHECK_EQ(word, me, "... ours");

	/* Another thread waits: FUTEX_WAITERS, and the unlock hands it over. */
	CHECK_EQ(pthread_create(&th, NULL, locker, NULL), 0, "a second thread locks");
	CHECK(wait_for_waiters(&word), "... FUTEX_WAITERS is set while it waits");
	CHECK_ERRNO(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), EINVAL,
		    "FUTEX_WAKE of a PI futex with waiters");
	CHECK_EQ(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "UNLOCK_PI");
	pthread_join(th, NULL);
	CHECK_EQ(locker_ret, 0, "... the waiter owned it and unlocked it");
	CHECK_EQ(word, 0, "... free again");

	/* A tid no thread has: ESRCH. */
	word = 0x3ffffff0;
	CHECK_ERRNO(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0), ESRCH,
		    "LOCK_PI of a word owned by no thread");
	CHECK_ERRNO(futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0), ESRCH,
		    "TRYLOCK_PI likewise");

	word = 0;
}

/* A deadline in the past on a lock another thread holds. */
static long timed_ret;
static void *timed_locker(void *arg)
{
	struct timespec past = {1, 0};

	(void)arg;
	timed_ret = futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, &past, NULL, 0) == -1 ? errno : 0;
	return NULL;
}

static void deadline(void)
{
	pthread_t th;

	printf("-- a deadline\n");
	word = 0;
	CHECK_EQ(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "we hold it");
	CHECK_EQ(pthread_create(&th, NULL, timed_locker, NULL), 0, "a thread with a past deadline");
	pthread_join(th, NULL);
	CHECK_EQ(timed_ret, ETIMEDOUT, "... ETIMEDOUT");
	CHECK_EQ(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0), 0, "UNLOCK_PI");
	CHECK_EQ(word, 0, "... free (the timed-out waiter left no FUTEX_WAITERS owner)");
}

/* glibc's PI mutexes under contention: the count comes out right. */
static pthread_mutex_t pim;
static long counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&pim);
		counter++;
		if (i % 1000 == 0)
			sched_yield();
		pthread_mutex_unlock(&pim);
	}
	return NULL;
}

static void prio_inherit(void)
{
	pthread_mutexattr_t a;
	pthread_t th[4];

	printf("-- PTHREAD_PRIO_INHERIT mutexes\n");
	pthread_mutexattr_init(&a);
	CHECK_EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0, "the protocol");
	CHECK_EQ(pthread_mutex_init(&pim, &a), 0, "a PI mutex");
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, adder, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(counter, 80000, "four threads counted 80000 under it");
	pthread_mutex_destroy(&pim);
}

/* A robust PI mutex whose owner exits holding it. */
static pthread_mutex_t rm;
static int waiter_ret = -1;
static volatile int holder_in;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rm);
	holder_in = 1;
	pause_ms(200);
	return NULL; /* exits holding it */
}

static void *robust_waiter(void *arg)
{
	(void)arg;
	waiter_ret = pthread_mutex_lock(&rm);
	if (waiter_ret == EOWNERDEAD) {
		pthread_mutex_consistent(&rm);
		pthread_mutex_unlock(&rm);
	}
	return NULL;
}

static void robust(void)
{
	pthread_mutexattr_t a;
	pthread_t h, w;

	printf("-- a robust PI mutex whose owner exits\n");
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	CHECK_EQ(pthread_mutex_init(&rm, &a), 0, "a robust PI mutex");
	pthread_create(&h, NULL, holder, NULL);
	while (!holder_in)
		pause_ms(1);
	pthread_create(&w, NULL, robust_waiter, NULL);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	CHECK_EQ(waiter_ret, EOWNERDEAD, "the waiter takes it over: EOWNERDEAD");
	CHECK_EQ(pthread_mutex_lock(&rm), 0, "made consistent: it locks again");
	pthread_mutex_unlock(&rm);
	pthread_mutex_destroy(&rm);
}

/* FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI, as a PI condition variable. */
static uint32_t cond, lock;
static long rq_ret = -1;
static uint32_t rq_tid;

static void *rq_waiter(void *arg)
{
	(void)arg;
	rq_tid = gettid32();
	rq_ret = futex(&cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &lock, 0);
	if (rq_ret == 0 && (lock & FUTEX_TID_MASK) == rq_tid)
		rq_ret = futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
	else if (rq_ret == 0)
		rq_ret = -2;
	return NULL;
}

/* Requeue cond's waiter; 1 when it was woken or moved. */
static long requeue(void)
{
	return futex(&cond, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)0, &lock, 0);
}

static void requeue_pi(void)
{
	pthread_t th;
	long r = 0;

	printf("-- FUTEX_CMP_REQUEUE_PI\n");
	CHECK_ERRNO(futex(&cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &cond, 0), EINVAL,
		    "WAIT_REQUEUE_PI onto itself");
	CHECK_ERRNO(futex(&cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, NULL, &lock, 0), EAGAIN,
		    "WAIT_REQUEUE_PI with a changed value");
	CHECK_ERRNO(futex(&cond, FUTEX_CMP_REQUEUE_PI_PRIVATE, 2, (void *)0, &lock, 0), EINVAL,
		    "CMP_REQUEUE_PI waking two");
	pthread_create(&th, NULL, rq_waiter, NULL);
	/* The lock is free: the waiter gets it as soon as it is queued. */
	for (int i = 0; i < 10000 && r == 0; i++) {
		r = requeue();
		if (r == 0)
			pause_ms(1);
	}
	CHECK_EQ(r, 1, "CMP_REQUEUE_PI hands the free lock to its waiter");
	pthread_join(th, NULL);
	CHECK_EQ(rq_ret, 0, "... which owned it on return and unlocked it");
	CHECK_EQ(lock, 0, "... free again");
}

int main(void)
{
	word_protocol();
	deadline();
	prio_inherit();
	robust();
	requeue_pi();
	return GUEST_DONE();
}
