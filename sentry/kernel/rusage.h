/*
 * Resource usage: CPU times and peak memory of tasks and processes
 * (getrusage, times, wait4's rusage, /proc).
 *
 * A task's user time is its guest CPU time (task_cpu_time_ns: on the
 * ptrace platform, its share of the stub process's CPU clock); its system
 * time is the CPU time of its sentry thread, which does the kernel's work
 * for it.
 * Peak memory is the most guest memory the process had committed (its
 * address space's VMAs with memory behind them), not a count of resident
 * pages: the sandbox does not track which pages the guest touched.
 */
#ifndef RUNG_RUSAGE_H
#define RUNG_RUSAGE_H

#include <stdint.h>

struct mm;
struct task;
struct thread_group;

/* CPU time of the calling sentry thread (the system time of its task). */
uint64_t rusage_self_sentry_ns(void);

/* User and system time of the live task t, in ns (under k->lock when t is
 * not the caller's task: its threads exist until it leaves the lists). */
void rusage_task_times(struct task *t, uint64_t *utime, uint64_t *stime);

/* The process's user and system time: its live threads and the dead ones.
 * Under k->lock. */
void rusage_tg_times_locked(struct thread_group *tg, uint64_t *utime, uint64_t *stime);

/* Remember the peak of mm in tg's maxrss (at exit and exec). */
void rusage_note_mm_locked(struct thread_group *tg, struct mm *mm);
void rusage_note_mm(struct task *t, struct mm *mm);

#endif
