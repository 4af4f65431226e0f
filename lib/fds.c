#include "config.h"
#include "lib/fds.h"
#include "lib/log.h"

#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* [lo, hi] closed; hi == UINT_MAX: every descriptor from lo up. */
static void close_span(unsigned lo, unsigned hi)
{
	struct rlimit r;

	if (syscall(SYS_close_range, lo, hi, 0) == 0 || errno != ENOSYS)
		return;
	/* Before Linux 5.9, every descriptor below the hard limit (one opened
	 * before the limit was lowered may stay: such kernels cannot start
	 * the gofer, whose spawn needs close_range, in any case). */
	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_max > INT_MAX)
		r.rlim_max = INT_MAX;
	for (unsigned fd = lo; fd <= hi && fd < r.rlim_max; fd++)
		close((int)fd);
}

void fds_close_from(int lo, const int *keep, size_t n)
{
	for (;;) {
		int next = INT_MAX;
		for (size_t i = 0; i < n; i++)
			if (keep[i] >= lo && keep[i] < next)
				next = keep[i];
		if (next == INT_MAX) {
			close_span((unsigned)lo, UINT_MAX);
			return;
		}
		if (next > lo)
			close_span((unsigned)lo, (unsigned)next - 1);
		lo = next + 1;
	}
}

void fds_close_inherited(void)
{
	int log = rung_log_fd();

	fds_close_from(3, &log, 1);
}
