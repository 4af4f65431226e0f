/*
 * Clocks and sleeping. The guest sees the host's clocks (a sandbox clock
 * offset comes with checkpointing); CPU clocks are sentry/kernel/timers.c's
 * (each thread's guest CPU time, a process's summed over its threads).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/timers.h"
#include "sentry/mm/mm.h"
#include "sentry/loader/vdso.h"
#include "lib/util.h"

#include <errno.h>
#include <sched.h>
#include <sys/time.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ull
#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* The tick length behind the coarse clocks (Debian's HZ=250). */
#define COARSE_RES_NS 4000000

struct ktimespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

/* The guest's clocks are the vDSO's (the host's, carried by the TSC). */
static uint64_t host_now(clockid_t clk)
{
	return vclock_now(clk);
}

/* The value of guest clock clk in ns, or -EINVAL. */
static int64_t clock_read(struct task *t, clockid_t clk)
{
	uint64_t ns;
	int ret;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_REALTIME_ALARM:
		return (int64_t)host_now(CLOCK_REALTIME);
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_MONOTONIC_RAW:
		return (int64_t)host_now(CLOCK_MONOTONIC);
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		return (int64_t)host_now(CLOCK_BOOTTIME);
	case CLOCK_TAI:
		return (int64_t)host_now(CLOCK_TAI);
	default:
		if (clk != CLOCK_PROCESS_CPUTIME_ID && clk != CLOCK_THREAD_CPUTIME_ID && clk >= 0)
			return -EINVAL;
		ret = cpu_clock_read(t, clk, &ns);
		return ret < 0 ? ret : (int64_t)MIN(ns, (uint64_t)INT64_MAX);
	}
}

static struct ktimespec ns_to_kts(uint64_t ns)
{
	return (struct ktimespec){.tv_sec = (int64_t)(ns / NSEC_PER_SEC),
				  .tv_nsec = (int64_t)(ns % NSEC_PER_SEC)};
}

SYSCALL(clock_gettime)
{
	int64_t ns = clock_read(t, (clockid_t)a->a[0]);
	struct ktimespec ts;

	if (ns < 0)
		return ns;
	ts = ns_to_kts((uint64_t)ns);
	return mm_copy_out(t->mm, a->a[1], &ts, sizeof(ts));
}

SYSCALL(clock_getres)
{
	clockid_t clk = (clockid_t)a->a[0];
	struct ktimespec ts = {0, 1};
	uint64_t res;

	if (clk < 0 || clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID) {
		if (cpu_clock_getres(t, clk, &res) < 0)
			return -EINVAL;
		ts.tv_nsec = (int64_t)res;
	} else if (clock_read(t, clk) < 0) {
		return -EINVAL;
	}
	if (clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE)
		ts.tv_nsec = COARSE_RES_NS;
	if (!a->a[1])
		return 0;
	return mm_copy_out(t->mm, a->a[1], &ts, sizeof(ts));
}

SYSCALL(gettimeofday)
{
	uint64_t ns = host_now(CLOCK_REALTIME);
	struct {
		int64_t sec, usec;
	} tv = {(int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC / 1000)};
	struct {
		int32_t minuteswest, dsttime;
	} tz = {0, 0};

	if (a->a[0] && mm_copy_out(t->mm, a->a[0], &tv, sizeof(tv)) < 0)
		return -EFAULT;
	if (a->a[1] && mm_copy_out(t->mm, a->a[1], &tz, sizeof(tz)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(time)
{
	int64_t now = (int64_t)(host_now(CLOCK_REALTIME) / NSEC_PER_SEC);

	if (a->a[0] && mm_copy_out(t->mm, a->a[0], &now, sizeof(now)) < 0)
		return -EFAULT;
	return now;
}

/* Copy in and validate a sleep request. */
static long timespec_in(struct task *t, uint64_t addr, uint64_t *ns)
{
	struct ktimespec ts;

	if (mm_copy_in(t->mm, &ts, addr, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (int64_t)NSEC_PER_SEC)
		return -EINVAL;
	if ((uint64_t)ts.tv_sec > (UINT64_MAX / 2) / NSEC_PER_SEC)
		*ns = UINT64_MAX / 2; /* "forever" */
	else
		*ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	return 0;
}

/* Sleep until the CLOCK_MONOTONIC deadline; interrupted, store what is left in
 * rem and ask to be restarted (restart_syscall sleeps on until deadline). */
static long sleep_until_restartable(struct task *t, uint64_t deadline, uint64_t rem_addr);

static long nanosleep_restart(struct task *t, struct restart_block *rb)
{
	return sleep_until_restartable(t, rb->arg[0], rb->arg[1]);
}

static long sleep_until_restartable(struct task *t, uint64_t deadline, uint64_t rem_addr)
{
	long ret = task_sleep_until(t, CLOCK_MONOTONIC, deadline);

	if (ret != -EINTR)
		return ret;
	if (rem_addr) {
		uint64_t now = host_now(CLOCK_MONOTONIC);
		struct ktimespec left = ns_to_kts(now < deadline ? deadline - now : 0);
		if (mm_copy_out(t->mm, rem_addr, &left, sizeof(left)) < 0)
			return -EFAULT;
	}
	t->restart.fn = nanosleep_restart;
	t->restart.arg[0] = deadline;
	t->restart.arg[1] = rem_addr;
	return -ERESTART_RESTARTBLOCK;
}

static long sleep_relative(struct task *t, uint64_t rel, uint64_t rem_addr)
{
	return sleep_until_restartable(t, host_now(CLOCK_MONOTONIC) + rel, rem_addr);
}

SYSCALL(nanosleep)
{
	uint64_t rel;
	long ret = timespec_in(t, a->a[0], &rel);

	if (ret < 0)
		return ret;
	return sleep_relative(t, rel, a->a[1]);
}

/* A sleep on a CPU clock until the absolute CPU time expires; interrupted,
 * the time left goes to rem_addr and restart_syscall goes on. */
static long cpu_sleep_restartable(struct task *t, clockid_t clk, bool abs, uint64_t req,
				  uint64_t rem_addr);

static long cpu_nanosleep_restart(struct task *t, struct restart_block *rb)
{
	return cpu_sleep_restartable(t, (clockid_t)rb->arg[0], true, rb->arg[1], rb->arg[2]);
}

static long cpu_sleep_restartable(struct task *t, clockid_t clk, bool abs, uint64_t req,
				  uint64_t rem_addr)
{
	uint64_t expires = 0, left = 0;
	long ret = cpu_clock_sleep(t, clk, abs, req, &expires, &left);

	if (ret != -EINTR)
		return ret;
	if (rem_addr) {
		struct ktimespec rem = ns_to_kts(left);
		if (mm_copy_out(t->mm, rem_addr, &rem, sizeof(rem)) < 0)
			return -EFAULT;
	}
	t->restart.fn = cpu_nanosleep_restart;
	t->restart.arg[0] = (uint64_t)(int64_t)clk;
	t->restart.arg[1] = expires;
	t->restart.arg[2] = rem_addr;
	return -ERESTART_RESTARTBLOCK;
}

SYSCALL(clock_nanosleep)
{
	clockid_t clk = (clockid_t)a->a[0];
	bool abs = a->a[1] & TIMER_ABSTIME;
	uint64_t req, now, mono;
	long ret;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	case CLOCK_THREAD_CPUTIME_ID:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		return -EOPNOTSUPP; /* clocks Linux cannot sleep on */
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		return -EOPNOTSUPP; /* no RTC (as Linux without one) */
	case CLOCK_PROCESS_CPUTIME_ID:
		break;
	default:
		if (clk >= 0)
			return -EINVAL;
		if ((clk & 7) == 3)
			return -EOPNOTSUPP; /* a clock of a file descriptor */
		break;
	}
	ret = timespec_in(t, a->a[2], &req);
	if (ret < 0)
		return ret;
	if (clk == CLOCK_PROCESS_CPUTIME_ID || clk < 0) {
		ret = cpu_sleep_restartable(t, clk, abs, req, abs ? 0 : a->a[3]);
		return abs && ret == -ERESTART_RESTARTBLOCK ? -ERESTARTNOHAND : ret;
	}
	if (!abs)
		return sleep_relative(t, req, a->a[3]);
	/* Absolute sleeps restart with the same arguments (ERESTARTNOHAND). */
	if (clk == CLOCK_REALTIME) {
		ret = task_sleep_until(t, CLOCK_REALTIME, req);
		return ret == -EINTR ? -ERESTARTNOHAND : ret;
	}
	/* Other absolute clocks: translate the deadline to CLOCK_MONOTONIC. */
	now = (uint64_t)clock_read(t, clk);
	mono = host_now(CLOCK_MONOTONIC);
	if (req <= now)
		return 0;
	ret = task_sleep_until(t, CLOCK_MONOTONIC, mono + (req - now));
	return ret == -EINTR ? -ERESTARTNOHAND : ret;
}

SYSCALL(getcpu)
{
	int cpu = sched_getcpu();
	unsigned c = cpu < 0 ? 0 : (unsigned)cpu % t->k->ncpus, node = 0;

	if (a->a[0] && mm_copy_out(t->mm, a->a[0], &c, sizeof(c)) < 0)
		return -EFAULT;
	if (a->a[1] && mm_copy_out(t->mm, a->a[1], &node, sizeof(node)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(futex)
{
	return do_futex(t, a->a[0], (int)a->a[1], (uint32_t)a->a[2], a->a[3], a->a[4],
			(uint32_t)a->a[5]);
}
