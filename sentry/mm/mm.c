/*
 * Guest address-space operations: mmap, munmap, mprotect, mremap, madvise,
 * brk and stack growth, with Linux's argument rules. The VMA tree changes
 * first; the platform address space (when attached) is updated to match.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/vma.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/pagestore.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef MAP_UNINITIALIZED
#define MAP_UNINITIALIZED 0x4000000
#endif
#ifndef PROT_SEM
#define PROT_SEM 0x8
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC)
/* Linux's LEGACY_MAP_MASK plus the flags that have meaning since: what
 * MAP_SHARED_VALIDATE accepts. */
#define MAP_KNOWN                                                                                \
	(MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE | MAP_EXECUTABLE | \
	 MAP_UNINITIALIZED | MAP_GROWSDOWN | MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE |         \
	 MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB | MAP_32BIT | MAP_FIXED_NOREPLACE | MAP_SYNC |   \
	 (0x3fu << 26) /* MAP_HUGE_SHIFT bits */)

/* A shared file mapping that may have been written: its pages go back to the file. */
static int vma_writeback(struct vma *v)
{
	if (!v->bops || !v->bops->writeback || !(v->flags & VMA_SHARED) || (v->flags & VMA_NOWRITE))
		return 0;
	return v->bops->writeback(v->bobj, v->pgoff, v->end - v->start);
}

/* Every mm, for what changes them all (a file that shrank). */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head all_mms = LIST_HEAD_INIT(all_mms);

void mm_for_each(void (*fn)(struct mm *mm, void *arg), void *arg)
{
	struct mm **live = NULL;
	size_t n = 0, cap = 0;
	struct mm *mm;

	pthread_mutex_lock(&all_lock);
	list_for_each_entry(mm, &all_mms, all_node) {
		int refs = __atomic_load_n(&mm->refs, __ATOMIC_RELAXED);
		/* One going (refs 0) leaves the list once all_lock is free. */
		do {
			if (refs == 0)
				break;
		} while (!__atomic_compare_exchange_n(&mm->refs, &refs, refs + 1, false,
						      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
		if (refs == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			live = xrealloc(live, cap * sizeof(*live));
		}
		live[n++] = mm;
	}
	pthread_mutex_unlock(&all_lock);
	for (size_t i = 0; i < n; i++) {
		fn(live[i], arg);
		mm_put(live[i]);
	}
	free(live);
}

int mm_new(struct memfile *mf, uint64_t limit, struct mm **out)
{
	struct mm *mm = xzalloc(sizeof(*mm));

	pthread_mutex_lock(&all_lock);
	list_add_tail(&mm->all_node, &all_mms);
	pthread_mutex_unlock(&all_lock);
	mm->refs = 1;
	mm->mf = mf;
	mm->limit = limit;
	mm->mmap_base = GUEST_MAX_ADDR;
	pthread_rwlock_init(&mm->lock, NULL);
	*out = mm;
	return 0;
}

/* The new mobj that stands for old's private mobj m in a fork (made on first use). */
struct mobj_map {
	struct mobj **from, **to;
	size_t n, cap;
};

/*
 * The child's mobj shares m's pages (copy on write), except while host I/O
 * writes into m (a pinned read(2) in another thread): that data must reach
 * the parent only, so the child gets a copy made now, as Linux copies pages
 * pinned for DMA at fork.
 */
static int fork_mobj(struct mobj_map *map, struct mobj *m, struct mobj **out)
{
	int ret = 0;

	for (size_t i = 0; i < map->n; i++)
		if (map->from[i] == m) {
			*out = mobj_get(map->to[i]);
			return 0;
		}
	if (mobj_write_pinned(m))
		ret = mobj_copy(m, out);
	else
		*out = mobj_fork(m);
	if (ret < 0)
		return ret;
	mobj_get(*out); /* one for the VMA, one for the map (dropped after the fork) */
	if (map->n == map->cap) {
		map->cap = map->cap ? map->cap * 2 : 16;
		map->from = xrealloc(map->from, map->cap * sizeof(*map->from));
		map->to = xrealloc(map->to, map->cap * sizeof(*map->to));
	}
	map->from[map->n] = m;
	map->to[map->n++] = *out;
	return 0;
}

void (*mm_aio_exit)(struct mm *mm);

int mm_fork(struct mm *old, struct mm **out)
{
	struct mobj_map map = {0};
	struct mm *mm;
	struct vma *v;
	int ret = 0;

	mm_new(old->mf, old->limit, &mm);
	/* Written: the parent's pages become shared, and its mappings read-only. */
	pthread_rwlock_wrlock(&old->lock);
	mm->mmap_base = old->mmap_base;
	mm->start_brk = old->start_brk;
	mm->brk = old->brk;
	mm->stack_top = old->stack_top;
	mm->start_stack = old->start_stack;
	mm->arg_start = old->arg_start;
	mm->arg_end = old->arg_end;
	mm->env_start = old->env_start;
	mm->env_end = old->env_end;
	memcpy(mm->saved_auxv, old->saved_auxv, sizeof(mm->saved_auxv));
	mm->saved_auxv_words = old->saved_auxv_words;
	mm->thp_disable = old->thp_disable;
	mm->membarrier_reg = old->membarrier_reg;
	for (v = vma_first(old); v && ret == 0; v = vma_next(v)) {
		struct vma *n;
		if (v->flags & VMA_DONTFORK)
			continue;
		/* Memory locks are not inherited (mlock(2)). */
		n = vma_alloc(v->start, v->end, v->prot, v->flags & ~VMA_LOCKED);
		vma_set_backing(n, v->bops, v->bobj, v->pgoff);
		n->eof_off = v->eof_off;
		if (!v->mobj) {
			/* a PROT_NONE reservation: nothing behind it */
		} else if (v->mobj->shared) {
			n->mobj = mobj_get(v->mobj);
			n->mobj_off = v->mobj_off;
		} else if (v->flags & VMA_WIPEONFORK) {
			ret = mobj_new(mm->mf, v->end - v->start, false, &n->mobj);
		} else {
			/* Same shape as the parent's (a stack keeps its room to grow). */
			ret = fork_mobj(&map, v->mobj, &n->mobj);
			n->mobj_off = v->mobj_off;
			/* The parent's writes must fault from now on. */
			if (ret == 0 && (v->prot & PROT_WRITE))
				ret = vma_write_protect(old, v);
		}
		if (ret < 0) {
			vma_destroy(n, false);
			break;
		}
		vma_insert(mm, n);
	}
	pthread_rwlock_unlock(&old->lock);
	for (size_t i = 0; i < map.n; i++)
		mobj_put(map.to[i]);
	free(map.from);
	free(map.to);
	if (ret < 0) {
		mm_put(mm);
		return ret;
	}
	*out = mm;
	return 0;
}

struct mm *mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->refs, 1, __ATOMIC_RELAXED);
	return mm;
}

void mm_put(struct mm *mm)
{
	struct vma *v;

	if (!mm || __atomic_sub_fetch(&mm->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_lock(&all_lock);
	list_del(&mm->all_node);
	pthread_mutex_unlock(&all_lock);
	if (mm->aio && mm_aio_exit)
		mm_aio_exit(mm);
	while ((v = vma_first(mm))) {
		vma_writeback(v);
		vma_unlink(mm, v);
		vma_destroy(v, true);
	}
	if (mm->as)
		mm->as->ops->release(mm->as);
	pthread_rwlock_destroy(&mm->lock);
	free(mm);
}

/* Mirror one VMA into the platform address space. */
static int vma_sync(struct mm *mm, const struct vma *v)
{
	return vma_map(mm, v, v->start, v->end);
}

int mm_attach(struct mm *mm, struct address_space *as)
{
	struct vma *v;
	int ret = 0;

	pthread_rwlock_wrlock(&mm->lock);
	mm->as = as;
	for (v = vma_first(mm); v && ret == 0; v = vma_next(v))
		if (v->mobj)
			ret = vma_sync(mm, v);
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

/* Would committing len more bytes exceed the guest memory limit? */
static bool over_limit(struct mm *mm, uint64_t len)
{
	return len > mm->limit || mm->committed > mm->limit - len;
}

/*
 * Remove every mapping in [start, end) from the tree. The platform is told
 * only when unmap_platform is set (a MAP_FIXED replacement maps over it).
 */
static int range_unmap(struct mm *mm, uint64_t start, uint64_t end, bool unmap_platform)
{
	struct vma *v = mm_find_vma_after(mm, start);
	bool any = false;

	while (v && v->start < end) {
		struct vma *next;
		if (v->start < start) {
			v = vma_split(mm, v, start);
			continue;
		}
		if (v->end > end)
			vma_split(mm, v, end);
		next = vma_next(v);
		vma_writeback(v);
		vma_unlink(mm, v);
		vma_destroy(v, true);
		any = true;
		v = next;
	}
	if (any && unmap_platform && mm->as)
		return as_unmap(mm->as, start, end - start);
	return 0;
}

/* Will splitting and unmapping [start, end) push the VMA count over the limit? */
static bool too_many_vmas(struct mm *mm, unsigned long more)
{
	return mm->nr_vmas + more > MM_MAX_VMAS;
}

/* Create, insert and map a fresh anonymous VMA over [start, end); with a
 * request that names a file, its memory starts as a copy of the file's bytes. */
static int anon_vma_fill(struct mm *mm, uint64_t start, uint64_t end, int prot, unsigned flags,
			 const struct mmap_req *req, struct vma **out)
{
	struct vma *v = vma_alloc(start, end, prot, flags);
	bool file = req && req->bops;
	int ret;

	if ((prot & PROT_ALL) || (flags & VMA_SHARED) || file) {
		ret = mobj_new(mm->mf, end - start, flags & VMA_SHARED, &v->mobj);
		if (ret < 0) {
			free(v);
			return ret;
		}
	}
	if (file) {
		long n = req->bops->read(req->bobj, memfile_ptr(mm->mf, v->mobj->off), end - start,
					 req->off);
		if (n < 0) {
			mobj_put(v->mobj);
			free(v);
			return (int)n;
		}
		vma_set_backing(v, req->bops, req->bobj, req->off);
		/* Short only at the file's end (sentry/mm/eof.c). */
		if (req->sigbus_past_eof)
			v->eof_off = req->off + ALIGN_UP((uint64_t)n, PAGE_SIZE);
	}
	vma_insert(mm, v);
	ret = vma_sync(mm, v);
	if (ret < 0) {
		vma_unlink(mm, v);
		vma_destroy(v, true);
		return ret;
	}
	if (out)
		*out = v;
	return 0;
}

static int anon_vma_create(struct mm *mm, uint64_t start, uint64_t end, int prot, unsigned flags,
			   struct vma **out)
{
	return anon_vma_fill(mm, start, end, prot, flags, NULL, out);
}

/* A shared window onto a file's page store at file offset off: one VMA per
 * chunk it spans; eof_off: see struct vma. */
static int pages_vmas_create(struct mm *mm, uint64_t start, uint64_t end, int prot, unsigned flags,
			     const struct mm_backing_ops *bops, void *bobj, uint64_t off,
			     uint64_t eof_off)
{
	struct pagestore *ps;
	pthread_mutex_t *lock;
	uint64_t addr = start;
	int ret;

	ret = bops->pages(bobj, off, end - start, !(flags & VMA_NOWRITE), &ps, &lock);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(lock);
	while (addr < end && ret == 0) {
		uint64_t at = off + (addr - start), file_off, avail, len;
		struct vma *v;
		ret = (int)ps_map(ps, at, &file_off, &avail);
		if (ret < 0)
			break;
		len = MIN(avail, end - addr);
		v = vma_alloc(addr, addr + len, prot, flags | VMA_SHARED);
		v->mobj = mobj_get(ps->chunks[at >> PS_CHUNK_SHIFT]);
		v->mobj_off = at & (PS_CHUNK_SIZE - 1);
		vma_set_backing(v, bops, bobj, at);
		v->eof_off = eof_off;
		vma_insert(mm, v);
		ret = vma_sync(mm, v);
		addr += len;
	}
	pthread_mutex_unlock(lock);
	if (ret < 0)
		range_unmap(mm, start, addr, true);
	return ret;
}

/*
 * mmap of a file, shared: a window onto its pages. A window wholly past the
 * file's end at an offset the file cannot reach (its page store refuses it:
 * EFBIG) has no pages to show, ever: it is made of memory of its own, all
 * SIGBUS (sentry/mm/eof.c), as Linux's maps at any offset a file may have.
 */
static int shared_file_vmas(struct mm *mm, uint64_t start, uint64_t end, const struct mmap_req *req,
			    unsigned vflags)
{
	uint64_t eof = req->sigbus_past_eof && req->bops->size
			       ? ALIGN_UP(req->bops->size(req->bobj), PAGE_SIZE)
			       : VMA_NO_EOF;
	int prot = req->prot & PROT_ALL;
	struct vma *v;
	int ret;

	ret = pages_vmas_create(mm, start, end, prot, vflags, req->bops, req->bobj, req->off, eof);
	if (ret != -EFBIG || eof == VMA_NO_EOF || eof > req->off)
		return ret;
	ret = anon_vma_fill(mm, start, end, prot, vflags, NULL, &v);
	if (ret < 0)
		return ret;
	vma_set_backing(v, req->bops, req->bobj, req->off);
	v->eof_off = eof;
	return vma_sync(mm, v);
}

static long mmap_locked(struct mm *mm, const struct mmap_req *req)
{
	uint64_t len, addr = req->addr;
	int flags = req->flags, type = flags & MAP_TYPE;
	unsigned vflags = req->vma_flags;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	int ret;

	if (req->prot & ~(PROT_ALL | PROT_SEM))
		return -EINVAL;
	switch (type) {
	case MAP_PRIVATE:
		break;
	case MAP_SHARED_VALIDATE:
		if (flags & ~MAP_KNOWN)
			return -EOPNOTSUPP;
		/* MAP_SYNC is only for DAX files. */
		if (flags & MAP_SYNC)
			return -EOPNOTSUPP;
		vflags |= VMA_SHARED;
		break;
	case MAP_SHARED:
		vflags |= VMA_SHARED;
		break;
	default:
		return -EINVAL;
	}
	if (req->len == 0)
		return -EINVAL;
	if (req->len > GUEST_MAX_ADDR)
		return -ENOMEM;
	len = ALIGN_UP(req->len, PAGE_SIZE);
	if (flags & MAP_HUGETLB)
		return -ENOMEM; /* no huge pages are reserved in the sandbox */
	if (flags & MAP_GROWSDOWN)
		vflags |= VMA_GROWSDOWN;
	if (flags & MAP_NORESERVE)
		vflags |= VMA_NORESERVE;
	if ((flags & MAP_LOCKED) || mm->lock_future)
		vflags |= VMA_LOCKED;

	if (fixed) {
		if (!IS_ALIGNED(addr, PAGE_SIZE))
			return -EINVAL;
		if (addr < GUEST_MIN_ADDR)
			return -EPERM; /* below vm.mmap_min_addr */
		if (addr > GUEST_MAX_ADDR - len)
			return -ENOMEM;
		/* Linux: NOREPLACE never replaces, even when MAP_FIXED comes with it. */
		if ((flags & MAP_FIXED_NOREPLACE) && !mm_range_free(mm, addr, addr + len)) {
			struct vma *v = mm_find_vma_after(mm, addr);
			/* Only a real overlap is EEXIST; a guard gap alone is not. */
			if (v && v->start < addr + len)
				return -EEXIST;
		}
	} else {
		uint64_t hint = ALIGN_DOWN(addr, PAGE_SIZE);
		uint64_t lo = GUEST_MIN_ADDR, hi = mm->mmap_base;

		if (flags & MAP_32BIT) {
			lo = 0x40000000ul;
			hi = 0x80000000ul;
		}
		if (hint >= lo && hint <= GUEST_MAX_ADDR - len && !(flags & MAP_32BIT) &&
		    mm_range_free(mm, hint, hint + len)) {
			addr = hint;
		} else {
			addr = mm_find_gap(mm, lo, hi, len);
			if (!addr && !(flags & MAP_32BIT))
				addr = mm_find_gap(mm, mm->mmap_base, GUEST_MAX_ADDR, len);
			if (!addr)
				return -ENOMEM;
		}
	}

	if (((req->prot & PROT_ALL) || (vflags & VMA_SHARED) || req->bops) && over_limit(mm, len)) {
		/* What a MAP_FIXED replaces is given back first. */
		uint64_t replaced = 0;
		struct vma *v;
		if (fixed)
			for (v = mm_find_vma_after(mm, addr); v && v->start < addr + len;
			     v = vma_next(v))
				if (v->mobj)
					replaced += MIN(v->end, addr + len) - MAX(v->start, addr);
		if (over_limit(mm, len - replaced))
			return -ENOMEM;
	}
	if (too_many_vmas(mm, 3))
		return -ENOMEM;
	if (fixed) {
		/* A PROT_NONE reservation maps nothing in the stub: clear it there too. */
		ret = range_unmap(mm, addr, addr + len,
				  !((req->prot & PROT_ALL) || (vflags & VMA_SHARED) || req->bops));
		if (ret < 0)
			return ret;
	}
	if (req->bops && (vflags & VMA_SHARED))
		ret = shared_file_vmas(mm, addr, addr + len, req, vflags);
	else
		ret = anon_vma_fill(mm, addr, addr + len, req->prot & PROT_ALL, vflags, req, NULL);
	if (ret < 0)
		return ret;
	return (long)addr;
}

int mm_map_stack(struct mm *mm, uint64_t top, uint64_t len, uint64_t reserve)
{
	struct vma *v;
	int ret;

	reserve = ALIGN_DOWN(MIN(MAX(reserve, len), MM_STACK_RESERVE_MAX), PAGE_SIZE);
	if (!IS_ALIGNED(top, PAGE_SIZE) || !IS_ALIGNED(len, PAGE_SIZE) || len == 0 ||
	    len > reserve || top > GUEST_MAX_ADDR || top - GUEST_MIN_ADDR < len)
		return -EINVAL;
	pthread_rwlock_wrlock(&mm->lock);
	if (!mm_range_free(mm, top - len, top)) {
		ret = -EEXIST;
		goto out;
	}
	if (over_limit(mm, len)) {
		ret = -ENOMEM;
		goto out;
	}
	v = vma_alloc(top - len, top, PROT_READ | PROT_WRITE, VMA_GROWSDOWN | VMA_STACK);
	ret = mobj_new(mm->mf, reserve, false, &v->mobj);
	if (ret < 0) {
		free(v);
		goto out;
	}
	v->mobj_off = reserve - len;
	vma_insert(mm, v);
	ret = vma_sync(mm, v);
	if (ret < 0) {
		vma_unlink(mm, v);
		vma_destroy(v, true);
	}
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

uint64_t mm_unmapped_area(struct mm *mm, uint64_t len)
{
	uint64_t addr;

	len = ALIGN_UP(len, PAGE_SIZE);
	pthread_rwlock_rdlock(&mm->lock);
	addr = mm_find_gap(mm, GUEST_MIN_ADDR, mm->mmap_base, len);
	if (!addr)
		addr = mm_find_gap(mm, mm->mmap_base, GUEST_MAX_ADDR, len);
	pthread_rwlock_unlock(&mm->lock);
	return addr;
}

long mm_mmap(struct mm *mm, const struct mmap_req *req)
{
	long ret;

	pthread_rwlock_wrlock(&mm->lock);
	ret = mmap_locked(mm, req);
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

int mm_munmap(struct mm *mm, uint64_t addr, uint64_t len)
{
	int ret;

	if (!IS_ALIGNED(addr, PAGE_SIZE) || len == 0)
		return -EINVAL;
	if (len > GUEST_MAX_ADDR || addr > HOST_TASK_SIZE - ALIGN_UP(len, PAGE_SIZE))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (addr >= GUEST_MAX_ADDR)
		return 0; /* nothing of the guest's lives there */
	if (addr + len > GUEST_MAX_ADDR)
		len = GUEST_MAX_ADDR - addr;
	pthread_rwlock_wrlock(&mm->lock);
	if (too_many_vmas(mm, 1))
		ret = -ENOMEM;
	else
		ret = range_unmap(mm, addr, addr + len, true);
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

/* Apply prot to the VMA v, which lies inside the mprotect range. */
static int vma_set_prot(struct mm *mm, struct vma *v, int prot)
{
	int ret;

	if (v->prot == prot)
		return 0;
	if ((prot & PROT_WRITE) && (v->flags & VMA_NOWRITE))
		return -EACCES; /* the file is not open for writing */
	if ((prot & PROT_EXEC) && (v->flags & VMA_NOEXEC))
		return -EACCES; /* the file is on a noexec mount */
	if (!v->mobj && (prot & PROT_ALL)) {
		if (over_limit(mm, v->end - v->start))
			return -ENOMEM;
		ret = mobj_new(mm->mf, v->end - v->start, false, &v->mobj);
		if (ret < 0)
			return ret;
		v->mobj_off = 0;
		mm->committed += v->end - v->start;
		v->prot = prot;
		return vma_sync(mm, v);
	}
	v->prot = prot;
	/* Mapped again with the new protection: stubs never need mprotect. */
	if (!mm->as || !v->mobj)
		return 0;
	return vma_sync(mm, v);
}

int mm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
	uint64_t end;
	struct vma *v;
	int ret = 0;

	if (!IS_ALIGNED(addr, PAGE_SIZE))
		return -EINVAL;
	if (prot & ~(PROT_ALL | PROT_SEM | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if ((prot & (PROT_GROWSDOWN | PROT_GROWSUP)) == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (len == 0)
		return 0;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (len == 0 || addr > UINT64_MAX - len)
		return -ENOMEM;
	end = addr + len;

	pthread_rwlock_wrlock(&mm->lock);
	v = mm_find_vma_after(mm, addr);
	if (!v || v->start >= end) {
		ret = -ENOMEM;
		goto out;
	}
	if (prot & PROT_GROWSDOWN) {
		if (!(v->flags & VMA_GROWSDOWN)) {
			ret = -EINVAL;
			goto out;
		}
		addr = v->start;
	} else if (prot & PROT_GROWSUP) {
		ret = -EINVAL; /* x86 has no grows-up mappings */
		goto out;
	}
	if (v->start > addr) {
		ret = -ENOMEM;
		goto out;
	}
	prot &= PROT_ALL;
	if (too_many_vmas(mm, 2)) {
		ret = -ENOMEM;
		goto out;
	}
	/* Linux changes the VMAs up to the first hole, then reports ENOMEM. */
	while (v && v->start < end) {
		struct vma *next;
		if (v->start < addr) {
			v = vma_split(mm, v, addr);
			continue;
		}
		if (v->end > end)
			vma_split(mm, v, end);
		ret = vma_set_prot(mm, v, prot);
		if (ret < 0)
			goto out;
		/* The merge may free v's neighbours: look for the next VMA after it. */
		v = vma_merge(mm, v);
		if (v->end >= end)
			break;
		next = vma_next(v);
		if (!next || next->start != v->end) {
			ret = -ENOMEM;
			goto out;
		}
		v = next;
	}
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

/* Give v (which ends at the old end) len more bytes: in the same mobj when it can grow. */
static int vma_extend_up(struct mm *mm, struct vma *v, uint64_t new_end)
{
	uint64_t add = new_end - v->end, old_end = v->end;
	struct vma *n;
	int ret;

	if (v->mobj && over_limit(mm, add))
		return -ENOMEM;
	if (v->bops) {
		/* More of the file: a window onto its pages, or a copy of them. */
		uint64_t off = v->pgoff + (old_end - v->start);
		struct mmap_req req = {.bops = v->bops,
				       .bobj = v->bobj,
				       .off = off,
				       .sigbus_past_eof = v->eof_off != VMA_NO_EOF};
		if (v->flags & VMA_SHARED)
			return pages_vmas_create(mm, old_end, new_end, v->prot,
						 v->flags & ~VMA_GROWSDOWN, v->bops, v->bobj, off,
						 v->eof_off);
		return anon_vma_fill(mm, old_end, new_end, v->prot, v->flags & ~VMA_GROWSDOWN, &req,
				     NULL);
	}
	if (!v->mobj) {
		v->end = new_end;
		return vma_sync(mm, v);
	}
	if (!v->mobj->shared && v->mobj_off + (v->end - v->start) == v->mobj->len &&
	    mobj_grow(v->mobj, v->mobj->len + add) == 0) {
		v->end = new_end;
		mm->committed += add;
		return vma_map(mm, v, old_end, new_end);
	}
	ret = anon_vma_create(mm, old_end, new_end, v->prot, v->flags & ~VMA_GROWSDOWN, &n);
	return ret;
}

uint64_t mm_brk(struct mm *mm, uint64_t brk)
{
	uint64_t oldbrk, newbrk, ret;
	struct vma *v, *next;

	pthread_rwlock_wrlock(&mm->lock);
	ret = mm->brk;
	if (brk < mm->start_brk || brk > GUEST_MAX_ADDR)
		goto out;
	oldbrk = ALIGN_UP(mm->brk, PAGE_SIZE);
	newbrk = ALIGN_UP(brk, PAGE_SIZE);
	if (newbrk == oldbrk) {
		mm->brk = ret = brk;
		goto out;
	}
	if (brk < mm->brk) {
		if (range_unmap(mm, newbrk, oldbrk, true) == 0)
			mm->brk = ret = brk;
		goto out;
	}
	next = mm_find_vma_after(mm, oldbrk);
	if (next && newbrk + PAGE_SIZE > vma_start_gap(next))
		goto out;
	v = oldbrk > mm->start_brk ? mm_find_vma(mm, oldbrk - 1) : NULL;
	if (v && (v->flags & VMA_HEAP) && v->prot == (PROT_READ | PROT_WRITE)) {
		if (vma_extend_up(mm, v, newbrk) < 0)
			goto out;
	} else if (over_limit(mm, newbrk - oldbrk) ||
		   anon_vma_create(mm, oldbrk, newbrk, PROT_READ | PROT_WRITE, VMA_HEAP, NULL) <
			   0) {
		goto out;
	}
	mm->brk = ret = brk;
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

void mm_set_brk(struct mm *mm, uint64_t start)
{
	pthread_rwlock_wrlock(&mm->lock);
	mm->start_brk = mm->brk = start;
	pthread_rwlock_unlock(&mm->lock);
}

/* Move the VMA v (exactly the old range) to new_addr; the new range is free. */
static int vma_move(struct mm *mm, struct vma *v, uint64_t new_addr, bool dontunmap)
{
	uint64_t old = v->start, len = v->end - v->start;
	int ret;

	vma_unlink(mm, v);
	v->start = new_addr;
	v->end = new_addr + len;
	v->flags &= ~VMA_STACK;
	vma_insert(mm, v);
	ret = vma_sync(mm, v);
	if (ret < 0)
		return ret;
	if (mm->as) {
		ret = as_unmap(mm->as, old, len);
		if (ret < 0)
			return ret;
	}
	if (dontunmap)
		/* The old range stays mapped, and reads as fresh zero pages. */
		ret = anon_vma_create(mm, old, old + len, v->prot, v->flags & ~VMA_SHARED, NULL);
	return ret;
}

/*
 * Is [start, end) one mapping as Linux would see it? Growth we could not do
 * in place (brk, mremap) leaves adjacent VMAs with different memory objects
 * where Linux has one VMA; mremap must accept those as one.
 */
static bool one_mapping(struct mm *mm, struct vma *v, uint64_t end)
{
	while (v->end < end) {
		struct vma *n = vma_next(v);
		if (!n || n->start != v->end || n->prot != v->prot || !n->mobj != !v->mobj ||
		    (n->flags & ~VMA_GROWSDOWN) != (v->flags & ~VMA_GROWSDOWN))
			return false;
		v = n;
	}
	return true;
}

/* Move the VMAs of [old, old+len) (split to fit) to new_addr; returns the last one moved. */
static int move_range(struct mm *mm, uint64_t old, uint64_t len, uint64_t new_addr, bool dontunmap,
		      struct vma **last)
{
	struct vma *v = mm_find_vma(mm, old), *tail, **pieces;
	size_t n = 0, cap = 8;
	int ret = 0;

	if (v->start < old)
		v = vma_split(mm, v, old);
	tail = mm_find_vma(mm, old + len - 1);
	if (tail->end > old + len)
		vma_split(mm, tail, old + len);
	pieces = xmalloc(cap * sizeof(*pieces));
	for (; v && v->start < old + len; v = vma_next(v)) {
		if (n == cap)
			pieces = xrealloc(pieces, (cap *= 2) * sizeof(*pieces));
		pieces[n++] = v;
	}
	/* Collected first: moving changes the tree under the iteration. */
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = vma_move(mm, pieces[i], new_addr + (pieces[i]->start - old), dontunmap);
	*last = n ? pieces[n - 1] : NULL;
	free(pieces);
	return ret;
}

static long mremap_locked(struct mm *mm, uint64_t old_addr, uint64_t old_len, uint64_t new_len,
			  int flags, uint64_t new_addr)
{
	struct vma *v;
	uint64_t old_end;
	int ret;

	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if (!IS_ALIGNED(old_addr, PAGE_SIZE))
		return -EINVAL;
	old_len = ALIGN_UP(old_len, PAGE_SIZE);
	new_len = ALIGN_UP(new_len, PAGE_SIZE);
	if (new_len == 0)
		return -EINVAL;
	if (new_len > GUEST_MAX_ADDR || old_len > GUEST_MAX_ADDR)
		return -ENOMEM;

	v = mm_find_vma(mm, old_addr);
	if (!v)
		return -EFAULT;
	old_end = old_addr + old_len;
	if (old_len == 0) {
		/* Duplicating a mapping only makes sense for shared memory. */
		if (!(v->flags & VMA_SHARED) || !(flags & MREMAP_MAYMOVE))
			return -EINVAL;
	} else if (!one_mapping(mm, v, old_end)) {
		return -EFAULT;
	}

	if (flags & MREMAP_FIXED) {
		if (!IS_ALIGNED(new_addr, PAGE_SIZE))
			return -EINVAL;
		if (new_addr < GUEST_MIN_ADDR || new_addr > GUEST_MAX_ADDR - new_len)
			return -EINVAL;
		if (new_addr < old_addr + MAX(old_len, new_len) && old_addr < new_addr + new_len)
			return -EINVAL;
	}
	if (too_many_vmas(mm, 4))
		return -ENOMEM;
	if ((v->mobj || (v->prot & PROT_ALL)) && new_len > old_len &&
	    over_limit(mm, new_len - old_len))
		return -ENOMEM;

	if (!(flags & MREMAP_FIXED)) {
		/* DONTUNMAP always moves (Linux treats it like MREMAP_FIXED). */
		if (old_len && new_len <= old_len && !(flags & MREMAP_DONTUNMAP)) {
			ret = range_unmap(mm, old_addr + new_len, old_end, true);
			return ret < 0 ? ret : (long)old_addr;
		}
		/* Grow in place when the space after the mapping is free. */
		if (old_len && new_len > old_len) {
			struct vma *last = mm_find_vma(mm, old_end - 1);
			if (old_end == last->end && old_addr + new_len <= GUEST_MAX_ADDR &&
			    mm_range_free(mm, old_end, old_addr + new_len)) {
				ret = vma_extend_up(mm, last, old_addr + new_len);
				return ret < 0 ? ret : (long)old_addr;
			}
		}
		if (!(flags & MREMAP_MAYMOVE))
			return -ENOMEM;
		new_addr = mm_find_gap(mm, GUEST_MIN_ADDR, mm->mmap_base, new_len);
		if (!new_addr)
			new_addr = mm_find_gap(mm, mm->mmap_base, GUEST_MAX_ADDR, new_len);
		if (!new_addr)
			return -ENOMEM;
	} else {
		ret = range_unmap(mm, new_addr, new_addr + new_len, true);
		if (ret < 0)
			return ret;
		v = mm_find_vma(mm, old_addr);
		if (old_len && new_len < old_len) {
			ret = range_unmap(mm, old_addr + new_len, old_end, true);
			if (ret < 0)
				return ret;
			old_len = new_len;
			old_end = old_addr + old_len;
		}
	}

	if (old_len == 0) {
		/* A second view of the same shared memory. */
		struct vma *n = vma_alloc(new_addr, new_addr + new_len, v->prot, v->flags);
		uint64_t off = v->mobj_off + (old_addr - v->start);
		if (!v->mobj || off + new_len > v->mobj->len) {
			free(n);
			return -EINVAL;
		}
		n->mobj = mobj_get(v->mobj);
		n->mobj_off = off;
		vma_set_backing(n, v->bops, v->bobj, v->pgoff + (old_addr - v->start));
		n->eof_off = v->eof_off;
		vma_insert(mm, n);
		ret = vma_sync(mm, n);
		return ret < 0 ? ret : (long)new_addr;
	}

	/* Cut out exactly the old range and move it. */
	ret = move_range(mm, old_addr, old_len, new_addr, flags & MREMAP_DONTUNMAP, &v);
	if (ret < 0)
		return ret;
	if (new_len > old_len) {
		ret = vma_extend_up(mm, v, new_addr + new_len);
		if (ret < 0)
			return ret;
	}
	return (long)new_addr;
}

long mm_mremap(struct mm *mm, uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags,
	       uint64_t new_addr)
{
	long ret;

	pthread_rwlock_wrlock(&mm->lock);
	ret = mremap_locked(mm, old_addr, old_len, new_len, flags, new_addr);
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

static bool advice_known(int advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_REMOVE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_MERGEABLE:
	case MADV_UNMERGEABLE:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
	case 20: /* MADV_COLD */
	case 21: /* MADV_PAGEOUT */
	case 22: /* MADV_POPULATE_READ */
	case 23: /* MADV_POPULATE_WRITE */
		return true;
	default:
		return false;
	}
}

/* Apply one advice to [start, end), which lies inside v. */
static int vma_advise(struct mm *mm, struct vma *v, int advice, uint64_t start, uint64_t end)
{
	uint64_t moff = v->mobj_off + (start - v->start);
	bool moved = false;
	int ret;

	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
		if (v->flags & VMA_LOCKED)
			return -EINVAL;
		/* Private memory reads as zero afterwards; shared memory keeps its data. */
		if (!v->mobj || v->mobj->shared)
			return 0;
		/* Pages a fork shares are replaced, not zeroed: the stub maps the new ones. */
		ret = mobj_zero(v->mobj, moff, end - start, &moved);
		if (ret == 0 && moved)
			ret = vma_map(mm, v, start, end);
		return ret;
	case MADV_REMOVE:
		if (!(v->flags & VMA_SHARED))
			return -EINVAL;
		if (v->mobj)
			memfile_punch(mm->mf, v->mobj->off + moff, end - start);
		return 0;
	case MADV_DONTFORK:
		v->flags |= VMA_DONTFORK;
		return 0;
	case MADV_DOFORK:
		v->flags &= ~VMA_DONTFORK;
		return 0;
	case MADV_WIPEONFORK:
		if (v->flags & VMA_SHARED)
			return -EINVAL;
		v->flags |= VMA_WIPEONFORK;
		return 0;
	case MADV_KEEPONFORK:
		v->flags &= ~VMA_WIPEONFORK;
		return 0;
	case 20: /* MADV_COLD */
	case 21: /* MADV_PAGEOUT */
		/* Linux's can_madv_lru_vma: not for locked memory. */
		return (v->flags & VMA_LOCKED) ? -EINVAL : 0;
	case 22: /* MADV_POPULATE_READ */
	case 23: /* MADV_POPULATE_WRITE */
		if (!v->mobj || !(v->prot & (advice == 22 ? PROT_ALL : PROT_WRITE)))
			return -ENOMEM;
		return 0;
	default:
		return 0; /* hints with no effect on what the guest can observe */
	}
}

/* Advice that changes VMA flags works on whole VMAs, so it splits them. */
static bool advice_changes_flags(int advice)
{
	return advice == MADV_DONTFORK || advice == MADV_DOFORK || advice == MADV_WIPEONFORK ||
	       advice == MADV_KEEPONFORK;
}

int mm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
	uint64_t end, cur;
	struct vma *v;
	bool unmapped = false;
	int ret = 0;

	if (!IS_ALIGNED(addr, PAGE_SIZE) || !advice_known(advice))
		return -EINVAL;
	if (len > UINT64_MAX - (PAGE_SIZE - 1))
		return -EINVAL; /* Linux: a length that rounds up to zero */
	len = ALIGN_UP(len, PAGE_SIZE);
	if (addr > UINT64_MAX - len)
		return -EINVAL;
	if (len == 0)
		return 0;
	end = addr + len;

	pthread_rwlock_wrlock(&mm->lock);
	if (advice_changes_flags(advice) && too_many_vmas(mm, 2)) {
		ret = -ENOMEM;
		goto out;
	}
	cur = addr;
	for (v = mm_find_vma_after(mm, addr); v && v->start < end; v = vma_next(v)) {
		if (v->start > cur)
			unmapped = true;
		if (advice_changes_flags(advice)) {
			if (v->start < addr)
				v = vma_split(mm, v, addr);
			if (v->end > end)
				vma_split(mm, v, end);
		}
		ret = vma_advise(mm, v, advice, MAX(v->start, addr), MIN(v->end, end));
		if (ret < 0)
			goto out;
		cur = MIN(v->end, end);
	}
	/* Linux applies the advice to every mapped part, then reports the holes. */
	if (unmapped || cur < end)
		ret = -ENOMEM;
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

void mm_set_backing(struct mm *mm, uint64_t start, uint64_t end, const struct mm_backing_ops *bops,
		    void *bobj, uint64_t pgoff)
{
	struct vma *v;

	pthread_rwlock_wrlock(&mm->lock);
	for (v = mm_find_vma_after(mm, start); v && v->start < end; v = vma_next(v)) {
		if (v->start < start)
			v = vma_split(mm, v, start);
		if (v->end > end)
			vma_split(mm, v, end);
		vma_set_backing(v, bops, bobj, pgoff + (v->start - start));
	}
	pthread_rwlock_unlock(&mm->lock);
}

int mm_msync(struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
	uint64_t end, cur;
	struct vma *v;
	int ret = 0, err;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (!IS_ALIGNED(addr, PAGE_SIZE) || ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	if (len > UINT64_MAX - (PAGE_SIZE - 1))
		return -ENOMEM;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (addr > UINT64_MAX - len)
		return -ENOMEM;
	if (len == 0)
		return 0;
	end = addr + len;

	pthread_rwlock_rdlock(&mm->lock);
	cur = addr;
	for (v = mm_find_vma_after(mm, addr); v && v->start < end; v = vma_next(v)) {
		uint64_t s = MAX(v->start, addr), e = MIN(v->end, end);
		if (v->start > cur)
			ret = -ENOMEM; /* Linux goes on, then reports the hole */
		cur = e;
		if ((flags & MS_INVALIDATE) && (v->flags & VMA_LOCKED)) {
			ret = -EBUSY;
			break;
		}
		/* MS_ASYNC has nothing to start: reads already see the mapped pages. */
		if (!(flags & MS_SYNC) || !v->bops || !v->bops->writeback ||
		    !(v->flags & VMA_SHARED) || (v->flags & VMA_NOWRITE))
			continue;
		err = v->bops->writeback(v->bobj, v->pgoff + (s - v->start), e - s);
		if (err < 0 && ret == 0)
			ret = err;
	}
	pthread_rwlock_unlock(&mm->lock);
	if (ret == 0 && cur < end)
		ret = -ENOMEM;
	return ret;
}

int mm_handle_fault(struct mm *mm, uint64_t addr, unsigned access, uint64_t stack_limit)
{
	struct vma *v, *prev;
	uint64_t new_start, grow;
	int ret = SEGV_MAPERR;

	pthread_rwlock_wrlock(&mm->lock);
	v = mm_find_vma(mm, addr);
	if (v) {
		bool allowed = v->mobj && (v->prot & PROT_ALL), copied = false;
		if ((access & ACCESS_WRITE) && !(v->prot & PROT_WRITE))
			allowed = false;
		if ((access & ACCESS_EXEC) && !(v->prot & PROT_EXEC))
			allowed = false;
		ret = SEGV_ACCERR;
		if (!allowed)
			goto out;
		/* Past the end of a mapped file: SIGBUS, unless it has grown. */
		if (addr >= vma_bus_start(v)) {
			ret = vma_eof_fault(mm, v, addr) == 0 ? 0 : MM_FAULT_SIGBUS;
			goto out;
		}
		/*
		 * A write to a page a fork shares (or shared: mapped read-only
		 * still). Reads of such a page do not fault, so anything but an
		 * instruction fetch is that write, even where the platform could
		 * not tell the access (ptrace) and the decoder did not either.
		 */
		if ((v->prot & PROT_WRITE) && !v->mobj->shared && !(access & ACCESS_EXEC)) {
			if (vma_write_fault(mm, v, addr, &copied) == 0 && (copied || access))
				ret = 0;
			goto out;
		}
		/* A fault on memory the guest may access means the stub lost the
		 * mapping: restore it and let the guest retry. */
		if (access && vma_sync(mm, v) == 0)
			ret = 0;
		goto out;
	}
	v = mm_find_vma_after(mm, addr);
	if (!v || !(v->flags & VMA_GROWSDOWN) || addr < GUEST_MIN_ADDR)
		goto out;
	new_start = ALIGN_DOWN(addr, PAGE_SIZE);
	prev = vma_prev(v);
	if (prev && !(prev->flags & VMA_GROWSDOWN) && (prev->prot & PROT_ALL) &&
	    new_start - prev->end < STACK_GUARD_GAP)
		goto out;
	if (prev && prev->end > new_start)
		goto out;
	if (v->end - new_start > stack_limit)
		goto out;
	grow = v->start - new_start;
	if (v->mobj && over_limit(mm, grow))
		goto out;
	if (v->mobj && !v->mobj->shared && v->mobj_off >= grow) {
		/* The stack's mobj reserves room below: grow the VMA into it. */
		v->start = new_start;
		v->mobj_off -= grow;
		mm->committed += grow;
		if (vma_sync(mm, v) == 0)
			ret = 0;
	} else {
		struct vma *n;
		v->flags &= ~VMA_GROWSDOWN;
		if (anon_vma_create(mm, new_start, new_start + grow, v->prot,
				    v->flags | VMA_GROWSDOWN, &n) == 0)
			ret = 0;
		else
			v->flags |= VMA_GROWSDOWN;
	}
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}
