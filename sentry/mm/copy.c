/*
 * The sentry's access to guest memory: guest address -> VMA -> memory file
 * offset -> the sentry's own mapping of the memory file. Never through the
 * stub (no process_vm_readv), and checked against the guest's protections.
 *
 * The read lock keeps VMAs and their pages in place while we copy; the
 * memory file's mapping itself never goes away, so a copy cannot fault.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/vma.h"
#include "lib/util.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define PROT_ANY (PROT_READ | PROT_WRITE | PROT_EXEC)

/* Why translate found no page where one may be had (*retry). */
enum { RETRY_NONE, RETRY_COW, RETRY_EOF };

/*
 * Sentry pointer for guest addr if v allows access want; len is clipped to
 * the bytes contiguous in the memory file. NULL with *retry set: a write to
 * pages a fork still shares (RETRY_COW; len: how many), mm_prepare_write
 * first; a page past where a mapped file ended, which the file has grown
 * over since (RETRY_EOF), mm_eof_refresh first. Past a file's end otherwise
 * there is no page (sentry/mm/eof.c).
 */
static void *translate(struct mm *mm, uint64_t addr, int want, size_t *len, bool check, int *retry)
{
	struct vma *v = mm_find_vma(mm, addr);
	uint64_t moff, n, foff, bus;

	*retry = RETRY_NONE;
	if (!v || !v->mobj)
		return NULL;
	/* On x86 every accessible page is readable; only writes need PROT_WRITE. */
	if (check && !(v->prot & want))
		return NULL;
	bus = vma_bus_start(v);
	if (addr >= bus) {
		if (vma_eof_grown(v, addr))
			*retry = RETRY_EOF;
		return NULL;
	}
	n = MIN(*len, bus - addr);
	moff = v->mobj_off + (addr - v->start);
	if (want == PROT_WRITE && !v->mobj->shared) {
		bool shared;
		n = mobj_run(v->mobj, moff, n, &shared);
		if (shared) {
			*len = n;
			*retry = RETRY_COW;
			return NULL;
		}
	}
	foff = mobj_frame(v->mobj, moff, &n);
	*len = n;
	return memfile_ptr(mm->mf, foff);
}

/* After translate asked for it: make the pages the guest's own, or map
 * what a grown file now covers, with the read lock dropped meanwhile (the
 * caller looks again). 0, or -errno: give up. */
static int retry_relock(struct mm *mm, uint64_t addr, size_t len, int retry)
{
	int ret;

	if (retry == RETRY_NONE)
		return -EFAULT;
	pthread_rwlock_unlock(&mm->lock);
	ret = retry == RETRY_COW ? mm_prepare_write(mm, addr, len) : mm_eof_refresh(mm, addr);
	pthread_rwlock_rdlock(&mm->lock);
	return ret;
}

/* Copy up to len bytes; returns the number copied before the first bad page. */
static size_t copy(struct mm *mm, uint64_t addr, void *buf, size_t len, bool out, bool check)
{
	size_t done = 0;

	if (addr + len < addr) /* wraps: the part past the end can never be mapped */
		len = UINT64_MAX - addr;
	pthread_rwlock_rdlock(&mm->lock);
	while (done < len) {
		size_t chunk = len - done;
		int retry;
		char *p = translate(mm, addr + done, out ? PROT_WRITE : PROT_ANY, &chunk, check,
				    &retry);
		if (!p && retry_relock(mm, addr + done, chunk, retry) == 0)
			continue;
		if (!p)
			break;
		if (out)
			memcpy(p, (const char *)buf + done, chunk);
		else
			memcpy((char *)buf + done, p, chunk);
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	return done;
}

int mm_copy_in(struct mm *mm, void *dst, uint64_t addr, size_t len)
{
	return copy(mm, addr, dst, len, false, true) == len ? 0 : -EFAULT;
}

int mm_copy_out(struct mm *mm, uint64_t addr, const void *src, size_t len)
{
	return copy(mm, addr, (void *)src, len, true, true) == len ? 0 : -EFAULT;
}

size_t mm_copy_in_partial(struct mm *mm, void *dst, uint64_t addr, size_t len)
{
	return copy(mm, addr, dst, len, false, true);
}

size_t mm_copy_out_partial(struct mm *mm, uint64_t addr, const void *src, size_t len)
{
	return copy(mm, addr, (void *)src, len, true, true);
}

/* May a forced write (FOLL_FORCE) store into v? A writable VMA, or a
 * private one, whose pages become the process's own copies (is_cow_mapping).
 * Never a shared mobj behind a read-only VMA (the vDSO's, another
 * process's file pages). */
static bool force_writable(const struct vma *v)
{
	return (v->prot & PROT_WRITE) || (!(v->flags & VMA_SHARED) && !v->mobj->shared);
}

/* Under the read lock, which it drops and takes again: make the pages of
 * [addr, addr+len) in a private VMA the process's own. */
static int force_unshare(struct mm *mm, uint64_t addr, size_t len)
{
	struct vma *v;
	bool copied;
	int ret = -EFAULT;

	pthread_rwlock_unlock(&mm->lock);
	pthread_rwlock_wrlock(&mm->lock);
	v = mm_find_vma(mm, addr);
	if (v && v->mobj && force_writable(v))
		ret = vma_unshare(mm, v, ALIGN_DOWN(addr, PAGE_SIZE),
				  MIN(v->end, ALIGN_UP(addr + len, PAGE_SIZE)), false, &copied);
	pthread_rwlock_unlock(&mm->lock);
	pthread_rwlock_rdlock(&mm->lock);
	return ret;
}

size_t mm_access_force(struct mm *mm, uint64_t addr, void *buf, size_t len, bool write)
{
	size_t done = 0;

	if (addr + len < addr)
		len = UINT64_MAX - addr;
	pthread_rwlock_rdlock(&mm->lock);
	while (done < len) {
		struct vma *v = mm_find_vma(mm, addr + done);
		size_t chunk = len - done;
		int retry;
		char *p;

		if (!v || !v->mobj || (write && !force_writable(v)))
			break;
		p = translate(mm, addr + done, write ? PROT_WRITE : PROT_ANY, &chunk, false,
			      &retry);
		if (!p && retry == RETRY_COW && force_unshare(mm, addr + done, chunk) == 0)
			continue;
		if (!p && retry == RETRY_EOF && retry_relock(mm, addr + done, chunk, retry) == 0)
			continue;
		if (!p)
			break;
		if (write)
			memcpy(p, (const char *)buf + done, chunk);
		else
			memcpy((char *)buf + done, p, chunk);
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	return done;
}

int mm_peek(struct mm *mm, void *dst, uint64_t addr, size_t len)
{
	return copy(mm, addr, dst, len, false, false) == len ? 0 : -EFAULT;
}

int mm_zero_out(struct mm *mm, uint64_t addr, size_t len)
{
	size_t done = 0;
	int ret = 0;

	pthread_rwlock_rdlock(&mm->lock);
	while (done < len) {
		size_t chunk = len - done;
		int retry;
		char *p = translate(mm, addr + done, PROT_WRITE, &chunk, true, &retry);
		if (!p && retry_relock(mm, addr + done, chunk, retry) == 0)
			continue;
		if (!p) {
			ret = -EFAULT;
			break;
		}
		memset(p, 0, chunk);
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

long mm_strncpy_in(struct mm *mm, char *dst, uint64_t addr, size_t max)
{
	size_t done = 0;
	long ret = -ENAMETOOLONG;

	pthread_rwlock_rdlock(&mm->lock);
	while (done < max) {
		size_t chunk = max - done;
		int retry;
		const char *p = translate(mm, addr + done, PROT_ANY, &chunk, true, &retry);
		const char *nul;
		if (!p && retry_relock(mm, addr + done, chunk, retry) == 0)
			continue;
		if (!p) {
			ret = -EFAULT;
			break;
		}
		nul = memchr(p, 0, chunk);
		if (nul) {
			chunk = (size_t)(nul - p) + 1;
			memcpy(dst + done, p, chunk);
			ret = (long)(done + chunk - 1);
			break;
		}
		memcpy(dst + done, p, chunk);
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

void mm_pin(struct mm *mm, uint64_t addr, size_t len, bool want_write, struct mm_pin *pin)
{
	size_t done = 0;

	pin->n = 0;
	pin->write = want_write;
	pthread_rwlock_rdlock(&mm->lock);
	while (done < len && pin->n < MM_PIN_SEGS) {
		size_t chunk = len - done;
		struct vma *v = mm_find_vma(mm, addr + done);
		int retry;
		char *p = translate(mm, addr + done, want_write ? PROT_WRITE : PROT_ANY, &chunk,
				    true, &retry);
		if (!p && retry_relock(mm, addr + done, chunk, retry) == 0)
			continue;
		if (!p)
			break;
		pin->iov[pin->n].iov_base = p;
		pin->iov[pin->n].iov_len = chunk;
		/* Held until mm_unpin: the pages stay the guest's, and a fork
		 * meanwhile copies rather than shares what the host writes into. */
		pin->objs[pin->n] = mobj_get(v->mobj);
		mobj_pin(v->mobj, want_write);
		pin->n++;
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	if (pin->n == 0) {
		/* Nothing accessible: let the host find that out (NULL is never mapped). */
		pin->iov[0].iov_base = NULL;
		pin->iov[0].iov_len = MIN(len, (size_t)PAGE_SIZE);
		pin->objs[0] = NULL;
		pin->n = 1;
	}
}

void mm_unpin(struct mm_pin *pin)
{
	for (int i = 0; i < pin->n; i++)
		if (pin->objs[i]) {
			mobj_unpin(pin->objs[i], pin->write);
			mobj_put(pin->objs[i]);
		}
	pin->n = 0;
}

bool mm_access_ok(struct mm *mm, uint64_t addr, size_t len, bool want_write)
{
	size_t done = 0;
	bool ok = true;

	if (addr + len < addr)
		return false;
	pthread_rwlock_rdlock(&mm->lock);
	while (done < len) {
		size_t chunk = len - done;
		int retry;
		/* A page a fork shares is writable: its copy is made on the write
		 * (and a file grown over a page maps it then). */
		if (!translate(mm, addr + done, want_write ? PROT_WRITE : PROT_ANY, &chunk, true,
			       &retry) &&
		    retry == RETRY_NONE) {
			ok = false;
			break;
		}
		done += chunk;
	}
	pthread_rwlock_unlock(&mm->lock);
	return ok;
}

int mm_copy_struct_in(struct mm *mm, void *dst, size_t ksize, uint64_t src, uint64_t usize)
{
	unsigned char rest[64];

	memset(dst, 0, ksize);
	if (mm_copy_in(mm, dst, src, MIN((uint64_t)ksize, usize)) < 0)
		return -EFAULT;
	for (uint64_t off = ksize; off < usize; off += sizeof(rest)) {
		size_t n = (size_t)MIN((uint64_t)sizeof(rest), usize - off);
		if (mm_copy_in(mm, rest, src + off, n) < 0)
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (rest[i])
				return -E2BIG;
	}
	return 0;
}
