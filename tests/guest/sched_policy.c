/*
 * Guest test: scheduling policies and parameters (sched_setscheduler,
 * sched_setparam, sched_getscheduler, sched_getparam, the priority range,
 * SCHED_RESET_ON_FORK, per-thread policies, sched_rr_get_interval) and CPU
 * affinity (a mask is remembered, must name an existing CPU, is per thread
 * and inherited, and another process's can be read).
 */
#include "guest.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#define NOBODY 65534

static void in_child(void (*fn)(void))
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		fn();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

static int set(int policy, int prio)
{
	struct sched_param sp = {.sched_priority = prio};

	return sched_setscheduler(0, policy, &sp);
}

static int prio_of(pid_t pid)
{
	struct sched_param sp = {.sched_priority = -1};

	sched_getparam(pid, &sp);
	return sp.sched_priority;
}

static void ranges(void)
{
	CHECK_EQ(sched_get_priority_max(SCHED_FIFO), 99, "FIFO max 99");
	CHECK_EQ(sched_get_priority_min(SCHED_FIFO), 1, "FIFO min 1");
	CHECK_EQ(sched_get_priority_max(SCHED_RR), 99, "RR max 99");
	CHECK_EQ(sched_get_priority_min(SCHED_RR), 1, "RR min 1");
	CHECK_EQ(sched_get_priority_max(SCHED_OTHER), 0, "OTHER max 0");
	CHECK_EQ(sched_get_priority_min(SCHED_BATCH), 0, "BATCH min 0");
	CHECK_EQ(sched_get_priority_max(SCHED_IDLE), 0, "IDLE max 0");
	CHECK_ERRNO(sched_get_priority_max(42), EINVAL, "max of an unknown policy");
	CHECK_ERRNO(sched_get_priority_min(-1), EINVAL, "min of policy -1");
}

static void policies(void)
{
	struct sched_param sp = {0};
	struct timespec ts;

	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER, "SCHED_OTHER at start");
	CHECK_EQ(prio_of(0), 0, "priority 0");
	CHECK_EQ(set(SCHED_BATCH, 0), 0, "SCHED_BATCH");
	CHECK_EQ(sched_getscheduler(0), SCHED_BATCH, "reads back SCHED_BATCH");
	CHECK_EQ(sched_getscheduler(getpid()), SCHED_BATCH, "by pid too");
	CHECK_EQ(set(SCHED_IDLE, 0), 0, "SCHED_IDLE");
	CHECK_EQ(sched_getscheduler(0), SCHED_IDLE, "reads back SCHED_IDLE");
	CHECK_ERRNO(set(SCHED_OTHER, 1), EINVAL, "SCHED_OTHER with priority 1");
	CHECK_ERRNO(set(SCHED_FIFO, 0), EINVAL, "SCHED_FIFO with priority 0");
	CHECK_ERRNO(set(SCHED_RR, 100), EINVAL, "SCHED_RR with priority 100");
	CHECK_ERRNO(set(SCHED_FIFO, -1), EINVAL, "SCHED_FIFO with priority -1");
	CHECK_ERRNO(set(42, 0), EINVAL, "an unknown policy");
	CHECK_ERRNO(set(6 /* SCHED_DEADLINE */, 0), EINVAL, "SCHED_DEADLINE without sched_setattr");
	CHECK_ERRNO(sched_setscheduler(0, -1, &sp), EINVAL, "policy -1");
	CHECK_ERRNO(sched_setscheduler(-1, SCHED_OTHER, &sp), EINVAL, "pid -1");
	CHECK_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL), EINVAL, "NULL param");
	CHECK_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, (void *)8), EFAULT,
		    "a bad param pointer");
	CHECK_ERRNO(sched_getscheduler(-1), EINVAL, "sched_getscheduler(-1)");
	CHECK_ERRNO(syscall(SYS_sched_getparam, 0, NULL), EINVAL, "sched_getparam(NULL)");
	CHECK_ERRNO(syscall(SYS_sched_getparam, 0, (void *)8), EFAULT, "sched_getparam(bad)");

	CHECK_EQ(set(SCHED_RR, 10), 0, "SCHED_RR 10 as root");
	CHECK_EQ(sched_getscheduler(0), SCHED_RR, "reads back SCHED_RR");
	CHECK_EQ(prio_of(0), 10, "priority 10");
	CHECK_EQ(sched_rr_get_interval(0, &ts), 0, "sched_rr_get_interval");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 100000000, "RR's time slice is 100 ms");
	sp.sched_priority = 20;
	CHECK_EQ(sched_setparam(0, &sp), 0, "sched_setparam 20");
	CHECK_EQ(prio_of(0), 20, "priority 20");
	CHECK_EQ(sched_getscheduler(0), SCHED_RR, "still SCHED_RR");
	CHECK_EQ(set(SCHED_FIFO, 5), 0, "SCHED_FIFO 5");
	CHECK_EQ(sched_rr_get_interval(0, &ts), 0, "sched_rr_get_interval of FIFO");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0, "no time slice");
	sp.sched_priority = 0;
	CHECK_ERRNO(sched_setparam(0, &sp), EINVAL, "sched_setparam 0 for FIFO");
	CHECK_EQ(set(SCHED_OTHER, 0), 0, "back to SCHED_OTHER");
	CHECK_EQ(prio_of(0), 0, "priority 0 again");
	CHECK_EQ(sched_rr_get_interval(0, &ts), 0, "sched_rr_get_interval of OTHER");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, "a valid interval");
	CHECK_ERRNO(sched_rr_get_interval(-1, &ts), EINVAL, "sched_rr_get_interval(-1)");
	CHECK_ERRNO(syscall(SYS_sched_rr_get_interval, 0, (void *)8), EFAULT, "into a bad pointer");
}

static void reset_child(void)
{
	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER, "the child is SCHED_OTHER");
	CHECK_EQ(prio_of(0), 0, "with priority 0");
	CHECK_EQ(getpriority(PRIO_PROCESS, 0), 0, "and nice 0");
}

static void keep_child(void)
{
	CHECK_EQ(sched_getscheduler(0), SCHED_BATCH, "a child keeps SCHED_BATCH");
}

static void reset_on_fork(void)
{
	CHECK_EQ(set(SCHED_FIFO | SCHED_RESET_ON_FORK, 3), 0, "SCHED_FIFO|SCHED_RESET_ON_FORK");
	CHECK_EQ(sched_getscheduler(0), SCHED_FIFO | SCHED_RESET_ON_FORK, "reads back the flag");
	setpriority(PRIO_PROCESS, 0, -5);
	in_child(reset_child);
	CHECK_EQ(set(SCHED_BATCH, 0), 0, "SCHED_BATCH (as root, clearing the flag)");
	in_child(keep_child);
	CHECK_EQ(set(SCHED_OTHER, 0), 0, "SCHED_OTHER");
	setpriority(PRIO_PROCESS, 0, 0);
}

static void nobody_rules(void)
{
	setresuid(NOBODY, NOBODY, NOBODY);
	CHECK_ERRNO(set(SCHED_FIFO, 1), EPERM, "nobody cannot use SCHED_FIFO (RLIMIT_RTPRIO 0)");
	CHECK_EQ(set(SCHED_BATCH, 0), 0, "but may use SCHED_BATCH");
	CHECK_EQ(set(SCHED_IDLE, 0), 0, "and SCHED_IDLE");
	CHECK_ERRNO(set(SCHED_OTHER, 0), EPERM, "and cannot leave SCHED_IDLE (RLIMIT_NICE 0)");
	CHECK_ERRNO(sched_setscheduler(getppid(), SCHED_OTHER, &(struct sched_param){0}), EPERM,
		    "nor touch root's process");
	CHECK_EQ(sched_getscheduler(getppid()), SCHED_OTHER, "reading it is fine");
}

static volatile int thread_policy;

static void *thread_fn(void *arg)
{
	thread_policy = sched_getscheduler(0);
	return NULL;
}

static void threads(void)
{
	pthread_t th;

	set(SCHED_BATCH, 0);
	pthread_create(&th, NULL, thread_fn, NULL);
	pthread_join(th, NULL);
	CHECK_EQ(thread_policy, SCHED_BATCH, "a new thread inherits the policy");
	set(SCHED_OTHER, 0);
}

static int count(const cpu_set_t *s)
{
	return CPU_COUNT(s);
}

static void affinity_child(void)
{
	cpu_set_t s;

	CHECK_EQ(sched_getaffinity(0, sizeof(s), &s), 0, "child's sched_getaffinity");
	CHECK_EQ(count(&s), 1, "a child inherits the one-CPU mask");
}

static void affinity(void)
{
	cpu_set_t all, one, got, none;
	int first = -1, st;
	pid_t p;

	CHECK_EQ(sched_getaffinity(0, sizeof(all), &all), 0, "sched_getaffinity");
	CHECK(count(&all) >= 1, "at least one CPU");
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &all)) {
			first = i;
			break;
		}
	CHECK_EQ(syscall(SYS_sched_getaffinity, 0, sizeof(all), &got) > 0, 1,
		 "the raw call returns the mask size");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, 4, &got), EINVAL, "a 4-byte buffer");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, 12, &got), EINVAL, "a 12-byte buffer");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, sizeof(got), (void *)8), EFAULT,
		    "into a bad pointer");
	CHECK_ERRNO(sched_getaffinity(-1, sizeof(got), &got), ESRCH, "pid -1");

	CPU_ZERO(&one);
	CPU_SET(first, &one);
	CHECK_EQ(sched_setaffinity(0, sizeof(one), &one), 0, "sched_setaffinity to one CPU");
	CHECK_EQ(sched_getaffinity(0, sizeof(got), &got), 0, "read it back");
	CHECK(CPU_EQUAL(&got, &one), "the mask is remembered");
	in_child(affinity_child);

	p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	CHECK_EQ(sched_setaffinity(p, sizeof(all), &all), 0, "set a child's affinity");
	CHECK_EQ(sched_getaffinity(p, sizeof(got), &got), 0, "read a child's affinity");
	CHECK(CPU_EQUAL(&got, &all), "it has every CPU again");
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	CHECK_ERRNO(sched_getaffinity(p, sizeof(got), &got), ESRCH, "a reaped child's");
	CHECK_ERRNO(sched_setaffinity(p, sizeof(got), &got), ESRCH, "set a reaped child's");

	CPU_ZERO(&none);
	CHECK_ERRNO(sched_setaffinity(0, sizeof(none), &none), EINVAL, "an empty mask");
	CPU_SET(CPU_SETSIZE - 1, &none);
	CHECK_ERRNO(sched_setaffinity(0, sizeof(none), &none), EINVAL, "a mask of no real CPU");
	CHECK_ERRNO(syscall(SYS_sched_setaffinity, 0, sizeof(one), (void *)8), EFAULT,
		    "from a bad pointer");
	CHECK_EQ(sched_getaffinity(0, sizeof(got), &got), 0, "read it back");
	CHECK(CPU_EQUAL(&got, &one), "failed calls left the mask alone");
	CHECK_EQ(sched_setaffinity(0, sizeof(all), &all), 0, "every CPU again");
}

static void affinity_nobody(void)
{
	cpu_set_t s;

	sched_getaffinity(0, sizeof(s), &s);
	setresuid(NOBODY, NOBODY, NOBODY);
	CHECK_ERRNO(sched_setaffinity(getppid(), sizeof(s), &s), EPERM,
		    "nobody cannot set root's affinity");
	CHECK_EQ(sched_getaffinity(getppid(), sizeof(s), &s), 0, "but can read it");
	CHECK_EQ(sched_setaffinity(0, sizeof(s), &s), 0, "and set its own");
}

int main(void)
{
	ranges();
	policies();
	reset_on_fork();
	in_child(nobody_rules);
	threads();
	affinity();
	in_child(affinity_nobody);
	return GUEST_DONE();
}
