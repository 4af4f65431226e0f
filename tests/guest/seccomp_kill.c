/*
 * Guest test: the killing actions. KILL_PROCESS ends the process with
 * SIGSYS (from any thread, whatever SIGSYS's disposition); KILL_THREAD
 * ends only the calling thread while others remain (a joiner wakes), and
 * the process when it was the last thread; an action Linux does not know
 * kills the process. The call never runs.
 */
#include "guest.h"
#include "seccompguest.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

static void *call_getppid(void *arg)
{
	syscall(SYS_getppid);
	return arg;
}

static void kill_process(void)
{
	sc_no_new_privs();
	signal(SIGSYS, SIG_IGN);
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_KILL_PROCESS), 0,
		 "install KILL_PROCESS for getppid");
	syscall(SYS_getppid);
	printf("FAIL: survived KILL_PROCESS\n");
}

static void kill_process_thread(void)
{
	pthread_t thr;

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_KILL_PROCESS), 0,
		 "install KILL_PROCESS for getppid");
	/* (Nothing printed now: the thread may kill us first.) */
	if (pthread_create(&thr, NULL, call_getppid, NULL) == 0)
		pthread_join(thr, NULL);
	printf("FAIL: survived another thread's KILL_PROCESS\n");
}

static void kill_thread_last(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_KILL_THREAD), 0,
		 "install KILL_THREAD for getppid");
	syscall(SYS_getppid);
	printf("FAIL: the only thread survived KILL_THREAD\n");
}

static void kill_thread_other(void)
{
	pthread_t thr;
	void *ret = (void *)1;

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_KILL_THREAD), 0,
		 "install KILL_THREAD for getppid");
	CHECK_EQ(pthread_create(&thr, NULL, call_getppid, (void *)2), 0, "a thread calls getppid");
	CHECK_EQ(pthread_join(thr, &ret), 0, "the thread is joined");
	CHECK(ret != (void *)2, "the thread never returned from getppid");
	CHECK(access("/", F_OK) == 0, "the main thread goes on");
}

static void kill_unknown(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, 0x00010000), 0, "install an unknown action for getppid");
	syscall(SYS_getppid);
	printf("FAIL: survived an unknown action\n");
}

/* A killed call has no effect: a KILL_PROCESS for unlink. */
static const char *victim = "/tmp/rung-seccomp-kill";

static void kill_no_effect(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr_arg0(SYS_write, 99, SECCOMP_RET_KILL_PROCESS), 0,
		 "install KILL_PROCESS for write to fd 99");
	CHECK_EQ(dup2(open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600), 99), 99, "fd 99 is a file");
	syscall(SYS_write, 99, "x", 1);
	printf("FAIL: survived KILL_PROCESS for write\n");
}

int main(void)
{
	struct stat st;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	sc_print_status("kill_process", sc_child(kill_process));
	sc_print_status("kill_process from a thread", sc_child(kill_process_thread));
	sc_print_status("kill_thread of the only thread", sc_child(kill_thread_last));
	sc_print_status("kill_thread of another thread", sc_child(kill_thread_other));
	sc_print_status("an unknown action", sc_child(kill_unknown));
	sc_print_status("kill_process of a write", sc_child(kill_no_effect));
	CHECK(stat(victim, &st) == 0 && st.st_size == 0, "the killed write wrote nothing");
	unlink(victim);
	return GUEST_DONE();
}
