/*
 * seccomp(2) and prctl's PR_SET_SECCOMP/PR_GET_SECCOMP with Linux's rules
 * (kernel/seccomp.c): the filters themselves run in the sentry
 * (sentry/kernel/seccomp.c). What cannot be offered is refused honestly:
 * SECCOMP_FILTER_FLAG_NEW_LISTENER (and WAIT_KILLABLE_RECV, which needs
 * it) are EINVAL, as on a kernel that does not know them, so nothing ever
 * listens and SECCOMP_RET_USER_NOTIF gives ENOSYS.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/prctl.h>
#include <stdlib.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* Every flag Linux 6.1 knows for SECCOMP_SET_MODE_FILTER. */
#define KNOWN_FLAGS                                                \
	(SECCOMP_ATTACH_FLAGS | SECCOMP_FILTER_FLAG_NEW_LISTENER | \
	 SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)

/* The filter program at guest address uprog (a struct sock_fprog), checked
 * and with the caller's permission: 0 and *out, or -errno. */
static long filter_in(struct task *t, uint64_t uprog, struct seccomp_filter **out)
{
	struct sock_fprog fprog;
	struct sock_filter *insns;
	long ret;

	if (mm_copy_in(t->mm, &fprog, uprog, sizeof(fprog)) < 0)
		return -EFAULT;
	if (fprog.len == 0 || fprog.len > SECCOMP_MAX_INSNS)
		return -EINVAL;
	/* Unprivileged filters only under no_new_privs: a filter must not
	 * be able to mislead a program that gains privileges by exec. */
	if (!__atomic_load_n(&t->no_new_privs, __ATOMIC_RELAXED) &&
	    !creds_own_capable(&t->creds, KCAP_SYS_ADMIN))
		return -EACCES;
	if (!fprog.filter)
		return -EINVAL; /* (bpf_check_basics_ok) */
	insns = xmalloc(fprog.len * sizeof(*insns));
	if (mm_copy_in(t->mm, insns, (uint64_t)(uintptr_t)fprog.filter,
		       fprog.len * sizeof(*insns)) < 0)
		ret = -EFAULT;
	else
		ret = seccomp_filter_new(insns, fprog.len, false, out);
	free(insns);
	return ret;
}

static long set_mode_filter(struct task *t, unsigned flags, uint64_t uprog)
{
	struct seccomp_filter *f;
	long ret;

	if (flags & ~KNOWN_FLAGS)
		return -EINVAL;
	/* No listener fds here (see the top of this file). */
	if (flags & (SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))
		return -EINVAL;
	ret = filter_in(t, uprog, &f);
	if (ret < 0)
		return ret;
	return seccomp_attach(t, f, flags);
}

static long get_action_avail(struct task *t, uint64_t uaction)
{
	uint32_t action;

	if (mm_copy_in(t->mm, &action, uaction, sizeof(action)) < 0)
		return -EFAULT;
	switch (action) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_USER_NOTIF: /* accepted in filters: ENOSYS without a listener */
	case SECCOMP_RET_TRACE:	     /* accepted in filters: ENOSYS without a tracer */
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static long get_notif_sizes(struct task *t, uint64_t usizes)
{
	struct seccomp_notif_sizes sizes = {
		.seccomp_notif = sizeof(struct seccomp_notif),
		.seccomp_notif_resp = sizeof(struct seccomp_notif_resp),
		.seccomp_data = sizeof(struct seccomp_data),
	};

	return mm_copy_out(t->mm, usizes, &sizes, sizeof(sizes)) < 0 ? -EFAULT : 0;
}

static long do_seccomp(struct task *t, unsigned op, unsigned flags, uint64_t uargs)
{
	switch (op) {
	case SECCOMP_SET_MODE_STRICT:
		if (flags != 0 || uargs != 0)
			return -EINVAL;
		return seccomp_set_strict(t);
	case SECCOMP_SET_MODE_FILTER:
		return set_mode_filter(t, flags, uargs);
	case SECCOMP_GET_ACTION_AVAIL:
		return flags ? -EINVAL : get_action_avail(t, uargs);
	case SECCOMP_GET_NOTIF_SIZES:
		return flags ? -EINVAL : get_notif_sizes(t, uargs);
	default:
		return -EINVAL;
	}
}

SYSCALL(seccomp)
{
	return do_seccomp(t, (unsigned)a->a[0], (unsigned)a->a[1], a->a[2]);
}

long seccomp_prctl(struct task *t, int option, uint64_t arg2, uint64_t arg3)
{
	if (option == PR_GET_SECCOMP)
		return seccomp_mode(t);
	if (option != PR_SET_SECCOMP)
		return -EINVAL;
	switch (arg2) {
	case SECCOMP_MODE_STRICT:
		/* prctl's strict mode always ignored arg3. */
		return do_seccomp(t, SECCOMP_SET_MODE_STRICT, 0, 0);
	case SECCOMP_MODE_FILTER:
		return do_seccomp(t, SECCOMP_SET_MODE_FILTER, 0, arg3);
	default:
		return -EINVAL;
	}
}
