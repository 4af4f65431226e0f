/*
 * The shared-page table of the memory file: ranges of pages with more than
 * one owner, each with its count, sorted by offset, never overlapping, and
 * adjacent ranges with equal counts merged.
 */
#include "config.h"
#include "sentry/mm/frames.h"
#include "sentry/mm/memfile.h"
#include "lib/util.h"

#include <stdlib.h>

struct frange {
	struct rb_node node;
	uint64_t off, len;
	unsigned refs; /* at least 2 */
};

#define frange_of(n) rb_entry_safe(n, struct frange, node)

/* The first range that ends after off, or NULL. */
static struct frange *first_after(struct memfile *mf, uint64_t off)
{
	struct rb_node *n = mf->frames.node;
	struct frange *best = NULL;

	while (n) {
		struct frange *r = frange_of(n);
		if (r->off + r->len > off) {
			best = r;
			if (r->off <= off)
				break;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

static struct frange *insert(struct memfile *mf, uint64_t off, uint64_t len, unsigned refs)
{
	struct rb_node **link = &mf->frames.node, *parent = NULL;
	struct frange *r = xmalloc(sizeof(*r));

	r->off = off;
	r->len = len;
	r->refs = refs;
	while (*link) {
		parent = *link;
		link = off < frange_of(parent)->off ? &parent->left : &parent->right;
	}
	rb_link(&r->node, parent, link);
	rb_insert_fixup(&mf->frames, &r->node);
	return r;
}

/* Cut r at at (inside it): r keeps the part below, the new range above is returned. */
static struct frange *split(struct memfile *mf, struct frange *r, uint64_t at)
{
	struct frange *n = insert(mf, at, r->off + r->len - at, r->refs);

	r->len = at - r->off;
	return n;
}

static void erase(struct memfile *mf, struct frange *r)
{
	rb_erase(&mf->frames, &r->node);
	free(r);
}

/* Merge equal neighbours among the ranges that touch [off, end]. */
static void merge_around(struct memfile *mf, uint64_t off, uint64_t end)
{
	struct frange *r = first_after(mf, off), *p;

	if (!r)
		return;
	p = frange_of(rb_prev(&r->node));
	if (p)
		r = p;
	while (r && r->off <= end) {
		struct frange *n = frange_of(rb_next(&r->node));
		if (n && r->off + r->len == n->off && r->refs == n->refs) {
			r->len += n->len;
			erase(mf, n);
			continue;
		}
		r = n;
	}
}

/* Ranges whose last owner went: freed once the table is unlocked. */
struct dead {
	uint64_t (*r)[2];
	size_t n, cap;
};

static void dead_add(struct dead *d, uint64_t off, uint64_t len)
{
	if (d->n && d->r[d->n - 1][0] + d->r[d->n - 1][1] == off) {
		d->r[d->n - 1][1] += len;
		return;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->r = xrealloc(d->r, d->cap * sizeof(*d->r));
	}
	d->r[d->n][0] = off;
	d->r[d->n++][1] = len;
}

/* Make no range straddle at. */
static void cut_at(struct memfile *mf, uint64_t at)
{
	struct frange *r = first_after(mf, at);

	if (r && r->off < at)
		split(mf, r, at);
}

/* Add delta (+1 or -1) to the count of every page of [off, end); pages a
 * release leaves without an owner go to dead. */
static void adjust(struct memfile *mf, uint64_t off, uint64_t end, int delta, struct dead *dead)
{
	uint64_t cur = off;
	struct frange *r;

	cut_at(mf, off);
	cut_at(mf, end);
	r = first_after(mf, off);
	while (cur < end) {
		uint64_t stop = r && r->off < end ? r->off : end;
		struct frange *n;
		/* Pages the table does not name have one owner. */
		if (stop > cur && delta > 0)
			insert(mf, cur, stop - cur, 2);
		else if (stop > cur)
			dead_add(dead, cur, stop - cur);
		if (stop == end)
			break;
		n = frange_of(rb_next(&r->node));
		cur = r->off + r->len;
		r->refs += (unsigned)delta;
		if (r->refs == 1)
			erase(mf, r);
		r = n;
	}
	merge_around(mf, off, end);
}

void frames_ref(struct memfile *mf, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	pthread_mutex_lock(&mf->frames_lock);
	adjust(mf, off, off + len, 1, NULL);
	pthread_mutex_unlock(&mf->frames_lock);
}

void frames_unref(struct memfile *mf, uint64_t off, uint64_t len)
{
	struct dead d = {0};

	if (!len)
		return;
	pthread_mutex_lock(&mf->frames_lock);
	adjust(mf, off, off + len, -1, &d);
	pthread_mutex_unlock(&mf->frames_lock);
	for (size_t i = 0; i < d.n; i++)
		memfile_free(mf, d.r[i][0], d.r[i][1]);
	free(d.r);
}

uint64_t frames_run(struct memfile *mf, uint64_t off, uint64_t len, bool *shared)
{
	uint64_t end = off + len, run;
	struct frange *r;

	/* Nothing shared anywhere (no fork yet): no lock needed. Pages of an
	 * mm only become shared by its fork, under its write lock, which the
	 * callers exclude; other mms' forks may change the table meanwhile. */
	if (!__atomic_load_n(&mf->frames.node, __ATOMIC_ACQUIRE)) {
		*shared = false;
		return len;
	}
	pthread_mutex_lock(&mf->frames_lock);
	r = first_after(mf, off);
	if (r && r->off <= off) {
		/* Shared up to where the stored ranges stop being contiguous. */
		uint64_t at = r->off + r->len;
		struct frange *n;
		while (at < end && (n = frange_of(rb_next(&r->node))) && n->off == at) {
			r = n;
			at = r->off + r->len;
		}
		*shared = true;
		run = MIN(at, end) - off;
	} else {
		*shared = false;
		run = (r ? MIN(r->off, end) : end) - off;
	}
	pthread_mutex_unlock(&mf->frames_lock);
	return run;
}

unsigned frames_count(struct memfile *mf, uint64_t off)
{
	struct frange *r;
	unsigned refs = 1;

	pthread_mutex_lock(&mf->frames_lock);
	r = first_after(mf, off);
	if (r && r->off <= off)
		refs = r->refs;
	pthread_mutex_unlock(&mf->frames_lock);
	return refs;
}

unsigned long frames_ranges(struct memfile *mf)
{
	unsigned long count;

	pthread_mutex_lock(&mf->frames_lock);
	count = rb_count(&mf->frames);
	pthread_mutex_unlock(&mf->frames_lock);
	return count;
}

void frames_destroy(struct memfile *mf)
{
	struct rb_node *n;

	while ((n = rb_first(&mf->frames)))
		erase(mf, frange_of(n));
}
