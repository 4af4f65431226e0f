/*
 * The figures the sandbox gives about itself as a whole: its memory, uptime,
 * load and task count. /proc/meminfo, /proc/uptime, /proc/loadavg and
 * sysinfo(2) all take them from here, so that a program comparing them (as
 * glibc's sysconf and procps' free do) finds them consistent.
 *
 * Memory: the total is the sandbox's memory limit (what the guest may
 * hold); used is what the memory account counts (sentry/mm/memacct.h); free
 * is the rest. There is no swap, and no page cache the guest could reclaim
 * apart from what the account already counts, so available equals free.
 */
#ifndef RUNG_SYSINFO_H
#define RUNG_SYSINFO_H

#include <stdint.h>

struct kernel;

struct sandbox_mem {
	uint64_t total;	    /* bytes */
	uint64_t used;	    /* bytes the memory account holds */
	uint64_t free;	    /* total - used, 0 when over */
	uint64_t committed; /* bytes handed out of the memory file, touched or not */
};

void sandbox_mem(struct kernel *k, struct sandbox_mem *m);

/* Nanoseconds since the sandbox booted (CLOCK_MONOTONIC). */
uint64_t sandbox_uptime_ns(struct kernel *k);

/* Tasks (threads) alive in the sandbox now. */
unsigned sandbox_tasks(struct kernel *k);

#endif
