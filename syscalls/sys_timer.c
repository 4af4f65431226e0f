/*
 * Timer system calls: alarm, getitimer/setitimer and the POSIX timers.
 * Guest structures are copied in once and validated here (Linux's order of
 * checks); the timers themselves are sentry/kernel/timers.c's.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/timers.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define NSEC_PER_SEC  1000000000ll
#define NSEC_PER_USEC 1000ll
#define USEC_PER_SEC  1000000ll
/* ktime_t's range: later times are clamped to KTIME_MAX (timespec64_to_ktime). */
#define KTIME_MAX     INT64_MAX
#define KTIME_SEC_MAX (KTIME_MAX / NSEC_PER_SEC)

/* The kernel's struct __kernel_old_itimerval and __kernel_itimerspec. */
struct kitimerval {
	int64_t interval_sec, interval_usec;
	int64_t value_sec, value_usec;
};

struct kitimerspec {
	int64_t interval_sec, interval_nsec;
	int64_t value_sec, value_nsec;
};

static uint64_t to_ns(int64_t sec, int64_t nsec)
{
	if (sec >= KTIME_SEC_MAX)
		return KTIME_MAX;
	return (uint64_t)sec * NSEC_PER_SEC + (uint64_t)nsec;
}

/* timeval_valid: a non-negative second count, microseconds in [0, 1e6). */
static bool timeval_ok(int64_t sec, int64_t usec)
{
	return sec >= 0 && (uint64_t)usec < USEC_PER_SEC;
}

/* timespec64_valid. */
static bool timespec_ok(int64_t sec, int64_t nsec)
{
	return sec >= 0 && (uint64_t)nsec < NSEC_PER_SEC;
}

static struct kitimerval to_itimerval(const struct timer_setting *s)
{
	return (struct kitimerval){
		.interval_sec = (int64_t)(s->interval / NSEC_PER_SEC),
		.interval_usec = (int64_t)(s->interval % NSEC_PER_SEC / NSEC_PER_USEC),
		.value_sec = (int64_t)(s->value / NSEC_PER_SEC),
		.value_usec = (int64_t)(s->value % NSEC_PER_SEC / NSEC_PER_USEC),
	};
}

static struct kitimerspec to_itimerspec(const struct timer_setting *s)
{
	return (struct kitimerspec){
		.interval_sec = (int64_t)(s->interval / NSEC_PER_SEC),
		.interval_nsec = (int64_t)(s->interval % NSEC_PER_SEC),
		.value_sec = (int64_t)(s->value / NSEC_PER_SEC),
		.value_nsec = (int64_t)(s->value % NSEC_PER_SEC),
	};
}

SYSCALL(alarm)
{
	return itimer_alarm(t, (unsigned)a->a[0]);
}

SYSCALL(getitimer)
{
	struct timer_setting cur;
	struct kitimerval v;
	long ret = itimer_get(t, (int)a->a[0], &cur);

	if (ret < 0)
		return ret;
	v = to_itimerval(&cur);
	return mm_copy_out(t->mm, a->a[1], &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

SYSCALL(setitimer)
{
	struct timer_setting set = {0, 0}, old;
	struct kitimerval v;
	long ret;

	/* A NULL new value disarms (a misfeature Linux keeps). */
	if (a->a[1]) {
		if (mm_copy_in(t->mm, &v, a->a[1], sizeof(v)) < 0)
			return -EFAULT;
		if (!timeval_ok(v.value_sec, v.value_usec) ||
		    !timeval_ok(v.interval_sec, v.interval_usec))
			return -EINVAL;
		set.value = to_ns(v.value_sec, v.value_usec * NSEC_PER_USEC);
		set.interval = to_ns(v.interval_sec, v.interval_usec * NSEC_PER_USEC);
	}
	ret = itimer_set(t, (int)a->a[0], &set, a->a[2] ? &old : NULL);
	if (ret < 0 || !a->a[2])
		return ret;
	v = to_itimerval(&old);
	return mm_copy_out(t->mm, a->a[2], &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

SYSCALL(timer_create)
{
	struct ksigevent ev;
	int id;
	long ret;

	if (a->a[1] && mm_copy_in(t->mm, &ev, a->a[1], sizeof(ev)) < 0)
		return -EFAULT;
	ret = ptimer_create(t, (clockid_t)a->a[0], a->a[1] ? &ev : NULL, &id);
	if (ret < 0)
		return ret;
	if (mm_copy_out(t->mm, a->a[2], &id, sizeof(id)) < 0) {
		ptimer_delete(t, id);
		return -EFAULT;
	}
	return 0;
}

SYSCALL(timer_settime)
{
	struct timer_setting set, old;
	struct kitimerspec v;
	long ret;

	if (!a->a[2])
		return -EINVAL;
	if (mm_copy_in(t->mm, &v, a->a[2], sizeof(v)) < 0)
		return -EFAULT;
	if (!timespec_ok(v.interval_sec, v.interval_nsec) ||
	    !timespec_ok(v.value_sec, v.value_nsec))
		return -EINVAL;
	set.value = to_ns(v.value_sec, v.value_nsec);
	set.interval = to_ns(v.interval_sec, v.interval_nsec);
	ret = ptimer_settime(t, (int)a->a[0], (int)a->a[1], &set, a->a[3] ? &old : NULL);
	if (ret < 0 || !a->a[3])
		return ret;
	v = to_itimerspec(&old);
	return mm_copy_out(t->mm, a->a[3], &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

SYSCALL(timer_gettime)
{
	struct timer_setting cur;
	struct kitimerspec v;
	long ret = ptimer_gettime(t, (int)a->a[0], &cur);

	if (ret < 0)
		return ret;
	v = to_itimerspec(&cur);
	return mm_copy_out(t->mm, a->a[1], &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

SYSCALL(timer_getoverrun)
{
	return ptimer_getoverrun(t, (int)a->a[0]);
}

SYSCALL(timer_delete)
{
	return ptimer_delete(t, (int)a->a[0]);
}
