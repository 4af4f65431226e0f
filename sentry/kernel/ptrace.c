/*
 * ptrace between guest tasks: links, stops and the tracer's wait (see
 * ptrace.h). The system call itself is syscalls/sys_ptrace.c.
 */
#include "config.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef X86_EFLAGS_TF
#define X86_EFLAGS_TF 0x100ull
#endif

void ptrace_task_init(struct task *t)
{
	list_init(&t->pt.node);
	list_init(&t->pt.tracees);
	list_init(&t->pt.zombies);
}

static bool traced(struct task *t)
{
	return __atomic_load_n(&t->pt.tracer, __ATOMIC_ACQUIRE) != NULL;
}

bool ptrace_event_enabled(struct task *t, int event)
{
	return t->pt.tracer && (t->pt.flags & (1u << event));
}

int ptrace_tracer_pid(struct task *t)
{
	struct task *tr;
	int pid = 0;

	pthread_mutex_lock(&t->k->lock);
	tr = t->pt.tracer;
	if (tr)
		pid = tr->tid;
	pthread_mutex_unlock(&t->k->lock);
	return pid;
}

/* siginfo of a ptrace_notify: SIGTRAP with the stop's code (Linux's ptrace_do_notify). */
static void notify_info(struct task *t, siginfo_t *si, int sig, int code)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = code;
	si->si_pid = t->tgid;
	si->si_uid = t->creds.uid;
}

/* The tracer hears of a stop: its wait wakes, SIGCHLD CLD_TRAPPED. */
static void notify_tracer(struct task *tracer, struct task *t, int why, int status)
{
	struct task *p;
	siginfo_t info;

	if (!tracer || (tracer->tg->flags & (TG_EXITING | TG_ZOMBIE)))
		return;
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGCHLD;
	info.si_code = why;
	info.si_pid = t->tid;
	info.si_uid = t->creds.uid;
	info.si_status = status;
	p = list_first_entry_or_null(&tracer->tg->threads, struct task, tg_node);
	if (p && (why != CLD_TRAPPED || !(p->sighand->action[SIGCHLD - 1].flags & SA_NOCLDSTOP)))
		signal_send_tg_locked(tracer->tg, &info);
	waitq_wake_all(&tracer->tg->child_wait);
}

/* Run a job the tracer posted (k->lock held, dropped while it runs). */
static void run_call(struct task *t)
{
	struct ptrace_call *c = t->pt.call;
	struct kernel *k = t->k;

	if (!c)
		return;
	t->pt.call = NULL;
	pthread_mutex_unlock(&k->lock);
	c->ret = c->fn(t, c->arg);
	pthread_mutex_lock(&k->lock);
	c->done = true;
	task_wake(c->caller);
}

/*
 * The stop itself (Linux's ptrace_stop), k->lock held: the registers are
 * read first (without the lock), then t parks until the tracer resumes it,
 * detaches, or t is killed. exiting: the exit-event stop, which only SIGKILL
 * (not the group's exit already under way) ends.
 */
static bool ptrace_stop_locked(struct task *t, enum ptrace_stop_kind kind, int code,
			       const siginfo_t *info, bool exiting)
{
	struct kernel *k = t->k;

	/*
	 * Cleared here, in the critical section that chose the stop: a SIGCONT
	 * while the lock is dropped below sets it again, so a LISTEN on a
	 * group stop that SIGCONT already ended traps again at once.
	 */
	t->pt.trap_notify = false;
	pthread_mutex_unlock(&k->lock);
	task_regs(t);
	task_fpu(t);
	pthread_mutex_lock(&k->lock);
	if (!t->pt.tracer || t->pt.killed || (!exiting && (t->work & WORK_KILL)))
		return false;
	if (t->pt.forced_tf) {
		t->cpu.regs.eflags &= ~X86_EFLAGS_TF;
		task_regs_dirty(t, CPU_DIRTY_ALL);
		t->pt.forced_tf = false;
	}
	t->pt.kind = kind;
	t->pt.code = code;
	if (info)
		t->pt.info = *info;
	else
		memset(&t->pt.info, 0, sizeof(t->pt.info));
	t->pt.has_info = info != NULL;
	t->pt.resume_sig = 0;
	t->pt.stopped = true;
	t->pt.waitable = true;
	t->pt.listening = false;
	notify_tracer(t->pt.tracer, t, CLD_TRAPPED, code & 0xff);
	task_sleep_enter(t);
	while (t->pt.stopped) {
		uint32_t seq;
		run_call(t);
		if (!t->pt.tracer || t->pt.killed || (!exiting && (t->work & WORK_KILL)))
			break;
		seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&k->lock);
		task_wait_wake(t, seq);
		pthread_mutex_lock(&k->lock);
	}
	task_sleep_leave(t);
	t->pt.stopped = false;
	t->pt.waitable = false;
	t->pt.listening = false;
	run_call(t);
	t->pt.kind = PTS_NONE;
	return true;
}

void ptrace_resume_locked(struct task *t, enum ptrace_mode mode, int sig)
{
	t->pt.mode = mode;
	t->pt.resume_sig = sig;
	if (mode == PTM_SINGLESTEP || mode == PTM_SYSEMU_SINGLESTEP) {
		if (!(t->cpu.regs.eflags & X86_EFLAGS_TF)) {
			t->cpu.regs.eflags |= X86_EFLAGS_TF;
			task_regs_dirty(t, CPU_DIRTY_ALL);
			t->pt.forced_tf = true;
		}
	}
	t->pt.stopped = false;
	t->pt.waitable = false;
	t->pt.listening = false;
	task_wake(t);
}

void ptrace_link_locked(struct task *tracer, struct task *t, unsigned flags)
{
	t->pt.flags = flags | PT_PTRACED;
	t->pt.mode = PTM_CONT;
	t->pt.killed = false;
	list_add_tail(&t->pt.node, &tracer->pt.tracees);
	__atomic_store_n(&t->pt.tracer, tracer, __ATOMIC_RELEASE);
}

void ptrace_unlink_locked(struct task *t, int sig)
{
	if (!t->pt.tracer)
		return;
	list_del_init(&t->pt.node);
	__atomic_store_n(&t->pt.tracer, NULL, __ATOMIC_RELEASE);
	t->pt.flags = 0;
	t->pt.trap_pending = false;
	if (t->pt.forced_tf) {
		t->cpu.regs.eflags &= ~X86_EFLAGS_TF;
		task_regs_dirty(t, CPU_DIRTY_ALL);
		t->pt.forced_tf = false;
	}
	if (t->pt.stopped)
		ptrace_resume_locked(t, PTM_CONT, sig);
	t->pt.mode = PTM_CONT;
	/* A group still stopped takes the task back into its stop. */
	if (t->tg->flags & TG_STOPPED)
		task_set_work(t, WORK_STOP);
}

long ptrace_tracee_call(struct task *tracer, struct task *t,
			long (*fn)(struct task *tracee, void *arg), void *arg)
{
	struct kernel *k = t->k;
	struct ptrace_call c = {.fn = fn, .arg = arg, .caller = tracer};

	pthread_mutex_lock(&k->lock);
	if (!t->pt.stopped || t->pt.call) {
		pthread_mutex_unlock(&k->lock);
		return -ESRCH;
	}
	t->pt.call = &c;
	task_wake(t);
	while (!c.done) {
		uint32_t seq = __atomic_load_n(&tracer->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&k->lock);
		task_wait_wake(tracer, seq);
		pthread_mutex_lock(&k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	return c.ret;
}

/* --- the stops ------------------------------------------------------------------ */

void ptrace_event(struct task *t, int event, uint64_t msg)
{
	struct kernel *k = t->k;
	siginfo_t info;

	if (!traced(t))
		return;
	pthread_mutex_lock(&k->lock);
	if (ptrace_event_enabled(t, event)) {
		int code = SIGTRAP | (event << 8);
		t->pt.msg = msg;
		notify_info(t, &info, SIGTRAP, code);
		ptrace_stop_locked(t, PTS_EVENT, code, &info, event == PTRACE_EVENT_EXIT);
	} else if (event == PTRACE_EVENT_EXEC && t->pt.tracer && !(t->pt.flags & PT_SEIZED)) {
		siginfo_user(&info, SIGTRAP, t);
		signal_send_locked(t, &info, false);
	}
	pthread_mutex_unlock(&k->lock);
}

void ptrace_exec(struct task *t)
{
	ptrace_event(t, PTRACE_EVENT_EXEC, (uint64_t)t->tid);
}

static int syscall_code(struct task *t)
{
	return SIGTRAP | ((t->pt.flags & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0);
}

bool ptrace_syscall_entry(struct task *t)
{
	struct kernel *k = t->k;
	enum ptrace_mode mode;
	siginfo_t info;
	bool skip;

	if (!traced(t))
		return false;
	pthread_mutex_lock(&k->lock);
	mode = t->pt.mode;
	if (!t->pt.tracer ||
	    (mode != PTM_SYSCALL && mode != PTM_SYSEMU && mode != PTM_SYSEMU_SINGLESTEP)) {
		pthread_mutex_unlock(&k->lock);
		return false;
	}
	notify_info(t, &info, SIGTRAP, syscall_code(t));
	ptrace_stop_locked(t, PTS_SYSCALL_ENTRY, syscall_code(t), &info, false);
	pthread_mutex_unlock(&k->lock);
	/* SYSEMU: the tracer emulates the call; orig_rax -1: it skips it. */
	skip = mode == PTM_SYSEMU || mode == PTM_SYSEMU_SINGLESTEP;
	return skip || t->cpu.regs.orig_rax == (uint64_t)-1;
}

void ptrace_syscall_exit(struct task *t)
{
	struct kernel *k = t->k;
	siginfo_t info;

	if (!traced(t))
		return;
	pthread_mutex_lock(&k->lock);
	if (!t->pt.tracer || (t->work & WORK_KILL)) {
		pthread_mutex_unlock(&k->lock);
		return;
	}
	if (t->pt.mode == PTM_SYSCALL) {
		notify_info(t, &info, SIGTRAP, syscall_code(t));
		ptrace_stop_locked(t, PTS_SYSCALL_EXIT, syscall_code(t), &info, false);
	} else if (t->pt.mode == PTM_SINGLESTEP || t->pt.mode == PTM_SYSEMU_SINGLESTEP) {
		/* A step over a system call traps after it (user_single_step_report). */
		memset(&info, 0, sizeof(info));
		info.si_signo = SIGTRAP;
		info.si_code = TRAP_BRKPT;
		signal_force_locked(t, &info);
	}
	pthread_mutex_unlock(&k->lock);
}

int ptrace_clone_locked(struct task *parent, struct task *child, uint64_t flags, int exit_sig)
{
	struct task *tracer = parent->pt.tracer;
	int event;

	if (!tracer || (flags & CLONE_UNTRACED))
		return 0;
	if (flags & CLONE_VFORK)
		event = PTRACE_EVENT_VFORK;
	else if (exit_sig != SIGCHLD)
		event = PTRACE_EVENT_CLONE;
	else
		event = PTRACE_EVENT_FORK;
	if (!ptrace_event_enabled(parent, event))
		event = 0;
	if (!event && !(flags & CLONE_PTRACE))
		return 0;
	ptrace_link_locked(tracer, child, parent->pt.flags & ~PT_PTRACED);
	if (child->pt.flags & PT_SEIZED) {
		child->pt.trap_pending = true;
		__atomic_or_fetch(&child->work, WORK_SIGNAL, __ATOMIC_SEQ_CST);
	} else {
		siginfo_t info;
		siginfo_kernel(&info, SIGSTOP);
		signal_send_locked(child, &info, false);
	}
	return event;
}

int ptrace_signal_locked(struct task *t, int sig, siginfo_t *info)
{
	int nsig;

	if (!t->pt.tracer || sig == SIGKILL)
		return sig;
	if (!ptrace_stop_locked(t, PTS_SIGNAL, sig, info, false))
		return (t->work & WORK_KILL) || t->pt.killed ? 0 : sig;
	nsig = t->pt.resume_sig;
	t->pt.resume_sig = 0;
	if (!nsig || (t->work & WORK_KILL))
		return 0;
	*info = t->pt.info;
	if (info->si_signo != nsig) {
		struct task *tr = t->pt.tracer;
		memset(info, 0, sizeof(*info));
		info->si_signo = nsig;
		info->si_code = SI_USER;
		info->si_pid = tr ? tr->tgid : 0;
		info->si_uid = tr ? tr->creds.uid : 0;
	}
	/* Blocked now: it waits as any pending signal does. */
	if (t->sigmask & SIGBIT(nsig)) {
		signal_send_locked(t, info, false);
		return 0;
	}
	return nsig;
}

bool ptrace_trap_locked(struct task *t)
{
	struct thread_group *tg = t->tg;
	siginfo_t info;
	int sig, code;

	t->pt.trap_pending = false;
	if (!t->pt.tracer || !(t->pt.flags & PT_SEIZED))
		return false;
	sig = (tg->flags & TG_STOPPED) || tg->stop_pending ? tg->stop_sig : SIGTRAP;
	code = sig | (PTRACE_EVENT_STOP << 8);
	notify_info(t, &info, sig, code);
	ptrace_stop_locked(t, sig == SIGTRAP ? PTS_EVENT : PTS_GROUP, code, &info, false);
	return true;
}

bool ptrace_group_stop_locked(struct task *t, int stop_sig)
{
	siginfo_t info;

	if (!t->pt.tracer)
		return false;
	t->pt.trap_pending = false;
	if (t->pt.flags & PT_SEIZED) {
		int code = stop_sig | (PTRACE_EVENT_STOP << 8);
		notify_info(t, &info, stop_sig, code);
		ptrace_stop_locked(t, PTS_GROUP, code, &info, false);
	} else {
		/* No siginfo: GETSIGINFO's EINVAL tells the tracer it is a group stop. */
		ptrace_stop_locked(t, PTS_GROUP, stop_sig, NULL, false);
	}
	return true;
}

void ptrace_sigkill_locked(struct thread_group *tg)
{
	struct task *p;

	list_for_each_entry(p, &tg->threads, tg_node)
		if (p->pt.tracer) {
			p->pt.killed = true;
			task_wake(p);
		}
}

void ptrace_continue_locked(struct thread_group *tg)
{
	struct task *p;

	list_for_each_entry(p, &tg->threads, tg_node) {
		if (!p->pt.tracer || !(p->pt.flags & PT_SEIZED))
			continue;
		if (p->pt.stopped && p->pt.listening)
			ptrace_retrap_locked(p);
		else
			p->pt.trap_notify = true; /* stopped, or on its way into a stop */
	}
}

void ptrace_retrap_locked(struct task *p)
{
	p->pt.trap_notify = false;
	p->pt.trap_pending = true;
	__atomic_or_fetch(&p->work, WORK_SIGNAL, __ATOMIC_SEQ_CST);
	ptrace_resume_locked(p, p->pt.mode, 0);
}

/* --- exits ---------------------------------------------------------------------- */

bool ptrace_task_exit_locked(struct task *t, int status, bool last)
{
	struct task *tracer = t->pt.tracer;
	struct ptrace_zombie *z;
	bool child;

	if (!list_empty(&t->pt.tracees) || !list_empty(&t->pt.zombies))
		ptrace_tracer_exit_locked(t);
	if (!tracer)
		return false;
	list_del_init(&t->pt.node);
	__atomic_store_n(&t->pt.tracer, NULL, __ATOMIC_RELEASE);
	t->pt.flags = 0;
	child = t->tg->parent == tracer->tg;
	/* The tracer's own child process: its ordinary wait reports the exit,
	 * __WCLONE or not (eligible_child: a tracee is always eligible). */
	if (last && child) {
		t->tg->flags |= TG_PARENT_TRACED;
		return false;
	}
	if (tracer->tg->flags & (TG_EXITING | TG_ZOMBIE))
		return false;
	z = xzalloc(sizeof(*z));
	z->tid = t->tid;
	z->pgid = t->tg->pgid;
	z->status = status;
	z->uid = t->creds.uid;
	if (last && t->tg->parent)
		z->deferred = tg_get(t->tg);
	list_add_tail(&z->node, &tracer->pt.zombies);
	notify_tracer(tracer, t, (status & 0x7f) ? CLD_KILLED : CLD_EXITED,
		      (status & 0x7f) ? status & 0x7f : (status >> 8) & 0xff);
	return z->deferred != NULL;
}

static void zombie_free_locked(struct ptrace_zombie *z)
{
	list_del(&z->node);
	if (z->deferred) {
		tg_parent_notify_locked(z->deferred);
		tg_put(z->deferred);
	}
	free(z);
}

void ptrace_tracer_exit_locked(struct task *t)
{
	struct ptrace_zombie *z, *zn;
	struct task *p, *n;

	list_for_each_entry_safe(p, n, &t->pt.tracees, pt.node) {
		if (p->pt.flags & PTRACE_O_EXITKILL) {
			siginfo_t info;
			siginfo_kernel(&info, SIGKILL);
			signal_send_locked(p, &info, true);
		}
		ptrace_unlink_locked(p, 0);
	}
	list_for_each_entry_safe(z, zn, &t->pt.zombies, node)
		zombie_free_locked(z);
}

/* --- the tracer's wait -------------------------------------------------------------- */

static bool matches(int which, int id, int tid, int pgid)
{
	switch (which) {
	case WAIT_PID:
		return tid == id;
	case WAIT_PGID:
		return pgid == id;
	default:
		return true;
	}
}

bool ptrace_traced_by_tg(struct thread_group *c, struct thread_group *tg)
{
	struct task *l = c->leader;

	return l && !l->exited && l->pt.tracer && l->pt.tracer->tg == tg;
}

bool ptrace_wait_locked(struct task *t, int which, int id, int options, struct wait_result *res,
			bool *any)
{
	bool keep = options & WNOWAIT;
	struct task *th, *p;
	struct ptrace_zombie *z, *zn;

	list_for_each_entry(th, &t->tg->threads, tg_node) {
		list_for_each_entry_safe(z, zn, &th->pt.zombies, node) {
			if (!matches(which, id, z->tid, z->pgid))
				continue;
			*any = true;
			if (!(options & WEXITED))
				continue;
			res->pid = z->tid;
			res->status = z->status;
			res->uid = z->uid;
			if (z->status & 0x7f) {
				res->code = (z->status & 0x80) ? CLD_DUMPED : CLD_KILLED;
				res->cld_status = z->status & 0x7f;
			} else {
				res->code = CLD_EXITED;
				res->cld_status = (z->status >> 8) & 0xff;
			}
			if (!keep)
				zombie_free_locked(z);
			return true;
		}
		list_for_each_entry(p, &th->pt.tracees, pt.node) {
			if (!matches(which, id, p->tid, p->tg->pgid))
				continue;
			*any = true;
			if (!p->pt.stopped || !p->pt.waitable)
				continue;
			res->pid = p->tid;
			res->status = (p->pt.code << 8) | 0x7f;
			res->code = CLD_TRAPPED;
			res->cld_status = p->pt.code;
			res->uid = p->creds.uid;
			if (!keep)
				p->pt.waitable = false;
			return true;
		}
	}
	return false;
}
