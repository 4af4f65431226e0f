/*
 * adjtimex and clock_adjtime: the clock discipline is the host's, so the
 * guest may read it (what Linux's do_adjtimex gives a caller without
 * CAP_SYS_TIME: the state, the current time) but change nothing: every
 * mode that sets is EPERM, as settimeofday is (kernel/time/timekeeping.c).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/fs/hostinfo.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

/* The kernel's own names for the adjtime bits (uapi linux/timex.h). */
#define K_ADJ_OFFSET_SINGLESHOT 0x0001
#define K_ADJ_OFFSET_READONLY	0x2000
#define K_ADJ_ADJTIME		0x8000

/* Linux's timekeeping_validate_timex for a caller without CAP_SYS_TIME,
 * then the read-only answer in tx. The clock state, or -errno. */
static int adjtime_read(struct timex *tx)
{
	unsigned modes = tx->modes;
	struct timespec now;
	struct timex host;
	long adjust;
	int state;

	if (modes & K_ADJ_ADJTIME) {
		if (!(modes & K_ADJ_OFFSET_SINGLESHOT))
			return -EINVAL;
		if (!(modes & K_ADJ_OFFSET_READONLY))
			return -EPERM;
	} else if (modes) {
		return -EPERM;
	}
	state = host_timex(&host, &adjust);
	if (state < 0)
		return -EPERM;
	host.modes = tx->modes;
	if (modes & K_ADJ_ADJTIME)
		host.offset = adjust; /* adjtime's offset still to apply */
	clock_gettime(CLOCK_REALTIME, &now);
	host.time.tv_sec = now.tv_sec;
	host.time.tv_usec = (host.status & STA_NANO) ? now.tv_nsec : now.tv_nsec / 1000;
	*tx = host;
	return state;
}

SYSCALL(adjtimex)
{
	struct timex tx;
	int ret;

	if (mm_copy_in(t->mm, &tx, a->a[0], sizeof(tx)) < 0)
		return -EFAULT;
	ret = adjtime_read(&tx);
	/* The structure goes back even when the call fails (Linux does so). */
	return mm_copy_out(t->mm, a->a[0], &tx, sizeof(tx)) < 0 ? -EFAULT : ret;
}

/* Linux's clock ids: which exist (posix_clocks[]); only CLOCK_REALTIME
 * has clock_adj. Negative ids are CPU clocks (no clock_adj) or dynamic
 * clocks on a descriptor (the sandbox has no PTP devices: EINVAL). */
static int clock_adj_check(int id)
{
	if (id < 0)
		return (id & 7) == 3 ? -EINVAL : -EOPNOTSUPP;
	if (id == CLOCK_REALTIME)
		return 0;
	if (id >= 16 || id == 10 || id > CLOCK_TAI)
		return -EINVAL;
	return -EOPNOTSUPP;
}

SYSCALL(clock_adjtime)
{
	struct timex tx;
	int ret;

	if (mm_copy_in(t->mm, &tx, a->a[1], sizeof(tx)) < 0)
		return -EFAULT;
	ret = clock_adj_check((int)a->a[0]);
	if (!ret)
		ret = adjtime_read(&tx);
	if (ret >= 0 && mm_copy_out(t->mm, a->a[1], &tx, sizeof(tx)) < 0)
		return -EFAULT;
	return ret;
}
