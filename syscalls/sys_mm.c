/* Memory system calls: thin wrappers over sentry/mm with Linux's argument order. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/vma.h"
#include "sentry/fs/file.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/filemap.h"
#include "sentry/fs/tmpfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Bytes of [start, end) that VMAs cover. */
struct vm_range {
	uint64_t start, end, bytes;
};

static void count_vma(const struct vma *v, void *arg)
{
	struct vm_range *r = arg;
	uint64_t lo = MAX(v->start, r->start), hi = MIN(v->end, r->end);

	if (lo < hi)
		r->bytes += hi - lo;
}

/*
 * RLIMIT_AS (Linux's may_expand_vm): would grow more bytes of mappings, of
 * which replaced bytes at [start, start + replaced) are mapped over, take
 * the address space beyond the limit? Every mapping counts, PROT_NONE ones
 * too. (Stack growth on a fault is not checked.)
 */
static bool over_rlimit_as(struct task *t, uint64_t grow, uint64_t start, uint64_t replaced)
{
	rlim_t lim = t->tg->rlim[RLIMIT_AS].rlim_cur;
	struct vm_range old = {start, start + replaced, 0};

	if (lim == RLIM_INFINITY)
		return false;
	if (replaced)
		mm_for_each_vma(t->mm, count_vma, &old);
	return mm_mapped_bytes(t->mm) - old.bytes + grow > lim;
}

/* Would a heap ending at want pass RLIMIT_DATA (Linux's check_data_rlimit;
 * only the heap counts here, not the data segment)? */
static bool over_rlimit_data(struct task *t, uint64_t want)
{
	rlim_t lim = t->tg->rlim[RLIMIT_DATA].rlim_cur;

	return lim != RLIM_INFINITY && want - t->mm->start_brk > lim;
}

SYSCALL(brk)
{
	uint64_t cur = mm_brk(t->mm, 0), want = a->a[0];

	/* A refused brk leaves the break where it was. */
	if (want > cur &&
	    (over_rlimit_as(t, ALIGN_UP(want, PAGE_SIZE) - ALIGN_UP(cur, PAGE_SIZE), 0, 0) ||
	     over_rlimit_data(t, want)))
		return (long)cur;
	return (long)mm_brk(t->mm, want);
}

/*
 * MAP_POPULATE of a writable anonymous mapping commits its pages now, as
 * Linux's write faults in mm_populate do (they count in the RSS at once);
 * writing the zeros they hold is what commits them. A read-only one maps
 * the zero page there (nothing to do), MAP_NONBLOCK asks for nothing, and
 * errors are ignored, as Linux's.
 */
static void populate_anon(struct task *t, const struct mmap_req *req, long addr)
{
	if (addr < 0 || !(req->flags & MAP_POPULATE) || (req->flags & MAP_NONBLOCK) ||
	    !(req->prot & PROT_WRITE))
		return;
	mm_zero_out(t->mm, (uint64_t)addr, ALIGN_UP(req->len, PAGE_SIZE));
}

/* Linux's file_mmap_ok for a regular file: offset and length within its
 * largest size (MAX_LFS_FILESIZE). */
static bool mmap_size_ok(uint64_t off, uint64_t len)
{
	const uint64_t max = INT64_MAX;

	return len <= max && off / PAGE_SIZE <= (max - len) / PAGE_SIZE;
}

SYSCALL(mmap)
{
	struct mmap_req req = {
		.addr = a->a[0],
		.len = a->a[1],
		.prot = (int)a->a[2],
		.flags = (int)a->a[3],
		.off = a->a[5],
	};
	struct file *f;
	long ret;

	if (req.off & (PAGE_SIZE - 1))
		return -EINVAL;
	if (req.len && req.len <= GUEST_MAX_ADDR &&
	    over_rlimit_as(t, ALIGN_UP(req.len, PAGE_SIZE), req.addr,
			   (req.flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) == MAP_FIXED
				   ? ALIGN_UP(req.len, PAGE_SIZE)
				   : 0))
		return -ENOMEM;
	/* A locked mapping (MAP_LOCKED, or after mlockall(MCL_FUTURE)):
	 * RLIMIT_MEMLOCK, as Linux's mlock_future_check. */
	if ((req.flags & MAP_LOCKED) || t->mm->lock_future) {
		ret = mlock_limit_check(t, req.flags & MAP_LOCKED, ALIGN_UP(req.len, PAGE_SIZE),
					-EAGAIN);
		if (ret)
			return ret;
	}
	if (req.flags & MAP_ANONYMOUS) {
		/* MAP_SHARED_VALIDATE is for files only (do_mmap). */
		if ((req.flags & MAP_TYPE) == MAP_SHARED_VALIDATE)
			return -EINVAL;
		ret = mm_mmap(t->mm, &req);
		populate_anon(t, &req, ret);
		return ret;
	}

	f = fd_get(t->files, (int)a->a[4]);
	if (!f)
		return -EBADF;
	/* /dev/zero: anonymous memory (shared when asked), mapped by the
	 * descriptor's access rules as a file is. */
	ret = file_is_dev_zero(f) ? file_mmap_access(f, req.prot, req.flags)
				  : file_mmap_check(f, req.prot, req.flags);
	if (ret == 0 && req.len && req.len <= GUEST_MAX_ADDR &&
	    (req.off + ALIGN_UP(req.len, PAGE_SIZE) < req.off ||
	     (!file_is_dev_zero(f) && !mmap_size_ok(req.off, ALIGN_UP(req.len, PAGE_SIZE)))))
		ret = -EOVERFLOW;
	if (ret == 0) {
		bool shared = (req.flags & MAP_TYPE) != MAP_PRIVATE;
		bool shared_wr = shared && flags_writable(file_getfl(f)), nowrite = !shared_wr;

		if (!file_is_dev_zero(f))
			ret = tmpfs_mmap_seals(f, req.prot, shared_wr, &nowrite);
		if (file_is_dev_zero(f)) {
			req.off = 0;
		} else {
			req.bops = shared_wr ? &file_writable_backing_ops : &file_backing_ops;
			req.bobj = f;
			req.sigbus_past_eof = true;
		}
		if (shared && nowrite)
			req.vma_flags |= VMA_NOWRITE;
		if (f->path.mnt && (f->path.mnt->flags & MNT_NOEXEC))
			req.vma_flags |= VMA_NOEXEC;
		if (ret == 0)
			ret = mm_mmap(t->mm, &req);
	}
	file_put(f);
	return ret;
}

SYSCALL(munmap)
{
	return mm_munmap(t->mm, a->a[0], a->a[1]);
}

SYSCALL(mprotect)
{
	return mm_mprotect(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(mremap)
{
	uint64_t old_len = ALIGN_UP(a->a[1], PAGE_SIZE), new_len = ALIGN_UP(a->a[2], PAGE_SIZE);

	if (new_len > old_len && a->a[2] <= GUEST_MAX_ADDR &&
	    over_rlimit_as(t, new_len - old_len, 0, 0))
		return -ENOMEM;
	/* Growing a locked mapping: RLIMIT_MEMLOCK (EAGAIN). */
	if (new_len > old_len && mm_is_locked(t->mm, a->a[0]) &&
	    mlock_limit_check(t, false, new_len - old_len, -EAGAIN))
		return -EAGAIN;
	return mm_mremap(t->mm, a->a[0], a->a[1], a->a[2], (int)a->a[3], a->a[4]);
}

SYSCALL(msync)
{
	return mm_msync(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(madvise)
{
	return mm_madvise(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}

/*
 * remap_file_pages: Linux emulates it (mm/mmap.c) with a new shared
 * mapping of the same file over [start, start+size) at page pgoff, with
 * the protections of what was there; the range must lie in shared
 * mappings of one file, without holes, with the same flags.
 */
SYSCALL(remap_file_pages)
{
	uint64_t start = a->a[0] & PAGE_MASK, size = a->a[1] & PAGE_MASK, pgoff = a->a[3];
	struct mmap_req req = {0};
	struct file *f = NULL;
	struct vma *v, *n;
	long ret;

	if (a->a[2]) /* prot must be 0 */
		return -EINVAL;
	if (start + size <= start)
		return -EINVAL;
	if (pgoff + (size >> 12) < pgoff || pgoff > UINT64_MAX / PAGE_SIZE)
		return -EINVAL;
	pthread_rwlock_rdlock(&t->mm->lock);
	v = mm_find_vma(t->mm, start);
	if (v && (v->flags & VMA_SHARED) && vma_file(v)) {
		for (n = v; n && n->end < start + size;) {
			struct vma *next = vma_next(n);
			if (!next || next->start != n->end || vma_file(next) != vma_file(v) ||
			    next->flags != v->flags || next->prot != v->prot ||
			    next->bops != v->bops)
				next = NULL;
			n = next;
		}
		if (n) {
			f = file_get(vma_file(v));
			req.prot = v->prot;
			req.flags = MAP_SHARED | MAP_FIXED | MAP_POPULATE |
				    ((v->flags & VMA_LOCKED) ? MAP_LOCKED : 0);
			req.vma_flags = v->flags & (VMA_NOWRITE | VMA_NOEXEC);
			req.bops = v->bops;
			req.bobj = f;
		}
	}
	pthread_rwlock_unlock(&t->mm->lock);
	if (!f)
		return -EINVAL;
	req.addr = start;
	req.len = size;
	req.off = pgoff * PAGE_SIZE;
	ret = mm_mmap(t->mm, &req);
	file_put(f);
	return ret < 0 ? ret : 0;
}
