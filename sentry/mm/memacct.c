/* The sandbox's memory account (memacct.h). */
#include "config.h"
#include "sentry/mm/memacct.h"
#include "lib/util.h"

#include <errno.h>
#include <sys/stat.h>

void memacct_init(struct memacct *a, int fd, uint64_t limit)
{
	a->fd = fd;
	a->limit = limit ? limit : UINT64_MAX;
	a->kmem = 0;
}

void memacct_set_limit(struct memacct *a, uint64_t limit)
{
	__atomic_store_n(&a->limit, limit ? limit : UINT64_MAX, __ATOMIC_RELAXED);
}

uint64_t memacct_file_bytes(const struct memacct *a)
{
	struct stat st;

	/* st_blocks is in 512-byte units whatever the file system's block size. */
	if (a->fd < 0 || fstat(a->fd, &st) < 0)
		return 0;
	return (uint64_t)st.st_blocks * 512;
}

uint64_t memacct_kmem(const struct memacct *a)
{
	return __atomic_load_n(&a->kmem, __ATOMIC_RELAXED);
}

uint64_t memacct_usage(const struct memacct *a)
{
	return memacct_file_bytes(a) + memacct_kmem(a);
}

/* What refusable allocations may fill: the limit less a headroom kept for
 * what cannot be refused (the guest's own page faults), so that a process
 * that was just told ENOSPC or ENOMEM can still run its error path before
 * the out-of-memory monitor finds the sandbox over its limit. */
static uint64_t refusable_limit(uint64_t limit)
{
	return limit - MIN(limit / 64, 4ull << 20);
}

uint64_t memacct_room(const struct memacct *a)
{
	uint64_t limit = __atomic_load_n(&a->limit, __ATOMIC_RELAXED), used;

	if (limit == UINT64_MAX)
		return UINT64_MAX;
	limit = refusable_limit(limit);
	used = memacct_usage(a);
	return used < limit ? limit - used : 0;
}

bool memacct_fits(const struct memacct *a, uint64_t bytes)
{
	return bytes <= memacct_room(a);
}

int memacct_charge(struct memacct *a, uint64_t bytes)
{
	uint64_t limit = __atomic_load_n(&a->limit, __ATOMIC_RELAXED);
	uint64_t file = limit == UINT64_MAX ? 0 : memacct_file_bytes(a);
	uint64_t old = __atomic_load_n(&a->kmem, __ATOMIC_RELAXED);

	if (limit != UINT64_MAX)
		limit = refusable_limit(limit);
	/* The file's part is read once; concurrent charges of kernel buffers
	 * cannot both take the last room. */
	do {
		if (limit != UINT64_MAX && (file + old > limit || bytes > limit - file - old))
			return -ENOMEM;
	} while (!__atomic_compare_exchange_n(&a->kmem, &old, old + bytes, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 0;
}

void memacct_charge_force(struct memacct *a, uint64_t bytes)
{
	__atomic_add_fetch(&a->kmem, bytes, __ATOMIC_RELAXED);
}

void memacct_uncharge(struct memacct *a, uint64_t bytes)
{
	__atomic_sub_fetch(&a->kmem, bytes, __ATOMIC_RELAXED);
}
