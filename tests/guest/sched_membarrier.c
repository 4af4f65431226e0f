/*
 * Guest test: membarrier. The commands the kernel offers (QUERY), the
 * registration rules (EPERM before REGISTER_*), bad commands and flags,
 * barriers while other threads spin in guest code, and the guarantee that
 * makes it useful: with a plain store/load on one side and a membarrier on
 * the other (Dekker's pattern), both sides never miss each other's store.
 * The program ends with a thread still spinning, which exit must stop.
 */
#include "guest.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>

#define ROUNDS 200

static long mb(int cmd, unsigned flags)
{
	return syscall(SYS_membarrier, cmd, flags, 0);
}

static volatile int stop;

static void *spinner(void *arg)
{
	volatile unsigned long n = 0;

	while (!stop)
		n++;
	return NULL;
}

static volatile int x, y, round_go, round_done_a;
static volatile int r1;

/* The fast side: a store and a load with only a compiler barrier between. */
static void *fast_side(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++) {
		while (round_go != i)
			;
		x = 1;
		__asm__ volatile("" ::: "memory");
		r1 = y;
		round_done_a = i;
	}
	return NULL;
}

static void dekker(void)
{
	pthread_t th;
	int bad = 0;

	pthread_create(&th, NULL, fast_side, NULL);
	for (int i = 1; i <= ROUNDS; i++) {
		int r2;
		x = y = 0;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		round_go = i;
		y = 1;
		mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
		r2 = x;
		while (round_done_a != i)
			sched_yield();
		if (r1 == 0 && r2 == 0)
			bad++;
	}
	pthread_join(th, NULL);
	CHECK_EQ(bad, 0, "no round where both sides missed the other's store");
}

static void registration_child(void)
{
	CHECK_EQ(mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), 0, "a fork child keeps the registration");
}

int main(void)
{
	long q = mb(MEMBARRIER_CMD_QUERY, 0);
	pthread_t th[2];
	int st;
	pid_t p;

	CHECK(q > 0, "MEMBARRIER_CMD_QUERY");
	CHECK(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED, "it offers PRIVATE_EXPEDITED");
	CHECK(q & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, "and its registration");
	CHECK(q & MEMBARRIER_CMD_GLOBAL, "and GLOBAL");
	CHECK(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, "and SYNC_CORE");
	CHECK_ERRNO(mb(MEMBARRIER_CMD_QUERY, 1), EINVAL, "QUERY with flags");
	CHECK_ERRNO(mb(1 << 20, 0), EINVAL, "an unknown command");
	CHECK_ERRNO(mb(-1, 0), EINVAL, "command -1");
	CHECK_ERRNO(mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), EPERM,
		    "PRIVATE_EXPEDITED before registering");
	CHECK_ERRNO(mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0), EPERM,
		    "SYNC_CORE before registering");
	CHECK_ERRNO(mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 1), EINVAL, "PRIVATE_EXPEDITED with flags");
	CHECK_EQ(mb(MEMBARRIER_CMD_GLOBAL, 0), 0, "GLOBAL needs no registration");
	CHECK_EQ(mb(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0, "REGISTER_PRIVATE_EXPEDITED");
	CHECK_EQ(mb(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0, "registering twice");
	CHECK_EQ(mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), 0, "PRIVATE_EXPEDITED alone");
	CHECK_EQ(mb(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0), 0,
		 "REGISTER_PRIVATE_EXPEDITED_SYNC_CORE");
	CHECK_EQ(mb(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0), 0,
		 "REGISTER_GLOBAL_EXPEDITED");

	pthread_create(&th[0], NULL, spinner, NULL);
	pthread_create(&th[1], NULL, spinner, NULL);
	usleep(10000);
	for (int i = 0; i < 50; i++) {
		if (mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0 ||
		    mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0) != 0 ||
		    mb(MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0) != 0) {
			CHECK(0, "a barrier failed");
			break;
		}
	}
	CHECK_EQ(mb(MEMBARRIER_CMD_GLOBAL, 0), 0, "GLOBAL with threads spinning");
	stop = 1;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	CHECK(1, "50 rounds of barriers with two threads spinning");

	p = fork();
	if (p == 0) {
		registration_child();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
	dekker();
	/* Leave a thread spinning in guest code: exit_group must stop it. */
	stop = 0;
	pthread_create(&th[0], NULL, spinner, NULL);
	return GUEST_DONE();
}
