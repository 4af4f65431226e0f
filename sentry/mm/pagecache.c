#include "config.h"
#include "sentry/mm/pagecache.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PC_FILLED   0x1
#define PC_WRITABLE 0x2

struct pagecache *pc_new(struct memfile *mf)
{
	struct pagecache *pc = xzalloc(sizeof(*pc));

	pthread_mutex_init(&pc->lock, NULL);
	ps_init(&pc->ps, mf);
	return pc;
}

void pc_free(struct pagecache *pc)
{
	if (!pc)
		return;
	ps_release(&pc->ps);
	free(pc->state);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}

static uint8_t state_of(const struct pagecache *pc, uint64_t idx)
{
	return idx < pc->nstate ? pc->state[idx] : 0;
}

static void set_state(struct pagecache *pc, uint64_t idx, uint8_t bits)
{
	if (idx >= pc->nstate) {
		uint64_t n = MAX(idx + 1, pc->nstate * 2);
		pc->state = xrealloc(pc->state, n);
		memset(pc->state + pc->nstate, 0, n - pc->nstate);
		pc->nstate = n;
	}
	pc->state[idx] |= bits;
}

/* The bytes of chunk idx in the sentry (the chunk is allocated). */
static char *chunk_ptr(struct pagecache *pc, uint64_t idx)
{
	uint64_t file_off, avail;

	if (ps_map(&pc->ps, idx << PS_CHUNK_SHIFT, &file_off, &avail) < 0)
		return NULL;
	return memfile_ptr(pc->ps.mf, file_off);
}

/* Read exactly len bytes at off, or fewer only at end of file. */
static long read_full(pc_io_fn read, void *arg, char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		long n = read(arg, buf + done, len - done, off + done);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (long)done;
}

static long write_full(pc_io_fn write, void *arg, const char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		long n = write(arg, (char *)buf + done, len - done, off + done);
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return (long)done;
}

int pc_fill_locked(struct pagecache *pc, uint64_t off, uint64_t len, uint64_t size, bool writable,
		   pc_io_fn read, void *arg)
{
	uint64_t first = off >> PS_CHUNK_SHIFT, last;

	if (len == 0)
		return 0;
	last = (off + len - 1) >> PS_CHUNK_SHIFT;
	for (uint64_t idx = first; idx <= last; idx++) {
		uint64_t start = idx << PS_CHUNK_SHIFT;
		char *p;

		if (!(state_of(pc, idx) & PC_FILLED)) {
			/* The chunk's pages are the sandbox's memory: a mapping of
			 * more than it has room for is ENOMEM. */
			if (start < size &&
			    !memacct_fits(&pc->ps.mf->acct, MIN(PS_CHUNK_SIZE, size - start)))
				return -ENOMEM;
			p = chunk_ptr(pc, idx);
			if (!p)
				return -ENOMEM;
			if (start < size) {
				long n = read_full(read, arg, p, MIN(PS_CHUNK_SIZE, size - start),
						   start);
				if (n < 0)
					return (int)n;
			}
			set_state(pc, idx, PC_FILLED);
		}
		if (writable)
			set_state(pc, idx, PC_WRITABLE);
	}
	return 0;
}

long pc_read(struct pagecache *pc, void *buf, size_t len, uint64_t off, uint64_t size,
	     pc_io_fn read, void *arg)
{
	char *out = buf;
	size_t done = 0;
	long ret = 0;

	pthread_mutex_lock(&pc->lock);
	if (off >= size)
		len = 0;
	else
		len = MIN(len, size - off);
	while (done < len) {
		uint64_t at = off + done, idx = at >> PS_CHUNK_SHIFT;
		size_t n = MIN(len - done, PS_CHUNK_SIZE - (at & (PS_CHUNK_SIZE - 1)));

		if (state_of(pc, idx) & PC_FILLED) {
			ps_read(&pc->ps, out + done, n, at);
		} else {
			ret = read(arg, out + done, n, at);
			if (ret <= 0)
				break;
			n = (size_t)ret;
		}
		done += n;
	}
	pthread_mutex_unlock(&pc->lock);
	return done ? (long)done : ret;
}

/* Copy buf (at file offset off) into the chunks already cached. */
static void update_cached(struct pagecache *pc, const char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		uint64_t at = off + done, idx = at >> PS_CHUNK_SHIFT;
		size_t n = MIN(len - done, PS_CHUNK_SIZE - (at & (PS_CHUNK_SIZE - 1)));
		if (state_of(pc, idx) & PC_FILLED)
			ps_write(&pc->ps, buf + done, n, at);
		done += n;
	}
}

/* Zero the cached bytes of [off, end). */
static void zero_cached(struct pagecache *pc, uint64_t off, uint64_t end)
{
	end = MIN(end, pc->nstate << PS_CHUNK_SHIFT);
	while (off < end) {
		uint64_t idx = off >> PS_CHUNK_SHIFT;
		uint64_t n = MIN(end - off, PS_CHUNK_SIZE - (off & (PS_CHUNK_SIZE - 1)));
		if (state_of(pc, idx) & PC_FILLED)
			ps_zero_range(&pc->ps, off, off + n);
		off += n;
	}
}

static void update_locked(struct pagecache *pc, const void *buf, size_t len, uint64_t off,
			  uint64_t old_size)
{
	/* Stores through a mapping past the old end never reached the file. */
	if (off > old_size)
		zero_cached(pc, old_size, off);
	update_cached(pc, buf, len, off);
}

long pc_write(struct pagecache *pc, const void *buf, size_t len, uint64_t off, uint64_t old_size,
	      pc_io_fn write, void *arg)
{
	long n;

	pthread_mutex_lock(&pc->lock);
	n = write(arg, (void *)buf, len, off);
	if (n > 0)
		update_locked(pc, buf, (size_t)n, off, old_size);
	pthread_mutex_unlock(&pc->lock);
	return n;
}

void pc_update(struct pagecache *pc, const void *buf, size_t len, uint64_t off, uint64_t old_size)
{
	pthread_mutex_lock(&pc->lock);
	update_locked(pc, buf, len, off, old_size);
	pthread_mutex_unlock(&pc->lock);
}

void pc_zero(struct pagecache *pc, uint64_t off, uint64_t end)
{
	pthread_mutex_lock(&pc->lock);
	zero_cached(pc, off, end);
	pthread_mutex_unlock(&pc->lock);
}

int pc_writeback(struct pagecache *pc, uint64_t off, uint64_t len, uint64_t size, pc_io_fn write,
		 void *arg)
{
	uint64_t end = len > UINT64_MAX - off ? UINT64_MAX : off + len;
	int ret = 0;

	end = MIN(end, size);
	pthread_mutex_lock(&pc->lock);
	while (off < end && ret == 0) {
		uint64_t idx = off >> PS_CHUNK_SHIFT, in = off & (PS_CHUNK_SIZE - 1);
		uint64_t n = MIN(end - off, PS_CHUNK_SIZE - in);

		if (idx >= pc->nstate)
			break;
		if ((pc->state[idx] & (PC_FILLED | PC_WRITABLE)) == (PC_FILLED | PC_WRITABLE)) {
			char *p = chunk_ptr(pc, idx);
			long w = p ? write_full(write, arg, p + in, n, off) : -ENOMEM;
			if (w < 0)
				ret = (int)w;
		}
		off += n;
	}
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

void pc_resize(struct pagecache *pc, uint64_t old_size, uint64_t new_size)
{
	pthread_mutex_lock(&pc->lock);
	if (new_size < old_size) {
		uint64_t keep = (new_size + PS_CHUNK_SIZE - 1) >> PS_CHUNK_SHIFT;
		ps_truncate(&pc->ps, new_size);
		for (uint64_t i = keep; i < pc->nstate; i++)
			pc->state[i] = 0;
	} else {
		/* Stores past the old end through a mapping were never file data. */
		zero_cached(pc, old_size, new_size);
	}
	pthread_mutex_unlock(&pc->lock);
}
