#include "config.h"
#include "sentry/mm/pagestore.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "platform/platform.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Files bigger than this are refused (EFBIG): 1 TiB of chunks. */
#define PS_MAX_CHUNKS (1ul << 19)

void ps_init(struct pagestore *ps, struct memfile *mf)
{
	ps->mf = mf;
	ps->nchunks = 0;
	ps->chunks = NULL;
}

void ps_release(struct pagestore *ps)
{
	for (uint64_t i = 0; i < ps->nchunks; i++)
		mobj_put(ps->chunks[i]);
	free(ps->chunks);
	ps->chunks = NULL;
	ps->nchunks = 0;
}

static struct mobj *chunk(struct pagestore *ps, uint64_t idx, bool alloc, int *err)
{
	if (idx >= ps->nchunks) {
		uint64_t n;
		if (!alloc)
			return NULL;
		if (idx >= PS_MAX_CHUNKS) {
			*err = -EFBIG;
			return NULL;
		}
		n = MAX(idx + 1, ps->nchunks * 2);
		n = MIN(n, (uint64_t)PS_MAX_CHUNKS);
		ps->chunks = xrealloc(ps->chunks, n * sizeof(*ps->chunks));
		memset(ps->chunks + ps->nchunks, 0, (n - ps->nchunks) * sizeof(*ps->chunks));
		ps->nchunks = n;
	}
	if (!ps->chunks[idx] && alloc) {
		int ret = mobj_new(ps->mf, PS_CHUNK_SIZE, true, &ps->chunks[idx]);
		if (ret < 0) {
			*err = ret;
			return NULL;
		}
	}
	return ps->chunks[idx];
}

void ps_read(struct pagestore *ps, void *buf, size_t len, uint64_t off)
{
	char *out = buf;
	int err = 0;

	while (len) {
		uint64_t in = off & (PS_CHUNK_SIZE - 1);
		size_t n = MIN(len, PS_CHUNK_SIZE - in);
		struct mobj *m = chunk(ps, off >> PS_CHUNK_SHIFT, false, &err);
		if (m)
			memcpy(out, memfile_ptr(ps->mf, m->off + in), n);
		else
			memset(out, 0, n);
		out += n;
		off += n;
		len -= n;
	}
}

/*
 * How much of a write of n bytes at file offset foff the sandbox's memory
 * account has room for: the pages the memory file does not hold yet are
 * what the write adds (swapped-out ones count as new, which errs on the
 * safe side). A prefix that ends where the room does.
 */
static size_t fitting(struct memfile *mf, uint64_t foff, size_t n)
{
	uint64_t room = memacct_room(&mf->acct), stop;

	if (room == UINT64_MAX)
		return n;
	memfile_missing(mf, foff, n, room, &stop);
	return stop > foff ? (size_t)MIN(stop - foff, (uint64_t)n) : 0;
}

long ps_write(struct pagestore *ps, const void *buf, size_t len, uint64_t off)
{
	const char *in = buf;
	size_t done = 0;
	int err = 0;

	while (done < len) {
		uint64_t o = (off + done) & (PS_CHUNK_SIZE - 1);
		size_t n = MIN(len - done, PS_CHUNK_SIZE - o), fit;
		struct mobj *m = chunk(ps, (off + done) >> PS_CHUNK_SHIFT, true, &err);
		if (!m)
			return done ? (long)done : err;
		fit = fitting(ps->mf, m->off + o, n);
		memcpy(memfile_ptr(ps->mf, m->off + o), in + done, fit);
		done += fit;
		if (fit < n)
			return done ? (long)done : -ENOSPC;
	}
	return (long)done;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Give [foff, foff+n) of the memory file pages without changing a byte. */
static void populate(struct memfile *mf, uint64_t foff, uint64_t n)
{
	uint64_t first = ALIGN_DOWN(foff, GUEST_PAGE_SIZE),
		 end = ALIGN_UP(foff + n, GUEST_PAGE_SIZE);

	if (madvise(memfile_ptr(mf, first), end - first, MADV_POPULATE_READ) == 0)
		return;
	for (uint64_t at = first; at < end; at += GUEST_PAGE_SIZE) /* before Linux 5.14 */
		(void)*(volatile char *)memfile_ptr(mf, at);
}

int ps_allocate(struct pagestore *ps, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, need = 0;
	int err = 0;

	/* All or nothing: first what the range adds, then the pages. */
	for (uint64_t at = off; at < end;) {
		uint64_t o = at & (PS_CHUNK_SIZE - 1), n = MIN(end - at, PS_CHUNK_SIZE - o);
		struct mobj *m = chunk(ps, at >> PS_CHUNK_SHIFT, true, &err);
		if (!m)
			return err;
		need += memfile_missing(ps->mf, m->off + o, n, UINT64_MAX, NULL);
		at += n;
	}
	if (!memacct_fits(&ps->mf->acct, need))
		return -ENOSPC;
	/* Read faults give the pages, zeroed (the host's fallocate would leave
	 * them unwritten, which mincore does not see: counted twice later). */
	for (uint64_t at = off; at < end;) {
		uint64_t o = at & (PS_CHUNK_SIZE - 1), n = MIN(end - at, PS_CHUNK_SIZE - o);
		struct mobj *m = chunk(ps, at >> PS_CHUNK_SHIFT, false, &err);
		if (m)
			populate(ps->mf, m->off + o, n);
		at += n;
	}
	return 0;
}

long ps_map(struct pagestore *ps, uint64_t off, uint64_t *file_off, uint64_t *avail)
{
	int err = 0;
	struct mobj *m = chunk(ps, off >> PS_CHUNK_SHIFT, true, &err);

	if (!m)
		return err;
	*file_off = m->off + (off & (PS_CHUNK_SIZE - 1));
	*avail = PS_CHUNK_SIZE - (off & (PS_CHUNK_SIZE - 1));
	return 0;
}

void ps_zero_range(struct pagestore *ps, uint64_t off, uint64_t end)
{
	int err = 0;

	while (off < end) {
		uint64_t idx = off >> PS_CHUNK_SHIFT, in = off & (PS_CHUNK_SIZE - 1);
		uint64_t n = MIN(end - off, PS_CHUNK_SIZE - in);
		struct mobj *m = chunk(ps, idx, false, &err);
		if (m) {
			/* Whole pages go back to the host; partial ones are cleared. */
			uint64_t a = ALIGN_UP(in, 4096), b = ALIGN_DOWN(in + n, 4096);
			if (a < b) {
				memset(memfile_ptr(ps->mf, m->off + in), 0, a - in);
				memfile_punch(ps->mf, m->off + a, b - a);
				memset(memfile_ptr(ps->mf, m->off + b), 0, in + n - b);
			} else {
				memset(memfile_ptr(ps->mf, m->off + in), 0, n);
			}
		}
		off += n;
	}
}

/* Host SEEK_DATA/SEEK_HOLE on the memory file from file_off, within
 * [file_off, end): where found, or end. */
static uint64_t mf_seek(struct memfile *mf, uint64_t file_off, uint64_t end, int whence)
{
	off_t r = lseek(mf->fd, (off_t)file_off, whence);

	if (r < 0)
		/* ENXIO: no data up to the end of the memory file. Anything
		 * else: say the chunk is all data, which is always true enough. */
		return errno == ENXIO || whence == SEEK_HOLE ? end : file_off;
	return MIN((uint64_t)r, end);
}

int64_t ps_seek(struct pagestore *ps, uint64_t off, uint64_t size, int whence)
{
	int err = 0;

	while (off < size) {
		uint64_t idx = off >> PS_CHUNK_SHIFT, in = off & (PS_CHUNK_SIZE - 1);
		uint64_t chunk_end = (idx + 1) << PS_CHUNK_SHIFT;
		struct mobj *m = chunk(ps, idx, false, &err);
		uint64_t at;

		if (!m) {
			if (whence == SEEK_HOLE)
				return (int64_t)off;
			off = chunk_end;
			continue;
		}
		at = mf_seek(ps->mf, m->off + in, m->off + PS_CHUNK_SIZE, whence) - m->off;
		if (at < PS_CHUNK_SIZE) {
			at += idx << PS_CHUNK_SHIFT;
			if (at >= size)
				break;
			return (int64_t)at;
		}
		off = chunk_end;
	}
	/* Past the end: no more data; the end of the file is a hole. */
	return whence == SEEK_HOLE ? (int64_t)size : -ENXIO;
}

void ps_truncate(struct pagestore *ps, uint64_t size)
{
	uint64_t keep = (size + PS_CHUNK_SIZE - 1) >> PS_CHUNK_SHIFT;

	/* The tail of the last kept chunk reads as zero if the file grows again. */
	if (size & (PS_CHUNK_SIZE - 1))
		ps_zero_range(ps, size, ALIGN_UP(size, PS_CHUNK_SIZE));
	for (uint64_t i = keep; i < ps->nchunks; i++) {
		mobj_put(ps->chunks[i]);
		ps->chunks[i] = NULL;
	}
}
