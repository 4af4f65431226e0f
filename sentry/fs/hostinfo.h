/*
 * Facts about the host read once at boot, before the sandbox loses its view
 * of the host filesystem (procfs and sysfs show them).
 */
#ifndef RUNG_HOSTINFO_H
#define RUNG_HOSTINFO_H

void hostinfo_capture(void);
/* The host's /proc/cpuinfo text, or NULL. */
const char *host_cpuinfo(void);

#endif
