/*
 * Facts about the host read once at boot, before the sandbox loses its view
 * of the host filesystem (procfs and sysfs show them).
 */
#ifndef RUNG_HOSTINFO_H
#define RUNG_HOSTINFO_H

#include <stdint.h>

void hostinfo_capture(void);
/* The host's RAM in bytes (sysinfo; 4 GiB where it cannot be told): the
 * guest's memory limit when none is given. */
uint64_t host_ram_bytes(void);
/* The host's /proc/cpuinfo text, or NULL. */
const char *host_cpuinfo(void);

/* net.core.wmem_max and rmem_max: the largest SO_SNDBUF and SO_RCVBUF.
 * Global in Linux (a container's network namespace has the host's), so
 * the host's; Linux's default where it cannot be read. */
uint32_t host_wmem_max(void);
uint32_t host_rmem_max(void);

struct timex;
/* The host's adjtimex state at boot (modes 0: its time field is stale)
 * and its remaining adjtime offset; returns the clock state (TIME_OK ...)
 * or -1 when it could not be read. */
int host_timex(struct timex *tx, long *adjust);

#endif
