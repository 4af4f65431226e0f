/* Signal system calls: dispositions, masks, sending, waiting, returning from handlers. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/sigframe.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/pidfd.h"
#include "sentry/fs/procfs.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* The kernel's sigset_t size on x86-64: every call checks it. */
#define KSIGSET_SIZE 8

SYSCALL(rt_sigaction)
{
	int sig = (int)a->a[0];
	struct k_sigaction act, old;

	if (a->a[3] != KSIGSET_SIZE)
		return -EINVAL;
	if (sig < 1 || sig > GUEST_NSIG)
		return -EINVAL;
	if (a->a[1]) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (mm_copy_in(t->mm, &act, a->a[1], sizeof(act)) < 0)
			return -EFAULT;
		act.mask &= ~SIG_UNBLOCKABLE;
	}
	pthread_mutex_lock(&t->k->lock);
	old = t->sighand->action[sig - 1];
	if (a->a[1]) {
		struct task *p;
		t->sighand->action[sig - 1] = act;
		/* Setting SIG_IGN (or SIG_DFL for a default-ignored signal) discards
		 * what is pending of it, in every thread (POSIX). */
		if (act.handler == (uint64_t)(uintptr_t)SIG_IGN ||
		    (act.handler == (uint64_t)(uintptr_t)SIG_DFL &&
		     (sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH))) {
			sigpending_flush(&t->tg->shared, SIGBIT(sig));
			list_for_each_entry(p, &t->tg->threads, tg_node) {
				sigpending_flush(&p->pending, SIGBIT(sig));
				recalc_sigpending_locked(p);
			}
		}
	}
	pthread_mutex_unlock(&t->k->lock);
	if (a->a[2] && mm_copy_out(t->mm, a->a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(rt_sigprocmask)
{
	int how = (int)a->a[0];
	uint64_t set, old = t->sigmask, mask = t->sigmask;

	if (a->a[3] != KSIGSET_SIZE)
		return -EINVAL;
	if (a->a[1]) {
		if (mm_copy_in(t->mm, &set, a->a[1], sizeof(set)) < 0)
			return -EFAULT;
		switch (how) {
		case SIG_BLOCK:
			mask |= set;
			break;
		case SIG_UNBLOCK:
			mask &= ~set;
			break;
		case SIG_SETMASK:
			mask = set;
			break;
		default:
			return -EINVAL;
		}
		task_set_sigmask(t, mask);
	}
	if (a->a[2] && mm_copy_out(t->mm, a->a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(rt_sigpending)
{
	uint64_t set;

	if (a->a[1] > KSIGSET_SIZE)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	set = (t->pending.set | t->tg->shared.set) & t->sigmask;
	pthread_mutex_unlock(&t->k->lock);
	return mm_copy_out(t->mm, a->a[0], &set, a->a[1]);
}

SYSCALL(rt_sigsuspend)
{
	uint64_t mask;

	if (a->a[1] != KSIGSET_SIZE)
		return -EINVAL;
	if (mm_copy_in(t->mm, &mask, a->a[0], sizeof(mask)) < 0)
		return -EFAULT;
	task_set_temp_sigmask(t, mask);
	while (!task_signal_pending(t)) {
		uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		if (task_signal_pending(t))
			break;
		task_wait_wake(t, seq);
	}
	return -ERESTARTNOHAND;
}

SYSCALL(pause)
{
	while (!task_signal_pending(t)) {
		uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		if (task_signal_pending(t))
			break;
		task_wait_wake(t, seq);
	}
	return -ERESTARTNOHAND;
}

/* The pending signal of set to take now, into info; 0 if none. */
static int take_from(struct task *t, uint64_t set, siginfo_t *info)
{
	int sig;

	pthread_mutex_lock(&t->k->lock);
	sig = dequeue_signal_locked(t, ~set, info);
	pthread_mutex_unlock(&t->k->lock);
	return sig;
}

SYSCALL(rt_sigtimedwait)
{
	uint64_t set, deadline = 0;
	struct timespec ts;
	siginfo_t info;
	int sig;

	if (a->a[3] != KSIGSET_SIZE)
		return -EINVAL;
	if (mm_copy_in(t->mm, &set, a->a[0], sizeof(set)) < 0)
		return -EFAULT;
	set &= ~SIG_UNBLOCKABLE;
	if (a->a[2]) {
		if (mm_copy_in(t->mm, &ts, a->a[2], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		deadline =
			monotonic_ns() + (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	sig = take_from(t, set, &info);
	if (!sig && !(a->a[2] && ts.tv_sec == 0 && ts.tv_nsec == 0)) {
		/* While waiting, the awaited signals are unblocked (so they wake us)
		 * but taken here, not by a handler: Linux's real_blocked trick. */
		uint64_t saved = t->sigmask;
		pthread_mutex_lock(&t->k->lock);
		t->real_blocked = saved;
		task_set_sigmask_locked(t, saved & ~set);
		pthread_mutex_unlock(&t->k->lock);
		for (;;) {
			uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
			int r;
			sig = take_from(t, set, &info);
			if (sig || task_signal_pending(t))
				break;
			r = task_block(t, seq, deadline);
			if (r == -ETIMEDOUT) {
				sig = take_from(t, set, &info);
				break;
			}
		}
		pthread_mutex_lock(&t->k->lock);
		t->real_blocked = 0;
		task_set_sigmask_locked(t, saved);
		pthread_mutex_unlock(&t->k->lock);
		if (!sig && !task_signal_pending(t))
			return -EAGAIN;
	}
	if (!sig)
		return a->a[2] && ts.tv_sec == 0 && ts.tv_nsec == 0 ? -EAGAIN : -EINTR;
	if (a->a[1] && mm_copy_out(t->mm, a->a[1], &info, sizeof(info)) < 0)
		return -EFAULT;
	return sig;
}

SYSCALL(rt_sigreturn)
{
	if (sigframe_restore(t) < 0) {
		siginfo_t info;
		siginfo_kernel(&info, SIGSEGV);
		signal_force(t, &info);
		t->syscall_nr = -1;
		return (long)t->cpu.regs.rax;
	}
	return (long)t->cpu.regs.rax;
}

SYSCALL(sigaltstack)
{
	stack_t ss, oss;
	int ret;

	if (a->a[0] && mm_copy_in(t->mm, &ss, a->a[0], sizeof(ss)) < 0)
		return -EFAULT;
	ret = task_sigaltstack(t, a->a[0] ? &ss : NULL, a->a[1] ? &oss : NULL);
	if (ret == 0 && a->a[1] && mm_copy_out(t->mm, a->a[1], &oss, sizeof(oss)) < 0)
		return -EFAULT;
	return ret;
}

SYSCALL(restart_syscall)
{
	struct restart_block *rb = &t->restart;

	if (!rb->fn)
		return -EINTR;
	return rb->fn(t, rb);
}

/* --- sending --------------------------------------------------------------------- */

/*
 * May t signal p, a thread of process tg, or tg's zombie when p is NULL
 * (Linux's check_kill_permission)? Its own process always; else CAP_KILL,
 * a real or effective uid that is the target's real or saved one, or
 * SIGCONT within the session.
 */
static bool may_signal(struct task *t, struct thread_group *tg, struct task *p, int sig)
{
	const struct creds *c = &t->creds;
	uint32_t uid = p ? p->creds.uid : tg->uid, suid = p ? p->creds.suid : tg->suid;

	if (tg == t->tg || creds_capable(c, KCAP_KILL))
		return true;
	if (c->euid == suid || c->euid == uid || c->uid == suid || c->uid == uid)
		return true;
	return sig == SIGCONT && t->tg->sid == tg->sid;
}

static bool valid_sig(long sig)
{
	return sig >= 0 && sig <= GUEST_NSIG;
}

/* kill(pid > 0) or tgkill: one process (group) or one thread, under the lock. */
static long send_to(struct task *t, struct task *p, const siginfo_t *info, bool group)
{
	siginfo_t own;

	if (!valid_sig(info->si_signo))
		return -EINVAL;
	if (!may_signal(t, p->tg, p, info->si_signo))
		return -EPERM;
	/* The sender as the receiver's pid namespace numbers it (0: outside). */
	if ((info->si_code == SI_USER || info->si_code == SI_TKILL) && (t->pidns || p->pidns)) {
		own = *info;
		own.si_pid = tg_pid_nr(t->tg, p->pidns);
		info = &own;
	}
	return signal_send_locked(p, info, group);
}

/* A signal to process tg (Linux's group_send_sig_info), under the lock: a
 * zombie takes it and ignores it. */
static long send_to_tg(struct task *t, struct thread_group *tg, const siginfo_t *info)
{
	struct task *p = list_first_entry_or_null(&tg->threads, struct task, tg_node);

	if (p)
		return send_to(t, p, info, true);
	if (!valid_sig(info->si_signo))
		return -EINVAL;
	return may_signal(t, tg, NULL, info->si_signo) ? 0 : -EPERM;
}

/* The process kill(pid > 0) means: the one pid names, or the process of
 * the thread whose tid it is (as Linux), zombies included. */
static struct thread_group *kill_target_locked(struct kernel *k, int pid)
{
	struct thread_group *tg = kernel_find_tg_locked(k, pid, true);
	struct task *p;

	if (tg)
		return tg;
	p = kernel_find_task_locked(k, pid);
	return p ? p->tg : NULL;
}

/*
 * kill(-1): every process but the caller's and the sandbox's init (pid 1),
 * zombies included (in a pid namespace: those of the namespace but its 1). As Linux's kill_something_info, it succeeds when there
 * was any such process, signalled or not for want of permission (EPERM
 * counts for nothing), and fails with ESRCH when there was none.
 */
static long kill_all_locked(struct task *t, const siginfo_t *info)
{
	struct thread_group *tg;
	long ret = 0, err;
	bool any = false;

	list_for_each_entry(tg, &t->k->groups, knode) {
		if ((tg->flags & TG_REAPED) || tg->tgid <= 1 || tg == t->tg)
			continue;
		/* In a pid namespace: its processes only, its 1 excepted. */
		if (t->pidns &&
		    (!pidns_within(tg->pidns, t->pidns) || tg_pid_nr(tg, t->pidns) == 1))
			continue;
		any = true;
		err = send_to_tg(t, tg, info);
		if (err != -EPERM)
			ret = err;
	}
	return any ? ret : -ESRCH;
}

/* kill(0) and kill(-pgid): every process of the group, zombies included;
 * 0 when one took the signal, else the last error (ESRCH: nobody there). */
static long kill_pgrp_locked(struct task *t, int pgid, const siginfo_t *info)
{
	struct thread_group *tg;
	long ret = -ESRCH;
	bool sent = false;

	list_for_each_entry(tg, &t->k->groups, knode) {
		if ((tg->flags & TG_REAPED) || tg->pgid != pgid)
			continue;
		ret = send_to_tg(t, tg, info);
		sent |= ret == 0;
	}
	return sent ? 0 : ret;
}

/* The kernel reads pid and signal as ints; a bad signal is refused by
 * each target (ESRCH first when there is none, as Linux). */
SYSCALL(kill)
{
	int pid = (int)a->a[0], sig = (int)a->a[1];
	struct kernel *k = t->k;
	struct thread_group *tg;
	siginfo_t info;
	long ret;

	siginfo_user(&info, sig, t);
	pthread_mutex_lock(&k->lock);
	/* Numbers of the caller's pid namespace. */
	if (pid > 0)
		pid = pidns_global_locked(k, t->pidns, pid);
	else if (pid < -1 && pid != INT_MIN)
		pid = -pidns_global_locked(k, t->pidns, -pid);
	if (pid > 0) {
		tg = kill_target_locked(k, pid);
		ret = tg ? send_to_tg(t, tg, &info) : -ESRCH;
	} else if (pid == -1) {
		ret = kill_all_locked(t, &info);
	} else if (pid == INT_MIN) {
		ret = -ESRCH; /* no group -INT_MIN */
	} else {
		ret = kill_pgrp_locked(t, pid ? -pid : t->tg->pgid, &info);
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* tgkill/tkill and the queueinfo calls: one thread. */
static long thread_signal(struct task *t, int tgid, int tid, const siginfo_t *info)
{
	struct kernel *k = t->k;
	struct task *p;
	long ret = -ESRCH;

	pthread_mutex_lock(&k->lock);
	tid = pidns_global_locked(k, t->pidns, tid);
	if (tgid > 0)
		tgid = pidns_global_locked(k, t->pidns, tgid);
	list_for_each_entry(p, &k->tasks, knode)
		if (p->tid == tid && (tgid <= 0 || p->tgid == tgid)) {
			ret = send_to(t, p, info, false);
			break;
		}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

SYSCALL(tgkill)
{
	siginfo_t info;

	if ((int)a->a[0] <= 0 || (int)a->a[1] <= 0)
		return -EINVAL;
	siginfo_user(&info, (int)a->a[2], t);
	info.si_code = SI_TKILL;
	return thread_signal(t, (int)a->a[0], (int)a->a[1], &info);
}

SYSCALL(tkill)
{
	siginfo_t info;

	if ((int)a->a[0] <= 0)
		return -EINVAL;
	siginfo_user(&info, (int)a->a[1], t);
	info.si_code = SI_TKILL;
	return thread_signal(t, 0, (int)a->a[0], &info);
}

/* The siginfo a process queues: it may not pretend to be the kernel or kill(). */
static long user_siginfo(struct task *t, int sig, uint64_t uinfo, siginfo_t *info, bool other)
{
	if (!valid_sig(sig))
		return -EINVAL;
	if (mm_copy_in(t->mm, info, uinfo, sizeof(*info)) < 0)
		return -EFAULT;
	if ((info->si_code >= 0 || info->si_code == SI_TKILL) && other)
		return -EPERM;
	info->si_signo = sig;
	return 0;
}

SYSCALL(rt_sigqueueinfo)
{
	int pid = (int)a->a[0];
	struct thread_group *tg;
	siginfo_t info;
	long ret = user_siginfo(t, (int)a->a[1], a->a[2], &info, pid != tg_pid_nr(t->tg, t->pidns));

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&t->k->lock);
	if (pid > 0)
		pid = pidns_global_locked(t->k, t->pidns, pid);
	tg = pid > 0 ? kernel_find_tg_locked(t->k, pid, false) : NULL;
	ret = -ESRCH;
	if (tg && !list_empty(&tg->threads))
		ret = send_to(t, list_first_entry(&tg->threads, struct task, tg_node), &info, true);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(rt_tgsigqueueinfo)
{
	siginfo_t info;
	long ret;

	if ((int)a->a[0] <= 0 || (int)a->a[1] <= 0)
		return -EINVAL;
	ret = user_siginfo(t, (int)a->a[2], a->a[3], &info,
			   (int)a->a[1] != task_tid_nr(t, t->pidns));
	if (ret < 0)
		return ret;
	return thread_signal(t, (int)a->a[0], (int)a->a[1], &info);
}

/* pidfd_send_signal: kill(2) of the process a pidfd names, which cannot
 * have been replaced by another with its pid meanwhile. */
/* pidfd_send_signal to an fd of a /proc/<pid> directory, which Linux
 * takes for a pidfd of that process. */
static long proc_dir_send_signal(struct task *t, int fd, int sig, uint64_t uinfo)
{
	struct file *f = fd_get(t->files, fd);
	int pid = f ? procfs_dir_tgid(f->inode) : 0;
	struct thread_group *tg;
	siginfo_t info;
	long ret;

	file_put(f);
	if (!pid)
		return -EBADF;
	if (uinfo) {
		if (mm_copy_in(t->mm, &info, uinfo, sizeof(info)) < 0)
			return -EFAULT;
		if (info.si_signo != sig)
			return -EINVAL;
	} else {
		siginfo_user(&info, sig, t);
	}
	pthread_mutex_lock(&t->k->lock);
	tg = kernel_find_tg_locked(t->k, pid, true);
	if (!tg || (tg->flags & TG_REAPED))
		ret = -ESRCH;
	else if (uinfo && tg != t->tg && (info.si_code >= 0 || info.si_code == SI_TKILL))
		ret = -EPERM;
	else
		ret = send_to_tg(t, tg, &info);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(pidfd_send_signal)
{
	int sig = (int)a->a[1];
	struct thread_group *tg;
	struct file *f;
	siginfo_t info;
	long ret = 0;

	if (a->a[3])
		return -EINVAL;
	f = pidfd_fget(t->files, (int)a->a[0], &tg);
	if (!f)
		return proc_dir_send_signal(t, (int)a->a[0], sig, a->a[2]);
	if (a->a[2]) {
		if (mm_copy_in(t->mm, &info, a->a[2], sizeof(info)) < 0)
			ret = -EFAULT;
		else if (info.si_signo != sig)
			ret = -EINVAL;
		/* Only to itself may a process send a siginfo it makes up. */
		else if (tg != t->tg && (info.si_code >= 0 || info.si_code == SI_TKILL))
			ret = -EPERM;
	} else {
		siginfo_user(&info, sig, t);
	}
	if (ret == 0) {
		pthread_mutex_lock(&t->k->lock);
		ret = (tg->flags & TG_REAPED) ? -ESRCH : send_to_tg(t, tg, &info);
		pthread_mutex_unlock(&t->k->lock);
	}
	file_put(f);
	return ret;
}
