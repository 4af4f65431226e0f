/*
 * Guest test: nice values (getpriority/setpriority) by process, process
 * group and user, per thread; the -20..19 range; who may lower a nice
 * value (RLIMIT_NICE, CAP_SYS_NICE) and whose process one may touch.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define NOBODY 65534
#define SOLO   54321 /* a uid no other process has */

static int nice_of(int which, id_t who)
{
	errno = 0;
	return getpriority(which, who);
}

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

static void basics(void)
{
	int base = nice_of(PRIO_PROCESS, 0);

	CHECK_EQ(syscall(SYS_getpriority, PRIO_PROCESS, 0), 20 - base,
		 "the raw call returns 20 - nice");
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, 5), 0, "nice 5");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), 5, "reads back 5");
	CHECK_EQ(nice_of(PRIO_PROCESS, getpid()), 5, "by pid");
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, 100), 0, "nice 100");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), 19, "is clamped to 19");
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, -100), 0, "nice -100 as root");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), -20, "is clamped to -20");
	CHECK_EQ(nice(3), -17, "nice(3) adds");
	CHECK_ERRNO(setpriority(3, 0, 0), EINVAL, "which 3");
	CHECK_ERRNO(getpriority(-1, 0), EINVAL, "which -1");
	CHECK_ERRNO(setpriority(PRIO_PROCESS, 99999999, 0), ESRCH, "a pid nobody has");
	CHECK_ERRNO(getpriority(PRIO_PGRP, 99999999), ESRCH, "a group nobody has");
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, base), 0, "back to the start");
}

static int thread_nice;

static void *thread_fn(void *arg)
{
	thread_nice = getpriority(PRIO_PROCESS, 0);
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 7);
	return NULL;
}

static void threads(void)
{
	pthread_t th;

	setpriority(PRIO_PROCESS, 0, 2);
	pthread_create(&th, NULL, thread_fn, NULL);
	pthread_join(th, NULL);
	CHECK_EQ(thread_nice, 2, "a new thread inherits the nice value");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), 2, "a thread's own change is its own");
	setpriority(PRIO_PROCESS, 0, 0);
}

static void groups(void)
{
	int ready[2], st;
	pid_t a, b;
	char c;

	pipe(ready);
	setpgid(0, 0);
	a = fork();
	if (a == 0) {
		pause();
		_exit(0);
	}
	b = fork();
	if (b == 0) {
		pause();
		_exit(0);
	}
	CHECK_EQ(setpriority(PRIO_PGRP, 0, 4), 0, "nice 4 for the whole process group");
	CHECK_EQ(nice_of(PRIO_PROCESS, a), 4, "the first child has it");
	CHECK_EQ(nice_of(PRIO_PROCESS, b), 4, "the second too");
	CHECK_EQ(setpriority(PRIO_PROCESS, a, 9), 0, "nice 9 for one child");
	CHECK_EQ(nice_of(PRIO_PGRP, 0), 4, "the group's is the lowest nice value");
	CHECK_EQ(nice_of(PRIO_PGRP, getpgrp()), 4, "by its id too");
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, &st, 0);
	waitpid(b, &st, 0);
	setpriority(PRIO_PROCESS, 0, 0);
	(void)c;
	close(ready[0]);
	close(ready[1]);
}

static void unprivileged(void)
{
	struct rlimit rl = {0, 0};

	setrlimit(RLIMIT_NICE, &rl);
	setpriority(PRIO_PROCESS, 0, 5);
	setresuid(SOLO, SOLO, SOLO);
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, 10), 0, "a user may raise its nice value");
	CHECK_ERRNO(setpriority(PRIO_PROCESS, 0, 5), EACCES, "but not lower it");
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, 10), 0, "setting the same value is fine");
	CHECK_ERRNO(setpriority(PRIO_PROCESS, getppid(), 19), EPERM, "nor touch root's process");
	CHECK_EQ(nice_of(PRIO_PROCESS, getppid()) >= -20, 1, "reading it is fine");
	CHECK_EQ(setpriority(PRIO_USER, 0, 12), 0, "PRIO_USER for one's own uid");
	CHECK_EQ(nice_of(PRIO_USER, SOLO), 12, "getpriority PRIO_USER");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), 12, "it applied to us");
	CHECK_ERRNO(getpriority(PRIO_USER, SOLO + 1), ESRCH, "a uid with no process");
}

/* Raising RLIMIT_NICE lets an unprivileged process lower its nice value. */
static void rlimit_nice(void)
{
	struct rlimit rl = {30, 30}; /* nice may go down to 20 - 30 = -10 */

	/* Raising a hard limit needs CAP_SYS_RESOURCE, which root may lack
	 * (a container's bounding set): then lower the soft limit only. */
	if (setrlimit(RLIMIT_NICE, &rl) < 0) {
		getrlimit(RLIMIT_NICE, &rl);
		if (rl.rlim_max < 30) {
			printf("RLIMIT_NICE's hard limit cannot be raised here\n");
			return;
		}
	}
	setpriority(PRIO_PROCESS, 0, 5);
	setresuid(SOLO, SOLO, SOLO);
	CHECK_EQ(setpriority(PRIO_PROCESS, 0, -10), 0, "down to -10 with RLIMIT_NICE 30");
	CHECK_ERRNO(setpriority(PRIO_PROCESS, 0, -11), EACCES, "but not -11");
	CHECK_EQ(nice_of(PRIO_PROCESS, 0), -10, "nice -10");
}

int main(void)
{
	basics();
	threads();
	in_child(groups);
	in_child(unprivileged);
	in_child(rlimit_nice);
	return GUEST_DONE();
}
