/*
 * The resident set of an address space: the pages of the memory file its
 * VMAs name that the host holds (mincore on the sentry's own mapping). A
 * page shared with another address space (a fork's copy-on-write, a shared
 * mapping) counts in each, as Linux's RSS counts it. Used to choose whom
 * the out-of-memory monitor ends, and /proc's figures; it walks every page, so it is not for
 * hot paths.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/vma.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/util.h"

uint64_t vma_resident(struct mm *mm, const struct vma *v)
{
	uint64_t bytes = 0, moff = v->mobj_off, end = v->mobj_off + (v->end - v->start);

	if (!v->mobj || (v->flags & (VMA_VDSO | VMA_VVAR)))
		return 0;
	while (moff < end) {
		uint64_t len = end - moff, foff = mobj_frame(v->mobj, moff, &len);
		bytes += len - memfile_missing(mm->mf, foff, len, UINT64_MAX, NULL);
		moff += len;
	}
	return bytes;
}

uint64_t mm_resident(struct mm *mm)
{
	uint64_t bytes = 0;

	pthread_rwlock_rdlock(&mm->lock);
	for (struct vma *v = vma_first(mm); v; v = vma_next(v))
		bytes += vma_resident(mm, v);
	pthread_rwlock_unlock(&mm->lock);
	return bytes;
}
