/*
 * Processes: clone, exit, wait, reparenting, process groups and sessions,
 * group exit and job-control stops (Linux's kernel/fork.c, exit.c and the
 * job-control parts of signal.c).
 */
#include "config.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/pidns.h"
#include "sentry/fs/pidfd.h"
#include "sentry/ipc/ipc.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/ioprio.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/rusage.h"
#include "sentry/kernel/timers.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/tty.h"
#include "platform/platform.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/ptrace.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ull
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ull
#endif

/* A vfork parent waits for its child's exec or exit; both hold a reference. */
struct vfork_done {
	int refs;
	struct waitq wq;
	bool done;
};

static void vfork_put(struct vfork_done *vd)
{
	if (__atomic_sub_fetch(&vd->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(vd);
}

void task_vfork_release(struct task *t)
{
	struct vfork_done *vd = t->vfork_done;

	if (!vd)
		return;
	t->vfork_done = NULL;
	pthread_mutex_lock(&vd->wq.lock);
	vd->done = true;
	pthread_mutex_unlock(&vd->wq.lock);
	waitq_wake_all(&vd->wq);
	vfork_put(vd);
}

/* The vfork parent's sleep: until the child execs or exits, or a kill. */
static void vfork_wait(struct task *t, struct vfork_done *vd)
{
	struct waiter w = {0};

	for (;;) {
		uint32_t snap = waiter_prepare(&vd->wq, &w, t);
		bool done;
		pthread_mutex_lock(&vd->wq.lock);
		done = vd->done;
		pthread_mutex_unlock(&vd->wq.lock);
		if (done || (__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_KILL))
			break;
		task_wait_wake(t, snap);
	}
	waiter_finish(&vd->wq, &w);
	vfork_put(vd);
}

/* --- lookups ------------------------------------------------------------------- */

struct thread_group *kernel_find_tg_locked(struct kernel *k, int tgid, bool zombies)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode) {
		if (tg->tgid != tgid || (tg->flags & TG_REAPED))
			continue;
		if ((tg->flags & TG_ZOMBIE) && !zombies)
			continue;
		return tg;
	}
	return NULL;
}

/* Is id used as a tid, tgid, process group or session (so it may not be reused)? */
static bool id_in_use(struct kernel *k, int id)
{
	struct thread_group *tg;
	struct task *t;

	list_for_each_entry(t, &k->tasks, knode)
		if (t->tid == id)
			return true;
	list_for_each_entry(tg, &k->groups, knode)
		if (!(tg->flags & TG_REAPED) && (tg->tgid == id || tg->pgid == id || tg->sid == id))
			return true;
	return false;
}

/* The next free id, as Linux hands out pids: increasing, wrapping at pid_max. */
int kernel_alloc_id_locked(struct kernel *k)
{
	for (int tries = 0; tries < KERNEL_PID_MAX; tries++) {
		int id = k->next_tid++;
		if (k->next_tid >= KERNEL_PID_MAX)
			k->next_tid = 2; /* like Linux: after a wrap, low pids are for the kernel */
		if (!id_in_use(k, id))
			return id;
	}
	return -EAGAIN;
}

/* --- group exit and stops --------------------------------------------------------- */

void tg_start_exit_locked(struct thread_group *tg, int code)
{
	struct task *t;

	if (tg->flags & TG_EXITING)
		return;
	tg->flags |= TG_EXITING;
	tg->exit_code = code;
	tg->stop_pending = 0;
	list_for_each_entry(t, &tg->threads, tg_node)
		task_set_work(t, WORK_KILL);
}

/* Tell the parent that the group stopped or continued (CLD_STOPPED/CONTINUED). */
static void notify_parent_cldstop(struct thread_group *tg, int why)
{
	struct thread_group *parent = tg->parent;
	siginfo_t info;

	if (!parent) {
		/* The init's parent is outside: rung, a job on the host. */
		if (tg == tg->k->init_tg && tg->k->cfg.init_job_stop)
			tg->k->cfg.init_job_stop(tg->k, why, tg->stop_sig);
		return;
	}
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGCHLD;
	info.si_code = why;
	info.si_pid = tg->tgid;
	info.si_uid = tg->leader ? tg->leader->creds.uid : 0;
	info.si_status = why == CLD_CONTINUED ? SIGCONT : tg->stop_sig;
	if (parent->leader || !list_empty(&parent->threads)) {
		struct task *p = list_first_entry_or_null(&parent->threads, struct task, tg_node);
		if (p && !(p->sighand->action[SIGCHLD - 1].flags & SA_NOCLDSTOP))
			signal_send_tg_locked(parent, &info);
	}
	waitq_wake_all(&parent->child_wait);
}

void tg_start_stop_locked(struct thread_group *tg, int sig)
{
	struct task *t;

	if ((tg->flags & (TG_EXITING | TG_STOPPED)) || tg->stop_pending)
		return;
	tg->stop_sig = sig;
	list_for_each_entry(t, &tg->threads, tg_node) {
		if (t->exited)
			continue;
		tg->stop_pending++;
		t->stop_counted = false;
		task_set_work(t, WORK_STOP);
	}
}

void tg_continue_locked(struct thread_group *tg)
{
	struct task *t;
	bool was_stopped = tg->flags & TG_STOPPED;

	if (!was_stopped && !tg->stop_pending)
		return;
	tg->flags &= ~(TG_STOPPED | TG_REPORT_STOP);
	tg->stop_pending = 0;
	list_for_each_entry(t, &tg->threads, tg_node) {
		__atomic_and_fetch(&t->work, ~WORK_STOP, __ATOMIC_SEQ_CST);
		t->stop_counted = false;
		task_wake(t);
	}
	ptrace_continue_locked(tg);
	if (was_stopped) {
		tg->flags |= TG_REPORT_CONT;
		notify_parent_cldstop(tg, CLD_CONTINUED);
	}
}

void task_stop_locked(struct task *t)
{
	struct thread_group *tg = t->tg;
	struct kernel *k = t->k;

	if (tg->stop_pending && !t->stop_counted) {
		t->stop_counted = true;
		if (--tg->stop_pending == 0) {
			tg->flags |= TG_STOPPED | TG_REPORT_STOP;
			tg->flags &= ~TG_REPORT_CONT;
			notify_parent_cldstop(tg, CLD_STOPPED);
		}
	}
	/* A tracee's group stop is a ptrace stop: the tracer lets it go on. */
	if (ptrace_group_stop_locked(t, tg->stop_sig)) {
		__atomic_and_fetch(&t->work, ~WORK_STOP, __ATOMIC_SEQ_CST);
		return;
	}
	while ((tg->flags & TG_STOPPED || tg->stop_pending) && !(t->work & WORK_KILL) &&
	       !(tg->flags & TG_EXITING) && !t->pt.tracer) {
		uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&k->lock);
		task_wait_wake(t, seq);
		pthread_mutex_lock(&k->lock);
	}
	__atomic_and_fetch(&t->work, ~WORK_STOP, __ATOMIC_SEQ_CST);
	t->stop_counted = false;
}

/* --- process groups and sessions ---------------------------------------------------- */

/* Has tg a parent outside the sandbox in another group of its session (the
 * init of rung do under a job-control shell)? */
static bool parent_outside(struct thread_group *tg)
{
	return !tg->parent && tg == tg->k->init_tg && tg->k->cfg.init_job_stop;
}

bool pgrp_orphaned_locked(struct kernel *k, int pgid)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode) {
		struct thread_group *p = tg->parent;
		if (tg->pgid != pgid || (tg->flags & (TG_ZOMBIE | TG_REAPED | TG_EXITING)))
			continue;
		if ((p && p->pgid != pgid && p->sid == tg->sid) || parent_outside(tg))
			return false;
	}
	return true;
}

/* Would pgid be orphaned if ignore (about to exit) were gone? */
static bool pgrp_orphaned_without(struct kernel *k, int pgid, struct thread_group *ignore)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode) {
		struct thread_group *p = tg->parent;
		if (tg == ignore || tg->pgid != pgid || (tg->flags & (TG_ZOMBIE | TG_REAPED)))
			continue;
		if ((p && p != ignore && p->pgid != pgid && p->sid == tg->sid) ||
		    parent_outside(tg))
			return false;
	}
	return true;
}

static bool pgrp_has_stopped(struct kernel *k, int pgid)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode)
		if (tg->pgid == pgid && (tg->flags & TG_STOPPED) && !(tg->flags & TG_REAPED))
			return true;
	return false;
}

/* POSIX: a process group that becomes orphaned with stopped members gets
 * SIGHUP then SIGCONT. */
static void kill_orphaned_pgrp(struct kernel *k, int pgid, struct thread_group *ignore)
{
	struct thread_group *tg;
	siginfo_t hup, cont;

	if (!pgrp_orphaned_without(k, pgid, ignore) || !pgrp_has_stopped(k, pgid))
		return;
	siginfo_kernel(&hup, SIGHUP);
	siginfo_kernel(&cont, SIGCONT);
	list_for_each_entry(tg, &k->groups, knode)
		if (tg->pgid == pgid && tg != ignore && !(tg->flags & (TG_ZOMBIE | TG_REAPED))) {
			signal_send_tg_locked(tg, &hup);
			signal_send_tg_locked(tg, &cont);
		}
}

/* The process group (or, with sid, the session) of process pid (0: t's own). */
static long group_id_of(struct task *t, int pid, bool sid)
{
	struct thread_group *tg;
	long ret;

	if (pid < 0)
		return -ESRCH;
	pthread_mutex_lock(&t->k->lock);
	tg = pid ? kernel_find_tg_locked(t->k, pid, true) : t->tg;
	ret = !tg ? -ESRCH : sid ? tg->sid : tg->pgid;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

long task_getpgid(struct task *t, int pid)
{
	return group_id_of(t, pid, false);
}

long task_getsid(struct task *t, int pid)
{
	return group_id_of(t, pid, true);
}

long task_setpgid(struct task *t, int pid, int pgid)
{
	struct kernel *k = t->k;
	struct thread_group *tg, *g;
	long ret = 0;

	if (pid < 0 || pgid < 0)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	tg = pid ? kernel_find_tg_locked(k, pid, false) : t->tg;
	if (!pgid)
		pgid = tg ? tg->tgid : 0;
	if (!tg) {
		ret = -ESRCH;
	} else if (tg != t->tg && tg->parent != t->tg) {
		ret = -ESRCH; /* neither the caller nor one of its children */
	} else if (tg != t->tg && tg->sid != t->tg->sid) {
		ret = -EPERM;
	} else if (tg != t->tg && tg->did_exec) {
		ret = -EACCES;
	} else if (tg->sid == tg->tgid) {
		ret = -EPERM; /* a session leader keeps its group */
	} else if (pgid != tg->tgid) {
		/* Joining an existing group: it must be in the same session. */
		ret = -EPERM;
		list_for_each_entry(g, &k->groups, knode)
			if (g->pgid == pgid && g->sid == tg->sid && !(g->flags & TG_REAPED)) {
				ret = 0;
				break;
			}
	}
	if (ret == 0)
		tg->pgid = pgid;
	pthread_mutex_unlock(&k->lock);
	return ret;
}

long task_setsid(struct task *t)
{
	struct kernel *k = t->k;
	struct thread_group *tg = t->tg, *g;
	long ret;

	pthread_mutex_lock(&k->lock);
	ret = tg->tgid;
	/* Not a process group leader, and no group may be named like the new session. */
	list_for_each_entry(g, &k->groups, knode)
		if (g->pgid == tg->tgid && !(g->flags & TG_REAPED)) {
			ret = -EPERM;
			break;
		}
	if (ret > 0) {
		tg->sid = tg->pgid = tg->tgid;
		tg->tty = NULL;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* --- clone ----------------------------------------------------------------------- */

/* Linux's checks on clone flags (copy_process). */
static long clone_flags_valid(struct task *t, uint64_t flags)
{
	if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return -EINVAL;
	if ((flags & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_PARENT) &&
	    (t->tg == t->k->init_tg || (t->tg->pidns && t->tg->pidns->init == t->tg)))
		return -EINVAL; /* siblings of the namespace's init would have no parent */
	/* A thread stays in its process's pid namespace (after unshare(CLONE_NEWPID)). */
	if ((flags & CLONE_THREAD) && task_ns(t)->pid != task_ns(t)->pid_children)
		return -EINVAL;
	if ((flags & CLONE_THREAD) && (flags & (CLONE_NEWUSER | CLONE_NEWPID)))
		return -EINVAL;
	if ((flags & CLONE_PIDFD) && (flags & CLONE_THREAD))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && (flags & CLONE_CLEAR_SIGHAND))
		return -EINVAL;
	if (flags & CLONE_NEWTIME)
		return -EINVAL; /* no time namespaces: as a kernel without CONFIG_TIME_NS */
	return 0;
}

/* The sighand of a fork child: a copy of t's. */
static struct sighand *sighand_copy(struct sighand *sh)
{
	struct sighand *n = xmalloc(sizeof(*n));

	*n = *sh;
	n->refs = 1;
	return n;
}

/* Count the live tasks of uid (RLIMIT_NPROC). */
static unsigned tasks_of_uid(struct kernel *k, uint32_t uid)
{
	struct task *t;
	unsigned n = 0;

	list_for_each_entry(t, &k->tasks, knode)
		if (t->creds.uid == uid)
			n++;
	return n;
}

void task_unshare_files(struct task *t)
{
	struct fdtable *old = t->files, *own;

	if (__atomic_load_n(&old->refs, __ATOMIC_SEQ_CST) == 1)
		return; /* only t holds it, and only t could share it again */
	own = fdtable_dup(old);
	pthread_mutex_lock(&t->k->lock); /* as at exit: other tasks look at t->files */
	t->files = own;
	pthread_mutex_unlock(&t->k->lock);
	fdtable_put(old);
}

/* CLONE_PIDFD: a pidfd installed in the caller's table, its number written
 * at uptr, before the child exists (pidfd_set_process names it then). The
 * descriptor, or -errno. */
static long clone_pidfd(struct task *t, uint64_t uptr, struct file **out)
{
	struct file *f = pidfd_file_new(NULL, 0);
	int fd = fd_install(t->files, f, 0, true, task_nofile(t));

	if (fd >= 0 && mm_copy_out(t->mm, uptr, &fd, sizeof(fd))) {
		fd_close(t->files, fd);
		fd = -EFAULT;
	}
	if (fd < 0) {
		file_put(f);
		return fd;
	}
	*out = f;
	return fd;
}

long task_clone(struct task *t, const struct clone_req *r)
{
	uint64_t flags = r->flags, newsp = r->stack, ptid = r->parent_tid, ctid = r->child_tid;
	uint64_t tls = r->tls;
	struct kernel *k = t->k;
	struct user_regs_struct *pr = task_regs(t);
	struct vfork_done *vd = NULL;
	struct file *pidf = NULL;
	struct task *c;
	uint8_t *fpu;
	int sig = (int)(flags & CSIGNAL), pidfd = -1, event, child_nr;
	long ret = clone_flags_valid(t, flags);

	if (ret < 0)
		return ret;
	if (sig > GUEST_NSIG)
		return -EINVAL;
	if ((flags & CLONE_SETTLS) && tls >= HOST_TASK_SIZE)
		return -EPERM;
	fpu = task_fpu(t);
	if (!fpu)
		return -ESRCH;
	if (flags & CLONE_PIDFD) {
		ret = clone_pidfd(t, r->pidfd, &pidf);
		if (ret < 0)
			return ret;
		pidfd = (int)ret;
	}

	c = task_alloc(k);
	memcpy(c->comm, t->comm, sizeof(c->comm));
	c->creds = t->creds;
	keys_clone(t, c);
	c->sigmask = t->sigmask;
	c->no_new_privs = t->no_new_privs;
	c->mempolicy = t->mempolicy;
	c->cpuid_fault = t->cpuid_fault;
	c->dumpable = t->dumpable;
	sched_fork(&c->sched, &t->sched);
	/* A thread sharing the stack-switching memory must not share the altstack. */
	if ((flags & (CLONE_VM | CLONE_VFORK)) != CLONE_VM)
		c->altstack = t->altstack;
	path_get(&t->exe);
	c->exe = t->exe;
	c->files = (flags & CLONE_FILES) ? fdtable_get(t->files) : fdtable_dup(t->files);
	if (flags & CLONE_FS) {
		c->fs = fs_struct_get(t->fs);
	} else {
		struct path root, cwd;
		fs_get_root(t->fs, &root);
		fs_get_cwd(t->fs, &cwd);
		c->fs = fs_struct_new(&root, &cwd);
		c->fs->umask = t->fs->umask;
		path_put(&root);
		path_put(&cwd);
	}
	if (flags & CLONE_SIGHAND) {
		__atomic_add_fetch(&t->sighand->refs, 1, __ATOMIC_RELAXED);
		c->sighand = t->sighand;
	} else {
		c->sighand = sighand_copy(t->sighand);
		/* clone3's CLONE_CLEAR_SIGHAND: handlers back to SIG_DFL, what
		 * is ignored stays ignored (Linux's flush_signal_handlers). */
		for (int i = 0; (flags & CLONE_CLEAR_SIGHAND) && i < GUEST_NSIG; i++)
			if (c->sighand->action[i].handler != (uint64_t)(uintptr_t)SIG_IGN)
				c->sighand->action[i] = (struct k_sigaction){0};
	}

	/* Namespaces (CLONE_NEW*, and a pid_for_children of the parent's own). */
	ret = nsproxy_for_clone(t, flags, &c->creds, &c->nsproxy);
	if (ret < 0)
		goto fail;
	if (flags & CLONE_NEWNS)
		nsproxy_clone_mnt(c, c->nsproxy);

	/* The address space. */
	if (flags & CLONE_VM) {
		c->mm = mm_get(t->mm);
		ret = t->mm->as->ops->add_ctx(t->mm->as, c->ctx);
		if (ret == 0)
			__atomic_add_fetch(&c->mm->users, 1, __ATOMIC_SEQ_CST);
	} else {
		ret = mm_fork(t->mm, &c->mm);
		if (ret == 0) {
			c->mm->users = 1;
			c->needs_as = true;
		}
	}
	if (ret < 0)
		goto fail;

	/* Registers: the parent's at the system call, returning 0. */
	c->cpu.regs = *pr;
	c->cpu.regs.rax = 0;
	if (newsp)
		c->cpu.regs.rsp = newsp;
	if (flags & CLONE_SETTLS)
		c->cpu.regs.fs_base = tls;
	c->cpu.valid = CPU_REGS_ALL;
	c->cpu.dirty = CPU_DIRTY_ALL;
	memcpy(c->cpu.fpu, fpu, k->plat->fpu_size);
	c->cpu.fpu_dirty = true;
	if (flags & CLONE_CHILD_CLEARTID)
		c->clear_child_tid = ctid;
	if (flags & CLONE_VFORK) {
		vd = xzalloc(sizeof(*vd));
		vd->refs = 2;
		waitq_init(&vd->wq);
		c->vfork_done = vd;
	}

	pthread_mutex_lock(&k->lock);
	if (t->tg->flags & TG_EXITING || (t->work & WORK_KILL)) {
		ret = -ERESTARTNOINTR; /* dying anyway: the child never runs */
	} else if (k->live_tasks >= k->task_limit ||
		   (t->creds.uid != 0 && !creds_capable(&t->creds, KCAP_SYS_RESOURCE) &&
		    !creds_capable(&t->creds, KCAP_SYS_ADMIN) &&
		    tasks_of_uid(k, t->creds.uid) >= t->tg->rlim[RLIMIT_NPROC].rlim_cur)) {
		ret = -EAGAIN;
	} else {
		ret = kernel_alloc_id_locked(k);
	}
	if (ret < 0) {
		pthread_mutex_unlock(&k->lock);
		goto fail;
	}
	c->tid = (int)ret;
	/* Its numbers in its pid namespace (the parent's pid_for_children). */
	if (c->nsproxy && pidns_level(c->nsproxy->pid)) {
		ret = pidns_alloc_locked(c->nsproxy->pid, &c->pid_nrs);
		if (ret < 0) {
			pthread_mutex_unlock(&k->lock);
			goto fail;
		}
		c->pidns = pidns_get(c->nsproxy->pid);
	}
	/* Under the lock, so that a thread's TSYNC reaches the child too. */
	seccomp_fork_locked(c, t);
	landlock_fork(c, t);
	ioprio_fork(c, t, flags);
	if (flags & CLONE_THREAD) {
		c->tg = tg_get(t->tg);
	} else {
		struct thread_group *parent = (flags & CLONE_PARENT) ? t->tg->parent : t->tg;
		c->tg = tg_get(tg_alloc(k, c->tid, parent)); /* the kernel's and the task's */
		c->tg->leader = c;
		if (c->pidns) {
			c->tg->pidns = pidns_get(c->pidns);
			c->tg->pid_nrs = xmalloc(c->pidns->level * sizeof(int));
			memcpy(c->tg->pid_nrs, c->pid_nrs, c->pidns->level * sizeof(int));
			if (c->pid_nrs[c->pidns->level - 1] == 1)
				c->pidns->init = c->tg;
		}
		c->tg->pgid = t->tg->pgid;
		c->tg->sid = t->tg->sid;
		c->tg->tty = t->tg->tty;
		memcpy(c->tg->rlim, t->tg->rlim, sizeof(c->tg->rlim));
		c->tg->oom = t->tg->oom;
		c->tg->coredump_filter = t->tg->coredump_filter;
		c->tg->personality = t->tg->personality;
		c->tg->exit_signal = (flags & CLONE_PARENT) ? t->tg->exit_signal : sig;
		list_add_tail(&c->tg->sibling, &parent->children);
		list_add_tail(&c->tg->knode, &k->groups);
	}
	c->tgid = c->tg->tgid;
	list_add_tail(&c->tg_node, &c->tg->threads);
	c->tg->nr_threads++;
	list_add_tail(&c->knode, &k->tasks);
	k->live_tasks++;
	event = ptrace_clone_locked(t, c, flags, sig);
	pthread_mutex_unlock(&k->lock);

	/* The ids the caller asked to have written: the child's number in
	 * the parent's namespace and in its own. */
	child_nr = task_tid_nr(c, t->pidns);
	if (flags & CLONE_PARENT_SETTID)
		mm_copy_out(t->mm, ptid, &child_nr, sizeof(child_nr));
	if (flags & CLONE_CHILD_SETTID) {
		int own = task_tid_nr(c, c->pidns);
		mm_copy_out(c->mm, ctid, &own, sizeof(own));
	}
	if (pidf) {
		pidfd_set_process(pidf, c->tg);
		file_put(pidf);
	}

	ret = task_start(c);
	if (ret < 0) {
		if (pidfd >= 0)
			fd_close(t->files, pidfd);
		return ret; /* task_start undid everything else */
	}
	ret = child_nr;
	if (event)
		ptrace_event(t, event, (uint64_t)ret);
	if (vd) {
		vfork_wait(t, vd);
		ptrace_event(t, PTRACE_EVENT_VFORK_DONE, (uint64_t)ret);
	}
	return ret;
fail:
	if (vd) {
		c->vfork_done = NULL;
		free(vd);
	}
	if (pidf) {
		fd_close(t->files, pidfd);
		file_put(pidf);
	}
	task_free_unstarted(c);
	return ret;
}

/* --- exit ------------------------------------------------------------------------ */

/* The robust futex list (Linux's exit_robust_list): each lock this thread
 * holds is marked OWNER_DIED and one waiter woken. */
static void exit_robust_list(struct task *t)
{
	struct {
		uint64_t next;
		int64_t futex_offset;
		uint64_t pending;
	} head;
	uint64_t entry, pending;
	unsigned limit = 2048;

	if (!t->robust_list || !t->mm)
		return;
	if (mm_copy_in(t->mm, &head, t->robust_list, sizeof(head)) < 0)
		return;
	/* Bit 0 of an entry's pointer: the lock is a PI futex. */
	entry = head.next;
	pending = head.pending;
	while ((entry & ~1ull) != t->robust_list && limit--) {
		uint64_t next;
		if (mm_copy_in(t->mm, &next, entry & ~1ull, sizeof(next)) < 0)
			return;
		if (entry != pending)
			futex_owner_died(t, (entry & ~1ull) + (uint64_t)head.futex_offset,
					 entry & 1);
		entry = next;
	}
	if (pending)
		futex_owner_died(t, (pending & ~1ull) + (uint64_t)head.futex_offset, pending & 1);
}

/* Tell the parent that tg died (do_notify_parent). Returns true when the
 * group is to be reaped at once (the parent ignores SIGCHLD). */
static bool notify_parent_exit(struct thread_group *tg)
{
	struct thread_group *parent = tg->parent;
	struct task *p;
	siginfo_t info;
	bool autoreap = false;
	int code = tg->exit_code;

	if (!parent)
		return true;
	memset(&info, 0, sizeof(info));
	info.si_signo = tg->exit_signal;
	info.si_pid = tg_pid_nr(tg, parent->pidns);
	info.si_uid = tg->uid;
	if (code & 0x7f) {
		info.si_code = (code & 0x80) ? CLD_DUMPED : CLD_KILLED;
		info.si_status = code & 0x7f;
	} else {
		info.si_code = CLD_EXITED;
		info.si_status = (code >> 8) & 0xff;
	}
	info.si_utime = (clock_t)(tg->dead_utime_ns / 10000000ull);
	info.si_stime = (clock_t)(tg->dead_stime_ns / 10000000ull);
	p = list_first_entry_or_null(&parent->threads, struct task, tg_node);
	if (p && tg->exit_signal == SIGCHLD) {
		const struct k_sigaction *ka = &p->sighand->action[SIGCHLD - 1];
		if (ka->handler == (uint64_t)(uintptr_t)SIG_IGN)
			autoreap = true, info.si_signo = 0;
		else if (ka->flags & SA_NOCLDWAIT)
			autoreap = true;
	}
	if (p && info.si_signo > 0 && info.si_signo <= GUEST_NSIG)
		signal_send_tg_locked(parent, &info);
	waitq_wake_all(&parent->child_wait);
	return autoreap;
}

/* Free a dead, reaped group: out of the lists, its references dropped. */
static void tg_release_locked(struct thread_group *tg)
{
	tg->flags |= TG_REAPED;
	list_del_init(&tg->sibling);
	list_del_init(&tg->knode);
	waitq_wake_all(&tg->exit_wait);
	tg_put(tg);
}

/* Where tg's children go when tg dies: the nearest living subreaper among
 * its ancestors, else the sandbox's init. */
static struct thread_group *new_reaper(struct kernel *k, struct thread_group *tg)
{
	struct thread_group *ns_init = pidns_reaper_locked(tg);

	for (struct thread_group *a = tg->parent; a && a != ns_init; a = a->parent)
		if (a->subreaper && !(a->flags & (TG_EXITING | TG_ZOMBIE)))
			return a;
	/* The init of tg's pid namespace, else the sandbox's. */
	return ns_init ? ns_init : k->init_tg;
}

/* PR_SET_PDEATHSIG: the threads of child c that asked for a signal when
 * their parent dies get it, as a kill() from the dying process. (Linux
 * sends it when the parent *thread* dies; the sandbox's parents are
 * processes, so it comes when the parent process does.) */
static void send_pdeath_signals(struct thread_group *tg, struct thread_group *c)
{
	struct task *th;
	siginfo_t info;

	list_for_each_entry(th, &c->threads, tg_node) {
		if (!th->pdeath_signal)
			continue;
		memset(&info, 0, sizeof(info));
		info.si_signo = th->pdeath_signal;
		info.si_code = SI_USER;
		info.si_pid = tg->tgid;
		info.si_uid = tg->uid;
		signal_send_locked(th, &info, true);
	}
}

/* The last thread of tg is gone: reparent its children, become a zombie (or
 * be reaped), and end the sandbox when tg is its init. */
static void tg_exit_locked(struct thread_group *tg)
{
	struct kernel *k = tg->k;
	struct thread_group *c, *n, *reaper;

	/* A controlling process's terminal (Linux's disassociate_ctty(1)). */
	if (tg->sid == tg->tgid)
		tty_session_leader_exit_locked(tg);
	/* Its semaphore adjustments (SEM_UNDO). */
	ipc_process_exit(k, tg->tgid);
	tg->flags |= TG_ZOMBIE;
	waitq_wake_all(&tg->exit_wait);
	if (!tg->parent && tg->on_exit)
		tg->on_exit(tg->exit_arg, tg->exit_code);
	if (tg == k->init_tg) {
		/* The pid namespace dies with its init. */
		struct thread_group *g;
		if (!k->exiting) {
			k->exiting = true;
			k->exit_status = (tg->exit_code & 0x7f) ? 128 + (tg->exit_code & 0x7f)
								: (tg->exit_code >> 8) & 0xff;
		}
		list_for_each_entry(g, &k->groups, knode)
			if (g != tg)
				tg_start_exit_locked(g, SIGKILL);
	}
	/* The init of a nested pid namespace takes the namespace with it. */
	pidns_init_exit_locked(k, tg);
	reaper = new_reaper(k, tg);
	list_for_each_entry_safe(c, n, &tg->children, sibling) {
		send_pdeath_signals(tg, c);
		list_del(&c->sibling);
		if (reaper && reaper != tg) {
			c->parent = reaper;
			list_add_tail(&c->sibling, &reaper->children);
			if ((c->flags & TG_ZOMBIE) && !(c->flags & TG_PTRACE_DEFER) &&
			    notify_parent_exit(c))
				tg_release_locked(c);
		} else {
			/* No one to reap it: the sandbox is ending. */
			c->parent = NULL;
			list_init(&c->sibling);
			if (c->flags & TG_ZOMBIE)
				tg_release_locked(c);
		}
		if (c->pgid != tg->pgid && c->sid == tg->sid)
			kill_orphaned_pgrp(k, c->pgid, tg);
	}
	/* Our own group may be orphaned by our going. */
	if (tg->parent && tg->parent->pgid != tg->pgid && tg->parent->sid == tg->sid)
		kill_orphaned_pgrp(k, tg->pgid, tg);
	if (!(tg->flags & TG_PTRACE_DEFER) && notify_parent_exit(tg))
		tg_release_locked(tg);
}

void tg_parent_notify_locked(struct thread_group *tg)
{
	if (!(tg->flags & TG_PTRACE_DEFER))
		return;
	tg->flags &= ~TG_PTRACE_DEFER;
	if ((tg->flags & TG_ZOMBIE) && !(tg->flags & TG_REAPED) && notify_parent_exit(tg))
		tg_release_locked(tg);
}

void task_exit_thread(struct task *t, int code)
{
	pthread_mutex_lock(&t->k->lock);
	t->exit_code = code;
	task_set_work(t, WORK_KILL);
	pthread_mutex_unlock(&t->k->lock);
}

void task_do_exit(struct task *t)
{
	struct kernel *k = t->k;
	struct thread_group *tg = t->tg;
	struct mm *mm = t->mm;
	struct fdtable *files;
	uint64_t cpu = task_cpu_time_ns(t);
	uint64_t sys = rusage_self_sentry_ns();
	bool last_user = false;

	task_vfork_release(t);
	exit_robust_list(t);
	futex_pi_owner_exit(t);
	/* The files close before the parent can learn of the exit (Linux's
	 * exit_files comes before exit_notify): once wait returns, a pipe or a
	 * pty whose other end the child held is at its end. */
	pthread_mutex_lock(&k->lock);
	files = t->files;
	t->files = NULL;
	pthread_mutex_unlock(&k->lock);
	fdtable_put(files);
	keys_task_exit(t);
	/* clear_child_tid is written below, after this task has left the
	 * platform address space: a copy of its page that a fork shares is made
	 * (and mapped) now, while ptrace still has this task's stub thread. */
	if (mm && t->clear_child_tid)
		mm_prepare_write(mm, t->clear_child_tid, sizeof(int));
	/* Leave the address space: others may go on running in it. */
	if (mm) {
		last_user = __atomic_sub_fetch(&mm->users, 1, __ATOMIC_SEQ_CST) == 0;
		if (!last_user && mm->as)
			mm->as->ops->remove_ctx(mm->as, t->ctx);
	}
	/* The last user frees the memory before the parent can learn of the
	 * exit, as Linux's exit_mm before exit_notify: a reaped (or zombie)
	 * child holds none, which the OOM monitor counts on. Nobody is left to
	 * see clear_child_tid then (Linux writes it only while mm_users > 1). */
	if (mm && last_user) {
		rusage_note_mm(t, mm);
		task_set_mm(t, NULL);
		mm_put(mm);
		mm = NULL;
	}

	pthread_mutex_lock(&k->lock);
	t->exited = true;
	list_del(&t->knode);
	list_del(&t->tg_node);
	tg->nr_threads--;
	tg->dead_utime_ns += cpu;
	tg->dead_stime_ns += sys;
	tg->dead_io.rchar += __atomic_load_n(&t->ioac.rchar, __ATOMIC_RELAXED);
	tg->dead_io.wchar += __atomic_load_n(&t->ioac.wchar, __ATOMIC_RELAXED);
	tg->dead_io.syscr += __atomic_load_n(&t->ioac.syscr, __ATOMIC_RELAXED);
	tg->dead_io.syscw += __atomic_load_n(&t->ioac.syscw, __ATOMIC_RELAXED);
	if (mm)
		rusage_note_mm_locked(tg, mm);
	timers_thread_exit_locked(t);
	if (tg->leader == t) {
		tg->uid = t->creds.uid;
		tg->suid = t->creds.suid;
		memcpy(tg->comm, t->comm, sizeof(tg->comm));
	}
	if (!(tg->flags & TG_EXITING) && tg->nr_threads == 0)
		tg->exit_code = t->exit_code;
	if (ptrace_task_exit_locked(t, (tg->flags & TG_EXITING) ? tg->exit_code : t->exit_code,
				    tg->nr_threads == 0))
		tg->flags |= TG_PTRACE_DEFER;
	/* A thread that was counted for a stop in progress no longer can be. */
	if (tg->stop_pending && !t->stop_counted && --tg->stop_pending == 0 && tg->nr_threads) {
		tg->flags |= TG_STOPPED | TG_REPORT_STOP;
		notify_parent_cldstop(tg, CLD_STOPPED);
	}
	if (tg->nr_threads == 0) {
		timers_group_exit_locked(tg);
		keys_tg_exit(tg); /* the key table's lock nests inside */
		tg_exit_locked(tg);
	} else if ((tg->flags & TG_EXECING) && tg->execer)
		task_wake(tg->execer);
	k->live_tasks--;
	pthread_mutex_unlock(&k->lock);

	/* pthread_join returns when this word clears: by then the thread is
	 * gone from the process (and /proc). */
	if (mm && t->clear_child_tid) {
		int zero = 0;
		if (mm_copy_out(mm, t->clear_child_tid, &zero, sizeof(zero)) == 0)
			futex_wake_addr(t, t->clear_child_tid);
	}
	if (mm) {
		task_set_mm(t, NULL);
		mm_put(mm);
	}
	fs_struct_put(t->fs);
	t->fs = NULL;
	landlock_task_exit(t);
	path_put(&t->exe);
	sighand_put(t->sighand);
	t->sighand = NULL;
}

/* --- wait ------------------------------------------------------------------------- */

/* Does child c match wait's selection (and its __WCLONE/__WALL rules)? */
static bool wait_matches(struct task *t, struct thread_group *c, int which, int id, int options)
{
	bool clone_child = c->exit_signal != SIGCHLD;

	switch (which) {
	case WAIT_PID:
		if (c->tgid != id)
			return false;
		break;
	case WAIT_PGID:
		if (c->pgid != id)
			return false;
		break;
	default:
		break;
	}
	if ((options & __WALL) || (c->flags & TG_PARENT_TRACED) || ptrace_traced_by_tg(c, t->tg))
		return true;
	return clone_child == !!(options & __WCLONE);
}

static void fill_rusage(struct rusage *ru, uint64_t utime_ns, uint64_t stime_ns)
{
	memset(ru, 0, sizeof(*ru));
	ru->ru_utime.tv_sec = (time_t)(utime_ns / 1000000000ull);
	ru->ru_utime.tv_usec = (suseconds_t)(utime_ns % 1000000000ull / 1000);
	ru->ru_stime.tv_sec = (time_t)(stime_ns / 1000000000ull);
	ru->ru_stime.tv_usec = (suseconds_t)(stime_ns % 1000000000ull / 1000);
}

/* Report c if it has something for these options; true when it did. */
static bool wait_report(struct task *t, struct thread_group *c, int options,
			struct wait_result *res)
{
	bool keep = options & WNOWAIT;

	if ((c->flags & TG_ZOMBIE) && (c->flags & TG_PTRACE_DEFER))
		return false; /* its tracer reaps it first */
	/* A child this process traces: its stops are ptrace stops. */
	if (!(c->flags & TG_ZOMBIE) && ptrace_traced_by_tg(c, t->tg))
		return false;
	if ((c->flags & TG_ZOMBIE) && (options & WEXITED)) {
		int code = c->exit_code;
		res->pid = tg_pid_nr(c, t->pidns);
		res->status = code;
		res->uid = c->uid;
		if (code & 0x7f) {
			res->code = (code & 0x80) ? CLD_DUMPED : CLD_KILLED;
			res->cld_status = code & 0x7f;
		} else {
			res->code = CLD_EXITED;
			res->cld_status = (code >> 8) & 0xff;
		}
		fill_rusage(&res->ru, c->dead_utime_ns + c->child_utime_ns,
			    c->dead_stime_ns + c->child_stime_ns);
		res->ru.ru_maxrss = (long)MAX(c->maxrss_kb, c->child_maxrss_kb);
		if (!keep) {
			t->tg->child_utime_ns += c->dead_utime_ns + c->child_utime_ns;
			t->tg->child_stime_ns += c->dead_stime_ns + c->child_stime_ns;
			t->tg->child_maxrss_kb =
				MAX(t->tg->child_maxrss_kb, (uint64_t)res->ru.ru_maxrss);
			tg_release_locked(c);
		}
		return true;
	}
	if ((c->flags & TG_REPORT_STOP) && (c->flags & TG_STOPPED) && (options & WSTOPPED)) {
		res->pid = tg_pid_nr(c, t->pidns);
		res->status = (c->stop_sig << 8) | 0x7f;
		res->code = CLD_STOPPED;
		res->cld_status = c->stop_sig;
		res->uid = c->leader ? c->leader->creds.uid : c->uid;
		if (!keep)
			c->flags &= ~TG_REPORT_STOP;
		return true;
	}
	if ((c->flags & TG_REPORT_CONT) && (options & WCONTINUED)) {
		res->pid = tg_pid_nr(c, t->pidns);
		res->status = 0xffff;
		res->code = CLD_CONTINUED;
		res->cld_status = SIGCONT;
		res->uid = c->leader ? c->leader->creds.uid : c->uid;
		if (!keep)
			c->flags &= ~TG_REPORT_CONT;
		return true;
	}
	return false;
}

long task_wait(struct task *t, int which, int id, int options, struct wait_result *res)
{
	struct kernel *k = t->k;
	struct waiter w = {0};
	bool interrupted = false;
	long ret;

	memset(res, 0, sizeof(*res));
	pthread_mutex_lock(&k->lock);
	if (which == WAIT_PGID && id == 0)
		id = t->tg->pgid;
	for (;;) {
		struct thread_group *c, *n;
		bool any = false;
		uint32_t snap = waiter_prepare(&t->tg->child_wait, &w, t);

		list_for_each_entry_safe(c, n, &t->tg->children, sibling) {
			if (!wait_matches(t, c, which, id, options))
				continue;
			/* wait_consider_task: a zombie is nothing to wait for
			 * unless exits (or continues) are asked for */
			if ((c->flags & TG_ZOMBIE) && !(c->flags & TG_PTRACE_DEFER) &&
			    !(options & (WEXITED | WCONTINUED)))
				continue;
			any = true;
			if (wait_report(t, c, options, res)) {
				ret = 0;
				goto out;
			}
		}
		if (ptrace_wait_locked(t, which, id, options, res, &any)) {
			ret = 0;
			goto out;
		}
		if (!any) {
			ret = -ECHILD;
			break;
		}
		if (options & WNOHANG) {
			ret = 0;
			break;
		}
		if (interrupted) {
			ret = -ERESTARTSYS;
			break;
		}
		pthread_mutex_unlock(&k->lock);
		ret = task_block(t, snap, 0);
		pthread_mutex_lock(&k->lock);
		/* A signal (the SIGCHLD of the child's exit, say) ends the wait
		 * only when no child is to be reported after all: look once more
		 * (Linux's do_wait checks its children before signal_pending). */
		interrupted = ret == -EINTR;
	}
out:
	pthread_mutex_unlock(&k->lock);
	waiter_finish(&t->tg->child_wait, &w);
	return ret;
}
