/*
 * Guest test: futex_waitv(2) (Linux 5.16). Its argument checks (flags, the
 * count, each entry's size and reserved field, the value's width, the
 * clock), EAGAIN when a word no longer holds its value, ETIMEDOUT at an
 * absolute deadline on either clock, the index of the futex woken (by
 * futex(2) and by futex_wake(2)), shared futexes across a fork, and EINTR
 * for a signal whose handler lacks SA_RESTART.
 */
#include "guest.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define NR_futex_waitv 449
#define NR_futex_wake  454
#define SIZE_U8	       0x00
#define SIZE_U32       0x02
#define SIZE_U64       0x03
#define F2_PRIVATE     0x80

struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static uint32_t words[3];
static long waitv_ret;
static int waitv_errno;

static long waitv(struct waitv *w, unsigned n, unsigned flags, struct timespec *ts, int clk)
{
	return syscall(NR_futex_waitv, w, n, flags, ts, clk);
}

static void entry(struct waitv *w, uint32_t *word, uint32_t val, uint32_t flags)
{
	*w = (struct waitv){.val = val, .uaddr = (uintptr_t)word, .flags = flags};
}

/* The number of waiters on w (a requeue onto itself moves them in place). */
static long waiters_on(uint32_t *w, int private)
{
	return syscall(SYS_futex, w, FUTEX_CMP_REQUEUE | (private ? FUTEX_PRIVATE_FLAG : 0), 0,
		       INT_MAX, w, *w);
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

static int wait_waiters(uint32_t *w, int private, long n)
{
	for (int i = 0; i < 10000; i++) {
		if (waiters_on(w, private) == n)
			return 1;
		pause_ms(1);
	}
	return 0;
}

static struct timespec deadline(int clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_nsec += ms * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

/* Wait on all three words (private) until woken. */
static void *waiter(void *arg)
{
	struct waitv w[3];

	(void)arg;
	for (int i = 0; i < 3; i++)
		entry(&w[i], &words[i], 0, SIZE_U32 | F2_PRIVATE);
	errno = 0;
	waitv_ret = waitv(w, 3, 0, NULL, 0);
	waitv_errno = errno;
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

int main(void)
{
	struct waitv w[130];
	struct timespec ts, bad = {0, 1000000000};
	uint32_t word = 7;
	pthread_t th;

	memset(w, 0, sizeof(w));
	for (int i = 0; i < 130; i++)
		entry(&w[i], &word, 7, SIZE_U32 | F2_PRIVATE);

	/* The checks, in Linux's order. */
	CHECK_ERRNO(waitv(w, 1, 1, NULL, 0), EINVAL, "flags other than 0");
	CHECK_ERRNO(waitv(w, 0, 0, NULL, 0), EINVAL, "no futexes");
	CHECK_ERRNO(waitv(w, 129, 0, NULL, 0), EINVAL, "129 futexes");
	CHECK_ERRNO(waitv(NULL, 1, 0, NULL, 0), EINVAL, "a NULL array");
	ts = deadline(CLOCK_MONOTONIC, 10);
	CHECK_ERRNO(waitv(w, 1, 0, &ts, CLOCK_BOOTTIME), EINVAL, "CLOCK_BOOTTIME");
	CHECK_ERRNO(waitv(w, 1, 0, &bad, CLOCK_MONOTONIC), EINVAL, "a timeout of 1e9 ns");
	CHECK_ERRNO(waitv(w, 1, 0, (struct timespec *)8, CLOCK_MONOTONIC), EFAULT,
		    "an unreadable timeout");
	CHECK_ERRNO(waitv((struct waitv *)8, 1, 0, NULL, 0), EFAULT, "an unreadable array");
	entry(&w[1], &word, 7, SIZE_U8);
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "FUTEX2_SIZE_U8");
	entry(&w[1], &word, 7, SIZE_U64);
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "FUTEX2_SIZE_U64");
	entry(&w[1], &word, 7, SIZE_U32 | 0x40);
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "an unknown flag");
	entry(&w[1], &word, 7, SIZE_U32);
	w[1].reserved = 1;
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "a reserved field not 0");
	entry(&w[1], &word, 7, SIZE_U32);
	w[1].val = 1ull << 32 | 7;
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "a value wider than 32 bits");
	entry(&w[1], &word, 7, SIZE_U32);
	w[1].uaddr = (uintptr_t)&word + 1;
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EINVAL, "an unaligned word");
	w[1].uaddr = 8;
	CHECK_ERRNO(waitv(w, 2, 0, NULL, 0), EFAULT, "an unmapped word");

	/* Values and deadlines: 128 entries are allowed. */
	for (int i = 0; i < 130; i++)
		entry(&w[i], &word, 7, SIZE_U32 | F2_PRIVATE);
	w[127].val = 8;
	CHECK_ERRNO(waitv(w, 128, 0, NULL, 0), EAGAIN, "the last of 128 words differs");
	w[127].val = 7;
	ts = deadline(CLOCK_MONOTONIC, 30);
	CHECK_ERRNO(waitv(w, 128, 0, &ts, CLOCK_MONOTONIC), ETIMEDOUT,
		    "128 words until a CLOCK_MONOTONIC deadline");
	ts = deadline(CLOCK_REALTIME, 30);
	CHECK_ERRNO(waitv(w, 2, 0, &ts, CLOCK_REALTIME), ETIMEDOUT,
		    "until a CLOCK_REALTIME deadline");
	ts = (struct timespec){0, 0};
	CHECK_ERRNO(waitv(w, 1, 0, &ts, CLOCK_MONOTONIC), ETIMEDOUT, "a deadline long past");

	/* The index of the futex woken. */
	pthread_create(&th, NULL, waiter, NULL);
	CHECK(wait_waiters(&words[2], 1, 1), "a waiter on three words");
	CHECK_EQ(syscall(SYS_futex, &words[2], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1,
		 "FUTEX_WAKE of the third word wakes it");
	pthread_join(th, NULL);
	CHECK_EQ(waitv_ret, 2, "futex_waitv returns 2");
	CHECK_EQ(waiters_on(&words[0], 1) + waiters_on(&words[1], 1), 0,
		 "its other words have no waiter left");
	pthread_create(&th, NULL, waiter, NULL);
	CHECK(wait_waiters(&words[1], 1, 1), "a waiter again");
	CHECK_EQ(syscall(NR_futex_wake, &words[1], 0xffffffffu, 1, SIZE_U32 | F2_PRIVATE), 1,
		 "futex_wake of the second word wakes it");
	pthread_join(th, NULL);
	CHECK_EQ(waitv_ret, 1, "futex_waitv returns 1");
	pthread_create(&th, NULL, waiter, NULL);
	CHECK(wait_waiters(&words[0], 1, 1), "a waiter once more");
	CHECK_EQ(syscall(SYS_futex, &words[0], FUTEX_WAKE, 1, NULL, NULL, 0), 0,
		 "a shared FUTEX_WAKE does not meet a private waiter");
	CHECK_EQ(syscall(SYS_futex, &words[0], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1,
		 "a private one does");
	pthread_join(th, NULL);
	CHECK_EQ(waitv_ret, 0, "futex_waitv returns 0");

	/* A signal whose handler has no SA_RESTART: EINTR. */
	{
		struct sigaction sa = {.sa_handler = on_signal};
		sigaction(SIGUSR1, &sa, NULL);
	}
	pthread_create(&th, NULL, waiter, NULL);
	CHECK(wait_waiters(&words[0], 1, 1), "a waiter to interrupt");
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	CHECK(waitv_ret == -1 && waitv_errno == EINTR, "a signal interrupts it with EINTR");
	CHECK_EQ(waiters_on(&words[0], 1), 0, "and leaves no waiter");

	/* Shared futexes in shared memory: a child waits, the parent wakes. */
	{
		uint32_t *shm = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				     -1, 0);
		int status;
		pid_t pid;

		pid = fork();
		if (pid == 0) {
			struct waitv sw[2];
			entry(&sw[0], &shm[0], 0, SIZE_U32);
			entry(&sw[1], &shm[1], 0, SIZE_U32);
			_exit(waitv(sw, 2, 0, NULL, 0) == 1 ? 0 : 1);
		}
		CHECK(wait_waiters(&shm[1], 0, 1), "a child waits on shared words");
		CHECK_EQ(syscall(SYS_futex, &shm[1], FUTEX_WAKE, 1, NULL, NULL, 0), 1,
			 "the parent wakes the second");
		waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child's futex_waitv returned 1");
	}
	return GUEST_DONE();
}
