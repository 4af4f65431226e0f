/*
 * File mappings past the end of their file. In Linux a page of a file
 * mapping that lies wholly past the file's end has no page behind it: the
 * guest's access is SIGBUS (BUS_ADRERR), the kernel's own is EFAULT. The
 * page that holds the end is mapped whole (zeros past the end).
 *
 * A VMA made by mmap(2) of a file remembers where its file ended (eof_off,
 * a page-aligned file offset); its pages from there on are not mapped in
 * the stub (vma_map and the protection changes stop at vma_bus_start), so
 * the guest's access faults into the sentry, and translate() finds no page
 * for the sentry's own copies. Either asks the file again: if it has grown
 * over the page since, the VMA's pages up to the new end are filled (a
 * private mapping reads them from the file) and mapped, else the access
 * fails.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/pagestore.h"
#include "sentry/mm/vma.h"
#include "lib/util.h"

#include <errno.h>
#include <string.h>

/* The file offset where v's file ends now, page aligned up. */
static uint64_t file_end(const struct vma *v)
{
	return ALIGN_UP(v->bops->size(v->bobj), PAGE_SIZE);
}

bool vma_eof_grown(const struct vma *v, uint64_t addr)
{
	uint64_t off = v->pgoff + (ALIGN_DOWN(addr, PAGE_SIZE) - v->start);

	return v->bops && v->bops->size && off < file_end(v);
}

/* Read the file's bytes for [start, end) of private v into its own pages
 * (zeros past the file's end). */
static int fill_private(struct mm *mm, struct vma *v, uint64_t start, uint64_t end)
{
	bool copied;
	int ret = vma_unshare(mm, v, start, end, false, &copied);

	while (ret == 0 && start < end) {
		uint64_t moff = v->mobj_off + (start - v->start), n = end - start;
		char *p = memfile_ptr(mm->mf, mobj_frame(v->mobj, moff, &n));
		long got = v->bops->read(v->bobj, p, n, v->pgoff + (start - v->start));

		if (got < 0)
			return (int)got;
		memset(p + got, 0, n - (uint64_t)got);
		start += n;
	}
	return ret;
}

/* Shared v's pages as its file's page store has them now: a truncation
 * may have let go of the chunk v showed, and a new one holds the file's
 * bytes there. *moved: v shows another chunk now. */
static int refresh_shared(struct vma *v, bool *moved)
{
	struct pagestore *ps;
	pthread_mutex_t *lock;
	uint64_t file_off, avail;
	int ret;

	*moved = false;
	ret = v->bops->pages(v->bobj, v->pgoff, v->end - v->start, !(v->flags & VMA_NOWRITE), &ps,
			     &lock);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(lock);
	ret = (int)ps_map(ps, v->pgoff, &file_off, &avail);
	if (ret >= 0) {
		/* (A shared file VMA lies in one chunk: pages_vmas_create.) */
		struct mobj *m = ps->chunks[v->pgoff >> PS_CHUNK_SHIFT];
		if (m != v->mobj) {
			mobj_put(v->mobj);
			v->mobj = mobj_get(m);
			v->mobj_off = v->pgoff & (PS_CHUNK_SIZE - 1);
			*moved = true;
		}
		ret = 0;
	}
	pthread_mutex_unlock(lock);
	return ret;
}

int vma_eof_fault(struct mm *mm, struct vma *v, uint64_t addr)
{
	uint64_t from = vma_bus_start(v), end, to;
	bool moved;
	int ret;

	if (!vma_eof_grown(v, addr))
		return -EFAULT;
	end = file_end(v);
	to = end - v->pgoff >= v->end - v->start ? v->end : v->start + (end - v->pgoff);
	if (!(v->flags & VMA_SHARED)) {
		ret = fill_private(mm, v, from, to);
		if (ret < 0)
			return ret;
	} else if (v->bops->pages) {
		ret = refresh_shared(v, &moved);
		if (ret < 0)
			return ret;
		if (moved)
			from = v->start;
	}
	v->eof_off = end;
	return vma_map(mm, v, from, to);
}

int mm_eof_refresh(struct mm *mm, uint64_t addr)
{
	struct vma *v;
	int ret = -EFAULT;

	pthread_rwlock_wrlock(&mm->lock);
	v = mm_find_vma(mm, addr);
	if (v && v->mobj && addr >= vma_bus_start(v))
		ret = vma_eof_fault(mm, v, addr);
	else if (v && v->mobj)
		ret = 0; /* another thread mapped it meanwhile */
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

struct shrink {
	bool (*match)(const void *bobj, const void *arg);
	const void *arg;
	uint64_t end; /* the new end, page aligned up */
};

static void shrink_mm(struct mm *mm, void *arg)
{
	const struct shrink *s = arg;
	struct vma *v;

	pthread_rwlock_wrlock(&mm->lock);
	for (v = vma_first(mm); v; v = vma_next(v)) {
		uint64_t bus;

		if (v->eof_off == VMA_NO_EOF || v->eof_off <= s->end || !v->mobj ||
		    !s->match(v->bobj, s->arg))
			continue;
		bus = vma_bus_start(v);
		v->eof_off = s->end;
		/* (vma_map unmaps them.) Where only mm's own threads may change
		 * its mappings, they do before they run again. */
		if (vma_bus_start(v) < bus && vma_map(mm, v, vma_bus_start(v), bus) < 0)
			__atomic_store_n(&mm->eof_unmap_due, 1, __ATOMIC_RELEASE);
	}
	pthread_rwlock_unlock(&mm->lock);
}

void mm_eof_unmap(struct mm *mm)
{
	struct vma *v;

	pthread_rwlock_wrlock(&mm->lock);
	__atomic_store_n(&mm->eof_unmap_due, 0, __ATOMIC_RELEASE);
	for (v = vma_first(mm); v; v = vma_next(v)) {
		uint64_t bus = vma_bus_start(v);
		if (v->mobj && bus < v->end && mm->as && as_unmap(mm->as, bus, v->end - bus) < 0)
			__atomic_store_n(&mm->eof_unmap_due, 1, __ATOMIC_RELEASE);
	}
	pthread_rwlock_unlock(&mm->lock);
}

void mm_backing_shrunk(bool (*match)(const void *bobj, const void *arg), const void *arg,
		       uint64_t size)
{
	struct shrink s = {.match = match, .arg = arg, .end = ALIGN_UP(size, PAGE_SIZE)};

	mm_for_each(shrink_mm, &s);
}
