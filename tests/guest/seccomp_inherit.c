/*
 * Guest test: whose filters are whose. A fork child has its parent's
 * filters, and what it adds stays its own; execve keeps them; a thread
 * made before a filter is not filtered unless the filter comes with
 * SECCOMP_FILTER_FLAG_TSYNC, which also gives it no_new_privs; TSYNC fails
 * (with the thread's tid, or ESRCH with TSYNC_ESRCH) when a thread's
 * filters are not an ancestor of the caller's, and changes nothing then.
 */
#include "guest.h"
#include "seccompguest.h"

#include <pthread.h>

static long filters0;
static char self[4096];

static void forked(void)
{
	pid_t pid;
	int status;

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(EPERM)), 0, "install ERRNO for getpid");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		CHECK_ERRNO(syscall(SYS_getpid), EPERM, "the fork child has the filter");
		CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 1,
			 "the fork child counts one filter");
		CHECK_EQ(sc_on_nr(0, SYS_getppid, ERRNO(EBADE)), 0,
			 "the fork child adds a filter for getppid");
		CHECK_ERRNO(syscall(SYS_getppid), EBADE, "which applies to it");
		fflush(stdout);
		_exit(GUEST_DONE());
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "wait for the fork child");
	sc_print_status("fork child", status);
	CHECK(syscall(SYS_getppid) > 0, "the child's filter is not the parent's");
	CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 1, "the parent still counts one");
}

/* The image execve'd by execed(): argv[2] is the filter count to expect. */
static int after_exec(char **argv)
{
	CHECK_ERRNO(syscall(SYS_getpid), EPERM, "after execve getpid is still filtered");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), SECCOMP_MODE_FILTER,
		 "after execve PR_GET_SECCOMP is 2");
	CHECK_EQ(sc_status_field("Seccomp_filters"), atol(argv[2]),
		 "after execve the same filters are counted");
	CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1, "after execve no_new_privs is kept");
	return GUEST_DONE();
}

static void execed(void)
{
	char count[32];
	char *argv[] = {self, "exec-check", count, NULL};

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(EPERM)), 0, "install ERRNO for getpid");
	snprintf(count, sizeof(count), "%ld", sc_status_field("Seccomp_filters"));
	fflush(stdout);
	execv(self, argv);
	printf("FAIL: execv %s (errno %d)\n", self, errno);
}

/* --- threads ---------------------------------------------------------------- */

static pthread_barrier_t step;
static long thread_tid;

static void *thread_main(void *arg)
{
	thread_tid = syscall(SYS_gettid);
	pthread_barrier_wait(&step); /* 1: main has a filter without TSYNC */
	CHECK(syscall(SYS_getpid) > 0, "thread: the filter without TSYNC is not ours");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "thread: PR_GET_SECCOMP is 0");
	CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, "thread: no no_new_privs yet");
	pthread_barrier_wait(&step); /* 2 */
	pthread_barrier_wait(&step); /* 3: main has a filter with TSYNC */
	CHECK_ERRNO(syscall(SYS_getppid), EBADE, "thread: TSYNC's filter applies");
	CHECK_ERRNO(syscall(SYS_getpid), EPERM, "thread: and the main thread's older one too");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), SECCOMP_MODE_FILTER,
		 "thread: PR_GET_SECCOMP is 2");
	CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1, "thread: TSYNC gave no_new_privs");
	CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 2, "thread: counts two filters");
	/* A filter of the thread's own: its stack leaves the main thread's. */
	CHECK_EQ(sc_on_nr(0, SYS_getuid, ERRNO(EL2HLT)), 0, "thread: add a filter for getuid");
	pthread_barrier_wait(&step); /* 4 */
	pthread_barrier_wait(&step); /* 5: main's TSYNC failed */
	CHECK(syscall(SYS_getgid) >= 0, "thread: the failed TSYNC gave it nothing");
	return NULL;
}

static void threads(void)
{
	pthread_t thr;
	long ret;

	pthread_barrier_init(&step, NULL, 2);
	CHECK_EQ(pthread_create(&thr, NULL, thread_main, NULL), 0, "start a thread");
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(EPERM)), 0, "install ERRNO for getpid, no TSYNC");
	CHECK_ERRNO(syscall(SYS_getpid), EPERM, "main: getpid is filtered");
	pthread_barrier_wait(&step); /* 1 */
	pthread_barrier_wait(&step); /* 2 */
	CHECK_EQ(sc_on_nr(SECCOMP_FILTER_FLAG_TSYNC, SYS_getppid, ERRNO(EBADE)), 0,
		 "install ERRNO for getppid with TSYNC");
	pthread_barrier_wait(&step); /* 3 */
	pthread_barrier_wait(&step); /* 4 */
	ret = sc_on_nr(SECCOMP_FILTER_FLAG_TSYNC, SYS_getgid, ERRNO(EPERM));
	CHECK(ret == thread_tid, "TSYNC past a thread with a filter of its own returns its tid");
	CHECK_ERRNO(sc_on_nr(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH,
			     SYS_getgid, ERRNO(EPERM)),
		    ESRCH, "the same with TSYNC_ESRCH");
	CHECK(syscall(SYS_getgid) >= 0, "main: the failed TSYNC installed nothing");
	CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 2, "main: counts two filters");
	CHECK(syscall(SYS_getuid) >= 0, "main: the thread's own filter is not ours");
	pthread_barrier_wait(&step); /* 5 */
	pthread_join(thr, NULL);
	/* Without other threads TSYNC always works. */
	CHECK_EQ(sc_on_nr(SECCOMP_FILTER_FLAG_TSYNC, SYS_getgid, ERRNO(EPERM)), 0,
		 "TSYNC once the thread is gone");
	CHECK_ERRNO(syscall(SYS_getgid), EPERM, "main: getgid is filtered");
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 2 && strcmp(argv[1], "exec-check") == 0)
		return after_exec(argv);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	filters0 = sc_status_field("Seccomp_filters");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0, "readlink /proc/self/exe");
	self[n > 0 ? n : 0] = '\0';
	sc_print_status("fork", sc_child(forked));
	sc_print_status("execve", sc_child(execed));
	sc_print_status("threads", sc_child(threads));
	return GUEST_DONE();
}
