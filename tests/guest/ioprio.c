/*
 * ioprio_set and ioprio_get: the classes and their checks, a value set is
 * read back, fork and threads inherit it, a parent sets its child's, a
 * process group's best priority, and the permission rules (another user's
 * process, the real-time class without privilege).
 */
#include "guest.h"

#include <pthread.h>
#include <sys/wait.h>

#define WHO_PROCESS 1
#define WHO_PGRP    2
#define WHO_USER    3
#define V(c, d)	    (((c) << 13) | (d))
#define NONE	    0
#define RT	    1
#define BE	    2
#define IDLE	    3

static long get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

static long set(int which, int who, int prio)
{
	return syscall(SYS_ioprio_set, which, who, prio);
}

static void *thread_prio(void *arg)
{
	*(long *)arg = get(WHO_PROCESS, 0);
	return NULL;
}

int main(void)
{
	int sync[2], st;
	pthread_t th;
	long tprio;
	pid_t pid;
	char c;

	if (get(WHO_PROCESS, 0) < 0 && errno == ENOSYS) {
		printf("SKIP: no ioprio_get\n");
		return 77;
	}
	setpgid(0, 0);
	CHECK_EQ(get(WHO_PROCESS, 0), V(NONE, 0), "never set: class NONE");
	CHECK_ERRNO(get(0, 0), EINVAL, "ioprio_get of an unknown which");
	CHECK_ERRNO(set(4, 0, V(BE, 0)), EINVAL, "ioprio_set of an unknown which");
	CHECK_ERRNO(set(WHO_PROCESS, 0, V(NONE, 1)), EINVAL, "class NONE with data");
	CHECK_ERRNO(set(WHO_PROCESS, 0, V(5, 0)), EINVAL, "an unknown class");
	CHECK_ERRNO(set(WHO_PROCESS, -1, V(BE, 0)), ESRCH, "a process that does not exist");
	CHECK_EQ(set(WHO_PROCESS, 0, V(IDLE, 0)), 0, "set IDLE");
	CHECK_EQ(get(WHO_PROCESS, 0), V(IDLE, 0), "read back IDLE");
	CHECK_EQ(set(WHO_PROCESS, getpid(), V(BE, 3)), 0, "set BE 3 by pid");
	CHECK_EQ(get(WHO_PROCESS, 0), V(BE, 3), "read back BE 3");
	CHECK_EQ(get(WHO_PGRP, 0), V(BE, 3), "the process group's best");

	CHECK_EQ(pthread_create(&th, NULL, thread_prio, &tprio), 0, "a thread");
	pthread_join(th, NULL);
	CHECK_EQ(tprio, V(BE, 3), "the thread inherited BE 3");

	if (pipe(sync))
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		read(sync[0], &c, 1);
		_exit(get(WHO_PROCESS, 0) == V(BE, 1) ? 0 : 1);
	}
	CHECK_EQ(get(WHO_PROCESS, pid), V(BE, 3), "the child inherited BE 3");
	CHECK_EQ(set(WHO_PROCESS, pid, V(BE, 1)), 0, "set the child's to BE 1");
	CHECK_EQ(get(WHO_PGRP, 0), V(BE, 1), "the group's best is now the child's");
	write(sync[1], "x", 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child saw BE 1");
	CHECK_EQ(set(WHO_PGRP, 0, V(BE, 5)), 0, "set the whole group");
	CHECK_EQ(get(WHO_PROCESS, 0), V(BE, 5), "read back BE 5");

	if (getuid() == 0) {
		CHECK_EQ(set(WHO_PROCESS, 0, V(RT, 2)), 0, "root sets RT 2");
		CHECK_EQ(get(WHO_PROCESS, 0), V(RT, 2), "read back RT 2");
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			guest_failures = 0;
			if (setresuid(65534, 65534, 65534))
				_exit(2);
			CHECK_ERRNO(set(WHO_PROCESS, 0, V(RT, 0)), EPERM, "RT without privilege");
			CHECK_EQ(set(WHO_PROCESS, 0, V(IDLE, 0)), 0, "IDLE without privilege");
			CHECK_ERRNO(set(WHO_PROCESS, getppid(), V(BE, 0)), EPERM,
				    "another user's process");
			_exit(GUEST_DONE());
		}
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the unprivileged child's checks passed");
	}
	return GUEST_DONE();
}
