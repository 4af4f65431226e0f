/*
 * Guest test: seccomp filters that let the process live. SECCOMP_RET_ERRNO
 * (the value passed on, clamped at 4095, 0 as a success that did nothing),
 * conditions on arguments, LOG, TRACE without a tracer and USER_NOTIF
 * without a listener (ENOSYS both), stacked filters (every one runs, the
 * most restrictive action wins, the newest filter's value on a tie),
 * prctl(PR_GET_SECCOMP) and /proc/self/status, GET_ACTION_AVAIL and
 * GET_NOTIF_SIZES. Each case runs in a child of its own.
 */
#include "guest.h"
#include "seccompguest.h"

#include <fcntl.h>

/* Filters counted from what the test started with (a host may run it
 * under a filter of its own). */
static long filters0;

static void errno_action(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(EPERM)), 0, "install ERRNO(EPERM) for getpid");
	CHECK_ERRNO(syscall(SYS_getpid), EPERM, "getpid under the filter");
	CHECK(syscall(SYS_getppid) > 0, "getppid still works");
	CHECK_EQ(sc_on_nr(0, SYS_getuid, ERRNO(5000)), 0, "install ERRNO(5000) for getuid");
	CHECK_ERRNO(syscall(SYS_getuid), 4095, "getuid: an errno above 4095 is clamped to 4095");
	CHECK_EQ(sc_on_nr(0, SYS_close, ERRNO(0)), 0, "install ERRNO(0) for close");
	CHECK_EQ(close(1), 0, "ERRNO(0): close of stdout returns 0");
	CHECK_EQ(fcntl(1, F_GETFD), 0, "... without running: stdout is still open");
	CHECK_EQ(sc_on_nr(0, SYS_getgid, ERRNO(512)), 0, "install ERRNO(512) for getgid");
	CHECK_ERRNO(syscall(SYS_getgid), 512, "errno 512 (a restart code inside) reaches the caller");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), SECCOMP_MODE_FILTER,
		 "PR_GET_SECCOMP is SECCOMP_MODE_FILTER");
	CHECK_EQ(sc_status_field("Seccomp"), SECCOMP_MODE_FILTER, "/proc/self/status Seccomp: 2");
	CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 4,
		 "/proc/self/status counts four filters more");
	CHECK_EQ(sc_status_field("NoNewPrivs"), 1, "/proc/self/status NoNewPrivs: 1");
}

static void args_action(void)
{
	int fd = dup(1);

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr_arg0(SYS_close, (uint32_t)fd, ERRNO(EBADE)), 0,
		 "install ERRNO(EBADE) for close of one descriptor");
	CHECK_ERRNO(close(fd), EBADE, "close of that descriptor");
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "it is still open");
	CHECK_EQ(close(dup(1)), 0, "close of another descriptor works");
}

static void soft_actions(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_LOG), 0, "install LOG for getppid");
	CHECK(syscall(SYS_getppid) > 0, "LOG lets getppid run");
	CHECK_EQ(sc_on_nr(0, SYS_getuid, SECCOMP_RET_TRACE | 7), 0, "install TRACE for getuid");
	CHECK_ERRNO(syscall(SYS_getuid), ENOSYS, "TRACE without a tracer");
	CHECK_EQ(sc_on_nr(0, SYS_getgid, SECCOMP_RET_USER_NOTIF), 0,
		 "install USER_NOTIF for getgid");
	CHECK_ERRNO(syscall(SYS_getgid), ENOSYS, "USER_NOTIF without a listener");
}

static void stacking(void)
{
	sc_no_new_privs();
	/* Oldest first: ERRNO(1) then ERRNO(2) for getpid: the newest's value. */
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(1)), 0, "install ERRNO(1) for getpid");
	CHECK_EQ(sc_on_nr(0, SYS_getpid, ERRNO(2)), 0, "install ERRNO(2) for getpid");
	CHECK_ERRNO(syscall(SYS_getpid), 2, "on a tie the newest filter's errno wins");
	/* An older, more restrictive action wins over a newer, weaker one. */
	CHECK_EQ(sc_on_nr(0, SYS_getppid, ERRNO(3)), 0, "install ERRNO(3) for getppid");
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_TRACE), 0, "install TRACE for getppid");
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_LOG), 0, "install LOG for getppid");
	CHECK_ERRNO(syscall(SYS_getppid), 3, "ERRNO beats the newer TRACE and LOG");
	/* A newer, more restrictive one wins too. */
	CHECK_EQ(sc_on_nr(0, SYS_getuid, SECCOMP_RET_USER_NOTIF), 0,
		 "install USER_NOTIF for getuid");
	CHECK_EQ(sc_on_nr(0, SYS_getuid, ERRNO(4)), 0, "install ERRNO(4) for getuid");
	CHECK_ERRNO(syscall(SYS_getuid), 4, "ERRNO beats the older USER_NOTIF");
	CHECK_EQ(sc_status_field("Seccomp_filters") - filters0, 7,
		 "/proc/self/status counts seven filters more");
}

/* Filters that look at more than the number: the architecture, the
 * instruction pointer's presence, and seccomp_data's length. */
static void data_loads(void)
{
	struct sock_filter f[] = {
		/* BPF_LEN is sizeof(struct seccomp_data). */
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		JEQ(sizeof(struct seccomp_data), 1, 0),
		RET(ERRNO(ENOTRECOVERABLE)),
		/* The instruction pointer of a call from here is not 0. */
		LD_ABS(SD_IP),
		BPF_STMT(BPF_ST, 3),
		LD_ABS(SD_IP + 4),
		BPF_STMT(BPF_LDX | BPF_MEM, 3),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_X, 0),
		JEQ(0, 0, 1),
		RET(ERRNO(EREMOTEIO)),
		/* getsid(arg) answers ERRNO(arg + 100) for arg < 50. */
		LD_ABS(SD_NR),
		JEQ(SYS_getsid, 0, 5),
		LD_ABS(SD_ARG(0)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 50, 3, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 100),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
		BPF_STMT(BPF_RET | BPF_A, 0),
		RET(SECCOMP_RET_ALLOW),
	};

	sc_no_new_privs();
	CHECK_EQ(sc_install(0, f, ARRAY_LEN(f)), 0, "install a filter computing its answer");
	CHECK(syscall(SYS_getppid) > 0, "getppid passes every test of the filter");
	CHECK_ERRNO(syscall(SYS_getsid, 5), 105, "getsid(5) gets errno 105 from the filter");
	CHECK_ERRNO(syscall(SYS_getsid, 20), 120, "getsid(20) gets errno 120");
	CHECK_ERRNO(syscall(SYS_getsid, 0), 100, "getsid(0) gets errno 100");
	CHECK_ERRNO(syscall(SYS_getsid, 1000000000), ESRCH,
		    "getsid(1000000000) is left to the kernel (no such process)");
}

static void queries(void)
{
	static const uint32_t known[] = {
		SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP,
		SECCOMP_RET_ERRNO,	  SECCOMP_RET_USER_NOTIF,  SECCOMP_RET_TRACE,
		SECCOMP_RET_LOG,	  SECCOMP_RET_ALLOW,
	};
	struct seccomp_notif_sizes sizes;
	uint32_t action;
	char what[80];

	for (size_t i = 0; i < ARRAY_LEN(known); i++) {
		snprintf(what, sizeof(what), "GET_ACTION_AVAIL %#x", known[i]);
		CHECK_EQ(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &known[i]), 0, what);
	}
	action = 0x00010000;
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action), EOPNOTSUPP,
		    "GET_ACTION_AVAIL of an unknown action");
	action = SECCOMP_RET_ERRNO | 5;
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action), EOPNOTSUPP,
		    "GET_ACTION_AVAIL of an action with data");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 1, &known[0]), EINVAL,
		    "GET_ACTION_AVAIL with flags");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, NULL), EFAULT,
		    "GET_ACTION_AVAIL of a bad pointer");
	CHECK_EQ(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes), 0, "GET_NOTIF_SIZES");
	printf("notif sizes: %u %u %u\n", sizes.seccomp_notif, sizes.seccomp_notif_resp,
	       sizes.seccomp_data);
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, NULL), EFAULT,
		    "GET_NOTIF_SIZES to a bad pointer");
	CHECK_ERRNO(syscall(SYS_seccomp, 99, 0, NULL), EINVAL, "an unknown operation");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "PR_GET_SECCOMP without a filter is 0");
	CHECK_EQ(sc_status_field("Seccomp"), 0, "/proc/self/status Seccomp: 0");
}

int main(void)
{
	filters0 = sc_status_field("Seccomp_filters");
	if (sc_status_field("Seccomp") != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	queries();
	sc_print_status("errno", sc_child(errno_action));
	sc_print_status("arguments", sc_child(args_action));
	sc_print_status("log, trace, user_notif", sc_child(soft_actions));
	sc_print_status("stacking", sc_child(stacking));
	sc_print_status("data loads", sc_child(data_loads));
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "the children's filters are theirs alone");
	return GUEST_DONE();
}
