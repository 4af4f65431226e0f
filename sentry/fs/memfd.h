/* Files of anonymous shared memory: memfd_create's, and System V shared
 * memory segments (Linux's shmem_file_setup on its internal shm_mnt). */
#ifndef RUNG_MEMFD_H
#define RUNG_MEMFD_H

#include <stdint.h>

struct creds;
struct file;
struct kernel;

/* A new read-write file on the sandbox's internal tmpfs, with no name in
 * any directory: name is what /proc shows for it ("memfd:x", "SYSV..."),
 * size its length (0: empty). 0 or -errno (ENOSPC past the memory limit). */
int memfd_file_new(struct kernel *k, const char *name, uint64_t size, const struct creds *c,
		   struct file **out);

#endif
