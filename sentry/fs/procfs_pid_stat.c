/*
 * /proc/<pid>/stat and /proc/<pid>/status (and the same under task/<tid>):
 * the process's state, ids, CPU times, memory sizes and signal sets.
 *
 * A process directory shows the whole process's CPU times, a thread
 * directory its thread's, as Linux's do_task_stat (whole = true/false). A
 * zombie (c->zombie, no task left) shows its name, state Z, its ids and the
 * times its threads spent; no memory, no signal sets.
 */
#include "config.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/pidns.h"
#include "sentry/fs/tty.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/rusage.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define NSEC_PER_TICK 10000000ull /* USER_HZ = 100 */

/*
 * Linux's task state letter: R running (guest code, or kernel work in the
 * sentry), S sleeping in a wait, T stopped by job control, t in a ptrace
 * stop, Z a thread whose run loop is over.
 */
static char task_state(struct task *t)
{
	if (__atomic_load_n(&t->exited, __ATOMIC_RELAXED))
		return 'Z';
	if (__atomic_load_n(&t->pt.stopped, __ATOMIC_RELAXED))
		return 't';
	if (__atomic_load_n(&t->tg->flags, __ATOMIC_RELAXED) & TG_STOPPED)
		return 'T';
	if (t != current_task() && __atomic_load_n(&t->sleeping, __ATOMIC_RELAXED))
		return 'S';
	return 'R';
}

static const char *task_state_name(char s)
{
	switch (s) {
	case 'Z':
		return "zombie";
	case 'T':
		return "stopped";
	case 't':
		return "tracing stop";
	case 'R':
		return "running";
	default:
		return "sleeping";
	}
}

/* The fields stat and status take from the process tree, and the times. */
struct tree_ids {
	int pid, tid, ppid, pgid, sid, nthreads; /* as the instance's namespace numbers them */
	int tty_nr, tpgid; /* the controlling terminal's device and foreground group */
	uint64_t utime, stime, cutime, cstime; /* ns */
};

static struct thread_group *group_of(struct proc_ctx *c)
{
	return c->t ? c->t->tg : c->zombie;
}

static struct tree_ids tree_ids(struct proc_ctx *c)
{
	struct thread_group *tg = group_of(c);
	struct tree_ids ids;

	pthread_mutex_lock(&c->k->lock);
	ids.pid = tg_pid_nr(tg, c->view);
	ids.tid = c->t ? task_tid_nr(c->t, c->view) : ids.pid;
	ids.ppid = tg->parent ? tg_pid_nr(tg->parent, c->view) : 0;
	ids.pgid = pidns_view_locked(c->k, c->view, tg->pgid);
	ids.sid = pidns_view_locked(c->k, c->view, tg->sid);
	/* A zombie's leader is still counted, as Linux's. */
	ids.nthreads = MAX(tg->nr_threads, 1);
	ids.tty_nr = 0;
	ids.tpgid = -1;
	if (tg->tty) {
		struct tty *tty = tg->tty;
		ids.tty_nr = (int)tty_encode_dev(tty->rdev);
		ids.tpgid = tty->pgrp == TTY_NONE ? 0 : tty->pgrp;
	}
	if (c->thread) {
		rusage_task_times(c->t, &ids.utime, &ids.stime);
		ids.cutime = ids.cstime = 0;
	} else {
		rusage_tg_times_locked(tg, &ids.utime, &ids.stime);
		ids.cutime = tg->child_utime_ns;
		ids.cstime = tg->child_stime_ns;
	}
	pthread_mutex_unlock(&c->k->lock);
	return ids;
}

static uint64_t sig_set(struct task *t, uint64_t handler)
{
	uint64_t set = 0;

	if (!t)
		return 0;
	for (int i = 0; i < GUEST_NSIG; i++) {
		uint64_t h = t->sighand ? t->sighand->action[i].handler : 0;
		if (handler == 2 ? (h > 1) : h == handler)
			set |= 1ull << i;
	}
	return set;
}

static unsigned long long ticks(uint64_t ns)
{
	return (unsigned long long)(ns / NSEC_PER_TICK);
}

void proc_gen_stat(struct proc_ctx *c, struct strbuf *o)
{
	struct task *t = c->t;
	struct mm *mm = c->mm;
	uint64_t start = ((t ? t->start_ns : c->zombie->start_ns) - c->k->boot_ns) / NSEC_PER_TICK;
	struct tree_ids ids = tree_ids(c);
	uint64_t vsize = 0, rss = 0;

	proc_mem_sizes(mm, &vsize, &rss);
	strbuf_printf(
		o,
		"%d (%s) %c %d %d %d %d %d 4194560 0 0 0 0 %llu %llu %llu %llu 20 0 %d 0 %llu "
		"%llu %llu 18446744073709551615 0 0 %llu 0 0 0 %llu %llu %llu 0 0 0 17 0 0 0 0 0 0 "
		"0 0 %llu %llu %llu %llu %llu 0\n",
		c->thread ? ids.tid : ids.pid, t ? t->comm : c->zombie->comm,
		t ? task_state(t) : 'Z', ids.ppid, ids.pgid, ids.sid, ids.tty_nr, ids.tpgid,
		ticks(ids.utime), ticks(ids.stime), ticks(ids.cutime), ticks(ids.cstime),
		ids.nthreads, (unsigned long long)start, (unsigned long long)vsize,
		(unsigned long long)(rss / PAGE_SIZE),
		(unsigned long long)(mm ? mm->start_stack : 0),
		(unsigned long long)(t ? t->sigmask : 0), (unsigned long long)sig_set(t, 1),
		(unsigned long long)sig_set(t, 2), (unsigned long long)(mm ? mm->start_brk : 0),
		(unsigned long long)(mm ? mm->arg_start : 0),
		(unsigned long long)(mm ? mm->arg_end : 0),
		(unsigned long long)(mm ? mm->env_start : 0),
		(unsigned long long)(mm ? mm->env_end : 0));
}

/* A zombie's status: what is left of it (Linux shows no memory lines either). */
static void zombie_status(struct proc_ctx *c, struct strbuf *o)
{
	struct thread_group *tg = c->zombie;
	struct tree_ids ids = tree_ids(c);

	strbuf_printf(o,
		      "Name:\t%s\nState:\tZ (zombie)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n"
		      "TracerPid:\t0\nUid:\t%u\t%u\t%u\t%u\nNStgid:\t%d\nNSpid:\t%d\n"
		      "NSpgid:\t%d\nNSsid:\t%d\nThreads:\t%d\n",
		      tg->comm, ids.pid, ids.pid, ids.ppid, tg->uid, tg->uid, tg->suid, tg->uid,
		      ids.pid, ids.pid, ids.pgid, ids.sid, ids.nthreads);
}

/* "\nNAME:" and the numbers of an id from view's level down to its own
 * (Linux's NSpid: one per namespace the reader can see it in). */
static void ns_levels(struct strbuf *o, const char *name, const struct pid_ns *own, const int *nrs,
		      int global, const struct pid_ns *view)
{
	strbuf_printf(o, "\n%s:", name);
	if (!pidns_within(own, view)) {
		strbuf_printf(o, "\t0");
		return;
	}
	for (unsigned l = pidns_level(view); l <= pidns_level(own); l++)
		strbuf_printf(o, "\t%d", l == 0 ? global : nrs[l - 1]);
}

/* A live task's status: ids as the reader's user namespace names them. */
static void task_status(struct proc_ctx *c, struct strbuf *o)
{
	struct task *reader = current_task();
	const struct user_ns *seer = reader ? reader->creds.user_ns : NULL;
	struct task *t = c->t;
	struct creds *cr = &t->creds;
	struct tree_ids ids = tree_ids(c);
	uint64_t vsize, rss, peak, locked;
	struct proc_mem_figures mf;

	proc_mem_figures(c->mm, &mf);
	vsize = mf.vsize;
	rss = mf.rss;
	peak = MAX(vsize, c->mm ? mm_committed_peak(c->mm) : 0);
	locked = c->mm ? mm_locked_bytes(c->mm) : 0;
	strbuf_printf(o,
		      "Name:\t%s\nUmask:\t%04o\nState:\t%c (%s)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
		      "PPid:\t%d\nTracerPid:\t%d\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n"
		      "FDSize:\t64\nGroups:\t",
		      t->comm, t->fs ? t->fs->umask : 022, task_state(t),
		      task_state_name(task_state(t)), ids.pid, ids.tid, ids.ppid,
		      ptrace_tracer_pid(t), uid_out(seer, cr->uid), uid_out(seer, cr->euid),
		      uid_out(seer, cr->suid), uid_out(seer, cr->fsuid), gid_out(seer, cr->gid),
		      gid_out(seer, cr->egid), gid_out(seer, cr->sgid), gid_out(seer, cr->fsgid));
	for (uint32_t i = 0; i < cr->ngroups; i++)
		strbuf_printf(o, "%u ", gid_out(seer, cr->groups[i]));
	ns_levels(o, "NStgid", t->tg->pidns, t->tg->pid_nrs, t->tgid, c->view);
	ns_levels(o, "NSpid", t->pidns, t->pid_nrs, t->tid, c->view);
	strbuf_printf(o,
		      "\nNSpgid:\t%d\nNSsid:\t%d\nVmPeak:\t%8llu kB\n"
		      "VmSize:\t%8llu kB\nVmLck:\t%8llu kB\nVmRSS:\t%8llu kB\nVmData:\t%8llu kB\n"
		      "VmStk:\t%8llu kB\nThreads:\t%d\n"
		      "SigQ:\t0/%llu\n"
		      "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t%016llx\n"
		      "SigIgn:\t%016llx\nSigCgt:\t%016llx\nCapInh:\t%016llx\nCapPrm:\t%016llx\n"
		      "CapEff:\t%016llx\nCapBnd:\t%016llx\nCapAmb:\t%016llx\nNoNewPrivs:\t%d\n"
		      "Seccomp:\t%d\nSeccomp_filters:\t%u\nCpus_allowed_list:\t0-%u\n"
		      "voluntary_ctxt_switches:\t0\n"
		      "nonvoluntary_ctxt_switches:\t0\n",
		      ids.pgid, ids.sid, (unsigned long long)(peak >> 10),
		      (unsigned long long)(vsize >> 10), (unsigned long long)(locked >> 10),
		      (unsigned long long)(rss >> 10), (unsigned long long)(mf.data >> 10),
		      (unsigned long long)(mf.stack >> 10), ids.nthreads,
		      (unsigned long long)t->tg->rlim[RLIMIT_SIGPENDING].rlim_cur,
		      (unsigned long long)t->sigmask, (unsigned long long)sig_set(t, 1),
		      (unsigned long long)sig_set(t, 2), (unsigned long long)cr->cap_inheritable,
		      (unsigned long long)cr->cap_permitted, (unsigned long long)cr->cap_effective,
		      (unsigned long long)cr->cap_bounding, (unsigned long long)cr->cap_ambient,
		      (int)__atomic_load_n(&t->no_new_privs, __ATOMIC_RELAXED), seccomp_mode(t),
		      seccomp_filter_count(t), c->k->ncpus - 1);
}

void proc_gen_status(struct proc_ctx *c, struct strbuf *o)
{
	if (c->t)
		task_status(c, o);
	else
		zombie_status(c, o);
}
