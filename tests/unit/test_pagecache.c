/*
 * Unit tests: the page cache of host files. The "host file" is a buffer here;
 * the tests check which bytes the cache serves, which it writes back, and
 * that a random mix of operations keeps cache and file equal to a model of
 * what Linux would show.
 */
#include "config.h"
#include "sentry/mm/pagecache.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CH	 PS_CHUNK_SIZE
#define FILE_MAX (4 * CH)

/* The host file: its bytes, its size, and how many I/O calls reached it. */
struct hostfile {
	unsigned char data[FILE_MAX];
	uint64_t size;
	unsigned reads, writes;
	int fail; /* -errno for the next call, or 0 */
};

static long host_read(void *arg, void *buf, size_t len, uint64_t off)
{
	struct hostfile *h = arg;

	h->reads++;
	if (h->fail)
		return h->fail;
	if (off >= h->size)
		return 0;
	len = MIN(len, h->size - off);
	/* Short reads, as a host may give them: at most one chunk at a time. */
	len = MIN(len, (size_t)CH / 2);
	memcpy(buf, h->data + off, len);
	return (long)len;
}

static long host_write(void *arg, void *buf, size_t len, uint64_t off)
{
	struct hostfile *h = arg;

	h->writes++;
	if (h->fail)
		return h->fail;
	ck_assert_uint_le(off + len, FILE_MAX);
	memcpy(h->data + off, buf, len);
	h->size = MAX(h->size, off + len);
	return (long)len;
}

static struct memfile *mf;
static struct hostfile *h;

static void setup(void)
{
	struct rung_error err = {0};

	ck_assert_int_eq(memfile_create(64ull << 20, &mf, &err), 0);
	h = xzalloc(sizeof(*h));
}

static void teardown(void)
{
	free(h);
	memfile_destroy(mf);
}

static void host_fill(uint64_t off, uint64_t len, unsigned char c)
{
	memset(h->data + off, c, len);
	h->size = MAX(h->size, off + len);
}

/* The cached bytes at off, as a shared mapping sees them. */
static unsigned char *mapped(struct pagecache *pc, uint64_t off)
{
	uint64_t file_off, avail;

	ck_assert_int_eq(ps_map(&pc->ps, off, &file_off, &avail), 0);
	return memfile_ptr(mf, file_off);
}

static int fill(struct pagecache *pc, uint64_t off, uint64_t len, bool writable)
{
	int ret;

	pthread_mutex_lock(&pc->lock);
	ret = pc_fill_locked(pc, off, len, h->size, writable, host_read, h);
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

START_TEST(test_fill_copies_the_file_up_to_its_end)
{
	struct pagecache *pc = pc_new(mf);

	host_fill(0, CH + 100, 'a');
	ck_assert_int_eq(fill(pc, 4096, 4096, false), 0);
	/* The whole first chunk is read, in as many calls as the host needs. */
	ck_assert_uint_eq(h->reads, 2);
	ck_assert_int_eq(mapped(pc, 0)[0], 'a');
	ck_assert_int_eq(mapped(pc, CH - 1)[0], 'a');
	/* A second fill of the same chunk reads nothing. */
	ck_assert_int_eq(fill(pc, 0, CH, false), 0);
	ck_assert_uint_eq(h->reads, 2);
	/* The second chunk: 100 bytes of file, zeros after. */
	ck_assert_int_eq(fill(pc, CH, 4096, false), 0);
	ck_assert_int_eq(mapped(pc, CH + 99)[0], 'a');
	ck_assert_int_eq(mapped(pc, CH + 100)[0], 0);
	pc_free(pc);
}
END_TEST

START_TEST(test_fill_error_is_reported)
{
	struct pagecache *pc = pc_new(mf);

	host_fill(0, 4096, 'a');
	h->fail = -EIO;
	ck_assert_int_eq(fill(pc, 0, 4096, false), -EIO);
	h->fail = 0;
	/* Not marked filled: the next fill reads again. */
	ck_assert_int_eq(fill(pc, 0, 4096, false), 0);
	ck_assert_int_eq(mapped(pc, 0)[0], 'a');
	pc_free(pc);
}
END_TEST

START_TEST(test_read_mixes_cache_and_file)
{
	struct pagecache *pc = pc_new(mf);
	unsigned char buf[8192];

	host_fill(0, 2 * CH, 'a');
	ck_assert_int_eq(fill(pc, 0, 4096, true), 0);
	mapped(pc, CH - 1)[0] = 'm'; /* a store through the mapping */
	h->reads = 0;
	/* The last cached byte and the first uncached one. */
	ck_assert_int_eq(pc_read(pc, buf, 2, CH - 1, h->size, host_read, h), 2);
	ck_assert_int_eq(buf[0], 'm');
	ck_assert_int_eq(buf[1], 'a');
	ck_assert_uint_eq(h->reads, 1);
	/* Reads stop at the end of the file. */
	ck_assert_int_eq(pc_read(pc, buf, sizeof(buf), 2 * CH - 10, h->size, host_read, h), 10);
	ck_assert_int_eq(pc_read(pc, buf, sizeof(buf), 2 * CH, h->size, host_read, h), 0);
	pc_free(pc);
}
END_TEST

START_TEST(test_write_goes_to_both)
{
	struct pagecache *pc = pc_new(mf);
	unsigned char buf[16];

	host_fill(0, 4096, 'a');
	ck_assert_int_eq(fill(pc, 0, 4096, true), 0);
	memset(buf, 'w', sizeof(buf));
	ck_assert_int_eq(pc_write(pc, buf, sizeof(buf), 10, h->size, host_write, h), 16);
	ck_assert_int_eq(h->data[10], 'w');
	ck_assert_int_eq(mapped(pc, 25)[0], 'w');
	ck_assert_int_eq(mapped(pc, 26)[0], 'a');
	/* A write past the end: the gap reads as zeros, even where the mapping
	 * had stored past the old end. */
	mapped(pc, 5000)[0] = 'x';
	ck_assert_int_eq(pc_write(pc, buf, 1, 6000, h->size, host_write, h), 1);
	ck_assert_int_eq(mapped(pc, 5000)[0], 0);
	ck_assert_int_eq(mapped(pc, 6000)[0], 'w');
	/* pc_update: a write that reached the file before the cache was filled. */
	pc_update(pc, "U", 1, 7, h->size);
	ck_assert_int_eq(mapped(pc, 7)[0], 'U');
	pc_free(pc);
}
END_TEST

START_TEST(test_writeback_only_writable_chunks_up_to_size)
{
	struct pagecache *pc = pc_new(mf);

	host_fill(0, 2 * CH + 50, 'a');
	ck_assert_int_eq(fill(pc, 0, 4096, false), 0);
	ck_assert_int_eq(fill(pc, CH, 4096, true), 0);
	ck_assert_int_eq(fill(pc, 2 * CH, 4096, true), 0);
	mapped(pc, 0)[0] = 'r';		  /* read-only chunk: never written back */
	mapped(pc, CH + 1)[0] = 'b';	  /* writable chunk */
	mapped(pc, 2 * CH + 49)[0] = 'c'; /* last byte of the file */
	mapped(pc, 2 * CH + 50)[0] = 'd'; /* past the end: not file data */
	ck_assert_int_eq(pc_writeback(pc, 0, UINT64_MAX, h->size, host_write, h), 0);
	ck_assert_int_eq(h->data[0], 'a');
	ck_assert_int_eq(h->data[CH + 1], 'b');
	ck_assert_int_eq(h->data[2 * CH + 49], 'c');
	ck_assert_uint_eq(h->size, 2 * CH + 50);
	/* A range: only what it covers. */
	mapped(pc, CH + 2)[0] = 'e';
	mapped(pc, CH + 8192)[0] = 'f';
	ck_assert_int_eq(pc_writeback(pc, CH, 4096, h->size, host_write, h), 0);
	ck_assert_int_eq(h->data[CH + 2], 'e');
	ck_assert_int_eq(h->data[CH + 8192], 'a');
	h->fail = -ENOSPC;
	ck_assert_int_eq(pc_writeback(pc, 0, UINT64_MAX, h->size, host_write, h), -ENOSPC);
	pc_free(pc);
}
END_TEST

START_TEST(test_resize_drops_and_zeroes)
{
	struct pagecache *pc = pc_new(mf);
	unsigned char buf[4];

	host_fill(0, 2 * CH, 'a');
	ck_assert_int_eq(fill(pc, 0, 2 * CH, true), 0);
	/* Truncate into the first chunk: the rest of it reads as zeros, and the
	 * second chunk is forgotten (a later fill reads the file again). */
	pc_resize(pc, 2 * CH, 100);
	h->size = 100;
	ck_assert_int_eq(mapped(pc, 99)[0], 'a');
	ck_assert_int_eq(mapped(pc, 100)[0], 0);
	h->size = 2 * CH;
	memset(h->data + 100, 0, 2 * CH - 100);
	h->data[CH + 5] = 'n';
	ck_assert_int_eq(fill(pc, CH, 4096, false), 0);
	ck_assert_int_eq(mapped(pc, CH + 5)[0], 'n');
	/* Growing: bytes stored past the old end read as zeros. */
	h->size = 100;
	mapped(pc, 200)[0] = 'x';
	pc_resize(pc, 100, 4096);
	h->size = 4096;
	ck_assert_int_eq(pc_read(pc, buf, 1, 200, h->size, host_read, h), 1);
	ck_assert_int_eq(buf[0], 0);
	/* pc_zero: a punched hole. */
	pc_zero(pc, 0, 50);
	ck_assert_int_eq(mapped(pc, 49)[0], 0);
	ck_assert_int_eq(mapped(pc, 50)[0], 'a');
	pc_free(pc);
}
END_TEST

/* Random reads, writes, stores, write-backs and resizes against a model. */
START_TEST(test_random_against_model)
{
	static unsigned char model[FILE_MAX];
	struct pagecache *pc = pc_new(mf);
	uint64_t seed = 42, msize;
	bool writable_mapped = false;
	unsigned char buf[8192];

	host_fill(0, CH + 1000, 'a');
	memcpy(model, h->data, sizeof(model));
	msize = h->size;
	for (int round = 0; round < 3000; round++) {
		uint64_t off = unit_rand(&seed) % (3 * CH), len = unit_rand(&seed) % sizeof(buf);
		unsigned char c = (unsigned char)('A' + round % 26);

		switch (unit_rand(&seed) % 6) {
		case 0: /* map (fill) */
			ck_assert_int_eq(fill(pc, off, len + 1, true), 0);
			writable_mapped = true;
			break;
		case 1: { /* read */
			uint64_t want = off >= msize ? 0 : MIN(len, msize - off);
			ck_assert_int_eq(pc_read(pc, buf, len, off, h->size, host_read, h),
					 (long)want);
			ck_assert_mem_eq(buf, model + off, want);
			break;
		}
		case 2: /* write */
			if (len == 0)
				break;
			memset(buf, c, len);
			ck_assert_int_eq(pc_write(pc, buf, len, off, h->size, host_write, h),
					 (long)len);
			if (off > msize)
				memset(model + msize, 0, off - msize);
			memset(model + off, c, len);
			msize = MAX(msize, off + len);
			break;
		case 3: /* a store through a writable mapping of a cached, in-file byte */
			if (writable_mapped && off < msize) {
				pthread_mutex_lock(&pc->lock);
				ck_assert_int_eq(
					pc_fill_locked(pc, off, 1, h->size, true, host_read, h), 0);
				pthread_mutex_unlock(&pc->lock);
				mapped(pc, off)[0] = c;
				model[off] = c;
			}
			break;
		case 4: /* write-back: the file catches up with the model */
			ck_assert_int_eq(pc_writeback(pc, 0, UINT64_MAX, h->size, host_write, h),
					 0);
			ck_assert_uint_eq(h->size, msize);
			ck_assert_mem_eq(h->data, model, msize);
			break;
		case 5: /* truncate */
			pc_resize(pc, h->size, off);
			if (off < h->size)
				memset(h->data + off, 0, h->size - off);
			h->size = off;
			if (off < msize)
				memset(model + off, 0, msize - off);
			else
				memset(model + msize, 0, off - msize);
			msize = off;
			break;
		}
	}
	pc_free(pc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pagecache");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fill_copies_the_file_up_to_its_end);
	tcase_add_test(tc, test_fill_error_is_reported);
	tcase_add_test(tc, test_read_mixes_cache_and_file);
	tcase_add_test(tc, test_write_goes_to_both);
	tcase_add_test(tc, test_writeback_only_writable_chunks_up_to_size);
	tcase_add_test(tc, test_resize_drops_and_zeroes);
	tcase_add_test(tc, test_random_against_model);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
