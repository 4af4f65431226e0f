/*
 * A memory object: a reference-counted run of guest memory in the memory
 * file. VMAs point into it (vma->mobj, vma->mobj_off).
 *
 * A shared mobj (MAP_SHARED|MAP_ANONYMOUS, page store chunks) is one range of
 * the file, [off, off+len), may be mapped by several address spaces, and
 * keeps its pages until the last reference goes.
 *
 * A private mobj's pages are mapped by at most one VMA each (splitting a VMA
 * gives the halves disjoint parts). Its pages start out at [off, off+len);
 * fork makes a second private mobj that shares them (copy-on-write, counted
 * by sentry/mm/frames.c), and a write to a shared page gives the writer a
 * copy: so each private mobj keeps a table of page runs and the file pages
 * they live in now. The table changes under the owning mm's write lock and
 * is read under its read lock.
 */
#ifndef RUNG_MOBJ_H
#define RUNG_MOBJ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/rbtree.h"

struct memfile;

struct mobj {
	int refs;
	bool shared;
	struct memfile *mf;
	uint64_t off;	     /* shared: its range of the file; private: where it started */
	uint64_t len;	     /* bytes, page aligned */
	struct rb_root runs; /* private: struct mobj_run by mobj offset, covering [0, len) */
	/*
	 * Pins (mm_pin): host I/O into (write) or out of the pages without the
	 * mm lock. While any is held, pages this mobj lets go of are kept
	 * (deferred) so that the I/O never touches a page someone else got.
	 */
	pthread_mutex_t lock;
	unsigned pins, wpins;
	uint64_t (*deferred)[2];
	size_t ndeferred;
	/* Copy-on-write fault-around (sentry/mm/cow.c; under the mm's write
	 * lock): where the last fault's window ended, and its size. */
	uint64_t cow_next, cow_window;
};

/* A new mobj of len bytes (zero-filled), one reference. -ENOMEM when full. */
int mobj_new(struct memfile *mf, uint64_t len, bool shared, struct mobj **out);
struct mobj *mobj_get(struct mobj *m);
void mobj_put(struct mobj *m);
/* Grow m in place to newlen; 0 or -ENOMEM (the file range after it is taken). */
int mobj_grow(struct mobj *m, uint64_t newlen);

/* The file offset of byte moff of m; *len (in: at most) is clipped to the
 * bytes from there that are contiguous in the file. */
uint64_t mobj_frame(struct mobj *m, uint64_t moff, uint64_t *len);
/* The length of the run of pages from moff (at most len, contiguous in the
 * file) that are all shared with another mobj (*shared) or all m's own. */
uint64_t mobj_run(struct mobj *m, uint64_t moff, uint64_t len, bool *shared);

/* Fork: a new private mobj that shares all of private m's pages. */
struct mobj *mobj_fork(struct mobj *m);
/* Fork, eagerly: a new private mobj holding a copy of m's pages. */
int mobj_copy(struct mobj *m, struct mobj **out);
/*
 * Copy on write, in two steps so that the platform can map the copy before
 * m switches to it: prepare copies the shared pages of the run at moff (at
 * most len bytes) to new file pages at *nfoff and returns the bytes copied
 * (0: the page at moff is m's own already) or -ENOMEM; then either commit
 * (m now names the copy) or abort (the copy goes).
 */
long mobj_unshare_prepare(struct mobj *m, uint64_t moff, uint64_t len, uint64_t *nfoff);
void mobj_unshare_commit(struct mobj *m, uint64_t moff, uint64_t len, uint64_t nfoff);
void mobj_unshare_abort(struct mobj *m, uint64_t len, uint64_t nfoff);
/* Make [moff, moff+len) of private m read as zero (its own pages released,
 * shared ones replaced). *moved: some pages now live elsewhere in the file
 * (the platform must map them again). 0 or -ENOMEM. */
int mobj_zero(struct mobj *m, uint64_t moff, uint64_t len, bool *moved);

void mobj_pin(struct mobj *m, bool write);
void mobj_unpin(struct mobj *m, bool write);
/* Does host I/O write into m's pages right now? */
bool mobj_write_pinned(struct mobj *m);

/* Number of runs in private m's table (for tests). */
unsigned long mobj_runs(struct mobj *m);

#endif
