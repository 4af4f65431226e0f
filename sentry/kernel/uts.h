/* What uname(2) and /proc/sys/kernel/{ostype,osrelease,version} report: a
 * fixed, documented identity (docs/syscalls.md). */
#ifndef RUNG_UTS_H
#define RUNG_UTS_H

#define UTS_SYSNAME "Linux"
#define UTS_RELEASE "6.1.0-rung"
#define UTS_VERSION "#1 SMP PREEMPT_DYNAMIC rung"
#define UTS_MACHINE "x86_64"

#endif
