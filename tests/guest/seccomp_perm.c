/*
 * Guest test: who may install a filter. Without no_new_privs a task needs
 * CAP_SYS_ADMIN (EACCES otherwise, through seccomp(2) and prctl alike,
 * checked after the program's length and before its contents); strict
 * mode needs nothing. The test drops CAP_SYS_ADMIN from its effective set
 * first (with capset, so it runs as root or not).
 */
#include "guest.h"
#include "seccompguest.h"

#include <linux/capability.h>

#define CAP_ADMIN 21 /* CAP_SYS_ADMIN */

/* Drop CAP_SYS_ADMIN from the effective set; 0 or -1. */
static int drop_admin(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[CAP_ADMIN / 32].effective &= ~(1u << (CAP_ADMIN % 32));
	return (int)syscall(SYS_capset, &h, d);
}

static void unprivileged(void)
{
	struct sock_filter allow[] = {RET(SECCOMP_RET_ALLOW)};
	struct sock_filter bad[] = {LD_ABS(2), RET(SECCOMP_RET_ALLOW)};
	struct sock_fprog p = {.len = 1, .filter = allow};

	CHECK_EQ(drop_admin(), 0, "drop CAP_SYS_ADMIN");
	CHECK_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, "no no_new_privs");
	CHECK_ERRNO(sc_install(0, allow, 1), EACCES, "a filter without no_new_privs");
	CHECK_ERRNO(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0), EACCES,
		    "the same through prctl");
	CHECK_ERRNO(sc_install(0, allow, 0), EINVAL, "an empty program is EINVAL first");
	CHECK_ERRNO(sc_install(0, bad, 2), EACCES, "a bad program is EACCES first");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL), EFAULT,
		    "a bad pointer is EFAULT first");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "nothing was installed");
	CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0, "set no_new_privs");
	CHECK_EQ(sc_install(0, allow, 1), 0, "now the filter is accepted");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), SECCOMP_MODE_FILTER, "and installed");
}

static void unprivileged_strict(void)
{
	CHECK_EQ(drop_admin(), 0, "drop CAP_SYS_ADMIN");
	CHECK_EQ(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL), 0,
		 "strict mode needs no privilege");
	fflush(stdout);
	guest_raw_syscall(SYS_exit, 0, 0, 0, 0, 0, 0);
}

static void nnp_flags(void)
{
	CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL, "PR_SET_NO_NEW_PRIVS 0");
	CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL, "PR_SET_NO_NEW_PRIVS extra");
	CHECK_ERRNO(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL, "PR_GET_NO_NEW_PRIVS extra");
}

int main(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	nnp_flags();
	sc_print_status("without CAP_SYS_ADMIN", sc_child(unprivileged));
	sc_print_status("strict without CAP_SYS_ADMIN", sc_child(unprivileged_strict));
	return GUEST_DONE();
}
