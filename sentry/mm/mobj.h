/*
 * A memory object: a reference-counted run of the memory file holding
 * anonymous guest memory. VMAs point into it (vma->mobj, vma->mobj_off).
 *
 * A private mobj's pages are mapped by at most one VMA each (splitting a VMA
 * gives the halves disjoint parts), so unmapping a part may release its
 * pages at once. A shared mobj (MAP_SHARED|MAP_ANONYMOUS) may be mapped by
 * several address spaces and keeps its pages until the last reference goes.
 */
#ifndef RUNG_MOBJ_H
#define RUNG_MOBJ_H

#include <stdbool.h>
#include <stdint.h>

struct memfile;

struct mobj {
	int refs;
	bool shared;
	struct memfile *mf;
	uint64_t off; /* start in the memory file */
	uint64_t len; /* bytes, page aligned */
};

/* A new mobj of len bytes (zero-filled), one reference. -ENOMEM when full. */
int mobj_new(struct memfile *mf, uint64_t len, bool shared, struct mobj **out);
struct mobj *mobj_get(struct mobj *m);
void mobj_put(struct mobj *m);
/* Grow m in place to newlen; 0 or -ENOMEM (the file range after it is taken). */
int mobj_grow(struct mobj *m, uint64_t newlen);

#endif
