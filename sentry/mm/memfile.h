/*
 * The memory file: one memfd per sandbox holding all guest memory, mapped
 * once into the sentry. Stubs map windows of it at guest addresses; the
 * sentry reads and writes guest memory through its own mapping.
 *
 * The file has a fixed (sparse) size, so its mapping in the sentry never
 * moves and never faults past the end: untouched pages cost nothing.
 * Ranges are handed out page-aligned by a first-fit allocator over the free
 * extents (sorted by offset, coalesced on free); a freed range has its pages
 * released with fallocate(PUNCH_HOLE), so a range always comes back zeroed.
 */
#ifndef RUNG_MEMFILE_H
#define RUNG_MEMFILE_H

#include <pthread.h>
#include <stdint.h>

#include "lib/rbtree.h"
#include "sentry/mm/memacct.h"

struct rung_error;

/* 16 TiB of (sparse) file: guest memory, tmpfs data and page caches. */
#define MEMFILE_DEFAULT_CAPACITY (1ull << 44)

struct memfile {
	int fd;
	char *base;	   /* the sentry's mapping of [0, capacity) */
	uint64_t capacity; /* file size */
	pthread_mutex_t lock;
	struct rb_root free; /* struct memfile_extent by offset, below top */
	uint64_t top;	     /* [top, capacity) has never been handed out */
	uint64_t allocated;  /* bytes currently handed out */
	/* Pages shared by copy-on-write and their counts (sentry/mm/frames.c). */
	pthread_mutex_t frames_lock;
	struct rb_root frames;
	/* The sandbox's memory account (no limit until one is set). */
	struct memacct acct;
};

int memfile_create(uint64_t capacity, struct memfile **out, struct rung_error *err);
void memfile_destroy(struct memfile *mf);

/* Allocate len bytes (a multiple of the page size). Returns 0 or -ENOMEM. */
int memfile_alloc(struct memfile *mf, uint64_t len, uint64_t *off);
/* Release the pages of [off, off+len) and return the range to the allocator. */
void memfile_free(struct memfile *mf, uint64_t off, uint64_t len);
/* Grow the allocation [off, off+oldlen) in place to newlen. 0 or -ENOMEM. */
int memfile_extend(struct memfile *mf, uint64_t off, uint64_t oldlen, uint64_t newlen);
/* Release the pages of [off, off+len): they read as zero again; stays allocated. */
void memfile_punch(struct memfile *mf, uint64_t off, uint64_t len);
/* Copy [src, src+len) to dst (zeroed, not overlapping), touching only the
 * pages of the source that hold data (fork's private memory). */
void memfile_copy(struct memfile *mf, uint64_t dst, uint64_t src, uint64_t len);

/* The bytes of the pages of [off, off+len) (rounded out to pages) that the
 * host holds none for yet (mincore: a page swapped out counts as missing),
 * counting no further than max: *stop (if not NULL) is the page where
 * that was reached, or the rounded end. */
uint64_t memfile_missing(struct memfile *mf, uint64_t off, uint64_t len, uint64_t max,
			 uint64_t *stop);

static inline void *memfile_ptr(const struct memfile *mf, uint64_t off)
{
	return mf->base + off;
}

/* Number of free extents (for tests and statistics). */
unsigned long memfile_free_extents(struct memfile *mf);

#endif
