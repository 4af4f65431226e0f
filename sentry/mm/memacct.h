/*
 * The sandbox's memory account: what the guest makes the sandbox hold on
 * the host, against one limit (rung do --memory-limit, a container's
 * memory limit). One per memory file, so everything that allocates guest
 * memory reaches it.
 *
 * Usage is two parts:
 *  - the memory file's pages: every process's memory, tmpfs and overlay
 *    data, page caches, copies made on write. fstat's st_blocks counts
 *    each page the host gave the file, however it got there (a stub's
 *    store to a fresh page included), so this part is measured, not kept;
 *  - the kernel's own buffers in the sentry's heap: pipe rings, queued
 *    unix socket messages, the network stack's queues, tmpfs inodes,
 *    charged by their owners and uncharged when they go.
 *
 * What the sentry allocates asks first and fails as Linux does when the
 * room is not there (ENOSPC for tmpfs data, ENOMEM for a pipe, ENOBUFS for
 * a socket); that room ends a little below the limit (1/64 of it, at most
 * 4 MiB), kept for the guest's own page faults. A guest's stores to memory it has mapped are seen only after
 * the fact, by the out-of-memory monitor (sentry/kernel/oom.c).
 */
#ifndef RUNG_MEMACCT_H
#define RUNG_MEMACCT_H

#include <stdbool.h>
#include <stdint.h>

struct memacct {
	int fd;		/* the memory file */
	uint64_t limit; /* bytes; UINT64_MAX: none */
	uint64_t kmem;	/* bytes charged for the kernel's buffers (atomic) */
};

void memacct_init(struct memacct *a, int fd, uint64_t limit);
void memacct_set_limit(struct memacct *a, uint64_t limit);

/* The memory file's pages, in bytes. */
uint64_t memacct_file_bytes(const struct memacct *a);
/* The kernel's buffers, in bytes. */
uint64_t memacct_kmem(const struct memacct *a);
/* Everything: the memory file's pages and the kernel's buffers. */
uint64_t memacct_usage(const struct memacct *a);
/* What refusable allocations have left (0 when none). */
uint64_t memacct_room(const struct memacct *a);
/* May the sandbox hold bytes more? */
bool memacct_fits(const struct memacct *a, uint64_t bytes);

/* Charge bytes of kernel buffers: 0, or -ENOMEM when they would not fit
 * (nothing is charged then). */
int memacct_charge(struct memacct *a, uint64_t bytes);
/* Charge whatever the usage (what cannot be refused any more). */
void memacct_charge_force(struct memacct *a, uint64_t bytes);
void memacct_uncharge(struct memacct *a, uint64_t bytes);

#endif
