/*
 * Signal generation. (Interim: one process per sandbox and no handlers yet,
 * so a signal takes its default action at once; delivery to handlers, thread
 * groups and job control replace this with the process work.)
 */
#include "config.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"

#include <errno.h>
#include <string.h>

void siginfo_kernel(siginfo_t *si, int sig)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = SI_KERNEL;
}

void siginfo_user(siginfo_t *si, int sig, struct task *from)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = SI_USER;
	si->si_pid = from ? from->tgid : 0;
	si->si_uid = from ? from->creds.uid : 0;
}

int signal_send(struct task *target, const siginfo_t *info, bool group)
{
	int sig = info->si_signo;

	(void)group;
	if (sig < 0 || sig > GUEST_NSIG)
		return -EINVAL;
	if (sig)
		task_force_signal(target, sig);
	return 0;
}

int signal_send_pgrp(struct kernel *k, int pgid, const siginfo_t *info)
{
	struct task *t = kernel_find_task(k, pgid);
	int ret = -ESRCH;

	if (t) {
		ret = signal_send(t, info, true);
		task_put(t);
	}
	return ret;
}

bool task_signal_pending(struct task *t)
{
	return task_interrupted(t);
}

void task_set_temp_sigmask(struct task *t, uint64_t mask)
{
	t->sigmask = mask & ~SIG_UNBLOCKABLE;
}
