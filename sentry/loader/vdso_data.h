/*
 * The page rung's vDSO reads its clocks from ("vvar"), mapped read-only
 * just below the vDSO image in every guest; the sentry keeps it current
 * (sentry/loader/vdso.c) and reads its own guest clocks from the same
 * numbers, so a guest sees one clock whichever way it asks.
 *
 *   clock[c] = base[c] + ((tsc - tsc0) * mult) >> 32
 *
 * Written under a sequence count: odd while the sentry writes.
 */
#ifndef RUNG_VDSO_DATA_H
#define RUNG_VDSO_DATA_H

#include <stdint.h>

enum vdso_clock {
	VDSO_REALTIME,
	VDSO_MONOTONIC,
	VDSO_BOOTTIME,
	VDSO_TAI,
	VDSO_NCLOCKS,
};

struct vdso_data {
	uint32_t seq;
	uint32_t ok;   /* the TSC is usable: the clocks below may be read */
	uint64_t tsc0; /* the TSC at the start of this segment */
	uint64_t mult; /* nanoseconds per TSC tick, times 2^32 */
	int64_t base[VDSO_NCLOCKS];
	uint32_t getcpu_ok; /* rdtscp gives the host CPU (Linux keeps it in TSC_AUX) */
	uint32_t ncpus;	    /* the CPUs the guest is told about */
};

#define VDSO_DATA_SIZE 4096

#endif
