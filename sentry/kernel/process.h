/*
 * The process tree: clone (threads, forks, vfork), exit (zombies, the
 * parent's SIGCHLD, reparenting, orphaned process groups), wait4/waitid,
 * group exit and job-control stops. Functions named *_locked expect
 * k->lock held.
 */
#ifndef RUNG_PROCESS_H
#define RUNG_PROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

struct kernel;
struct task;
struct thread_group;
struct sigpending;
struct sigqueue;

/* What clone and clone3 ask for. flags: CLONE_* with the exit signal in
 * CSIGNAL; stack: the child's stack pointer (0: the caller's); parent_tid,
 * child_tid: where CLONE_PARENT_SETTID and CLONE_CHILD_SETTID write the tid
 * (and CLONE_CHILD_CLEARTID clears it); pidfd: where CLONE_PIDFD writes the
 * descriptor. */
struct clone_req {
	uint64_t flags, stack, parent_tid, child_tid, tls, pidfd;
};

/* clone(2) with Linux's flag rules; returns the child's tid or -errno. */
long task_clone(struct task *t, const struct clone_req *r);

/* Give t a descriptor table of its own if it shares one (exec,
 * CLOSE_RANGE_UNSHARE: unshare(CLONE_FILES)). */
void task_unshare_files(struct task *t);

/* The task's thread exits (exit(2)): code is the wait status it leaves when
 * it is the last thread ((status & 0xff) << 8). The run loop ends. */
void task_exit_thread(struct task *t, int code);
/* The run loop is over for t (killed, exited): release what it holds, tell
 * its parent, and leave the kernel's lists. On t's own sentry thread. */
void task_do_exit(struct task *t);

/* What wait4/waitid report. */
struct wait_result {
	int pid;
	int status; /* wait4's status word */
	int code;   /* waitid's si_code (CLD_*) */
	int cld_status;
	uint32_t uid;
	struct rusage ru;
};

/* Wait selection for task_wait (waitid's idtype). */
#define WAIT_ANY  0 /* P_ALL */
#define WAIT_PID  1 /* P_PID */
#define WAIT_PGID 2 /* P_PGID */

/* wait4/waitid: 0 with *res (res->pid 0 for WNOHANG with nothing to report),
 * or -ECHILD, -EINVAL, -ERESTARTSYS. */
long task_wait(struct task *t, int which, int id, int options, struct wait_result *res);

/* A dead process whose tracer held back its parent's notice: the parent
 * hears of it now (TG_PTRACE_DEFER). */
void tg_parent_notify_locked(struct thread_group *tg);
/* Group exit with wait status code (a signal number, or exit status << 8). */
void tg_start_exit_locked(struct thread_group *tg, int code);
/* A stop signal's default action: every thread parks. */
void tg_start_stop_locked(struct thread_group *tg, int sig);
/* SIGCONT: a stopped (or stopping) group runs again. */
void tg_continue_locked(struct thread_group *tg);
/* The calling task takes part in its group's stop: parks until continued or
 * killed (drops k->lock while it waits). */
void task_stop_locked(struct task *t);
/* Is process group pgid orphaned (no member has a parent in another process
 * group of the same session)? Empty groups count as orphaned. */
bool pgrp_orphaned_locked(struct kernel *k, int pgid);

/* The live thread group tgid (zombies included when zombies), or NULL. */
struct thread_group *kernel_find_tg_locked(struct kernel *k, int tgid, bool zombies);

/* setpgid, setsid, getpgid, getsid with Linux's rules. */
long task_setpgid(struct task *t, int pid, int pgid);
long task_setsid(struct task *t);
long task_getpgid(struct task *t, int pid);
long task_getsid(struct task *t, int pid);

/* Signal internals shared with signal.c. */
void sigpending_init(struct sigpending *p);
void sigpending_flush(struct sigpending *p, uint64_t which);
/* Free a queue entry taken off its list, uncharging its user. */
void sigqueue_free(struct sigqueue *q);
void recalc_sigpending_locked(struct task *t);
int dequeue_signal_locked(struct task *t, uint64_t mask, siginfo_t *info);
int signal_send_locked(struct task *target, const siginfo_t *info, bool group);
int signal_send_tg_locked(struct thread_group *tg, const siginfo_t *info);
/*
 * A POSIX timer's signal, in two steps (Linux's send_sigqueue): prepare
 * applies the rules that run before any signal is queued and says whether
 * t would take sig at all (false: ignored, or t's process is dying);
 * enqueue then queues info to t (or its process) even when a standard
 * signal of that number is pending (the timer's entry is its own).
 */
bool signal_prepare_locked(struct task *t, int sig);
void signal_enqueue_locked(struct task *t, const siginfo_t *info, bool group);
/* A fault's signal: delivered even if blocked or ignored (then fatal). */
void signal_force_locked(struct task *t, const siginfo_t *info);
void signal_force(struct task *t, const siginfo_t *info);
void task_set_sigmask_locked(struct task *t, uint64_t mask);
void task_set_sigmask(struct task *t, uint64_t mask);
/* Deliver what is pending (handlers, default actions, stops) and restart an
 * interrupted system call when no handler runs. The run loop calls it. */
void signal_do_work(struct task *t);

#endif
