/*
 * Memory locking and residency: mlock's VMA_LOCKED over a range or every
 * mapping, and mincore's page-by-page answer. The sandbox's memory is
 * never swapped or written back on its own, so a lock is a mark (for
 * /proc's VmLck, MADV_DONTNEED's EINVAL, msync's EBUSY), not a pin; a page
 * is resident when the host holds the memory file's page behind it.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/vma.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/util.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* [addr, addr+len) with addr rounded down and len up to pages; -EINVAL
 * when it wraps. Linux's mlock and munlock take any address. */
static int page_range(uint64_t addr, uint64_t len, uint64_t *start, uint64_t *end)
{
	uint64_t s = ALIGN_DOWN(addr, PAGE_SIZE), e;

	if (len > UINT64_MAX - (addr - s) - (PAGE_SIZE - 1))
		return -EINVAL;
	e = ALIGN_UP(addr + len, PAGE_SIZE);
	if (e < s)
		return -EINVAL;
	*start = s;
	*end = e;
	return 0;
}

int mm_set_locked(struct mm *mm, uint64_t addr, uint64_t len, bool locked, bool populate)
{
	uint64_t start, end, cur;
	bool inaccessible = false;
	struct vma *v;
	int ret = page_range(addr, len, &start, &end);

	if (ret || start == end)
		return ret;
	pthread_rwlock_wrlock(&mm->lock);
	v = mm_find_vma_after(mm, start);
	if (!v || v->start > start || mm->nr_vmas + 2 > MM_MAX_VMAS) {
		ret = -ENOMEM;
		goto out;
	}
	/* As Linux's apply_vma_lock_flags: VMA after VMA, up to a hole (ENOMEM,
	 * what came before it stays changed). */
	for (cur = start; v && cur < end; v = vma_next(v)) {
		if (v->start > cur) {
			ret = -ENOMEM;
			break;
		}
		cur = MIN(v->end, end);
		inaccessible |= v->prot == PROT_NONE;
		if (!!(v->flags & VMA_LOCKED) == locked)
			continue;
		if (v->start < start)
			v = vma_split(mm, v, start);
		if (v->end > end)
			vma_split(mm, v, end);
		if (locked)
			v->flags |= VMA_LOCKED;
		else
			v->flags &= ~VMA_LOCKED;
		v = vma_merge(mm, v);
	}
	if (ret == 0 && cur < end)
		ret = -ENOMEM;
	/* Linux's mlock faults the pages in, which a PROT_NONE one refuses:
	 * ENOMEM, the mark made all the same. */
	if (ret == 0 && locked && populate && inaccessible)
		ret = -ENOMEM;
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

void mm_lock_all(struct mm *mm, bool current, bool future)
{
	pthread_rwlock_wrlock(&mm->lock);
	for (struct vma *v = vma_first(mm); v && current; v = vma_next(v))
		/* The vDSO's pages are Linux's VM_PFNMAP-like special mappings. */
		if (!(v->flags & (VMA_VDSO | VMA_VVAR)))
			v->flags |= VMA_LOCKED;
	mm->lock_future = future;
	pthread_rwlock_unlock(&mm->lock);
}

void mm_unlock_all(struct mm *mm)
{
	pthread_rwlock_wrlock(&mm->lock);
	for (struct vma *v = vma_first(mm); v; v = vma_next(v))
		v->flags &= ~VMA_LOCKED;
	mm->lock_future = false;
	pthread_rwlock_unlock(&mm->lock);
}

bool mm_is_locked(struct mm *mm, uint64_t addr)
{
	struct vma *v;
	bool locked;

	pthread_rwlock_rdlock(&mm->lock);
	v = mm_find_vma(mm, addr);
	locked = v && (v->flags & VMA_LOCKED);
	pthread_rwlock_unlock(&mm->lock);
	return locked;
}

/* The bytes of the VMAs that have every flag of flags (0: all of them). */
static uint64_t vma_bytes(struct mm *mm, unsigned flags)
{
	uint64_t bytes = 0;

	pthread_rwlock_rdlock(&mm->lock);
	for (struct vma *v = vma_first(mm); v; v = vma_next(v))
		if ((v->flags & flags) == flags)
			bytes += v->end - v->start;
	pthread_rwlock_unlock(&mm->lock);
	return bytes;
}

uint64_t mm_locked_bytes(struct mm *mm)
{
	return vma_bytes(mm, VMA_LOCKED);
}

uint64_t mm_mapped_bytes(struct mm *mm)
{
	return vma_bytes(mm, 0);
}

/* One byte per page of [start, end) of v into vec: 1 when resident. */
static void vma_residency(struct mm *mm, const struct vma *v, uint64_t start, uint64_t end,
			  unsigned char *vec)
{
	uint64_t moff = v->mobj_off + (start - v->start), mend = moff + (end - start);

	if (!v->mobj) { /* a PROT_NONE reservation: nothing behind it */
		memset(vec, 0, (end - start) / PAGE_SIZE);
		return;
	}
	while (moff < mend) {
		uint64_t len = mend - moff, foff = mobj_frame(v->mobj, moff, &len);
		if (mincore(memfile_ptr(mm->mf, foff), len, vec) < 0)
			memset(vec, 0, len / PAGE_SIZE);
		for (uint64_t i = 0; i < len / PAGE_SIZE; i++)
			vec[i] &= 1;
		vec += len / PAGE_SIZE;
		moff += len;
	}
}

int mm_mincore(struct mm *mm, uint64_t addr, uint64_t pages, unsigned char *vec)
{
	uint64_t end = addr + pages * PAGE_SIZE, cur = addr;
	int ret = 0;

	pthread_rwlock_rdlock(&mm->lock);
	for (struct vma *v = mm_find_vma_after(mm, addr); cur < end; v = vma_next(v)) {
		uint64_t hi;
		if (!v || v->start > cur) {
			ret = -ENOMEM; /* a hole */
			break;
		}
		hi = MIN(v->end, end);
		vma_residency(mm, v, cur, hi, vec + (cur - addr) / PAGE_SIZE);
		cur = hi;
	}
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}
