/* Unit tests: the memory file (memfd + first-fit allocator) and memory objects. */
#include "config.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/error.h"
#include "lib/util.h"
#include "platform/platform.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PG	 GUEST_PAGE_SIZE
#define CAPACITY (64ull << 20)

static struct memfile *new_memfile(uint64_t capacity)
{
	struct rung_error err = {0};
	struct memfile *mf = NULL;

	ck_assert_int_eq(memfile_create(capacity, &mf, &err), 0);
	ck_assert_ptr_nonnull(mf);
	ck_assert_ptr_null(err.msg);
	return mf;
}

/* Is every byte of [off, off+len) equal to c? */
static bool all_bytes(struct memfile *mf, uint64_t off, uint64_t len, unsigned char c)
{
	const unsigned char *p = memfile_ptr(mf, off);

	for (uint64_t i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/* A zero or unaligned capacity is refused with EINVAL and a message. */
START_TEST(test_create_rejects_bad_capacity)
{
	struct rung_error err = {0};
	struct memfile *mf = NULL;

	ck_assert_int_lt(memfile_create(0, &mf, &err), 0);
	ck_assert_int_eq(err.status, EINVAL);
	ck_assert_ptr_nonnull(err.msg);
	ck_assert_ptr_null(mf);
	rung_error_release(&err);
	ck_assert_int_lt(memfile_create(PG + 1, &mf, &err), 0);
	ck_assert_int_eq(err.status, EINVAL);
	ck_assert_ptr_null(mf);
	rung_error_release(&err);
}
END_TEST

/* A fresh file: the fd really is a memfd of the right size, mapped shared in the sentry. */
START_TEST(test_create_maps_the_file)
{
	struct memfile *mf = new_memfile(CAPACITY);
	char buf[8];

	ck_assert_int_ge(mf->fd, 0);
	ck_assert_uint_eq(mf->capacity, CAPACITY);
	ck_assert_uint_eq(lseek(mf->fd, 0, SEEK_END), CAPACITY);
	ck_assert_uint_eq(mf->top, 0);
	ck_assert_uint_eq(mf->allocated, 0);
	ck_assert_uint_eq(memfile_free_extents(mf), 0);
	/* Writes through the mapping are visible through the fd (MAP_SHARED). */
	memcpy(memfile_ptr(mf, 5 * PG + 3), "memfile", 8);
	ck_assert_int_eq(pread(mf->fd, buf, 8, 5 * PG + 3), 8);
	ck_assert_str_eq(buf, "memfile");
	memfile_destroy(mf);
	memfile_destroy(NULL); /* a no-op */
}
END_TEST

/* Lengths must be non-zero page multiples. */
START_TEST(test_alloc_rejects_bad_length)
{
	struct memfile *mf = new_memfile(CAPACITY);
	uint64_t off = 12345;

	ck_assert_int_eq(memfile_alloc(mf, 0, &off), -EINVAL);
	ck_assert_int_eq(memfile_alloc(mf, 1, &off), -EINVAL);
	ck_assert_int_eq(memfile_alloc(mf, PG + 1, &off), -EINVAL);
	ck_assert_uint_eq(off, 12345);
	ck_assert_uint_eq(mf->allocated, 0);
	memfile_destroy(mf);
}
END_TEST

/* Allocation hands out consecutive ranges from the start, then ENOMEM when full. */
START_TEST(test_alloc_sequential_until_full)
{
	struct memfile *mf = new_memfile(16 * PG);
	uint64_t off;

	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(memfile_alloc(mf, 2 * PG, &off), 0);
		ck_assert_uint_eq(off, (uint64_t)i * 2 * PG);
	}
	ck_assert_uint_eq(mf->allocated, 16 * PG);
	ck_assert_int_eq(memfile_alloc(mf, PG, &off), -ENOMEM);
	/* Bigger than the whole file. */
	memfile_free(mf, 0, 2 * PG);
	ck_assert_int_eq(memfile_alloc(mf, 32 * PG, &off), -ENOMEM);
	ck_assert_uint_eq(mf->allocated, 14 * PG);
	memfile_destroy(mf);
}
END_TEST

/* Freed ranges are reused first fit by offset, and come back zeroed. */
START_TEST(test_free_reuse_first_fit_and_zeroed)
{
	struct memfile *mf = new_memfile(CAPACITY);
	uint64_t a, b, c, d, e;

	ck_assert_int_eq(memfile_alloc(mf, 4 * PG, &a), 0);
	ck_assert_int_eq(memfile_alloc(mf, 4 * PG, &b), 0);
	ck_assert_int_eq(memfile_alloc(mf, 4 * PG, &c), 0);
	memset(memfile_ptr(mf, a), 0xa5, 4 * PG);
	memset(memfile_ptr(mf, b), 0x5a, 4 * PG);
	memfile_free(mf, a, 4 * PG);
	ck_assert_uint_eq(memfile_free_extents(mf), 1);
	ck_assert(all_bytes(mf, a, 4 * PG, 0));
	/* A bigger request does not fit the hole: it comes from the top. */
	ck_assert_int_eq(memfile_alloc(mf, 8 * PG, &d), 0);
	ck_assert_uint_eq(d, c + 4 * PG);
	/* A smaller one takes the front of the hole. */
	ck_assert_int_eq(memfile_alloc(mf, PG, &e), 0);
	ck_assert_uint_eq(e, a);
	ck_assert(all_bytes(mf, e, PG, 0));
	/* b was untouched by all this. */
	ck_assert(all_bytes(mf, b, 4 * PG, 0x5a));
	ck_assert_uint_eq(mf->allocated, (1 + 4 + 4 + 8) * PG);
	memfile_destroy(mf);
}
END_TEST

/* Free extents coalesce with both neighbours, and an extent reaching the top lowers it. */
START_TEST(test_free_coalesces)
{
	struct memfile *mf = new_memfile(CAPACITY);
	uint64_t off[5], big;

	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(memfile_alloc(mf, PG, &off[i]), 0);
	memfile_free(mf, off[0], PG);
	memfile_free(mf, off[2], PG);
	ck_assert_uint_eq(memfile_free_extents(mf), 2);
	/* Joining [0] and [2] through [1]: one extent of three pages. */
	memfile_free(mf, off[1], PG);
	ck_assert_uint_eq(memfile_free_extents(mf), 1);
	ck_assert_int_eq(memfile_alloc(mf, 3 * PG, &big), 0);
	ck_assert_uint_eq(big, off[0]);
	ck_assert_uint_eq(memfile_free_extents(mf), 0);
	memfile_free(mf, big, 3 * PG);
	/* Freeing the last range before top gives everything back to top. */
	memfile_free(mf, off[4], PG);
	ck_assert_uint_eq(memfile_free_extents(mf), 1);
	ck_assert_uint_eq(mf->top, off[4]);
	memfile_free(mf, off[3], PG);
	ck_assert_uint_eq(memfile_free_extents(mf), 0);
	ck_assert_uint_eq(mf->top, 0);
	ck_assert_uint_eq(mf->allocated, 0);
	memfile_free(mf, 0, 0); /* a no-op */
	ck_assert_uint_eq(mf->allocated, 0);
	memfile_destroy(mf);
}
END_TEST

/* Punching zeroes the pages but leaves the range allocated. */
START_TEST(test_punch_zeroes_and_keeps)
{
	struct memfile *mf = new_memfile(CAPACITY);
	uint64_t off, other;

	ck_assert_int_eq(memfile_alloc(mf, 4 * PG, &off), 0);
	memset(memfile_ptr(mf, off), 0x77, 4 * PG);
	memfile_punch(mf, off + PG, 2 * PG);
	ck_assert(all_bytes(mf, off, PG, 0x77));
	ck_assert(all_bytes(mf, off + PG, 2 * PG, 0));
	ck_assert(all_bytes(mf, off + 3 * PG, PG, 0x77));
	ck_assert_uint_eq(mf->allocated, 4 * PG);
	ck_assert_int_eq(memfile_alloc(mf, PG, &other), 0);
	ck_assert_uint_ge(other, off + 4 * PG);
	memfile_punch(mf, off, 0); /* a no-op */
	ck_assert(all_bytes(mf, off, PG, 0x77));
	memfile_destroy(mf);
}
END_TEST

/* Extending in place: at the top, into a following free extent, and refusals. */
START_TEST(test_extend)
{
	struct memfile *mf = new_memfile(16 * PG);
	uint64_t a, b, c;

	ck_assert_int_eq(memfile_alloc(mf, PG, &a), 0);
	/* At the top: grows into never-used space. */
	ck_assert_int_eq(memfile_extend(mf, a, PG, 3 * PG), 0);
	ck_assert_uint_eq(mf->top, a + 3 * PG);
	ck_assert_uint_eq(mf->allocated, 3 * PG);
	ck_assert_int_eq(memfile_extend(mf, a, 3 * PG, 3 * PG), 0);
	ck_assert_int_eq(memfile_extend(mf, a, 3 * PG, 2 * PG), -EINVAL);
	ck_assert_int_eq(memfile_extend(mf, a, 3 * PG, 3 * PG + 1), -EINVAL);

	/* Blocked by an allocated neighbour. */
	ck_assert_int_eq(memfile_alloc(mf, 2 * PG, &b), 0);
	ck_assert_int_eq(memfile_alloc(mf, PG, &c), 0);
	ck_assert_uint_eq(b, a + 3 * PG);
	ck_assert_int_eq(memfile_extend(mf, a, 3 * PG, 4 * PG), -ENOMEM);

	/* Into a free extent that follows: partly, then exactly the rest. */
	memfile_free(mf, b, 2 * PG);
	ck_assert_int_eq(memfile_extend(mf, a, 3 * PG, 4 * PG), 0);
	ck_assert_uint_eq(memfile_free_extents(mf), 1);
	ck_assert_int_eq(memfile_extend(mf, a, 4 * PG, 6 * PG), -ENOMEM); /* c is in the way */
	ck_assert_int_eq(memfile_extend(mf, a, 4 * PG, 5 * PG), 0);
	ck_assert_uint_eq(memfile_free_extents(mf), 0);
	ck_assert_uint_eq(mf->allocated, 6 * PG);

	/* At the top but beyond the capacity. */
	ck_assert_int_eq(memfile_extend(mf, c, PG, 64 * PG), -ENOMEM);
	ck_assert_int_eq(memfile_extend(mf, c, PG, 16 * PG - c), 0);
	ck_assert_uint_eq(mf->top, 16 * PG);
	ck_assert_int_eq(memfile_alloc(mf, PG, &b), -ENOMEM);
	memfile_destroy(mf);
}
END_TEST

/* The offset of the lowest maximal run of at least n free pages in owner[], or -1. */
static long first_free_run(const unsigned char *owner, unsigned npages, uint64_t n)
{
	for (unsigned p = 0; p < npages;) {
		unsigned q = p;
		while (q < npages && owner[q] == 0xff)
			q++;
		if (q - p >= n)
			return (long)p;
		p = q + 1;
	}
	return -1;
}

/*
 * Random allocations and frees against a model: ranges never overlap, stay inside
 * the file, the accounting matches, and freeing everything leaves an empty file.
 */
START_TEST(test_alloc_free_random_model)
{
	enum { SLOTS = 64, ROUNDS = 20000, FILE_PAGES = 512 };
	struct memfile *mf = new_memfile(FILE_PAGES * PG);
	uint64_t off[SLOTS], len[SLOTS] = {0}, used = 0, seed = 0x1234567;
	unsigned char owner[FILE_PAGES];

	memset(owner, 0xff, sizeof(owner));
	for (int r = 0; r < ROUNDS; r++) {
		int i = (int)(unit_rand(&seed) % SLOTS);
		if (len[i]) {
			/* Its pages must still be ours, and hold our mark. */
			ck_assert(all_bytes(mf, off[i], PG, (unsigned char)i));
			for (uint64_t p = off[i] / PG; p < (off[i] + len[i]) / PG; p++)
				owner[p] = 0xff;
			memfile_free(mf, off[i], len[i]);
			used -= len[i];
			len[i] = 0;
		} else {
			uint64_t l = (1 + unit_rand(&seed) % 16) * PG;
			int ret = memfile_alloc(mf, l, &off[i]);
			long fit = first_free_run(owner, FILE_PAGES, l / PG);
			/* First fit: ENOMEM exactly when no run is free, else the lowest run. */
			if (ret == -ENOMEM) {
				ck_assert_int_eq(fit, -1);
				continue;
			}
			ck_assert_int_eq(ret, 0);
			ck_assert_uint_eq(off[i], (uint64_t)fit * PG);
			ck_assert(IS_ALIGNED(off[i], PG));
			ck_assert_uint_le(off[i] + l, FILE_PAGES * PG);
			ck_assert(all_bytes(mf, off[i], l, 0));
			for (uint64_t p = off[i] / PG; p < (off[i] + l) / PG; p++) {
				ck_assert_uint_eq(owner[p], 0xff);
				owner[p] = (unsigned char)i;
			}
			memset(memfile_ptr(mf, off[i]), i, l);
			len[i] = l;
			used += l;
		}
		ck_assert_uint_eq(mf->allocated, used);
		ck_assert_uint_le(mf->top, FILE_PAGES * PG);
	}
	for (int i = 0; i < SLOTS; i++)
		if (len[i])
			memfile_free(mf, off[i], len[i]);
	ck_assert_uint_eq(mf->allocated, 0);
	ck_assert_uint_eq(mf->top, 0);
	ck_assert_uint_eq(memfile_free_extents(mf), 0);
	memfile_destroy(mf);
}
END_TEST

/* mobj: reference counting frees the range with the last put; grow extends in place. */
START_TEST(test_mobj_refs_and_grow)
{
	struct memfile *mf = new_memfile(CAPACITY);
	struct mobj *m, *n;

	ck_assert_int_eq(mobj_new(mf, 2 * PG, false, &m), 0);
	ck_assert_int_eq(m->refs, 1);
	ck_assert(!m->shared);
	ck_assert_ptr_eq(m->mf, mf);
	ck_assert_uint_eq(m->len, 2 * PG);
	ck_assert_uint_eq(mf->allocated, 2 * PG);
	ck_assert_ptr_eq(mobj_get(m), m);
	ck_assert_int_eq(m->refs, 2);
	mobj_put(m);
	ck_assert_uint_eq(mf->allocated, 2 * PG);

	ck_assert_int_eq(mobj_grow(m, 5 * PG), 0);
	ck_assert_uint_eq(m->len, 5 * PG);
	ck_assert_uint_eq(mf->allocated, 5 * PG);
	ck_assert_int_eq(mobj_new(mf, PG, true, &n), 0);
	ck_assert(n->shared);
	ck_assert_uint_eq(n->off, m->off + 5 * PG);
	/* n sits right after m now: m cannot grow, and keeps its length. */
	ck_assert_int_eq(mobj_grow(m, 6 * PG), -ENOMEM);
	ck_assert_uint_eq(m->len, 5 * PG);
	memset(memfile_ptr(mf, m->off), 1, 5 * PG);
	mobj_put(m);
	mobj_put(n);
	mobj_put(NULL);
	ck_assert_uint_eq(mf->allocated, 0);
	ck_assert_uint_eq(mf->top, 0);
	ck_assert_int_eq(mobj_new(mf, 128ull << 20, false, &m), -ENOMEM);
	memfile_destroy(mf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memfile");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60); /* generous: slow CI machines, sanitizers */
	tcase_add_test(tc, test_create_rejects_bad_capacity);
	tcase_add_test(tc, test_create_maps_the_file);
	tcase_add_test(tc, test_alloc_rejects_bad_length);
	tcase_add_test(tc, test_alloc_sequential_until_full);
	tcase_add_test(tc, test_free_reuse_first_fit_and_zeroed);
	tcase_add_test(tc, test_free_coalesces);
	tcase_add_test(tc, test_punch_zeroes_and_keeps);
	tcase_add_test(tc, test_extend);
	tcase_add_test(tc, test_alloc_free_random_model);
	tcase_add_test(tc, test_mobj_refs_and_grow);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
