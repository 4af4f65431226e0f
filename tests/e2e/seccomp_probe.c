/*
 * A container program for tests/e2e/oci_seccomp.sh: reports, one fact per
 * line, what the container's seccomp state is and what installing a filter
 * of its own gives (EACCES for a task with neither no_new_privs nor
 * CAP_SYS_ADMIN, then success once it sets no_new_privs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *result(long r)
{
	return r == 0 ? "ok" : strerrorname_np(errno);
}

int main(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	long r;

	printf("uid %d\n", (int)getuid());
	printf("seccomp mode %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	printf("no_new_privs %d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	printf("install %s\n", result(r));
	if (r != 0) {
		r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		printf("set no_new_privs %s\n", result(r));
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
		printf("install again %s\n", result(r));
	}
	printf("seccomp mode %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	return 0;
}
