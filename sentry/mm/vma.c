/*
 * The VMA tree of an mm: ordered by start address, never overlapping.
 * Everything here runs with mm->lock held for writing (lookups: reading).
 */
#include "config.h"
#include "sentry/mm/vma.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/util.h"

#include <stdlib.h>
#include <sys/mman.h>

#define vma_of(n) rb_entry_safe(n, struct vma, node)

struct vma *mm_find_vma(struct mm *mm, uint64_t addr)
{
	struct rb_node *n = mm->vmas.node;

	while (n) {
		struct vma *v = vma_of(n);
		if (addr < v->start)
			n = n->left;
		else if (addr >= v->end)
			n = n->right;
		else
			return v;
	}
	return NULL;
}

struct vma *mm_find_vma_after(struct mm *mm, uint64_t addr)
{
	struct rb_node *n = mm->vmas.node;
	struct vma *best = NULL;

	while (n) {
		struct vma *v = vma_of(n);
		if (v->end > addr) {
			best = v;
			if (v->start <= addr)
				break;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

struct vma *vma_next(struct vma *v)
{
	return vma_of(rb_next(&v->node));
}

struct vma *vma_prev(struct vma *v)
{
	return vma_of(rb_prev(&v->node));
}

struct vma *vma_first(struct mm *mm)
{
	return vma_of(rb_first(&mm->vmas));
}

struct vma *vma_last(struct mm *mm)
{
	return vma_of(rb_last(&mm->vmas));
}

struct vma *vma_alloc(uint64_t start, uint64_t end, int prot, unsigned flags)
{
	struct vma *v = xzalloc(sizeof(*v));

	v->start = start;
	v->end = end;
	v->prot = prot;
	v->flags = flags;
	v->eof_off = VMA_NO_EOF;
	return v;
}

void vma_insert(struct mm *mm, struct vma *v)
{
	struct rb_node **link = &mm->vmas.node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (v->start < vma_of(parent)->start)
			link = &parent->left;
		else
			link = &parent->right;
	}
	rb_link(&v->node, parent, link);
	rb_insert_fixup(&mm->vmas, &v->node);
	mm->nr_vmas++;
	if (v->mobj)
		mm->committed += v->end - v->start;
}

void vma_unlink(struct mm *mm, struct vma *v)
{
	rb_erase(&mm->vmas, &v->node);
	mm->nr_vmas--;
	if (mm->committed > mm->committed_peak)
		mm->committed_peak = mm->committed;
	if (v->mobj)
		mm->committed -= v->end - v->start;
}

void vma_destroy(struct vma *v, bool release_pages)
{
	if (v->mobj) {
		bool moved = false;
		/* Pages a fork shares stay the others'; if no zero pages can be
		 * had in their place, they stay named here too (no VMA maps them).
		 * The last reference releases everything anyway. */
		if (release_pages && !v->mobj->shared &&
		    __atomic_load_n(&v->mobj->refs, __ATOMIC_ACQUIRE) > 1)
			mobj_zero(v->mobj, v->mobj_off, v->end - v->start, &moved);
		mobj_put(v->mobj);
	}
	if (v->bops)
		v->bops->put(v->bobj, v->pgoff);
	free(v);
}

void vma_set_backing(struct vma *v, const struct mm_backing_ops *bops, void *bobj, uint64_t pgoff)
{
	if (bops)
		bops->get(bobj, pgoff);
	if (v->bops)
		v->bops->put(v->bobj, v->pgoff);
	v->bops = bops;
	v->bobj = bobj;
	v->pgoff = pgoff;
}

struct vma *vma_split(struct mm *mm, struct vma *v, uint64_t at)
{
	struct vma *n = vma_alloc(at, v->end, v->prot, v->flags);

	if (v->mobj) {
		n->mobj = mobj_get(v->mobj);
		n->mobj_off = v->mobj_off + (at - v->start);
	}
	vma_set_backing(n, v->bops, v->bobj, v->pgoff + (at - v->start));
	n->eof_off = v->eof_off;
	/* v keeps its place in the tree; only its end moves. */
	if (v->mobj)
		mm->committed -= v->end - at;
	v->end = at;
	/* A stack keeps growing from its lower part only. */
	n->flags &= ~VMA_GROWSDOWN;
	vma_insert(mm, n);
	return n;
}

static bool vma_mergeable(const struct vma *a, const struct vma *b)
{
	/* The merged VMA takes a's flags: b may only lack a's GROWSDOWN. */
	if (a->end != b->start || a->prot != b->prot || (a->flags & ~VMA_GROWSDOWN) != b->flags)
		return false;
	if (a->bobj != b->bobj || (a->bops && a->pgoff + (a->end - a->start) != b->pgoff) ||
	    a->eof_off != b->eof_off)
		return false;
	if (!a->mobj && !b->mobj)
		return true;
	return a->mobj == b->mobj && a->mobj_off + (a->end - a->start) == b->mobj_off;
}

struct vma *vma_merge(struct mm *mm, struct vma *v)
{
	struct vma *p = vma_prev(v), *n;

	if (p && vma_mergeable(p, v)) {
		vma_unlink(mm, v);
		if (p->mobj)
			mm->committed += v->end - v->start;
		p->end = v->end;
		vma_destroy(v, false);
		v = p;
	}
	n = vma_next(v);
	if (n && vma_mergeable(v, n)) {
		uint64_t end = n->end;
		vma_unlink(mm, n);
		vma_destroy(n, false);
		if (v->mobj)
			mm->committed += end - v->end;
		v->end = end;
	}
	return v;
}

uint64_t vma_start_gap(const struct vma *v)
{
	if ((v->flags & VMA_GROWSDOWN) && v->start > STACK_GUARD_GAP)
		return v->start - STACK_GUARD_GAP;
	return (v->flags & VMA_GROWSDOWN) ? 0 : v->start;
}

bool mm_range_free(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *v = mm_find_vma_after(mm, start);

	return !v || vma_start_gap(v) >= end;
}

uint64_t mm_find_gap(struct mm *mm, uint64_t lo, uint64_t hi, uint64_t len)
{
	struct vma *v;
	uint64_t gap_end = hi;

	if (hi < lo || hi - lo < len)
		return 0;
	/* Start from the highest VMA that begins below hi and walk down. */
	v = mm_find_vma_after(mm, hi);
	if (v && vma_start_gap(v) < gap_end)
		gap_end = vma_start_gap(v) > lo ? vma_start_gap(v) : lo;
	v = v ? vma_prev(v) : vma_last(mm);
	for (; v; v = vma_prev(v)) {
		uint64_t gap_start = MAX(v->end, lo);
		if (gap_end > gap_start && gap_end - gap_start >= len)
			return gap_end - len;
		if (v->end <= lo)
			return 0;
		gap_end = MIN(gap_end, MAX(vma_start_gap(v), lo));
		if (gap_end <= lo)
			return 0;
	}
	if (gap_end > lo && gap_end - lo >= len)
		return gap_end - len;
	return 0;
}

void mm_for_each_vma(struct mm *mm, void (*fn)(const struct vma *v, void *arg), void *arg)
{
	struct vma *v;

	pthread_rwlock_rdlock(&mm->lock);
	for (v = vma_first(mm); v; v = vma_next(v))
		fn(v, arg);
	pthread_rwlock_unlock(&mm->lock);
}
