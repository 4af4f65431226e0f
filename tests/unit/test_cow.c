/*
 * Unit tests: copy-on-write. The shared-page counts of the memory file
 * (sentry/mm/frames.h) against a model, private mobjs that share, copy and
 * release pages (sentry/mm/mobj.h, pins included), and mm_fork with a fake
 * platform: what each side maps read-only, what a write fault or a sentry
 * write copies, and that every page goes back to the memory file at the end.
 */
#include "config.h"
#include "sentry/mm/frames.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/mobj.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG   PAGE_SIZE
#define BASE 0x100000000ul
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW   (PROT_READ | PROT_WRITE)

static struct memfile *mf;

static void setup(void)
{
	struct rung_error err = {0};

	ck_assert_int_eq(memfile_create(1ull << 30, &mf, &err), 0);
}

static void teardown(void)
{
	/* Everything handed out came back, and no count was left behind. */
	ck_assert_uint_eq(mf->allocated, 0);
	ck_assert_uint_eq(frames_ranges(mf), 0);
	memfile_destroy(mf);
}

/* --- frames --------------------------------------------------------------------- */

START_TEST(test_frames_count_and_free)
{
	uint64_t off;
	bool shared;

	ck_assert_int_eq(memfile_alloc(mf, 8 * PG, &off), 0);
	ck_assert_uint_eq(frames_count(mf, off), 1);
	ck_assert_uint_eq(frames_run(mf, off, 8 * PG, &shared), 8 * PG);
	ck_assert(!shared);

	frames_ref(mf, off + 2 * PG, 4 * PG);
	ck_assert_uint_eq(frames_count(mf, off + PG), 1);
	ck_assert_uint_eq(frames_count(mf, off + 2 * PG), 2);
	ck_assert_uint_eq(frames_count(mf, off + 5 * PG), 2);
	ck_assert_uint_eq(frames_count(mf, off + 6 * PG), 1);
	ck_assert_uint_eq(frames_run(mf, off, 8 * PG, &shared), 2 * PG);
	ck_assert(!shared);
	ck_assert_uint_eq(frames_run(mf, off + 3 * PG, 8 * PG, &shared), 3 * PG);
	ck_assert(shared);

	/* Overlapping references split and count per page; equal ones merge. */
	frames_ref(mf, off + 4 * PG, 4 * PG);
	ck_assert_uint_eq(frames_count(mf, off + 3 * PG), 2);
	ck_assert_uint_eq(frames_count(mf, off + 4 * PG), 3);
	ck_assert_uint_eq(frames_count(mf, off + 7 * PG), 2);
	ck_assert_uint_eq(frames_ranges(mf), 3);
	/* A run of shared pages spans ranges of different counts. */
	ck_assert_uint_eq(frames_run(mf, off + 2 * PG, 8 * PG, &shared), 6 * PG);
	ck_assert(shared);
	frames_unref(mf, off + 4 * PG, 2 * PG);
	ck_assert_uint_eq(frames_ranges(mf), 1); /* [2, 8) all at 2 again */

	/* Dropping the last owner of a page frees it; the others stay allocated. */
	memset(memfile_ptr(mf, off), 0x5a, 8 * PG);
	frames_unref(mf, off, 8 * PG);
	ck_assert_uint_eq(mf->allocated, 6 * PG);
	ck_assert_uint_eq(frames_count(mf, off + 2 * PG), 1);
	ck_assert_uint_eq(frames_ranges(mf), 0);
	ck_assert_uint_eq(*(unsigned char *)memfile_ptr(mf, off + 2 * PG), 0x5a);
	ck_assert_uint_eq(*(unsigned char *)memfile_ptr(mf, off), 0); /* punched */
	frames_unref(mf, off + 2 * PG, 6 * PG);
	ck_assert_uint_eq(mf->allocated, 0);
}
END_TEST

/* Random references and releases against an array of counts. */
START_TEST(test_frames_random_model)
{
	enum { N = 64 };
	unsigned model[N];
	uint64_t off, seed = 77;

	ck_assert_int_eq(memfile_alloc(mf, N * PG, &off), 0);
	for (int i = 0; i < N; i++)
		model[i] = 1;
	for (int round = 0; round < 20000; round++) {
		unsigned a = (unsigned)(unit_rand(&seed) % N);
		unsigned n = 1 + (unsigned)(unit_rand(&seed) % (N - a));
		bool up = unit_rand(&seed) % 2, ok = true;
		for (unsigned i = a; i < a + n; i++)
			if (!up && model[i] < 2)
				ok = false; /* keep every page alive: frees are tested above */
		if (!ok)
			continue;
		if (up)
			frames_ref(mf, off + a * PG, n * PG);
		else
			frames_unref(mf, off + a * PG, n * PG);
		for (unsigned i = a; i < a + n; i++)
			model[i] += up ? 1 : -1;
		if (round % 97 == 0)
			for (unsigned i = 0; i < N; i++) {
				bool shared;
				uint64_t run = frames_run(mf, off + i * PG, (N - i) * PG, &shared);
				ck_assert_uint_eq(frames_count(mf, off + i * PG), model[i]);
				ck_assert(shared == (model[i] > 1));
				ck_assert(run >= PG);
				for (uint64_t j = i; j < i + run / PG; j++)
					ck_assert((model[j] > 1) == shared);
			}
	}
	for (unsigned i = 0; i < N; i++)
		while (model[i]-- > 0)
			frames_unref(mf, off + i * PG, PG);
}
END_TEST

/* The copy behind copy on write (and eager forks): data pages only, holes stay holes. */
START_TEST(test_memfile_copy_skips_holes)
{
	static const unsigned data[] = {0, 1, 255, 256, 257, 599};
	enum { N = 600 };
	uint64_t src, dst;

	ck_assert_int_eq(memfile_alloc(mf, N * PG, &src), 0);
	ck_assert_int_eq(memfile_alloc(mf, N * PG, &dst), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(data); i++)
		memset(memfile_ptr(mf, src + data[i] * PG), (int)(i + 1), PG);
	memfile_copy(mf, dst, src, N * PG);
	for (unsigned i = 0; i < ARRAY_SIZE(data); i++) {
		const unsigned char *p = memfile_ptr(mf, dst + data[i] * PG);
		ck_assert_uint_eq(p[0], i + 1);
		ck_assert_uint_eq(p[PG - 1], i + 1);
	}
	/* Neither side gained pages where the source had none. */
	ck_assert_int_eq(lseek(mf->fd, (off_t)(src + 2 * PG), SEEK_DATA), (off_t)(src + 255 * PG));
	ck_assert_int_eq(lseek(mf->fd, (off_t)(dst + 2 * PG), SEEK_DATA), (off_t)(dst + 255 * PG));
	ck_assert_int_eq(lseek(mf->fd, (off_t)(dst + 258 * PG), SEEK_DATA),
			 (off_t)(dst + 599 * PG));
	/* A part of a range, from a hole. */
	memfile_punch(mf, dst, N * PG);
	memfile_copy(mf, dst + 2 * PG, src + 2 * PG, 300 * PG);
	ck_assert_uint_eq(*(unsigned char *)memfile_ptr(mf, dst + 256 * PG), 4);
	ck_assert_int_eq(lseek(mf->fd, (off_t)dst, SEEK_DATA), (off_t)(dst + 255 * PG));
	memfile_free(mf, src, N * PG);
	memfile_free(mf, dst, N * PG);
}
END_TEST

/* --- mobj ----------------------------------------------------------------------- */

static unsigned char byte_at(struct mobj *m, uint64_t moff)
{
	uint64_t len = 1;

	return *(unsigned char *)memfile_ptr(mf, mobj_frame(m, moff, &len));
}

START_TEST(test_mobj_fork_and_unshare)
{
	struct mobj *m, *c;
	uint64_t len, nfoff;
	bool shared;
	long n;

	ck_assert_int_eq(mobj_new(mf, 32 * PG, false, &m), 0);
	for (int i = 0; i < 32; i++)
		memset(memfile_ptr(mf, m->off + i * PG), i + 1, PG);
	c = mobj_fork(m);
	/* Both name the same pages, each page counted twice. */
	len = 32 * PG;
	ck_assert_uint_eq(mobj_frame(c, 0, &len), m->off);
	ck_assert_uint_eq(len, 32 * PG);
	ck_assert_uint_eq(mobj_run(m, 0, 32 * PG, &shared), 32 * PG);
	ck_assert(shared);
	ck_assert_uint_eq(frames_count(mf, m->off + 5 * PG), 2);
	ck_assert_uint_eq(mf->allocated, 32 * PG);

	/* The child writes pages [4, 8): it gets a copy, the parent keeps its pages. */
	n = mobj_unshare_prepare(c, 4 * PG, 4 * PG, &nfoff);
	ck_assert_int_eq(n, 4 * PG);
	mobj_unshare_commit(c, 4 * PG, 4 * PG, nfoff);
	ck_assert_uint_eq(mobj_runs(c), 3);
	ck_assert_uint_eq(byte_at(c, 5 * PG), 6); /* copied data */
	memset(memfile_ptr(mf, nfoff), 0xee, PG);
	ck_assert_uint_eq(byte_at(c, 4 * PG), 0xee);
	ck_assert_uint_eq(byte_at(m, 4 * PG), 5);
	ck_assert_uint_eq(frames_count(mf, m->off + 4 * PG), 1);
	ck_assert_uint_eq(frames_count(mf, m->off + 3 * PG), 2);
	/* Pages the parent now owns alone are not copied again. */
	ck_assert_int_eq(mobj_unshare_prepare(m, 4 * PG, 4 * PG, &nfoff), 0);
	ck_assert_uint_eq(mobj_run(m, 4 * PG, 28 * PG, &shared), 4 * PG);
	ck_assert(!shared);

	/* An aborted copy changes nothing. */
	n = mobj_unshare_prepare(m, 8 * PG, 2 * PG, &nfoff);
	ck_assert_int_eq(n, 2 * PG);
	mobj_unshare_abort(m, (uint64_t)n, nfoff);
	ck_assert_uint_eq(frames_count(mf, m->off + 8 * PG), 2);
	ck_assert_uint_eq(mf->allocated, 36 * PG);

	/* The child goes: the parent owns everything again. */
	mobj_put(c);
	ck_assert_uint_eq(frames_ranges(mf), 0);
	ck_assert_uint_eq(mf->allocated, 32 * PG);
	ck_assert_uint_eq(mobj_run(m, 0, 32 * PG, &shared), 32 * PG);
	ck_assert(!shared);
	mobj_put(m);
}
END_TEST

START_TEST(test_mobj_zero_and_copy)
{
	struct mobj *m, *c, *e;
	bool moved = false;

	ck_assert_int_eq(mobj_new(mf, 8 * PG, false, &m), 0);
	memset(memfile_ptr(mf, m->off), 7, 8 * PG);
	c = mobj_fork(m);
	/* The child drops [2, 4): fresh zero pages for it, the data stays the parent's. */
	ck_assert_int_eq(mobj_zero(c, 2 * PG, 2 * PG, &moved), 0);
	ck_assert(moved);
	ck_assert_uint_eq(byte_at(c, 2 * PG), 0);
	ck_assert_uint_eq(byte_at(c, 4 * PG), 7);
	ck_assert_uint_eq(byte_at(m, 2 * PG), 7);
	/* The parent drops its own pages in place (nothing moves). */
	moved = false;
	ck_assert_int_eq(mobj_zero(m, 2 * PG, PG, &moved), 0);
	ck_assert(!moved);
	ck_assert_uint_eq(byte_at(m, 2 * PG), 0);
	/* An eager copy holds the data in pages of its own. */
	ck_assert_int_eq(mobj_copy(m, &e), 0);
	ck_assert_uint_eq(byte_at(e, 0), 7);
	ck_assert_uint_eq(byte_at(e, 3 * PG), 7);
	ck_assert_uint_eq(frames_count(mf, m->off), 2); /* m and c only */
	mobj_put(e);
	mobj_put(c);
	mobj_put(m);
}
END_TEST

START_TEST(test_mobj_pins_defer)
{
	struct mobj *m, *c;
	uint64_t nfoff, old = 0, len = PG;
	long n;

	ck_assert_int_eq(mobj_new(mf, 4 * PG, false, &m), 0);
	c = mobj_fork(m);
	mobj_pin(c, false);
	ck_assert(!mobj_write_pinned(c));
	mobj_pin(c, true);
	ck_assert(mobj_write_pinned(c));
	mobj_unpin(c, true);
	/* While host I/O reads the child's old pages, they stay counted for it. */
	old = mobj_frame(c, 0, &len);
	n = mobj_unshare_prepare(c, 0, 4 * PG, &nfoff);
	ck_assert_int_eq(n, 4 * PG);
	mobj_unshare_commit(c, 0, 4 * PG, nfoff);
	ck_assert_uint_eq(frames_count(mf, old), 2);
	mobj_put(m);
	ck_assert_uint_eq(mf->allocated, 8 * PG); /* m's pages wait for the pin */
	mobj_unpin(c, false);
	ck_assert_uint_eq(mf->allocated, 4 * PG);
	mobj_put(c);
}
END_TEST

/* --- mm_fork with a platform ---------------------------------------------------- */

#define WIN 64

struct fake_as {
	struct address_space as;
	struct {
		bool mapped;
		int prot;
		uint64_t off;
	} page[WIN];
	unsigned maps, protects;
};

#define fake_of(a) ((struct fake_as *)(a))

static int fake_map(struct address_space *as, uint64_t addr, uint64_t len, int prot,
		    uint64_t file_off)
{
	struct fake_as *f = fake_of(as);

	f->maps++;
	for (uint64_t a = addr; a < addr + len; a += PG)
		if (a >= BASE && a < BASE + WIN * PG) {
			unsigned i = (unsigned)((a - BASE) / PG);
			f->page[i].mapped = true;
			f->page[i].prot = prot;
			f->page[i].off = file_off + (a - addr);
		}
	return 0;
}

/* Only what is mapped can change its protection (as mprotect on the host). */
static int fake_protect(struct address_space *as, uint64_t addr, uint64_t len, int prot)
{
	struct fake_as *f = fake_of(as);

	f->protects++;
	for (uint64_t a = addr; a < addr + len; a += PG)
		if (a >= BASE && a < BASE + WIN * PG && !f->page[(a - BASE) / PG].mapped)
			return -ENOMEM;
	for (uint64_t a = addr; a < addr + len; a += PG)
		if (a >= BASE && a < BASE + WIN * PG)
			f->page[(a - BASE) / PG].prot = prot;
	return 0;
}

static int fake_unmap(struct address_space *as, uint64_t addr, uint64_t len)
{
	struct fake_as *f = fake_of(as);

	for (uint64_t a = addr; a < addr + len; a += PG)
		if (a >= BASE && a < BASE + WIN * PG)
			f->page[(a - BASE) / PG].mapped = false;
	return 0;
}

static void fake_release(struct address_space *as)
{
}

static const struct as_ops fake_ops = {
	.map = fake_map, .unmap = fake_unmap, .protect = fake_protect, .release = fake_release};

static long map_at(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags)
{
	struct mmap_req req = {.addr = addr, .len = len, .prot = prot, .flags = flags | MAP_FIXED};

	return mm_mmap(mm, &req);
}

START_TEST(test_fork_maps_read_only_and_faults_copy)
{
	static struct fake_as fp = {.as = {.ops = &fake_ops}}, fc = {.as = {.ops = &fake_ops}};
	struct mm *parent, *child;
	char buf[8];

	ck_assert_int_eq(mm_new(mf, 1ull << 30, &parent), 0);
	ck_assert_int_eq(mm_attach(parent, &fp.as), 0);
	ck_assert_int_eq(map_at(parent, BASE, 48 * PG, RW, ANON), (long)BASE);
	ck_assert_int_eq(map_at(parent, BASE + 48 * PG, 8 * PG, RW, MAP_SHARED | MAP_ANONYMOUS),
			 (long)(BASE + 48 * PG));
	ck_assert_int_eq(map_at(parent, BASE + 56 * PG, 8 * PG, PROT_READ, ANON),
			 (long)(BASE + 56 * PG));
	ck_assert_int_eq(mm_copy_out(parent, BASE + 20 * PG, "parent", 7), 0);
	ck_assert_int_eq(fp.page[0].prot, RW);

	ck_assert_int_eq(mm_fork(parent, &child), 0);
	/* The parent's private writable pages are read-only now; the rest as they were. */
	ck_assert_int_eq(fp.page[0].prot, PROT_READ);
	ck_assert_int_eq(fp.page[47].prot, PROT_READ);
	ck_assert_int_eq(fp.page[48].prot, RW); /* MAP_SHARED: never copy on write */
	ck_assert_int_eq(fp.page[56].prot, PROT_READ);
	ck_assert_int_eq(mm_attach(child, &fc.as), 0);
	ck_assert_int_eq(fc.page[0].prot, PROT_READ);
	ck_assert_int_eq(fc.page[48].prot, RW);
	ck_assert_uint_eq(fc.page[20].off, fp.page[20].off);
	ck_assert_uint_eq(fc.page[48].off, fp.page[48].off);

	/* A write fault in the child copies its 16-page window, mapped writable. */
	ck_assert_int_eq(mm_handle_fault(child, BASE + 20 * PG + 5, ACCESS_WRITE, 1 << 20), 0);
	for (unsigned i = 16; i < 32; i++) {
		ck_assert_int_eq(fc.page[i].prot, RW);
		ck_assert_uint_ne(fc.page[i].off, fp.page[i].off);
	}
	ck_assert_int_eq(fc.page[15].prot, PROT_READ);
	ck_assert_int_eq(fc.page[32].prot, PROT_READ);
	ck_assert_int_eq(mm_copy_in(child, buf, BASE + 20 * PG, 7), 0);
	ck_assert_str_eq(buf, "parent");
	ck_assert_int_eq(mm_copy_out(child, BASE + 20 * PG, "child", 6), 0);
	ck_assert_int_eq(mm_copy_in(parent, buf, BASE + 20 * PG, 7), 0);
	ck_assert_str_eq(buf, "parent");
	/* Faults are write faults even where the platform cannot tell (ptrace). */
	ck_assert_int_eq(mm_handle_fault(child, BASE + 40 * PG, 0, 1 << 20), 0);
	ck_assert_int_eq(fc.page[40].prot, RW);
	/* A write to a read-only VMA is still an error. */
	ck_assert_int_eq(mm_handle_fault(child, BASE + 56 * PG, ACCESS_WRITE, 1 << 20),
			 SEGV_ACCERR);

	/* The sentry's writes into a shared page copy it first: the parent's stays. */
	ck_assert_int_eq(mm_copy_out(parent, BASE + 2 * PG, "sentry", 7), 0);
	ck_assert_int_eq(fp.page[2].prot, RW);
	ck_assert_int_eq(fp.page[0].prot, PROT_READ); /* only the range written */
	ck_assert_int_eq(mm_copy_in(child, buf, BASE + 2 * PG, 7), 0);
	ck_assert_uint_eq(buf[0], 0);
	ck_assert_int_eq(mm_zero_out(child, BASE + 3 * PG, 16), 0);

	/* The child goes: the parent's pages are its own again, and one write
	 * fault makes all of them writable (no copy, no new mapping). */
	mm_put(child);
	{
		uint64_t before = fp.page[0].off;
		unsigned maps = fp.maps, protects = fp.protects;
		ck_assert_int_eq(mm_handle_fault(parent, BASE, ACCESS_WRITE, 1 << 20), 0);
		ck_assert_uint_eq(fp.page[0].off, before);
		for (unsigned i = 0; i < 48; i++)
			ck_assert_int_eq(fp.page[i].prot, RW);
		ck_assert_uint_eq(fp.maps, maps);
		ck_assert_uint_gt(fp.protects, protects);
	}
	ck_assert_int_eq(mm_copy_in(parent, buf, BASE + 20 * PG, 7), 0);
	ck_assert_str_eq(buf, "parent");
	mm_put(parent);
}
END_TEST

START_TEST(test_fork_dontneed_and_munmap)
{
	static struct fake_as fp = {.as = {.ops = &fake_ops}};
	struct mm *parent, *child;
	char buf[4];

	ck_assert_int_eq(mm_new(mf, 1ull << 30, &parent), 0);
	ck_assert_int_eq(mm_attach(parent, &fp.as), 0);
	ck_assert_int_eq(map_at(parent, BASE, 16 * PG, RW, ANON), (long)BASE);
	ck_assert_int_eq(mm_copy_out(parent, BASE, "abc", 4), 0);
	ck_assert_int_eq(mm_copy_out(parent, BASE + 8 * PG, "def", 4), 0);
	ck_assert_int_eq(mm_fork(parent, &child), 0);
	/* DONTNEED in the parent gives it zero pages, mapped; the child keeps the data. */
	ck_assert_int_eq(mm_madvise(parent, BASE, 4 * PG, MADV_DONTNEED), 0);
	ck_assert_int_eq(mm_copy_in(parent, buf, BASE, 4), 0);
	ck_assert_uint_eq(buf[0], 0);
	ck_assert_int_eq(fp.page[0].prot, RW); /* its own zero page: writable */
	ck_assert_int_eq(mm_copy_in(child, buf, BASE, 4), 0);
	ck_assert_str_eq(buf, "abc");
	/* munmap in the child leaves the parent's pages. */
	ck_assert_int_eq(mm_munmap(child, BASE + 8 * PG, 8 * PG), 0);
	ck_assert_int_eq(mm_copy_in(parent, buf, BASE + 8 * PG, 4), 0);
	ck_assert_str_eq(buf, "def");
	/* Write pins (host I/O into the pages) make the next fork copy eagerly. */
	{
		struct mm_pin pin;
		struct mm *c2;
		mm_pin(parent, BASE + 8 * PG, 4, true, &pin);
		ck_assert_int_eq(pin.n, 1);
		ck_assert_int_eq(mm_fork(parent, &c2), 0);
		/* Nothing shared with the new child: the pinned page is the parent's alone. */
		ck_assert_uint_eq(frames_count(mf, fp.page[8].off), 1);
		memcpy(pin.iov[0].iov_base, "pin", 4);
		mm_unpin(&pin);
		ck_assert_int_eq(mm_copy_in(c2, buf, BASE + 8 * PG, 4), 0);
		ck_assert_str_eq(buf, "def");
		mm_put(c2);
	}
	mm_put(child);
	mm_put(parent);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cow");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_frames_count_and_free);
	tcase_add_test(tc, test_frames_random_model);
	tcase_add_test(tc, test_memfile_copy_skips_holes);
	tcase_add_test(tc, test_mobj_fork_and_unshare);
	tcase_add_test(tc, test_mobj_zero_and_copy);
	tcase_add_test(tc, test_mobj_pins_defer);
	tcase_add_test(tc, test_fork_maps_read_only_and_faults_copy);
	tcase_add_test(tc, test_fork_dontneed_and_munmap);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
