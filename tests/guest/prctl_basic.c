/*
 * Guest test: prctl's per-task and per-process settings: the name (comm),
 * dumpable (and how set*id clears it), no_new_privs (one way, inherited),
 * timer slack (per thread, the default inherited at fork), the clear-tid
 * address, THP disable, seccomp's mode, machine-check kill policy, timing,
 * TSC, and options that are invalid on x86-64 or unknown.
 */
#include "guest.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/prctl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

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

static void *thread_name(void *arg)
{
	char *out = arg;

	prctl(PR_GET_NAME, out);
	prctl(PR_SET_NAME, "worker");
	return NULL;
}

static void name(void)
{
	char buf[32], thr[16];
	pthread_t th;
	int fd;
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(prctl(PR_SET_NAME, "short"), 0, "PR_SET_NAME short");
	CHECK_EQ(prctl(PR_GET_NAME, buf), 0, "PR_GET_NAME");
	CHECK(strcmp(buf, "short") == 0 && buf[6] == 0 && buf[15] == 0 && buf[16] == 'x',
	      "the name comes back in 16 bytes, zero padded");
	CHECK_EQ(prctl(PR_SET_NAME, "a-name-that-is-much-too-long"), 0, "PR_SET_NAME long");
	prctl(PR_GET_NAME, buf);
	CHECK(strcmp(buf, "a-name-that-is-") == 0, "it is cut to 15 bytes");
	fd = open("/proc/self/comm", O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	CHECK(strcmp(buf, "a-name-that-is-\n") == 0, "/proc/self/comm shows it");
	CHECK_ERRNO(prctl(PR_SET_NAME, (char *)8), EFAULT, "PR_SET_NAME from a bad pointer");
	CHECK_ERRNO(prctl(PR_GET_NAME, (char *)8), EFAULT, "PR_GET_NAME into a bad pointer");
	pthread_create(&th, NULL, thread_name, thr);
	pthread_join(th, NULL);
	CHECK(strcmp(thr, "a-name-that-is-") == 0, "a new thread starts with the creator's name");
	prctl(PR_GET_NAME, buf);
	CHECK(strcmp(buf, "a-name-that-is-") == 0, "a thread's PR_SET_NAME is its own");
	prctl(PR_SET_NAME, "prctl_basic");
}

static void dumpable_drop(void)
{
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1, "a child is dumpable");
	CHECK_EQ(setresgid(-1, 100, -1), 0, "change the egid");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 0, "which makes the process not dumpable");
	CHECK_EQ(prctl(PR_SET_DUMPABLE, 1), 0, "PR_SET_DUMPABLE 1");
	CHECK_EQ(setresgid(-1, 100, -1), 0, "a set*id call that changes nothing");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1, "leaves dumpable alone");
	CHECK_EQ(setgroups(0, NULL), 0, "setgroups");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1, "does not count");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 0, "not dumpable again");
	CHECK_EQ(prctl(PR_SET_DUMPABLE, 1), 0, "a non-root process may set it back");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1, "dumpable");
}

static void dumpable(void)
{
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1, "dumpable at start");
	CHECK_ERRNO(prctl(PR_SET_DUMPABLE, 2), EINVAL, "PR_SET_DUMPABLE 2 (suid_dumpable's 2)");
	CHECK_ERRNO(prctl(PR_SET_DUMPABLE, 3), EINVAL, "PR_SET_DUMPABLE 3");
	CHECK_EQ(prctl(PR_SET_DUMPABLE, 0), 0, "PR_SET_DUMPABLE 0");
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 0, "not dumpable");
	CHECK_EQ(prctl(PR_SET_DUMPABLE, 1), 0, "PR_SET_DUMPABLE 1");
	in_child(dumpable_drop);
}

static void nnp_child(void)
{
	CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1, "a child inherits no_new_privs");
}

static void nnp(void)
{
	pid_t p;
	int st;

	p = fork();
	if (p == 0) {
		CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, "no_new_privs is off");
		CHECK_ERRNO(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL,
			    "PR_GET_NO_NEW_PRIVS with an argument");
		CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL,
			    "PR_SET_NO_NEW_PRIVS 0");
		CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL,
			    "PR_SET_NO_NEW_PRIVS with an extra argument");
		CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0, "PR_SET_NO_NEW_PRIVS 1");
		CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1, "no_new_privs is on");
		CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0, "setting it again");
		in_child(nnp_child);
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

static long slack_of_thread;

static void *thread_slack(void *arg)
{
	slack_of_thread = prctl(PR_GET_TIMERSLACK);
	return NULL;
}

static void slack_child(void)
{
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), 123456, "a child inherits the slack");
	CHECK_EQ(prctl(PR_SET_TIMERSLACK, 0), 0, "PR_SET_TIMERSLACK 0 in the child");
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), 123456,
		 "goes back to its default: the parent's slack at fork");
}

static void slack(void)
{
	long def = prctl(PR_GET_TIMERSLACK);
	pthread_t th;

	CHECK(def > 0, "there is a timer slack");
	CHECK_EQ(prctl(PR_SET_TIMERSLACK, 123456), 0, "PR_SET_TIMERSLACK 123456");
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), 123456, "PR_GET_TIMERSLACK");
	pthread_create(&th, NULL, thread_slack, NULL);
	pthread_join(th, NULL);
	CHECK_EQ(slack_of_thread, 123456, "a new thread inherits it");
	in_child(slack_child);
	CHECK_EQ(prctl(PR_SET_TIMERSLACK, 0), 0, "PR_SET_TIMERSLACK 0");
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), def, "the default again");
}

static void misc(void)
{
	uint64_t addr = 1;
	int v = -1, tid_word;

	CHECK_EQ(prctl(PR_GET_TID_ADDRESS, &addr), 0, "PR_GET_TID_ADDRESS");
	CHECK(addr != 0, "glibc set a clear-tid address");
	CHECK_EQ(syscall(SYS_set_tid_address, &tid_word), getpid(), "set_tid_address");
	CHECK_EQ(prctl(PR_GET_TID_ADDRESS, &addr), 0, "PR_GET_TID_ADDRESS again");
	CHECK(addr == (uint64_t)(uintptr_t)&tid_word, "it is the new address");
	CHECK_ERRNO(prctl(PR_GET_TID_ADDRESS, (void *)8), EFAULT, "into a bad pointer");

	CHECK_EQ(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), 0, "THP not disabled");
	CHECK_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0, "PR_SET_THP_DISABLE 1");
	CHECK_EQ(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), 1, "THP disabled");
	CHECK_ERRNO(prctl(PR_SET_THP_DISABLE, 0, 1, 0, 0), EINVAL, "with an extra argument");
	CHECK_ERRNO(prctl(PR_GET_THP_DISABLE, 1, 0, 0, 0), EINVAL, "GET with an argument");
	CHECK_EQ(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0, "PR_SET_THP_DISABLE 0");

	CHECK_EQ(prctl(PR_GET_SECCOMP), 0, "no seccomp filter");
	CHECK_ERRNO(prctl(PR_SET_SECCOMP, 99), EINVAL, "PR_SET_SECCOMP with a bad mode");

	CHECK_EQ(prctl(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_DEFAULT, "MCE kill default");
	CHECK_EQ(prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0), 0, "MCE kill early");
	CHECK_EQ(prctl(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_EARLY, "reads back early");
	CHECK_ERRNO(prctl(PR_MCE_KILL, PR_MCE_KILL_SET, 7, 0, 0), EINVAL, "a bad MCE policy");
	CHECK_EQ(prctl(PR_MCE_KILL, PR_MCE_KILL_CLEAR, 0, 0, 0), 0, "MCE kill clear");
	CHECK_EQ(prctl(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_DEFAULT, "default again");

	CHECK_EQ(prctl(PR_GET_TIMING), PR_TIMING_STATISTICAL, "PR_GET_TIMING");
	CHECK_ERRNO(prctl(PR_SET_TIMING, PR_TIMING_TIMESTAMP), EINVAL, "timestamp timing");
	CHECK_EQ(prctl(PR_GET_TSC, &v), 0, "PR_GET_TSC");
	CHECK_EQ(v, PR_TSC_ENABLE, "RDTSC is enabled");

	CHECK_EQ(prctl(PR_SET_PDEATHSIG, SIGUSR1), 0, "PR_SET_PDEATHSIG");
	CHECK_EQ(prctl(PR_GET_PDEATHSIG, &v), 0, "PR_GET_PDEATHSIG");
	CHECK_EQ(v, SIGUSR1, "reads back SIGUSR1");
	CHECK_ERRNO(prctl(PR_SET_PDEATHSIG, 65), EINVAL, "PR_SET_PDEATHSIG 65");
	CHECK_ERRNO(prctl(PR_GET_PDEATHSIG, (void *)8), EFAULT, "into a bad pointer");
	CHECK_EQ(prctl(PR_SET_PDEATHSIG, 0), 0, "PR_SET_PDEATHSIG 0");

	CHECK_ERRNO(prctl(PR_GET_UNALIGN, &v), EINVAL, "PR_GET_UNALIGN on x86-64");
	CHECK_ERRNO(prctl(PR_GET_FPEMU, &v), EINVAL, "PR_GET_FPEMU on x86-64");
	CHECK_ERRNO(prctl(PR_GET_ENDIAN, &v), EINVAL, "PR_GET_ENDIAN on x86-64");
	CHECK_ERRNO(prctl(PR_MPX_ENABLE_MANAGEMENT, 0, 0, 0, 0), EINVAL, "PR_MPX_ENABLE_MANAGEMENT");
	CHECK_ERRNO(prctl(PR_SET_VMA, 1, 0, 0, 0), EINVAL, "PR_SET_VMA with a bad operation");
	CHECK_ERRNO(prctl(0x7fff1234, 0, 0, 0, 0), EINVAL, "an unknown option");
	CHECK_ERRNO(prctl(-1, 0, 0, 0, 0), EINVAL, "option -1");
}

int main(void)
{
	name();
	dumpable();
	nnp();
	slack();
	misc();
	return GUEST_DONE();
}
