/*
 * Scheduling attributes of a task (Linux's kernel/sched/core.c and the
 * priority calls of kernel/sys.c): policy and real-time priority, nice,
 * CPU affinity and timer slack. They are recorded, inherited and reported
 * with Linux's rules; the host schedules every sentry and stub thread as
 * an ordinary one, so SCHED_FIFO/SCHED_RR have no real-time behaviour,
 * nice values do not change how much CPU a task gets, and an affinity mask
 * does not pin the task to a host CPU.
 *
 * A task's own thread changes its attributes under the kernel's task lock
 * (others read and, with permission, change them under it too).
 */
#ifndef RUNG_SCHED_H
#define RUNG_SCHED_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct task;

/* CPUs an affinity mask can name (sched_setaffinity's bits beyond are ignored). */
#define SCHED_MAX_CPUS	 1024
#define SCHED_MASK_WORDS (SCHED_MAX_CPUS / 64)
#define SCHED_RESET_FLAG 0x40000000 /* SCHED_RESET_ON_FORK */
#define TIMER_SLACK_NS	 50000ull   /* Linux's default timer slack */
#define NICE_MIN	 (-20)
#define NICE_MAX	 19
#define RT_PRIO_MAX	 99
#define RR_TIMESLICE_NS	 100000000ull /* sched_rr_timeslice: 100 ms */

struct task_sched {
	int policy;	 /* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR */
	int rt_priority; /* 1..99 for SCHED_FIFO/SCHED_RR, else 0 */
	int nice;	 /* -20..19 */
	bool reset_on_fork;
	/* Timer slack and the value PR_SET_TIMERSLACK 0 returns to; 0 means
	 * TIMER_SLACK_NS (a zeroed task has the defaults). */
	uint64_t timer_slack_ns, default_slack_ns;
	/* CPUs the task may run on; all zero means every CPU of the sandbox. */
	uint64_t affinity[SCHED_MASK_WORDS];
};

/* What a clone child inherits (sched_fork: SCHED_RESET_ON_FORK honoured;
 * the child's default timer slack is the parent's current one). */
void sched_fork(struct task_sched *child, const struct task_sched *parent);

/* The timer slack in ns (PR_GET_TIMERSLACK), and the value PR_SET_TIMERSLACK
 * 0 restores (the parent's slack when the task was forked). */
uint64_t sched_timer_slack(const struct task_sched *s);
uint64_t sched_timer_slack_default(const struct task_sched *s);

/*
 * The permission and range checks of setpriority (set_one_prio): may t set
 * p's nice to nice (already clamped)? 0, -EPERM (not p's owner, no
 * CAP_SYS_NICE) or -EACCES (lowering beyond RLIMIT_NICE). Under k->lock.
 */
int sched_may_set_nice_locked(struct task *t, struct task *p, int nice);

/* sched_setscheduler/sched_setparam on p (policy -1: keep the policy),
 * with Linux's checks. Under k->lock. */
int sched_setscheduler_locked(struct task *t, struct task *p, int policy, int prio);

/* The sandbox's CPUs as a mask (ncpus bits). */
void sched_all_cpus(const struct kernel *k, uint64_t mask[SCHED_MASK_WORDS]);
/* t's affinity mask, restricted to the sandbox's CPUs. */
void sched_get_affinity(const struct task *t, uint64_t mask[SCHED_MASK_WORDS]);

/* The round-robin interval sched_rr_get_interval reports for p, in ns. */
uint64_t sched_rr_interval_ns(const struct task *p);

/*
 * membarrier: every other task that is running guest code at the time of
 * the call (in t's address space when mm_only, else in the sandbox) passes
 * through the sentry before this returns: it is interrupted, and stopping
 * a host thread and resuming it is a full memory barrier (and, as it
 * returns to user mode with IRET, a core-serialising one). A task in the
 * sentry meanwhile needs nothing: it crosses one before it runs guest
 * code again.
 */
void sched_membarrier(struct task *t, bool mm_only);

#endif
