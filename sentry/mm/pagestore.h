/*
 * A page store: the data of a file kept in the memory file (tmpfs files,
 * later the page cache of host files). It is sparse: fixed-size chunks of
 * the memory file are allocated on first write, and a missing chunk reads as
 * zeros. Chunks never move once allocated, so the ranges a shared mmap maps
 * stay valid for the life of the file.
 */
#ifndef RUNG_PAGESTORE_H
#define RUNG_PAGESTORE_H

#include <stddef.h>
#include <stdint.h>

struct memfile;
struct mobj;

#define PS_CHUNK_SHIFT 21
#define PS_CHUNK_SIZE  (1ul << PS_CHUNK_SHIFT)

struct pagestore {
	struct memfile *mf;
	uint64_t nchunks;
	struct mobj **chunks;
};

void ps_init(struct pagestore *ps, struct memfile *mf);
void ps_release(struct pagestore *ps);
/* Copy [off, off+len) out (zeros for holes). The caller keeps within the size. */
void ps_read(struct pagestore *ps, void *buf, size_t len, uint64_t off);
/* Copy buf in at off, allocating chunks. Returns len or -ENOMEM/-EFBIG; a
 * short count, or -ENOSPC, where the sandbox's memory account has no room
 * for the pages the write would add. */
long ps_write(struct pagestore *ps, const void *buf, size_t len, uint64_t off);
/* fallocate: give [off, off+len) pages now, all of them or none (-ENOSPC
 * where the sandbox's memory account has no room for them). */
int ps_allocate(struct pagestore *ps, uint64_t off, uint64_t len);
/* Zero [off, end) (pages released where whole); chunks past a new end go. */
void ps_zero_range(struct pagestore *ps, uint64_t off, uint64_t end);
void ps_truncate(struct pagestore *ps, uint64_t size);
/* SEEK_DATA / SEEK_HOLE from off in a file of size bytes (off < size):
 * the offset found, or -ENXIO (no data from off on). Holes are found at
 * page granularity: missing chunks, and pages of a chunk the memory file
 * has none for. */
int64_t ps_seek(struct pagestore *ps, uint64_t off, uint64_t size, int whence);
/* The memory-file offset of off, allocating its chunk; *avail bytes are
 * contiguous from there. -ENOMEM when the file is full. */
long ps_map(struct pagestore *ps, uint64_t off, uint64_t *file_off, uint64_t *avail);

#endif
