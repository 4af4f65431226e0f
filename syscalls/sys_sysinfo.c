/*
 * sysinfo(2): the sandbox's memory, uptime, load and task count, the same
 * figures /proc/meminfo, /proc/uptime and /proc/loadavg show
 * (sentry/kernel/sysinfo.h). glibc's sysconf(_SC_PHYS_PAGES) and
 * (_SC_AVPHYS_PAGES) come from here, and so does the buffer size sort
 * chooses.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/sysinfo.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <string.h>
#include <sys/sysinfo.h>

SYSCALL(sysinfo)
{
	uint64_t up = sandbox_uptime_ns(t->k);
	struct sandbox_mem m;
	struct sysinfo si;

	sandbox_mem(t->k, &m);
	memset(&si, 0, sizeof(si));
	/* Whole seconds, rounded up as Linux's do_sysinfo rounds them. */
	si.uptime = (long)((up + 999999999ull) / 1000000000ull);
	/* loads[] stay 0, as /proc/loadavg's 0.00: no load average is kept. */
	si.totalram = m.total;
	si.freeram = m.free;
	si.procs = (unsigned short)MIN(sandbox_tasks(t->k), 0xffffu);
	/* 64-bit byte counts: Linux then reports a unit of one byte. */
	si.mem_unit = 1;
	return mm_copy_out(t->mm, a->a[0], &si, sizeof(si));
}
