/*
 * prctl(2): the options of Linux's kernel/sys.c that the sandbox has so
 * far; the others are EINVAL, as for an option Linux does not know.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"

#include <errno.h>
#include <linux/prctl.h>

SYSCALL(prctl)
{
	int option = (int)a->a[0];
	unsigned long arg2 = a->a[1], arg3 = a->a[2], arg4 = a->a[3], arg5 = a->a[4];

	switch (option) {
	case PR_GET_SECCOMP:
	case PR_SET_SECCOMP:
		return seccomp_prctl(t, option, arg2, arg3);
	case PR_SET_NO_NEW_PRIVS:
		if (arg2 != 1 || arg3 || arg4 || arg5)
			return -EINVAL;
		__atomic_store_n(&t->no_new_privs, true, __ATOMIC_RELAXED);
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return __atomic_load_n(&t->no_new_privs, __ATOMIC_RELAXED);
	default:
		return -EINVAL;
	}
}
