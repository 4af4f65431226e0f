/*
 * Copy-on-write of private memory after fork, and the platform mappings
 * that follow it. A private page another mobj shares (sentry/mm/frames.c)
 * is mapped read-only in every stub even where the guest may write it; the
 * first write, by the guest (a fault) or by the sentry on its behalf
 * (copy_out, futexes, pinned I/O), gives the writer its own copy, or the
 * page itself when nobody else holds it any more.
 *
 * Fault-around: a write fault on a shared page copies the shared pages of
 * the aligned window of COW_WINDOW bytes around it at once, and of a window
 * twice as large as the last when it continues where the last one ended, so
 * that a writer walking through memory faults once per window rather than
 * once per page;
 * one on a page that is the writer's own already (the other owner went) maps
 * the writer's own pages of a wider window writable, which costs no copy
 * (docs/memory.md has the measurements).
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/vma.h"
#include "sentry/mm/mobj.h"
#include "lib/util.h"

#include <errno.h>
#include <sys/mman.h>

#define COW_WINDOW	(16 * PAGE_SIZE)
#define COW_WINDOW_MAX	(256 * PAGE_SIZE)
#define TAKEOVER_WINDOW (4ul << 20)

int vma_map(struct mm *mm, const struct vma *v, uint64_t start, uint64_t end)
{
	uint64_t addr = start, bus = vma_bus_start(v);

	if (!mm->as)
		return 0;
	if (!v->mobj)
		return as_unmap(mm->as, start, end - start);
	/* Pages past a mapped file's end: none in the stub (sentry/mm/eof.c). */
	if (end > bus) {
		int ret = as_unmap(mm->as, MAX(start, bus), end - MAX(start, bus));
		if (ret < 0)
			return ret;
		end = MAX(start, bus);
	}
	while (addr < end) {
		uint64_t moff = v->mobj_off + (addr - v->start), n = end - addr, foff;
		int prot = v->prot, ret;
		bool shared = false;

		/* Read-only mappings need not know which pages are shared. */
		if (prot & PROT_WRITE)
			n = mobj_run(v->mobj, moff, n, &shared);
		foff = mobj_frame(v->mobj, moff, &n);
		if (shared)
			prot &= ~PROT_WRITE;
		ret = as_map(mm->as, addr, n, prot, foff);
		if (ret < 0)
			return ret;
		addr += n;
	}
	return 0;
}

/*
 * Give the runs of [start, end) of v that are its own (own) or shared
 * (!own) the protection vma_map would, keeping the stub's page tables
 * (mprotect, not a new mmap: the pages need not fault in again). The stub
 * maps these pages already; where the protection change fails, they are
 * mapped again.
 */
static int vma_protect_runs(struct mm *mm, const struct vma *v, uint64_t start, uint64_t end,
			    bool own)
{
	if (!mm->as)
		return 0;
	end = MIN(end, vma_bus_start(v)); /* none in the stub past a file's end */
	while (start < end) {
		uint64_t moff = v->mobj_off + (start - v->start), n, foff;
		bool shared;
		int ret;

		n = mobj_run(v->mobj, moff, end - start, &shared);
		foff = mobj_frame(v->mobj, moff, &n);
		if (shared != own) {
			int prot = shared ? v->prot & ~PROT_WRITE : v->prot;
			if (as_protect(mm->as, start, n, prot, foff) < 0) {
				ret = as_map(mm->as, start, n, prot, foff);
				if (ret < 0)
					return ret;
			}
		}
		start += n;
	}
	return 0;
}

int vma_write_protect(struct mm *mm, const struct vma *v)
{
	return vma_protect_runs(mm, v, v->start, v->end, false);
}

int vma_unshare(struct mm *mm, struct vma *v, uint64_t start, uint64_t end, bool map_own,
		bool *copied)
{
	uint64_t addr = start;

	*copied = false;
	if (!v->mobj || v->mobj->shared)
		return 0;
	while (addr < end) {
		uint64_t moff = v->mobj_off + (addr - v->start), n, nfoff;
		long r = mobj_unshare_prepare(v->mobj, moff, end - addr, &nfoff);
		int ret = 0;

		if (r < 0)
			return (int)r;
		if (r == 0) {
			/* Its own already: map it writable (the other owner went). */
			bool shared;
			n = mobj_run(v->mobj, moff, end - addr, &shared);
			ret = map_own ? vma_map(mm, v, addr, addr + n) : 0;
			if (ret < 0)
				return ret;
			addr += n;
			continue;
		}
		n = (uint64_t)r;
		/* The copy is in place in the stub before the mobj names it: if the
		 * platform cannot map it, nothing changed. (Past a mapped file's
		 * end the stub has nothing: sentry/mm/eof.c.) */
		if (mm->as && addr < vma_bus_start(v))
			ret = as_map(mm->as, addr, MIN(n, vma_bus_start(v) - addr), v->prot, nfoff);
		if (ret < 0) {
			mobj_unshare_abort(v->mobj, n, nfoff);
			return ret;
		}
		mobj_unshare_commit(v->mobj, moff, n, nfoff);
		*copied = true;
		addr += n;
	}
	return 0;
}

/* The window of a copy-on-write fault at addr: COW_WINDOW aligned around
 * it, or, where the last fault's window ended, twice the last window (up to
 * COW_WINDOW_MAX) from there on: a writer streaming through memory faults
 * ever less often. */
static void cow_window(struct vma *v, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct mobj *m = v->mobj;
	uint64_t page = ALIGN_DOWN(addr, PAGE_SIZE), moff = v->mobj_off + (page - v->start);

	if (m->cow_next && moff == m->cow_next) {
		m->cow_window = MIN(m->cow_window * 2, COW_WINDOW_MAX);
		*start = page;
		*end = MIN(v->end, page + m->cow_window);
	} else {
		m->cow_window = COW_WINDOW;
		*start = MAX(v->start, ALIGN_DOWN(addr, COW_WINDOW));
		*end = MIN(v->end, ALIGN_DOWN(addr, COW_WINDOW) + COW_WINDOW);
	}
	m->cow_next = v->mobj_off + (*end - v->start);
}

int vma_write_fault(struct mm *mm, struct vma *v, uint64_t addr, bool *copied)
{
	uint64_t moff = v->mobj_off + (ALIGN_DOWN(addr, PAGE_SIZE) - v->start), start, end;
	bool shared;

	mobj_run(v->mobj, moff, PAGE_SIZE, &shared);
	if (shared) {
		cow_window(v, addr, &start, &end);
		return vma_unshare(mm, v, start, end, true, copied);
	}
	/*
	 * The page is the writer's own: the other owner went (it exited or
	 * wrote its own copy), and likely of the pages around it too. Making
	 * them writable costs one mprotect however many they are, so the
	 * window is wider; the shared pages in it stay as they are.
	 */
	*copied = false;
	start = MAX(v->start, ALIGN_DOWN(addr, TAKEOVER_WINDOW));
	end = MIN(v->end, ALIGN_DOWN(addr, TAKEOVER_WINDOW) + TAKEOVER_WINDOW);
	return vma_protect_runs(mm, v, start, end, true);
}

int mm_prepare_write(struct mm *mm, uint64_t addr, size_t len)
{
	uint64_t end = addr + len, at = ALIGN_DOWN(addr, PAGE_SIZE);
	int ret = 0;

	if (end < addr)
		return -EFAULT;
	pthread_rwlock_wrlock(&mm->lock);
	while (at < end && ret == 0) {
		struct vma *v = mm_find_vma(mm, at);
		uint64_t stop;
		bool copied;
		if (!v || !v->mobj || !(v->prot & PROT_WRITE)) {
			ret = -EFAULT;
			break;
		}
		stop = MIN(v->end, ALIGN_UP(end, PAGE_SIZE));
		ret = vma_unshare(mm, v, at, stop, false, &copied);
		at = stop;
	}
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}
