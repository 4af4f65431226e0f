/*
 * Guest test: SECCOMP_MODE_STRICT. Only read, write, exit and rt_sigreturn
 * remain; anything else (exit_group included) kills the thread with
 * SIGKILL, and so the process when it is the only thread. Strict mode is
 * per thread, comes through seccomp(2) or prctl, and cannot follow
 * filter mode.
 */
#include "guest.h"
#include "seccompguest.h"

#include <pthread.h>

static void strict_allowed(void)
{
	char c;

	CHECK_EQ(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL), 0, "enter strict mode");
	CHECK_EQ(write(1, "written in strict mode\n", 23), 23, "write works");
	CHECK_EQ(read(0, &c, 1), 0, "read works");
	fflush(stdout);
	guest_raw_syscall(SYS_exit, 3, 0, 0, 0, 0, 0);
}

static void strict_getpid(void)
{
	CHECK_EQ(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL), 0, "enter strict mode");
	guest_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	printf("FAIL: getpid in strict mode\n");
}

static void strict_prctl(void)
{
	CHECK_EQ(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0), 0,
		 "enter strict mode with prctl");
	fflush(stdout);
	_exit(0); /* exit_group */
}

static void strict_get(void)
{
	CHECK_EQ(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0), 0,
		 "enter strict mode with prctl");
	fflush(stdout);
	prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	printf("FAIL: prctl in strict mode\n");
}

static void *strict_thread(void *arg)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL) == 0)
		guest_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	return arg;
}

static void strict_one_thread(void)
{
	pthread_t thr;
	void *ret = NULL;

	CHECK_EQ(pthread_create(&thr, NULL, strict_thread, (void *)1), 0, "start a thread");
	CHECK_EQ(pthread_join(thr, &ret), 0, "join it");
	CHECK(ret != (void *)1, "the thread died in strict mode");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "the main thread is not in strict mode");
}

static void strict_after_filter(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(EPERM)), 0, "install a filter");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL), EINVAL,
		    "strict mode after a filter");
	CHECK_ERRNO(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0), EINVAL,
		    "the same through prctl");
}

int main(void)
{
	int dummy = 0;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL), EINVAL,
		    "strict mode with flags");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, &dummy), EINVAL,
		    "strict mode with an argument");
	CHECK_ERRNO(prctl(PR_SET_SECCOMP, 3, 0, 0, 0), EINVAL, "PR_SET_SECCOMP of mode 3");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "still no seccomp");
	sc_print_status("strict: read, write, exit", sc_child(strict_allowed));
	sc_print_status("strict: getpid", sc_child(strict_getpid));
	sc_print_status("strict: exit_group", sc_child(strict_prctl));
	sc_print_status("strict: prctl", sc_child(strict_get));
	sc_print_status("strict: one thread of two", sc_child(strict_one_thread));
	sc_print_status("strict after a filter", sc_child(strict_after_filter));
	return GUEST_DONE();
}
