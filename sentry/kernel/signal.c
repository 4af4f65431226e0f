/*
 * Signals: generation, the choice of the thread that takes a process
 * signal, delivery in the task's run loop (default actions, handlers, group
 * stops), and the restart of interrupted system calls.
 *
 * Everything here runs under k->lock unless it says otherwise; the handler's
 * frame is written without it (sentry/kernel/sigframe.c).
 */
#include "config.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/sigframe.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/timers.h"
#include "sentry/fs/signalfd.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define SIGRTMIN_K 32 /* the kernel's first real-time signal */

#define STOP_SIGS (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))
#define IGN_SIGS  (SIGBIT(SIGCHLD) | SIGBIT(SIGCONT) | SIGBIT(SIGURG) | SIGBIT(SIGWINCH))
#define SYNC_SIGS                                                                               \
	(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | SIGBIT(SIGFPE) | \
	 SIGBIT(SIGSYS))

static bool sig_default_stop(int sig)
{
	return sig < SIGRTMIN_K && (STOP_SIGS & SIGBIT(sig));
}

static bool sig_default_ignore(int sig)
{
	return sig < SIGRTMIN_K && (IGN_SIGS & SIGBIT(sig));
}

static bool is_default(const struct k_sigaction *ka)
{
	return ka->handler == (uint64_t)(uintptr_t)SIG_DFL;
}

static bool is_ignore(const struct k_sigaction *ka)
{
	return ka->handler == (uint64_t)(uintptr_t)SIG_IGN;
}

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

/* --- pending sets -------------------------------------------------------------- */

void sigpending_init(struct sigpending *p)
{
	p->set = 0;
	list_init(&p->list);
}

/*
 * RLIMIT_SIGPENDING: every queued signal is charged to the real uid of the
 * task it is queued for, and a user may have at most the target's limit
 * queued (__sigqueue_alloc). The counts change under this leaf lock: a
 * queue entry is freed wherever its task's last reference goes, with or
 * without k->lock.
 */
static pthread_mutex_t ucount_lock = PTHREAD_MUTEX_INITIALIZER;

/* Charge one signal to uid, unless that makes more than limit. */
static struct sig_ucount *ucount_charge(struct kernel *k, uint32_t uid, uint64_t limit)
{
	struct sig_ucount *c, *found = NULL;

	pthread_mutex_lock(&ucount_lock);
	list_for_each_entry(c, &k->sig_ucounts, node)
		if (c->uid == uid) {
			found = c;
			break;
		}
	if (found && (uint64_t)found->n + 1 > limit) {
		found = NULL;
	} else if (found) {
		found->n++;
	} else if (limit >= 1) {
		found = xzalloc(sizeof(*found));
		found->uid = uid;
		found->n = 1;
		list_add_tail(&found->node, &k->sig_ucounts);
	}
	pthread_mutex_unlock(&ucount_lock);
	return found;
}

static void ucount_put(struct sig_ucount *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&ucount_lock);
	if (--c->n == 0) {
		list_del(&c->node);
		free(c);
	}
	pthread_mutex_unlock(&ucount_lock);
}

void sigqueue_free(struct sigqueue *q)
{
	ucount_put(q->uc);
	free(q);
}

void sigpending_flush(struct sigpending *p, uint64_t which)
{
	struct sigqueue *q, *n;

	list_for_each_entry_safe(q, n, &p->list, link)
		if (which & SIGBIT(q->info.si_signo)) {
			list_del(&q->link);
			sigqueue_free(q);
		}
	p->set &= ~which;
}

/* Does t have a signal it can take now? */
static bool has_deliverable(struct task *t)
{
	return ((t->pending.set | t->tg->shared.set) & ~t->sigmask) != 0 || t->pt.trap_pending;
}

void recalc_sigpending_locked(struct task *t)
{
	if (has_deliverable(t))
		__atomic_or_fetch(&t->work, WORK_SIGNAL, __ATOMIC_SEQ_CST);
	else
		__atomic_and_fetch(&t->work, ~WORK_SIGNAL, __ATOMIC_SEQ_CST);
}

bool task_signal_pending(struct task *t)
{
	return __atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & (WORK_SIGNAL | WORK_KILL | WORK_STOP);
}

/* Is t in the sandbox's init, and does that init ignore unhandled signals? */
static bool init_protected(struct task *t)
{
	return t->tg == t->k->init_tg && t->k->cfg.init_unkillable;
}

/* Is t the init of a nested pid namespace that sig, sent now, leaves
 * alone? Linux's SIGNAL_UNKILLABLE: a default action is ignored unless the
 * signal is SIGKILL or SIGSTOP from an ancestor namespace. */
static bool ns_init_protected(struct task *t, int sig)
{
	struct pid_ns *ns = t->tg->pidns;
	struct task *sender = current_task();

	if (!ns || ns->init != t->tg)
		return false;
	if ((sig == SIGKILL || sig == SIGSTOP) && (!sender || !pidns_within(sender->pidns, ns)))
		return false;
	return true;
}

/* Would delivering sig to t do nothing at all (so it need not be queued)? */
static bool sig_ignored(struct task *t, int sig, bool forced)
{
	const struct k_sigaction *ka = &t->sighand->action[sig - 1];

	/* A blocked signal waits: the disposition may change before it is
	 * unblocked (or sigtimedwait takes it). */
	if ((t->sigmask | t->real_blocked) & SIGBIT(sig))
		return false;
	/* A tracer sees even the signals its tracee ignores. */
	if (t->pt.tracer && !init_protected(t))
		return false;
	if (is_ignore(ka))
		return true;
	if (!is_default(ka))
		return false;
	if (sig_default_ignore(sig))
		return true;
	/* A container's init takes only the signals it handles (and SIGKILL/SIGSTOP
	 * from outside, which do not come this way), like a pid namespace's init. */
	return (init_protected(t) || ns_init_protected(t, sig)) && !forced;
}

/* Can t take sig now (it is not blocked and t is not on its way out)? */
static bool wants_signal(struct task *t, int sig)
{
	if (t->exited || (__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_KILL))
		return false;
	if (sig == SIGKILL)
		return true;
	return !(t->sigmask & SIGBIT(sig));
}

/* Is sig fatal to t's process when it arrives (default action: terminate)? */
static bool sig_fatal(struct task *t, int sig)
{
	const struct k_sigaction *ka = &t->sighand->action[sig - 1];

	return is_default(ka) && !sig_default_ignore(sig) && !sig_default_stop(sig);
}

/* Pick the thread that takes sig and make it look (Linux's complete_signal). */
static void complete_signal(struct task *t, int sig, bool group, bool forced)
{
	struct thread_group *tg = t->tg;
	struct task *target = NULL, *p;

	if (wants_signal(t, sig))
		target = t;
	else if (group)
		list_for_each_entry(p, &tg->threads, tg_node)
			if (wants_signal(p, sig)) {
				target = p;
				break;
			}
	if (!target)
		return; /* every thread blocks it: it waits in the pending set */

	/* A fatal signal kills the whole group now, without waiting for a
	 * thread to dequeue it (unless the thread is traced). */
	if (sig_fatal(target, sig) && !(tg->flags & TG_EXITING) &&
	    (sig == SIGKILL || !target->pt.tracer) && /* a tracee reports it first */
	    (sig == SIGKILL || !((target->sigmask | target->real_blocked) & SIGBIT(sig))) &&
	    (!init_protected(target) || forced || sig == SIGKILL)) {
		tg_start_exit_locked(tg, sig);
		return;
	}
	task_set_work(target, WORK_SIGNAL);
}

/* The rules that run before a signal is queued: SIGCONT and stop signals
 * cancel each other, SIGCONT resumes a stopped group. */
static void prepare_signal(struct task *t, int sig)
{
	struct thread_group *tg = t->tg;
	struct task *p;

	if (sig_default_stop(sig) && sig < SIGRTMIN_K) {
		sigpending_flush(&tg->shared, SIGBIT(SIGCONT));
		list_for_each_entry(p, &tg->threads, tg_node)
			sigpending_flush(&p->pending, SIGBIT(SIGCONT));
	} else if (sig == SIGCONT) {
		sigpending_flush(&tg->shared, STOP_SIGS);
		list_for_each_entry(p, &tg->threads, tg_node)
			sigpending_flush(&p->pending, STOP_SIGS);
		tg_continue_locked(tg);
	}
}

/* Queue info for t (or its process) and wake whoever should take it. */
static int send_signal_locked(struct task *t, const siginfo_t *info, bool group, bool forced)
{
	int sig = info->si_signo;
	struct sigpending *pending = group ? &t->tg->shared : &t->pending;
	struct sig_ucount *uc;
	struct sigqueue *q;
	bool override;

	if (sig == SIGKILL)
		ptrace_sigkill_locked(t->tg);
	if (t->exited || (t->tg->flags & (TG_EXITING | TG_ZOMBIE)))
		return 0;
	prepare_signal(t, sig);
	if (sig_ignored(t, sig, forced))
		return 0;
	/* Standard signals do not queue: a second one while one is pending is lost. */
	if (sig < SIGRTMIN_K && (pending->set & SIGBIT(sig)))
		return 0;
	/* Past RLIMIT_SIGPENDING, a standard signal from the kernel or kill()
	 * still gets its entry; a real-time one sent with information
	 * (sigqueue, a timer, ...) fails with EAGAIN; anything else is still
	 * delivered, with its information lost (__send_signal_locked). */
	override = sig < SIGRTMIN_K && (info->si_code >= 0 || forced);
	uc = ucount_charge(t->k, t->creds.uid,
			   override ? UINT64_MAX : t->tg->rlim[RLIMIT_SIGPENDING].rlim_cur);
	if (uc) {
		q = xmalloc(sizeof(*q));
		q->info = *info;
		q->uc = uc;
		list_add_tail(&q->link, &pending->list);
	} else if (sig >= SIGRTMIN_K && info->si_code != SI_USER) {
		return -EAGAIN;
	}
	pending->set |= SIGBIT(sig);
	complete_signal(t, sig, group, forced);
	signalfd_notify();
	return 0;
}

int signal_send_locked(struct task *target, const siginfo_t *info, bool group)
{
	int sig = info->si_signo;

	if (sig < 0 || sig > GUEST_NSIG)
		return -EINVAL;
	if (sig == 0)
		return 0;
	return send_signal_locked(target, info, group, false);
}

int signal_send(struct task *target, const siginfo_t *info, bool group)
{
	struct kernel *k = target->k;
	int ret;

	pthread_mutex_lock(&k->lock);
	ret = signal_send_locked(target, info, group);
	pthread_mutex_unlock(&k->lock);
	return ret;
}

bool signal_prepare_locked(struct task *t, int sig)
{
	if (t->exited || (t->tg->flags & (TG_EXITING | TG_ZOMBIE)))
		return false;
	prepare_signal(t, sig);
	return !sig_ignored(t, sig, false);
}

void signal_enqueue_locked(struct task *t, const siginfo_t *info, bool group)
{
	struct sigpending *pending = group ? &t->tg->shared : &t->pending;
	struct sigqueue *q = xmalloc(sizeof(*q));

	/* A POSIX timer's signal: the timer was charged when it was made. */
	q->info = *info;
	q->uc = NULL;
	list_add_tail(&q->link, &pending->list);
	pending->set |= SIGBIT(info->si_signo);
	complete_signal(t, info->si_signo, group, false);
	signalfd_notify();
}

int signal_send_tg_locked(struct thread_group *tg, const siginfo_t *info)
{
	struct task *t;

	if (tg->flags & (TG_ZOMBIE | TG_REAPED))
		return 0;
	t = tg->leader && !tg->leader->exited
		    ? tg->leader
		    : list_first_entry_or_null(&tg->threads, struct task, tg_node);
	return t ? signal_send_locked(t, info, true) : 0;
}

int signal_send_pgrp(struct kernel *k, int pgid, const siginfo_t *info)
{
	struct thread_group *tg;
	int ret = -ESRCH;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(tg, &k->groups, knode)
		if (tg->pgid == pgid && !(tg->flags & (TG_ZOMBIE | TG_REAPED))) {
			int r = signal_send_tg_locked(tg, info);
			if (ret == -ESRCH || r < 0)
				ret = r;
		}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

void signal_force_locked(struct task *t, const siginfo_t *info)
{
	int sig = info->si_signo;
	struct k_sigaction *ka = &t->sighand->action[sig - 1];

	/* A fault's signal is never blocked or ignored: if it is, the default
	 * action (death) follows, as Linux's force_sig_info does. */
	if (is_ignore(ka) || (t->sigmask & SIGBIT(sig))) {
		ka->handler = (uint64_t)(uintptr_t)SIG_DFL;
		t->sigmask &= ~SIGBIT(sig);
	}
	send_signal_locked(t, info, false, true);
	recalc_sigpending_locked(t);
}

void signal_force(struct task *t, const siginfo_t *info)
{
	pthread_mutex_lock(&t->k->lock);
	signal_force_locked(t, info);
	pthread_mutex_unlock(&t->k->lock);
}

/* --- masks --------------------------------------------------------------------- */

/*
 * After t blocked signals that are pending for its whole process, another
 * thread that does not block them should take them (Linux's
 * retarget_shared_pending).
 */
static void retarget_shared(struct task *t, uint64_t newly_blocked)
{
	uint64_t which = t->tg->shared.set & newly_blocked;
	struct task *p;

	if (!which)
		return;
	list_for_each_entry(p, &t->tg->threads, tg_node) {
		if (p == t || p->exited)
			continue;
		if (which & ~p->sigmask) {
			task_set_work(p, WORK_SIGNAL);
			which &= p->sigmask;
			if (!which)
				break;
		}
	}
}

void task_set_sigmask_locked(struct task *t, uint64_t mask)
{
	uint64_t old = t->sigmask;

	t->sigmask = mask & ~SIG_UNBLOCKABLE;
	retarget_shared(t, t->sigmask & ~old);
	recalc_sigpending_locked(t);
}

void task_set_sigmask(struct task *t, uint64_t mask)
{
	pthread_mutex_lock(&t->k->lock);
	task_set_sigmask_locked(t, mask);
	pthread_mutex_unlock(&t->k->lock);
}

void task_set_temp_sigmask(struct task *t, uint64_t mask)
{
	pthread_mutex_lock(&t->k->lock);
	if (!(t->work & WORK_RESTORE_MASK)) {
		t->saved_sigmask = t->sigmask;
		__atomic_or_fetch(&t->work, WORK_RESTORE_MASK, __ATOMIC_SEQ_CST);
	}
	task_set_sigmask_locked(t, mask);
	pthread_mutex_unlock(&t->k->lock);
}

void task_restore_sigmask(struct task *t)
{
	pthread_mutex_lock(&t->k->lock);
	if (t->work & WORK_RESTORE_MASK) {
		__atomic_and_fetch(&t->work, ~WORK_RESTORE_MASK, __ATOMIC_SEQ_CST);
		task_set_sigmask_locked(t, t->saved_sigmask);
	}
	pthread_mutex_unlock(&t->k->lock);
}

/* --- dequeue -------------------------------------------------------------------- */

/* Take the first signal of set from p into info. */
static void take(struct sigpending *p, int sig, siginfo_t *info)
{
	struct sigqueue *q;
	bool more = false;

	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = SI_USER;
	list_for_each_entry(q, &p->list, link) {
		if (q->info.si_signo != sig)
			continue;
		*info = q->info;
		list_del(&q->link);
		sigqueue_free(q);
		break;
	}
	list_for_each_entry(q, &p->list, link)
		if (q->info.si_signo == sig) {
			more = true;
			break;
		}
	if (!more)
		p->set &= ~SIGBIT(sig);
}

/* The signal to take next from set: synchronous ones (faults) first, then
 * the lowest number. */
static int next_signal(uint64_t set)
{
	uint64_t sync = set & SYNC_SIGS;

	if (sync)
		set = sync;
	return set ? __builtin_ctzll(set) + 1 : 0;
}

int dequeue_signal_locked(struct task *t, uint64_t mask, siginfo_t *info)
{
	uint64_t own = t->pending.set & ~mask, shared = t->tg->shared.set & ~mask;
	int sig = next_signal(own);

	if (sig) {
		take(&t->pending, sig, info);
	} else {
		sig = next_signal(shared);
		if (sig)
			take(&t->tg->shared, sig, info);
	}
	/* A timer's signal taken: the timer goes on (itimer and POSIX timer re-arming). */
	if (sig)
		timers_dequeued_locked(t, info);
	recalc_sigpending_locked(t);
	return sig;
}

/* --- delivery ------------------------------------------------------------------- */

/*
 * What an interrupted system call becomes when a handler runs (handler) or
 * when none does: EINTR, or the same call again.
 */
static void syscall_restart(struct task *t, const struct k_sigaction *ka)
{
	struct user_regs_struct *r = &t->cpu.regs;
	long ret = (long)r->rax;

	if (t->syscall_nr < 0 || !is_restart_code(ret))
		return;
	if (ka) {
		if (ret == -ERESTARTNOHAND || ret == -ERESTART_RESTARTBLOCK ||
		    (ret == -ERESTARTSYS && !(ka->flags & SA_RESTART))) {
			r->rax = (uint64_t)-EINTR;
			task_regs_dirty(t, CPU_DIRTY_RAX);
			t->syscall_nr = -1;
			return;
		}
	}
	/* Run the system call again: back over the two-byte syscall instruction. */
	r->rax = ret == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : (uint64_t)t->syscall_nr;
	r->rip -= 2;
	task_regs_dirty(t, CPU_DIRTY_RAX | CPU_DIRTY_RIP);
	t->syscall_nr = -1;
}

/* Deliver sig to its handler: the frame, then the handler's mask. Returns
 * false when the frame could not be written (the task then gets SIGSEGV). */
static bool handle_signal(struct task *t, int sig, const siginfo_t *info, struct k_sigaction ka)
{
	struct kernel *k = t->k;
	uint64_t oldmask;
	int ret;

	syscall_restart(t, &ka);
	oldmask = (t->work & WORK_RESTORE_MASK) ? t->saved_sigmask : t->sigmask;
	pthread_mutex_unlock(&k->lock);
	ret = sigframe_setup(t, sig, info, &ka, oldmask);
	pthread_mutex_lock(&k->lock);
	if (ret < 0)
		return false;
	__atomic_and_fetch(&t->work, ~WORK_RESTORE_MASK, __ATOMIC_SEQ_CST);
	if (ka.flags & SA_RESETHAND)
		t->sighand->action[sig - 1].handler = (uint64_t)(uintptr_t)SIG_DFL;
	task_set_sigmask_locked(t,
				t->sigmask | ka.mask | ((ka.flags & SA_NODEFER) ? 0 : SIGBIT(sig)));
	return true;
}

/* A stop signal's default action: stop the whole group (unless its process
 * group is orphaned and the signal is one a terminal sends). */
static void default_stop(struct task *t, int sig)
{
	if (sig != SIGSTOP && pgrp_orphaned_locked(t->k, t->tg->pgid))
		return;
	tg_start_stop_locked(t->tg, sig);
}

void signal_do_work(struct task *t)
{
	struct kernel *k = t->k;
	bool handled = false;

	pthread_mutex_lock(&k->lock);
	for (;;) {
		struct k_sigaction ka;
		siginfo_t info;
		int sig;

		if ((t->work & WORK_KILL) || (t->tg->flags & TG_EXITING))
			break;
		if (t->work & WORK_STOP) {
			task_stop_locked(t); /* parks until continued or killed */
			continue;
		}
		if (t->pt.trap_pending && ptrace_trap_locked(t))
			continue;
		sig = dequeue_signal_locked(t, t->sigmask, &info);
		if (!sig)
			break;
		/* A tracee reports the signal; its tracer may change or cancel it. */
		sig = ptrace_signal_locked(t, sig, &info);
		if (!sig)
			continue;
		ka = t->sighand->action[sig - 1];
		if (is_ignore(&ka))
			continue;
		if (is_default(&ka)) {
			if (sig_default_ignore(sig))
				continue;
			/* The sandbox's init ignores what it does not handle (see
			 * sig_ignored), faults excepted. */
			if (init_protected(t) && sig != SIGKILL && info.si_code <= 0)
				continue;
			if (sig_default_stop(sig)) {
				default_stop(t, sig);
				continue;
			}
			tg_start_exit_locked(t->tg, sig);
			break;
		}
		if (!handle_signal(t, sig, &info, ka)) {
			/* No room for the frame: SIGSEGV, which kills if it was
			 * SIGSEGV's own frame that failed (Linux's force_sigsegv). */
			siginfo_t segv;
			if (sig == SIGSEGV)
				t->sighand->action[SIGSEGV - 1].handler =
					(uint64_t)(uintptr_t)SIG_DFL;
			siginfo_kernel(&segv, SIGSEGV);
			signal_force_locked(t, &segv);
			continue;
		}
		handled = true;
	}
	if (!handled) {
		/* No handler ran: an interrupted call starts again, and a temporary
		 * mask (sigsuspend, ppoll) goes away. */
		syscall_restart(t, NULL);
		if (t->work & WORK_RESTORE_MASK) {
			__atomic_and_fetch(&t->work, ~WORK_RESTORE_MASK, __ATOMIC_SEQ_CST);
			task_set_sigmask_locked(t, t->saved_sigmask);
		}
	}
	pthread_mutex_unlock(&k->lock);
}
