/*
 * Signal dispositions and masks. They are recorded exactly as Linux records
 * them; delivering to handlers comes with processes and signals.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <signal.h>

#define SIGBIT(s)   (1ull << ((s)-1))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

SYSCALL(rt_sigaction)
{
	int sig = (int)a->a[0];
	struct k_sigaction act, old;

	if (a->a[3] != sizeof(uint64_t))
		return -EINVAL;
	if (sig < 1 || sig > GUEST_NSIG)
		return -EINVAL;
	if (a->a[1]) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (mm_copy_in(t->mm, &act, a->a[1], sizeof(act)) < 0)
			return -EFAULT;
		act.mask &= ~UNBLOCKABLE;
	}
	old = t->sigactions[sig - 1];
	if (a->a[2] && mm_copy_out(t->mm, a->a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	if (a->a[1])
		t->sigactions[sig - 1] = act;
	return 0;
}

SYSCALL(rt_sigprocmask)
{
	int how = (int)a->a[0];
	uint64_t set, old = t->sigmask;

	if (a->a[3] != sizeof(uint64_t))
		return -EINVAL;
	if (a->a[1]) {
		if (mm_copy_in(t->mm, &set, a->a[1], sizeof(set)) < 0)
			return -EFAULT;
		set &= ~UNBLOCKABLE;
		switch (how) {
		case SIG_BLOCK:
			t->sigmask |= set;
			break;
		case SIG_UNBLOCK:
			t->sigmask &= ~set;
			break;
		case SIG_SETMASK:
			t->sigmask = set;
			break;
		default:
			return -EINVAL;
		}
	}
	if (a->a[2] && mm_copy_out(t->mm, a->a[2], &old, sizeof(old)) < 0) {
		return -EFAULT;
	}
	return 0;
}

/* Sending signals. One process per sandbox for now: a signal to it takes its
 * default action (or is ignored); handlers run once delivery exists. */
static long signal_self(struct task *t, int sig)
{
	if (sig < 0 || sig > GUEST_NSIG)
		return -EINVAL;
	if (sig == 0)
		return 0;
	task_force_signal(t, sig);
	return 0;
}

SYSCALL(kill)
{
	int pid = (int)a->a[0];

	/* -1: every process but init and the caller; there are none. */
	if (pid == -1)
		return (a->a[1] > GUEST_NSIG) ? -EINVAL : -ESRCH;
	if (pid == 0 || pid == t->tgid || pid == -t->tgid)
		return signal_self(t, (int)a->a[1]);
	return -ESRCH;
}

SYSCALL(tgkill)
{
	if ((int)a->a[0] <= 0 || (int)a->a[1] <= 0)
		return -EINVAL;
	if ((int)a->a[0] != t->tgid || (int)a->a[1] != t->tid)
		return -ESRCH;
	return signal_self(t, (int)a->a[2]);
}

SYSCALL(tkill)
{
	if ((int)a->a[0] <= 0)
		return -EINVAL;
	if ((int)a->a[0] != t->tid)
		return -ESRCH;
	return signal_self(t, (int)a->a[1]);
}
