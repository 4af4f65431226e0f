/*
 * Guest tasks (threads) and thread groups (processes).
 *
 * Each task runs on its own sentry thread, which is also the tracer of the
 * task's stub thread on the ptrace platform. The run loop: do pending work
 * (signals, stops, exit) -> switch to the guest -> handle the syscall, fault
 * or interrupt -> repeat.
 *
 * A thread group is what Linux keeps in signal_struct plus the process tree:
 * the threads sharing a pid, signals sent to the process, the parent and
 * children, process group and session, the exit status and job-control
 * state, resource limits.
 *
 * Locking: k->lock (the "task lock") guards the process tree, every pending
 * signal set, dispositions, exit and stop state, and the task lists. A task's
 * own fields that only its thread changes (registers, mm, files, fs) need no
 * lock for that thread. t->work is atomic so that the run loop and blocking
 * waits can test it without the lock.
 */
#ifndef RUNG_TASK_H
#define RUNG_TASK_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "platform/platform.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/sched.h"
#include "sentry/kernel/wait.h"
#include "sentry/vfs/vfs.h"
#include "lib/list.h"

struct kernel;
struct mm;
struct fdtable;
struct fs_struct;
struct tg_timers;
struct spawn_wait;
struct seccomp_filter;
struct landlock_domain;
struct io_context;

#define TASK_COMM_LEN 16
/* Linux's MMF_DUMP_FILTER_DEFAULT (anonymous private and shared, ELF
 * headers, private huge pages) and the bits coredump_filter keeps. */
#define COREDUMP_FILTER_DEFAULT 0x33u
#define COREDUMP_FILTER_MASK	0x1ffu

/* I/O accounting (/proc/<pid>/io, Linux's task_io_accounting): the read
 * and write calls made and the bytes they moved. */
struct task_io {
	uint64_t rchar, wchar, syscr, syscw;
};
#define GUEST_NSIG 64

/* The kernel's struct sigaction for x86-64 rt_sigaction. */
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* Signal dispositions, shared by CLONE_SIGHAND (always by a thread group). */
struct sighand {
	int refs;
	struct k_sigaction action[GUEST_NSIG];
};

/* Signals queued for one user, against RLIMIT_SIGPENDING (Linux's
 * UCOUNT_RLIMIT_SIGPENDING); in kernel->sig_ucounts while n > 0. */
struct sig_ucount {
	struct list_head node;
	uint32_t uid;
	unsigned n;
};

/* One queued signal with its information. */
struct sigqueue {
	struct list_head link;
	siginfo_t info;
	struct sig_ucount *uc; /* the user it is charged to; NULL: not charged */
};

/* Pending signals: the set, and the queue that carries their siginfo (a
 * standard signal has at most one entry; a real-time one may have many). */
struct sigpending {
	uint64_t set;
	struct list_head list;
};

/* thread_group->flags */
#define TG_EXITING	 0x01u	/* exit_group or a fatal signal: every thread is dying */
#define TG_ZOMBIE	 0x02u	/* every thread is gone; waiting for the parent to reap */
#define TG_REAPED	 0x04u	/* reaped (or never to be): only references keep it */
#define TG_STOPPED	 0x08u	/* job-control stopped (every thread parked) */
#define TG_REPORT_STOP	 0x10u	/* a WUNTRACED report is due to the parent */
#define TG_REPORT_CONT	 0x20u	/* a WCONTINUED report is due to the parent */
#define TG_EXECING	 0x40u	/* a thread execs: the others must go */
#define TG_PTRACE_DEFER	 0x80u	/* dead; its parent hears of it once the tracer reaped it */
#define TG_PARENT_TRACED 0x100u /* died traced by its parent: any wait may reap it */

struct thread_group {
	int refs;
	struct kernel *k;
	int tgid;
	struct task *leader;	  /* the first thread (tid == tgid), NULL once it is gone */
	struct list_head threads; /* live tasks, by task->tg_node */
	int nr_threads;
	struct sigpending shared; /* signals sent to the process */

	struct thread_group *parent; /* NULL for the sandbox's init */
	struct list_head children;   /* thread groups, by ->sibling */
	struct list_head sibling;
	struct list_head knode; /* in kernel->groups */
	int pgid, sid;
	int exit_signal; /* sent to the parent when the group dies (SIGCHLD, or 0) */
	bool subreaper;	 /* PR_SET_CHILD_SUBREAPER */

	unsigned flags;	     /* TG_* */
	int exit_code;	     /* wait status once TG_EXITING: (code << 8) or the signal */
	int stop_sig;	     /* the signal that stopped the group */
	int stop_pending;    /* threads still to park for a group stop */
	struct task *execer; /* with TG_EXECING: the thread that execs */
	/* The parent's wait4/waitid sleepers wait on the parent's queue. */
	struct waitq child_wait;
	/* Woken when it exits and when it is reaped (pidfd pollers). */
	struct waitq exit_wait;

	struct rlimit rlim[RLIM_NLIMITS];
	/* /proc/<pid>/oom_score_adj, and the least an unprivileged writer may
	 * set (under k->lock; copied by fork, kept by exec). */
	struct {
		short adj, adj_min;
	} oom;
	unsigned personality; /* personality(2): inherited, kept over exec */
	/* /proc/<pid>/coredump_filter: which mappings a core dump would hold
	 * (Linux's MMF_DUMP_* bits; under k->lock; copied by fork, kept by exec). */
	unsigned coredump_filter;
	uint64_t start_ns;
	uint32_t uid;		  /* the leader's real uid when it died (waitid's si_uid) */
	uint32_t suid;		  /* and its saved uid (who may kill(2) the zombie) */
	char comm[TASK_COMM_LEN]; /* and its name (a zombie's in /proc) */
	bool did_exec;		  /* a thread execed (setpgid from the parent: EACCES) */
	/* A process spawned from outside (exec) has no parent: this learns its
	 * wait status when it dies (called under the kernel lock). */
	void (*on_exit)(void *arg, int status);
	void *exit_arg;
	/* CPU time of exited threads, and of reaped children (times, getrusage). */
	uint64_t dead_utime_ns, dead_stime_ns;
	struct task_io dead_io; /* and the I/O of exited threads */
	uint64_t child_utime_ns, child_stime_ns;
	/* Peak memory (getrusage's ru_maxrss, KiB): its own, and its reaped children's. */
	uint64_t maxrss_kb, child_maxrss_kb;
	/* The controlling terminal (sentry/fs/tty), when there is one. */
	void *tty;
	/* itimers, POSIX timers, CPU-timer state (sentry/kernel/timers.c):
	 * made on first use, freed when the last thread exits. */
	struct tg_timers *timers;
	/* The terminal's foreground group when a hang-up took the terminal from
	 * this session leader: SIGHUP goes there when it exits. */
	bool has_tty_old_pgrp;
	int tty_old_pgrp;
	/* The process keyring (sentry/kernel/keys.c), under the key table's lock. */
	struct key *process_keyring;
	/* Its namespace's numbers (the leader's: pidns.h); NULL: the initial one. */
	struct pid_ns *pidns;
	int *pid_nrs;
};

/* task->work (atomic): what the run loop must look at before running the guest. */
#define WORK_SIGNAL	  0x1u /* a signal may be deliverable */
#define WORK_KILL	  0x2u /* the task must exit (group exit, SIGKILL, exec of another thread) */
#define WORK_STOP	  0x4u /* a group stop is in progress */
#define WORK_RESTORE_MASK 0x8u /* restore saved_sigmask if no handler runs */

/* How an interrupted ERESTART_RESTARTBLOCK call continues (restart_syscall). */
struct restart_block {
	long (*fn)(struct task *t, struct restart_block *rb);
	uint64_t arg[4];
};

struct task {
	int refs;
	struct list_head knode; /* in kernel->tasks */
	struct kernel *k;
	int tid;  /* virtual, in the sandbox's pid namespace */
	int tgid; /* == tg->tgid, kept here for the many readers */
	/* The pid namespace it was born in (NULL: the initial one) and its
	 * numbers below the initial level (pidns.h). */
	struct pid_ns *pidns;
	int *pid_nrs;
	struct thread_group *tg;
	struct list_head tg_node; /* in tg->threads */
	char comm[TASK_COMM_LEN];
	struct task_io ioac; /* counted by the task itself (atomically), read by /proc */

	pthread_t thread;
	int host_tid; /* of the sentry thread, once it runs (atomic) */
	struct pcontext *ctx;
	struct cpu_state cpu;
	struct mm *mm;
	struct fdtable *files;
	struct fs_struct *fs; /* root, cwd, umask */
	struct path exe;      /* the program file (/proc/pid/exe) */
	uint64_t start_ns;    /* CLOCK_MONOTONIC when it started */
	struct creds creds;
	struct nsproxy *nsproxy; /* NULL: the sandbox's initial namespaces (nsproxy.h) */
	/* Keyrings (sentry/kernel/keys.c), under the key table's lock: the
	 * session one is inherited by clone, as Linux's cred->session_keyring. */
	struct key *thread_keyring, *session_keyring;

	/* Signals: dispositions (shared), the mask, thread-directed pending. */
	struct sighand *sighand;
	uint64_t sigmask;
	uint64_t saved_sigmask; /* with WORK_RESTORE_MASK */
	uint64_t real_blocked;	/* rt_sigtimedwait: the mask before it unblocked what it awaits */
	struct sigpending pending;
	stack_t altstack;
	uint32_t work; /* WORK_* (atomic) */
	int pdeath_signal;
	struct restart_block restart;
	/* The syscall being handled (orig_rax), or -1: restarts need it. */
	long syscall_nr;

	int exit_code;	   /* exit(2): the wait status the group gets if this is its last thread */
	bool stop_counted; /* counted in the current group stop */
	/* The last fault, for the signal frame's sigcontext (trapno, err, cr2). */
	uint64_t fault_trapno, fault_err, fault_cr2;

	uint64_t clear_child_tid;
	uint64_t robust_list, robust_list_len;
	/* Exiting: a PI futex's waiters no longer wait for this task (under k->lock). */
	bool futex_pi_exited;
	/* A vfork parent waits here until this child execs or exits. */
	struct vfork_done *vfork_done;

	/* Blocking: a futex word bumped by every wake-up (sentry/kernel/wait.h). */
	uint32_t wake_seq;
	/* Non-zero while the task sleeps in a wait (atomic): /proc's state S
	 * rather than R. */
	uint32_t sleeping;
	bool exited;	  /* the run loop is over */
	bool needs_as;	  /* a fork child: make the address space on its own thread */
	bool cpuid_fault; /* the guest asked for ARCH_SET_CPUID 0: CPUID gives it SIGSEGV */
	bool no_new_privs;
	bool dumpable;
	/* set*uid went over RLIMIT_NPROC: the next execve fails with EAGAIN if it still is. */
	bool nproc_exceeded;
	struct task_sched sched;
	/* Odd while the task runs guest code, even in the sentry (atomic): a
	 * membarrier waits for running tasks to pass through the sentry. */
	uint32_t guest_seq;
	/* prctl state kept per task (PR_MCE_KILL flags). */
	unsigned mce_kill;
	/* set_mempolicy (syscalls/sys_numa.c): the MPOL_ mode, its flags and
	 * the node mask get_mempolicy reports; inherited by clone. */
	struct {
		int mode;
		unsigned flags;
		uint64_t nodes;
	} mempolicy;
	/* Guest seccomp (sentry/kernel/seccomp.h): SECCOMP_MODE_* and the
	 * newest filter of the task's stack. */
	int seccomp_mode;
	struct seccomp_filter *seccomp;
	/* Landlock (sentry/kernel/landlock.h): the task's domain, or NULL. */
	struct landlock_domain *landlock;
	/* I/O priority (sentry/kernel/ioprio.h), or NULL. */
	struct io_context *io;

	/* What the task execs first (kernel_start_init, kernel_spawn), and who
	 * waits to learn whether that exec worked. */
	struct spawn_wait *spawn;
	/* ptrace (sentry/kernel/ptrace.h), under k->lock. */
	struct task_ptrace pt;
	char *init_path;
	char **init_argv, **init_envp;
};

/* What identifies the task's process as the owner of POSIX locks. */
static inline const void *task_lock_owner(struct task *t)
{
	return (const void *)(uintptr_t)t->tgid;
}

struct task *task_get(struct task *t);
void task_put(struct task *t);
/* The task's address space with a reference (mm_put it), or NULL once the
 * task has left it: what another task reads of it without the task's
 * cooperation (/proc) takes it this way. */
struct mm *task_mm_get(struct task *t);
/* Give the task the address space mm (NULL: it has left its own), under
 * the kernel's lock as task_mm_get reads it; the caller keeps the
 * references. */
void task_set_mm(struct task *t, struct mm *mm);
/* The task's RLIMIT_NOFILE, capped at Linux's nr_open: the highest
 * descriptor number + 1 it may install. */
static inline unsigned task_nofile(struct task *t)
{
	rlim_t n = t->tg->rlim[RLIMIT_NOFILE].rlim_cur;

	return n > 1048576 ? 1048576 : (unsigned)n;
}

/* A new thread group (one reference) of process tgid, child of parent,
 * with no threads yet; tg_put frees it. */
struct thread_group *tg_alloc(struct kernel *k, int tgid, struct thread_group *parent);
struct thread_group *tg_get(struct thread_group *tg);
void tg_put(struct thread_group *tg);
void sighand_put(struct sighand *sh);

/* A new task of k with its platform context and FPU buffer, not yet in any list. */
struct task *task_alloc(struct kernel *k);
/* Start the sentry thread of a task that clone linked into the kernel's
 * lists. On failure it is unlinked and freed; returns 0 or -EAGAIN. */
int task_start(struct task *t);
/* Free a task that never started (clone failed before task_start). */
void task_free_unstarted(struct task *t);
/* A vfork child execs or exits: its parent may go on. */
void task_vfork_release(struct task *t);

/* Sleep until t's wake word moves past seq (nothing else wakes it). */
void task_wait_wake(struct task *t, uint32_t seq);
/* Around every sleep of t: what /proc/<pid>/stat shows as its state. */
static inline void task_sleep_enter(struct task *t)
{
	__atomic_add_fetch(&t->sleeping, 1, __ATOMIC_RELAXED);
}
static inline void task_sleep_leave(struct task *t)
{
	__atomic_sub_fetch(&t->sleeping, 1, __ATOMIC_RELAXED);
}

/* The task the calling sentry thread runs (NULL on other threads). */
struct task *current_task(void);

/* Set work bits on t and make it notice them soon (any thread). */
void task_set_work(struct task *t, uint32_t bits);
/* Make the task's current or next blocking wait, or guest run, return soon. */
void task_interrupt(struct task *t);
/* Must the task stop waiting (a signal, a stop, or its death)? */
bool task_interrupted(struct task *t);

/*
 * Sleep until the absolute time deadline (ns on clock, CLOCK_MONOTONIC or
 * CLOCK_REALTIME) or an interruption. Returns 0 when the time came, -EINTR.
 */
int task_sleep_until(struct task *t, int clock, uint64_t deadline_ns);

/* The whole register set, fetched from the platform when only part is known. */
struct user_regs_struct *task_regs(struct task *t);
/* Mark registers the sentry changed (CPU_DIRTY_*). */
static inline void task_regs_dirty(struct task *t, unsigned what)
{
	t->cpu.dirty |= what;
}
/* The FPU state in t->cpu.fpu, fetched from the platform when needed; NULL if lost. */
uint8_t *task_fpu(struct task *t);

/*
 * Replace the task's program with the executable path (a guest path, resolved
 * in the task's filesystem): load it (following #! and PT_INTERP), build its
 * stack, give it a new address space. Returns 0 or -errno (and *why, a
 * static reason, for ENOEXEC and friends).
 */
int task_exec(struct task *t, int dirfd, const char *path, char *const argv[], char *const envp[],
	      int flags, const char **why);
/* The init task's first exec (kernel_start_init's program). */
int task_exec_init(struct task *t, const char **why);
/* Would exec of name (a path, or a name searched in envp's PATH) find an
 * executable program? 0 or -errno (ENOENT, EACCES, ...), without exec. */
int task_find_program(struct task *t, const char *name, char *const envp[]);

/* The task's thread group exits with wait status code (exit_group: code << 8;
 * a fatal signal: the signal number). */
void task_exit_group(struct task *t, int code);

/* The wait status t's exit leaves: its group's (exit_group, a fatal
 * signal) or its own (exit). */
int task_exit_status(struct task *t);

/* Handle a fault event from the platform. */
void task_handle_fault(struct task *t, const struct pevent *ev);

/* A read-like (write-like) call of t returned ret: count it, and its bytes
 * (Linux's add_rchar and inc_syscr in vfs_read). */
static inline void task_io_read(struct task *t, long ret)
{
	if (ret > 0)
		__atomic_add_fetch(&t->ioac.rchar, (uint64_t)ret, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ioac.syscr, 1, __ATOMIC_RELAXED);
}

static inline void task_io_write(struct task *t, long ret)
{
	if (ret > 0)
		__atomic_add_fetch(&t->ioac.wchar, (uint64_t)ret, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ioac.syscw, 1, __ATOMIC_RELAXED);
}

/* The sentry thread body of a task. */
void *task_main(void *arg);

#endif
