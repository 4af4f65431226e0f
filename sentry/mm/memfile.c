#include "config.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/frames.h"
#include "lib/error.h"
#include "lib/util.h"
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEMFILE_MAP_HINT 0x100000000000ul

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010u
#endif

struct memfile_extent {
	struct rb_node node;
	uint64_t off, len;
};

#define extent_of(n) rb_entry_safe(n, struct memfile_extent, node)

int memfile_create(uint64_t capacity, struct memfile **out, struct rung_error *err)
{
	struct memfile *mf;
	int fd;
	void *base;

	if (!capacity || !IS_ALIGNED(capacity, GUEST_PAGE_SIZE))
		return rung_error_make(err, EINVAL, "memory file capacity %llu is not page aligned",
				       (unsigned long long)capacity);
	/* Guest code executes from this memory: ask for an executable memfd where the
	 * host distinguishes (vm.memfd_noexec), fall back where it does not know the flag. */
	fd = memfd_create("rung-memory", MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("rung-memory", MFD_CLOEXEC);
	if (fd < 0)
		return rung_error_make(err, errno, "memfd_create");
	if (ftruncate(fd, (off_t)capacity) < 0) {
		int e = errno;
		close(fd);
		return rung_error_make(err, e, "size the memory file to %llu bytes",
				       (unsigned long long)capacity);
	}
	/* Low in the address space, away from the top where libraries, stacks and
	 * the platform's stub page live (a hint: the kernel may choose elsewhere). */
	base = mmap((void *)MEMFILE_MAP_HINT, capacity, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (base == MAP_FAILED) {
		int e = errno;
		close(fd);
		return rung_error_make(err, e, "map the memory file");
	}
	mf = xzalloc(sizeof(*mf));
	mf->fd = fd;
	mf->base = base;
	mf->capacity = capacity;
	pthread_mutex_init(&mf->lock, NULL);
	pthread_mutex_init(&mf->frames_lock, NULL);
	memacct_init(&mf->acct, fd, 0);
	*out = mf;
	return 0;
}

void memfile_destroy(struct memfile *mf)
{
	struct rb_node *n;

	if (!mf)
		return;
	while ((n = rb_first(&mf->free))) {
		rb_erase(&mf->free, n);
		free(extent_of(n));
	}
	frames_destroy(mf);
	munmap(mf->base, mf->capacity);
	close(mf->fd);
	pthread_mutex_destroy(&mf->lock);
	pthread_mutex_destroy(&mf->frames_lock);
	free(mf);
}

void memfile_punch(struct memfile *mf, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	/* Cannot fail on a memfd for an in-range, aligned request; if it did, the pages
	 * would merely stay resident, which is harmless for correctness only if we zero. */
	if (fallocate(mf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) <
	    0)
		memset(mf->base + off, 0, len);
}

/*
 * Only the source pages that hold data are copied: reading a hole through
 * the mapping would give the source a page it did not have, and the
 * destination reads zeros already. mincore tells the pages in memory for a
 * chunk at once; for one it does not see (a hole, or swapped out), SEEK_DATA
 * says where the data goes on. (SEEK_HOLE is no help: from a data page it
 * scans on through all the data after it, possibly a whole process's.)
 */
#define PROBE_PAGES 256

void memfile_copy(struct memfile *mf, uint64_t dst, uint64_t src, uint64_t len)
{
	uint64_t end = src + len, at = src;
	unsigned char vec[PROBE_PAGES];

	while (at < end) {
		uint64_t n = MIN(end - at, PROBE_PAGES * GUEST_PAGE_SIZE) / GUEST_PAGE_SIZE, i = 0;
		bool incore = mincore(mf->base + at, n * GUEST_PAGE_SIZE, vec) == 0;
		while (i < n) {
			uint64_t j = i, page = at + i * GUEST_PAGE_SIZE;
			off_t data;
			while (incore && j < n && (vec[j] & 1))
				j++;
			if (j == i) {
				data = lseek(mf->fd, (off_t)page, SEEK_DATA);
				if (data < 0 || (uint64_t)data >= end)
					return;
				if ((uint64_t)data > page) {
					/* A hole up to data: go on from there. */
					i = ((uint64_t)data - at) / GUEST_PAGE_SIZE;
					continue;
				}
				j = i + 1; /* swapped out: data all the same */
			}
			memcpy(mf->base + dst + (page - src), mf->base + page,
			       (j - i) * GUEST_PAGE_SIZE);
			i = j;
		}
		at += i * GUEST_PAGE_SIZE;
	}
}

uint64_t memfile_missing(struct memfile *mf, uint64_t off, uint64_t len, uint64_t max,
			 uint64_t *stop)
{
	uint64_t end = ALIGN_UP(off + len, GUEST_PAGE_SIZE), missing = 0;
	unsigned char vec[PROBE_PAGES];

	for (uint64_t at = ALIGN_DOWN(off, GUEST_PAGE_SIZE); at < end;
	     at += PROBE_PAGES * GUEST_PAGE_SIZE) {
		size_t pages = (size_t)MIN((end - at) / GUEST_PAGE_SIZE, (uint64_t)PROBE_PAGES);
		if (mincore(mf->base + at, pages * GUEST_PAGE_SIZE, vec) < 0)
			memset(vec, 0, pages);
		for (size_t i = 0; i < pages; i++) {
			if (vec[i] & 1)
				continue;
			if (missing + GUEST_PAGE_SIZE > max) {
				if (stop)
					*stop = at + i * GUEST_PAGE_SIZE;
				return missing;
			}
			missing += GUEST_PAGE_SIZE;
		}
	}
	if (stop)
		*stop = end;
	return missing;
}

/* Insert a free extent, merging with its neighbours; lowers top when it touches it. */
static void free_insert(struct memfile *mf, uint64_t off, uint64_t len)
{
	struct rb_node **link = &mf->free.node, *parent = NULL;
	struct memfile_extent *e, *prev = NULL, *next = NULL;

	while (*link) {
		parent = *link;
		e = extent_of(parent);
		if (off < e->off)
			link = &parent->left;
		else
			link = &parent->right;
	}
	/* Neighbours in address order. */
	if (parent) {
		e = extent_of(parent);
		if (e->off < off) {
			prev = e;
			next = extent_of(rb_next(&e->node));
		} else {
			next = e;
			prev = extent_of(rb_prev(&e->node));
		}
	}
	if (prev && prev->off + prev->len == off) {
		prev->len += len;
		if (next && prev->off + prev->len == next->off) {
			prev->len += next->len;
			rb_erase(&mf->free, &next->node);
			free(next);
		}
		e = prev;
	} else if (next && off + len == next->off) {
		next->off = off;
		next->len += len;
		e = next;
	} else {
		e = xmalloc(sizeof(*e));
		e->off = off;
		e->len = len;
		rb_link(&e->node, parent, link);
		rb_insert_fixup(&mf->free, &e->node);
	}
	if (e->off + e->len == mf->top) {
		mf->top = e->off;
		rb_erase(&mf->free, &e->node);
		free(e);
	}
}

int memfile_alloc(struct memfile *mf, uint64_t len, uint64_t *off)
{
	struct rb_node *n;
	int ret = -ENOMEM;

	if (!len || !IS_ALIGNED(len, GUEST_PAGE_SIZE))
		return -EINVAL;
	pthread_mutex_lock(&mf->lock);
	/* First fit by offset keeps the file compact. */
	for (n = rb_first(&mf->free); n; n = rb_next(n)) {
		struct memfile_extent *e = extent_of(n);
		if (e->len < len)
			continue;
		*off = e->off;
		if (e->len == len) {
			rb_erase(&mf->free, n);
			free(e);
		} else {
			e->off += len;
			e->len -= len;
		}
		ret = 0;
		goto out;
	}
	if (mf->capacity - mf->top >= len) {
		*off = mf->top;
		mf->top += len;
		ret = 0;
	}
out:
	if (ret == 0)
		mf->allocated += len;
	pthread_mutex_unlock(&mf->lock);
	return ret;
}

void memfile_free(struct memfile *mf, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	memfile_punch(mf, off, len);
	pthread_mutex_lock(&mf->lock);
	free_insert(mf, off, len);
	mf->allocated -= len;
	pthread_mutex_unlock(&mf->lock);
}

int memfile_extend(struct memfile *mf, uint64_t off, uint64_t oldlen, uint64_t newlen)
{
	uint64_t end = off + oldlen, grow = newlen - oldlen;
	struct rb_node *n;
	int ret = -ENOMEM;

	if (newlen <= oldlen)
		return newlen == oldlen ? 0 : -EINVAL;
	if (!IS_ALIGNED(newlen, GUEST_PAGE_SIZE))
		return -EINVAL;
	pthread_mutex_lock(&mf->lock);
	if (end == mf->top) {
		if (mf->capacity - mf->top >= grow) {
			mf->top += grow;
			ret = 0;
		}
		goto out;
	}
	for (n = mf->free.node; n;) {
		struct memfile_extent *e = extent_of(n);
		if (end < e->off) {
			n = n->left;
		} else if (end > e->off) {
			n = n->right;
		} else {
			if (e->len < grow)
				break;
			if (e->len == grow) {
				rb_erase(&mf->free, n);
				free(e);
			} else {
				e->off += grow;
				e->len -= grow;
			}
			ret = 0;
			break;
		}
	}
out:
	if (ret == 0)
		mf->allocated += grow;
	pthread_mutex_unlock(&mf->lock);
	return ret;
}

unsigned long memfile_free_extents(struct memfile *mf)
{
	unsigned long count;

	pthread_mutex_lock(&mf->lock);
	count = rb_count(&mf->free);
	pthread_mutex_unlock(&mf->lock);
	return count;
}
