/*
 * Memory objects. A private mobj's table maps runs of its pages to where
 * they live in the memory file; a run's pages are contiguous there. Page
 * ownership (one owner, or several after a fork) is counted by frames.c:
 * the mobj holds one count on every page its table names.
 */
#include "config.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/frames.h"
#include "sentry/mm/memfile.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>

struct mobj_run {
	struct rb_node node;
	uint64_t moff, len; /* [moff, moff+len) of the mobj */
	uint64_t foff;	    /* lives at [foff, foff+len) of the file */
};

#define run_of(n) rb_entry_safe(n, struct mobj_run, node)

static struct mobj *mobj_alloc(struct memfile *mf, uint64_t off, uint64_t len, bool shared)
{
	struct mobj *m = xzalloc(sizeof(*m));

	m->refs = 1;
	m->shared = shared;
	m->mf = mf;
	m->off = off;
	m->len = len;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

static struct mobj_run *run_insert(struct mobj *m, uint64_t moff, uint64_t len, uint64_t foff)
{
	struct rb_node **link = &m->runs.node, *parent = NULL;
	struct mobj_run *r = xmalloc(sizeof(*r));

	r->moff = moff;
	r->len = len;
	r->foff = foff;
	while (*link) {
		parent = *link;
		link = moff < run_of(parent)->moff ? &parent->left : &parent->right;
	}
	rb_link(&r->node, parent, link);
	rb_insert_fixup(&m->runs, &r->node);
	return r;
}

static void run_erase(struct mobj *m, struct mobj_run *r)
{
	rb_erase(&m->runs, &r->node);
	free(r);
}

/* The run that holds moff (the table covers [0, len), so there is one). */
static struct mobj_run *run_find(struct mobj *m, uint64_t moff)
{
	struct rb_node *n = m->runs.node;

	while (n) {
		struct mobj_run *r = run_of(n);
		if (moff < r->moff)
			n = n->left;
		else if (moff >= r->moff + r->len)
			n = n->right;
		else
			return r;
	}
	return NULL;
}

/* Make a run begin at moff (inside the table). */
static void run_cut(struct mobj *m, uint64_t moff)
{
	struct mobj_run *r = moff < m->len ? run_find(m, moff) : NULL;

	if (r && r->moff < moff) {
		uint64_t below = moff - r->moff;
		run_insert(m, moff, r->len - below, r->foff + below);
		r->len = below;
	}
}

/* Join r with its neighbours where the file pages continue. */
static void run_merge(struct mobj *m, struct mobj_run *r)
{
	struct mobj_run *p = run_of(rb_prev(&r->node)), *n;

	if (p && p->foff + p->len == r->foff) {
		p->len += r->len;
		run_erase(m, r);
		r = p;
	}
	n = run_of(rb_next(&r->node));
	if (n && r->foff + r->len == n->foff) {
		r->len += n->len;
		run_erase(m, n);
	}
}

/* Point [moff, moff+len) of the table at file pages from foff (the caller
 * has dealt with the counts of the pages it named before). */
static void run_set(struct mobj *m, uint64_t moff, uint64_t len, uint64_t foff)
{
	struct mobj_run *r;

	run_cut(m, moff);
	run_cut(m, moff + len);
	r = run_find(m, moff);
	while (r && r->moff < moff + len) {
		struct mobj_run *n = run_of(rb_next(&r->node));
		run_erase(m, r);
		r = n;
	}
	run_merge(m, run_insert(m, moff, len, foff));
}

int mobj_new(struct memfile *mf, uint64_t len, bool shared, struct mobj **out)
{
	uint64_t off;
	struct mobj *m;
	int ret = memfile_alloc(mf, len, &off);

	if (ret < 0)
		return ret;
	m = mobj_alloc(mf, off, len, shared);
	if (!shared)
		run_insert(m, 0, len, off);
	*out = m;
	return 0;
}

struct mobj *mobj_get(struct mobj *m)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void mobj_put(struct mobj *m)
{
	struct rb_node *n;

	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (m->shared)
		memfile_free(m->mf, m->off, m->len);
	while ((n = rb_first(&m->runs))) {
		struct mobj_run *r = run_of(n);
		frames_unref(m->mf, r->foff, r->len);
		run_erase(m, r);
	}
	for (size_t i = 0; i < m->ndeferred; i++)
		frames_unref(m->mf, m->deferred[i][0], m->deferred[i][1]);
	free(m->deferred);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int mobj_grow(struct mobj *m, uint64_t newlen)
{
	struct mobj_run *last;
	int ret;

	if (m->shared) {
		ret = memfile_extend(m->mf, m->off, m->len, newlen);
	} else {
		/* The file pages right after the last run, if they are free. */
		last = run_of(rb_last(&m->runs));
		ret = memfile_extend(m->mf, last->foff + last->len, 0, newlen - m->len);
		if (ret == 0)
			last->len += newlen - m->len;
	}
	if (ret == 0)
		m->len = newlen;
	return ret;
}

uint64_t mobj_frame(struct mobj *m, uint64_t moff, uint64_t *len)
{
	struct mobj_run *r;

	if (m->shared)
		return m->off + moff;
	r = run_find(m, moff);
	if (*len > r->moff + r->len - moff)
		*len = r->moff + r->len - moff;
	return r->foff + (moff - r->moff);
}

uint64_t mobj_run(struct mobj *m, uint64_t moff, uint64_t len, bool *shared)
{
	uint64_t foff = mobj_frame(m, moff, &len);

	if (m->shared) {
		*shared = false;
		return len;
	}
	return frames_run(m->mf, foff, len, shared);
}

struct mobj *mobj_fork(struct mobj *m)
{
	struct mobj *c = mobj_alloc(m->mf, m->off, m->len, false);

	for (struct mobj_run *r = run_of(rb_first(&m->runs)); r; r = run_of(rb_next(&r->node))) {
		frames_ref(m->mf, r->foff, r->len);
		run_insert(c, r->moff, r->len, r->foff);
	}
	return c;
}

int mobj_copy(struct mobj *m, struct mobj **out)
{
	struct mobj *c;
	int ret = mobj_new(m->mf, m->len, false, &c);

	if (ret < 0)
		return ret;
	for (struct mobj_run *r = run_of(rb_first(&m->runs)); r; r = run_of(rb_next(&r->node)))
		memfile_copy(m->mf, c->off + r->moff, r->foff, r->len);
	*out = c;
	return 0;
}

/* m stops naming the file pages [foff, foff+len): their count drops, now or
 * (while host I/O may still use them) when the last pin goes. */
static void drop_pages(struct mobj *m, uint64_t foff, uint64_t len)
{
	pthread_mutex_lock(&m->lock);
	if (m->pins) {
		m->deferred = xrealloc(m->deferred, (m->ndeferred + 1) * sizeof(*m->deferred));
		m->deferred[m->ndeferred][0] = foff;
		m->deferred[m->ndeferred++][1] = len;
		pthread_mutex_unlock(&m->lock);
		return;
	}
	pthread_mutex_unlock(&m->lock);
	frames_unref(m->mf, foff, len);
}

long mobj_unshare_prepare(struct mobj *m, uint64_t moff, uint64_t len, uint64_t *nfoff)
{
	bool shared;
	uint64_t foff;
	int ret;

	len = mobj_run(m, moff, len, &shared);
	if (!shared)
		return 0;
	foff = mobj_frame(m, moff, &len);
	ret = memfile_alloc(m->mf, len, nfoff);
	if (ret < 0)
		return ret;
	/* Only the pages that hold data: the new range reads as zero already. */
	memfile_copy(m->mf, *nfoff, foff, len);
	return (long)len;
}

void mobj_unshare_commit(struct mobj *m, uint64_t moff, uint64_t len, uint64_t nfoff)
{
	uint64_t n = len, foff = mobj_frame(m, moff, &n);

	run_set(m, moff, len, nfoff);
	drop_pages(m, foff, len);
}

void mobj_unshare_abort(struct mobj *m, uint64_t len, uint64_t nfoff)
{
	memfile_free(m->mf, nfoff, len);
}

int mobj_zero(struct mobj *m, uint64_t moff, uint64_t len, bool *moved)
{
	uint64_t end = moff + len;

	while (moff < end) {
		bool shared;
		uint64_t n = mobj_run(m, moff, end - moff, &shared), foff;
		if (!shared) {
			foff = mobj_frame(m, moff, &n);
			memfile_punch(m->mf, foff, n);
		} else {
			/* Others still read these: this mobj gets fresh zero pages. */
			uint64_t nfoff;
			int ret = memfile_alloc(m->mf, n, &nfoff);
			if (ret < 0)
				return ret;
			foff = mobj_frame(m, moff, &n);
			run_set(m, moff, n, nfoff);
			drop_pages(m, foff, n);
			*moved = true;
		}
		moff += n;
	}
	return 0;
}

void mobj_pin(struct mobj *m, bool write)
{
	pthread_mutex_lock(&m->lock);
	m->pins++;
	if (write)
		m->wpins++;
	pthread_mutex_unlock(&m->lock);
}

void mobj_unpin(struct mobj *m, bool write)
{
	uint64_t(*deferred)[2] = NULL;
	size_t n = 0;

	pthread_mutex_lock(&m->lock);
	m->pins--;
	if (write)
		m->wpins--;
	if (!m->pins) {
		deferred = m->deferred;
		n = m->ndeferred;
		m->deferred = NULL;
		m->ndeferred = 0;
	}
	pthread_mutex_unlock(&m->lock);
	for (size_t i = 0; i < n; i++)
		frames_unref(m->mf, deferred[i][0], deferred[i][1]);
	free(deferred);
}

bool mobj_write_pinned(struct mobj *m)
{
	bool ret;

	pthread_mutex_lock(&m->lock);
	ret = m->wpins != 0;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

unsigned long mobj_runs(struct mobj *m)
{
	return rb_count(&m->runs);
}
