/* VMA tree primitives of an mm (internal to sentry/mm; callers hold mm->lock). */
#ifndef RUNG_VMA_H
#define RUNG_VMA_H

#include "sentry/mm/mm.h"

struct vma *vma_alloc(uint64_t start, uint64_t end, int prot, unsigned flags);
/* Insert v (which overlaps nothing) and account for it. */
void vma_insert(struct mm *mm, struct vma *v);
/* Remove v from the tree and the accounting; v stays allocated. */
void vma_unlink(struct mm *mm, struct vma *v);
/* Free an unlinked v; release_pages drops the pages of a private mobj part. */
void vma_destroy(struct vma *v, bool release_pages);
/* Make v map bobj at file offset pgoff (taking a reference), or nothing (bops NULL). */
void vma_set_backing(struct vma *v, const struct mm_backing_ops *bops, void *bobj, uint64_t pgoff);
/* Split v at at (start < at < end): v keeps [start, at), the new VMA [at, end) is returned. */
struct vma *vma_split(struct mm *mm, struct vma *v, uint64_t at);
/* Merge v with compatible neighbours; returns the VMA that now covers v. */
struct vma *vma_merge(struct mm *mm, struct vma *v);

struct vma *vma_first(struct mm *mm);
struct vma *vma_last(struct mm *mm);
struct vma *vma_next(struct vma *v);
struct vma *vma_prev(struct vma *v);

/* The lowest address a new mapping below v may end at (stack guard gap). */
uint64_t vma_start_gap(const struct vma *v);
/* Is [start, end) unmapped, honouring the guard gap of a stack above it? */
bool mm_range_free(struct mm *mm, uint64_t start, uint64_t end);
/* The highest address a of a free [a, a+len) within [lo, hi), or 0 if none. */
uint64_t mm_find_gap(struct mm *mm, uint64_t lo, uint64_t hi, uint64_t len);

/* Copy on write (sentry/mm/cow.c). */
/* Mirror [start, end) of v into the platform address space (shared pages read-only). */
int vma_map(struct mm *mm, const struct vma *v, uint64_t start, uint64_t end);
/* Give v its own copies of the shared pages of [start, end) and map them
 * writable (map_own: its own pages there too); *copied: some page was
 * copied. 0 or -errno. */
int vma_unshare(struct mm *mm, struct vma *v, uint64_t start, uint64_t end, bool map_own,
		bool *copied);
/* After a fork shared v's pages: make them read-only in the stub. */
int vma_write_protect(struct mm *mm, const struct vma *v);
/* A guest write fault at addr in the writable private v: vma_unshare of the
 * fault-around window. */
int vma_write_fault(struct mm *mm, struct vma *v, uint64_t addr, bool *copied);

/* Pages past a file's end (sentry/mm/eof.c). Where v's pages stop being
 * mapped: its end, or the page where its file ended when last asked. */
static inline uint64_t vma_bus_start(const struct vma *v)
{
	if (v->eof_off == VMA_NO_EOF)
		return v->end;
	if (v->eof_off <= v->pgoff)
		return v->start;
	return v->eof_off - v->pgoff >= v->end - v->start ? v->end
							  : v->start + (v->eof_off - v->pgoff);
}
/* Does v's file reach the page at addr now? */
bool vma_eof_grown(const struct vma *v, uint64_t addr);
/* Under the write lock: a fault at addr at or past vma_bus_start(v). When
 * the file has grown over it, fill and map v's pages up to the new end (0),
 * else -EFAULT (the guest's SIGBUS). */
int vma_eof_fault(struct mm *mm, struct vma *v, uint64_t addr);
/* The same for the sentry's access, taking the write lock itself. */
int mm_eof_refresh(struct mm *mm, uint64_t addr);

#endif
