/*
 * rung's own vDSO (the guest side is sentry/loader/vdso/guest.c): an image
 * and a data page kept in the memory file, mapped into every new image at
 * exec (AT_SYSINFO_EHDR), and the guest clocks both the vDSO and the
 * sentry's system calls read.
 */
#ifndef RUNG_VDSO_H
#define RUNG_VDSO_H

#include <stdint.h>
#include <time.h>

struct memfile;
struct mm;
struct vdso;

/* A vDSO in mf, for guests told about ncpus CPUs. *out is NULL (and 0 is
 * returned) when RUNG_VDSO=0 asks for none. */
int vdso_create(struct memfile *mf, unsigned ncpus, struct vdso **out);
void vdso_destroy(struct vdso *v);
/* Map the data page and the image into mm (read-only for good); *ehdr is the
 * image's address. */
int vdso_map(struct vdso *v, struct mm *mm, uint64_t *ehdr);
/* Guest clock clk (REALTIME, MONOTONIC, BOOTTIME, TAI and their variants)
 * now, in nanoseconds: the numbers the vDSO reads, or the host's clock when
 * the TSC cannot be used. */
uint64_t vclock_now(clockid_t clk);

#endif
