/*
 * Process timers, as Linux's kernel/time/itimer.c, posix-timers.c and
 * posix-cpu-timers.c: alarm and the three itimers, POSIX timers on the
 * wall clocks and on CPU-time clocks, and the CPU clocks themselves.
 *
 * Wall-clock timers are ktimers (sentry/kernel/ktimer.h). CPU time is what
 * the platform says each guest thread used (user and system time of the
 * host thread that runs it: ITIMER_VIRTUAL and ITIMER_PROF both count it;
 * the thread keeps it across exec); a process's is the sum over its live
 * threads plus thread_group->dead_utime_ns. CPU-clock timers are
 * checked by the timer thread, which looks at each armed one at the
 * earliest wall-clock time it could expire (CPU time left divided by the
 * threads that could be using it) and then at most every 4 ms (a tick at
 * HZ=250, Linux's own resolution for CPU timers) while a thread of the
 * process runs guest code, and not at all while none does (a process that
 * sleeps costs no wake-up). They fire within about 4 ms of CPU time.
 *
 * Locking: everything here is under k->lock (the callers of the *_locked
 * hooks hold it; the other entry points take it).
 */
#ifndef RUNG_TIMERS_H
#define RUNG_TIMERS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct kernel;
struct task;
struct thread_group;
struct tg_timers;

/* A timer setting in ns (itimerval, itimerspec): 0 is "disarmed". */
struct timer_setting {
	uint64_t value;
	uint64_t interval;
};

/* The sigevent of timer_create (the kernel's layout, 64 bytes). */
struct ksigevent {
	uint64_t value;
	int32_t signo;
	int32_t notify;
	int32_t tid; /* SIGEV_THREAD_ID */
	int32_t pad[11];
};

/* Guest CPU time task t used, in ns (see above). */
uint64_t task_cpu_time_ns(struct task *t);

/* CPU clocks (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, and the
 * clocks of other threads and processes): the time, and the resolution.
 * 0, or -EINVAL for a clock id that names nothing. */
int cpu_clock_read(struct task *t, clockid_t clk, uint64_t *ns);
int cpu_clock_getres(struct task *t, clockid_t clk, uint64_t *ns);

/*
 * clock_nanosleep on a CPU clock (Linux's posix_cpu_nsleep): sleep until
 * clk reaches req (abs) or req from now, *expires set to that CPU time.
 * 0 when it did, -EINVAL for a clock that names nothing or the caller's
 * own thread clock, -EINTR when interrupted (*left: CPU time still to go).
 */
long cpu_clock_sleep(struct task *t, clockid_t clk, bool abs, uint64_t req, uint64_t *expires,
		     uint64_t *left);

/* alarm(2): returns the seconds that were left (rounded as Linux does). */
unsigned itimer_alarm(struct task *t, unsigned seconds);
/* getitimer/setitimer on ITIMER_REAL, VIRTUAL or PROF (-EINVAL otherwise). */
long itimer_get(struct task *t, int which, struct timer_setting *cur);
long itimer_set(struct task *t, int which, const struct timer_setting *set,
		struct timer_setting *old);

/* POSIX timers. create: ev is NULL for "SIGALRM with the id as value". */
long ptimer_create(struct task *t, clockid_t clk, const struct ksigevent *ev, int *id);
long ptimer_settime(struct task *t, int id, int flags, const struct timer_setting *set,
		    struct timer_setting *old);
long ptimer_gettime(struct task *t, int id, struct timer_setting *cur);
long ptimer_getoverrun(struct task *t, int id);
long ptimer_delete(struct task *t, int id);

/* task_main, around each switch to the guest: who runs guest code matters
 * to CPU-timer checking. leave takes what enter returned. */
struct tg_timers *timers_guest_enter(struct task *t);
void timers_guest_leave(struct tg_timers *tt);

/* Hooks of the process core. */
/* A signal was dequeued: re-arm ITIMER_REAL (SIGALRM) or its POSIX timer. */
void timers_dequeued_locked(struct task *t, siginfo_t *info);
/* exec (past the point of no return): POSIX timers are deleted and their
 * pending signals discarded; itimers stay. */
void timers_exec(struct task *t);
/* t is leaving its thread group (it is off tg->threads): its CPU clock stops. */
void timers_thread_exit_locked(struct task *t);
/* The last thread of tg left: every timer of tg goes, and every timer on
 * its CPU clock stops. */
void timers_group_exit_locked(struct thread_group *tg);
/* The sandbox is gone (every task exited): free the timers' state. */
void timers_kernel_destroy(struct kernel *k);

#endif
