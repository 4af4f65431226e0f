/*
 * A page cache for a file whose bytes live on the host (goferfs): the pages
 * MAP_SHARED mappings of it map. It exists only once the file is mapped
 * shared; until then reads and writes go straight to the host.
 *
 * The cache works in page-store chunks (2 MiB). A chunk is filled from the
 * file when a mapping first covers it, and from then on it is the truth for
 * its bytes: reads of it come from the cache, writes go to both. A chunk a
 * writable mapping covers is marked so; write-back (msync, munmap, fsync,
 * close) copies those chunks to the host. The guest stores to mapped memory
 * without the sentry seeing them, so a marked chunk is written back whole
 * (up to the end of the file), never "only the dirty pages".
 *
 * The host I/O is the caller's: pc_io_fn reads or writes len bytes at off
 * and returns the count (short at end of file) or -errno. Every function
 * takes pc->lock itself unless its comment says otherwise.
 */
#ifndef RUNG_PAGECACHE_H
#define RUNG_PAGECACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sentry/mm/pagestore.h"

typedef long (*pc_io_fn)(void *arg, void *buf, size_t len, uint64_t off);

struct pagecache {
	pthread_mutex_t lock;
	struct pagestore ps;
	uint64_t nstate;
	uint8_t *state; /* per chunk: PC_FILLED | PC_WRITABLE */
};

struct pagecache *pc_new(struct memfile *mf);
void pc_free(struct pagecache *pc);

/* Fill the chunks of [off, off+len) not yet cached from the file (size bytes
 * long); mark them as mapped writable when writable. Caller holds pc->lock
 * (the page store is then mapped under the same hold). */
int pc_fill_locked(struct pagecache *pc, uint64_t off, uint64_t len, uint64_t size, bool writable,
		   pc_io_fn read, void *arg);

/* A read of [off, off+len) of a size-byte file: cached chunks from the cache,
 * the rest through read. Returns the count (short at end of file) or -errno. */
long pc_read(struct pagecache *pc, void *buf, size_t len, uint64_t off, uint64_t size,
	     pc_io_fn read, void *arg);

/* A write at off of a file that was old_size bytes: written through write,
 * then copied into the cached chunks it covers (a gap after the old end reads
 * as zeros there too). Returns the count or -errno. */
long pc_write(struct pagecache *pc, const void *buf, size_t len, uint64_t off, uint64_t old_size,
	      pc_io_fn write, void *arg);

/* The cache half of pc_write, for a write that went to the file before the
 * cache existed (the fill may have read the file before it). */
void pc_update(struct pagecache *pc, const void *buf, size_t len, uint64_t off, uint64_t old_size);

/* Zero the cached bytes of [off, end) (a hole punched in the file). */
void pc_zero(struct pagecache *pc, uint64_t off, uint64_t end);

/* Write the writable-mapped chunks of [off, off+len) back through write,
 * stopping at size (the end of the file). 0 or the first -errno. */
int pc_writeback(struct pagecache *pc, uint64_t off, uint64_t len, uint64_t size, pc_io_fn write,
		 void *arg);

/* The file changed size from old_size to new_size (truncate): the cache
 * drops what lies past the new end, and bytes between the ends read as zero. */
void pc_resize(struct pagecache *pc, uint64_t old_size, uint64_t new_size);

#endif
