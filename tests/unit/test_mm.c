/*
 * Unit tests: guest address spaces (sentry/mm/mm.h) with no platform attached.
 * VMA operations (split, merge, protect, unmap, MAP_FIXED, limits), brk, stack
 * growth, mremap, madvise, and checked copies in and out of guest memory.
 */
#include "config.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mobj.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define PG   PAGE_SIZE
#define BASE 0x100000000ul /* 4 GiB: a quiet part of the guest range */
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW   (PROT_READ | PROT_WRITE)

static struct memfile *mf;
static struct mm *mm;

/* A fresh memory file and mm with the given guest memory limit. */
static void start(uint64_t capacity, uint64_t limit)
{
	struct rung_error err = {0};

	ck_assert_int_eq(memfile_create(capacity, &mf, &err), 0);
	ck_assert_int_eq(mm_new(mf, limit, &mm), 0);
	ck_assert_ptr_nonnull(mm);
	ck_assert_uint_eq(mm->nr_vmas, 0);
	ck_assert_uint_eq(mm->committed, 0);
}

static void setup(void)
{
	start(256ull << 20, 64ull << 20);
}

/* Drop the mm: every page it held must go back to the memory file. */
static void finish(void)
{
	mm_put(mm);
	mm = NULL;
	ck_assert_uint_eq(mf->allocated, 0);
	ck_assert_uint_eq(mf->top, 0);
	memfile_destroy(mf);
	mf = NULL;
}

static long map(uint64_t addr, uint64_t len, int prot, int flags)
{
	struct mmap_req r = {.addr = addr, .len = len, .prot = prot, .flags = flags};

	return mm_mmap(mm, &r);
}

/* A copy of the VMA list for assertions. */
struct vsnap {
	uint64_t start, end;
	int prot;
	unsigned flags;
	const struct mobj *mobj;
};

struct snap {
	unsigned n;
	struct vsnap v[64];
	/* Invariants gathered on the way. */
	uint64_t prev_end, committed;
	unsigned long count;
	bool ok;
	const char *why;
};

static void snap_fn(const struct vma *v, void *arg)
{
	struct snap *s = arg;

	if (s->n < ARRAY_SIZE(s->v))
		s->v[s->n++] = (struct vsnap){v->start, v->end, v->prot, v->flags, v->mobj};
	s->count++;
#define BAD(what)                      \
	do {                           \
		if (s->ok)             \
			s->why = what; \
		s->ok = false;         \
	} while (0)
	if (v->start >= v->end)
		BAD("empty VMA");
	if (!IS_ALIGNED(v->start, PG) || !IS_ALIGNED(v->end, PG))
		BAD("unaligned VMA");
	if (v->start < s->prev_end)
		BAD("VMAs overlap or are out of order");
	if (v->start < GUEST_MIN_ADDR || v->end > GUEST_MAX_ADDR)
		BAD("VMA outside the guest range");
	if ((v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) && !v->mobj)
		BAD("accessible VMA without memory");
	if (v->mobj) {
		if (v->mobj->refs < 1)
			BAD("mobj without references");
		if (v->mobj_off + (v->end - v->start) > v->mobj->len)
			BAD("VMA reaches past its mobj");
		if (!IS_ALIGNED(v->mobj_off, PG))
			BAD("unaligned mobj offset");
		s->committed += v->end - v->start;
	}
#undef BAD
	s->prev_end = v->end;
}

/* Snapshot the VMAs and check the tree's invariants and accounting. */
static void snapshot(struct snap *s)
{
	memset(s, 0, sizeof(*s));
	s->ok = true;
	mm_for_each_vma(mm, snap_fn, s);
	ck_assert_msg(s->ok, "VMA invariant broken: %s", s->why);
	ck_assert_uint_eq(s->count, mm->nr_vmas);
	ck_assert_uint_eq(s->committed, mm->committed);
	ck_assert_uint_le(mm->committed, mm->limit);
}

static void expect_vma(const struct snap *s, unsigned i, uint64_t start, uint64_t end, int prot)
{
	ck_assert_uint_gt(s->n, i);
	ck_assert_uint_eq(s->v[i].start, start);
	ck_assert_uint_eq(s->v[i].end, end);
	ck_assert_int_eq(s->v[i].prot, prot);
}

/* Fill page i of [addr, ...) with byte (seed + i) through mm_copy_out. */
static void fill_pages(uint64_t addr, unsigned pages, unsigned char seed)
{
	static unsigned char buf[PAGE_SIZE];

	for (unsigned i = 0; i < pages; i++) {
		memset(buf, (unsigned char)(seed + i), PG);
		ck_assert_int_eq(mm_copy_out(mm, addr + i * PG, buf, PG), 0);
	}
}

/* Does page addr hold byte c throughout (read with mm_peek, regardless of protection)? */
static bool page_is(uint64_t addr, unsigned char c)
{
	static unsigned char buf[PAGE_SIZE];

	if (mm_peek(mm, buf, addr, PG) != 0)
		return false;
	for (unsigned i = 0; i < PG; i++)
		if (buf[i] != c)
			return false;
	return true;
}

/* mmap without MAP_FIXED: page-aligned, in range, top-down, honouring a free hint. */
START_TEST(test_mmap_anywhere)
{
	struct snap s;
	long a, b, c, d;

	a = map(0, 3 * PG + 1, RW, ANON);
	ck_assert_int_gt(a, 0);
	ck_assert(IS_ALIGNED((uint64_t)a, PG));
	ck_assert_uint_ge(a, GUEST_MIN_ADDR);
	ck_assert_uint_le(a + 4 * PG, mm->mmap_base);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, a, a + 4 * PG, RW);
	ck_assert_ptr_nonnull(s.v[0].mobj);
	ck_assert_uint_eq(mm->committed, 4 * PG);

	b = map(0, PG, PROT_READ, ANON);
	ck_assert_int_gt(b, 0);
	ck_assert_uint_le(b + PG, a); /* below the first: searches go top-down */

	/* A free hint is taken as given (rounded down to a page). */
	c = map(BASE + 123, PG, RW, ANON);
	ck_assert_uint_eq(c, BASE);
	/* An occupied hint is not: the mapping goes elsewhere, overlapping nothing. */
	d = map(BASE, 2 * PG, RW, ANON);
	ck_assert_int_gt(d, 0);
	ck_assert((uint64_t)d + 2 * PG <= BASE || (uint64_t)d >= BASE + PG);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(mm->committed, 8 * PG);
	/* Fresh anonymous memory reads as zero. */
	ck_assert(page_is(a, 0));
	ck_assert(page_is(d + PG, 0));
	finish();
}
END_TEST

/* Linux's argument checks, each with the right errno, and nothing mapped after them. */
START_TEST(test_mmap_bad_arguments)
{
	struct snap s;

	ck_assert_int_eq(map(0, 0, RW, ANON), -EINVAL);
	ck_assert_int_eq(map(0, PG, 0x10, ANON), -EINVAL);
	ck_assert_int_eq(map(0, PG, RW, MAP_ANONYMOUS), -EINVAL); /* no type */
	ck_assert_int_eq(map(0, PG, RW, MAP_ANONYMOUS | 0x0f), -EINVAL);
	ck_assert_int_eq(map(0, GUEST_MAX_ADDR + 1, RW, ANON), -ENOMEM);
	ck_assert_int_eq(map(0, ~0ul, RW, ANON), -ENOMEM);
	ck_assert_int_eq(map(BASE + 1, PG, RW, ANON | MAP_FIXED), -EINVAL);
	ck_assert_int_eq(map(BASE + 1, PG, RW, ANON | MAP_FIXED_NOREPLACE), -EINVAL);
	ck_assert_int_eq(map(PG, PG, RW, ANON | MAP_FIXED), -EPERM); /* below mmap_min_addr */
	ck_assert_int_eq(map(GUEST_MAX_ADDR - PG, 2 * PG, RW, ANON | MAP_FIXED), -ENOMEM);
	ck_assert_int_eq(map(GUEST_MAX_ADDR, PG, RW, ANON | MAP_FIXED), -ENOMEM);
	ck_assert_int_eq(map(0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS | 0x200000),
			 -EOPNOTSUPP);
	ck_assert_int_eq(map(0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS | MAP_SYNC),
			 -EOPNOTSUPP);
	ck_assert_int_eq(map(0, PG, RW, ANON | MAP_HUGETLB), -ENOMEM);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(mm->committed, 0);
	/* The last page below GUEST_MAX_ADDR is fine, and so is MAP_SHARED_VALIDATE. */
	ck_assert_uint_eq(map(GUEST_MAX_ADDR - PG, PG, RW, ANON | MAP_FIXED), GUEST_MAX_ADDR - PG);
	ck_assert_int_gt(map(0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS), 0);
	finish();
}
END_TEST

/* munmap of the middle leaves two VMAs whose data survives; the hole faults. */
START_TEST(test_munmap_middle)
{
	unsigned char buf[2 * PAGE_SIZE];
	struct snap s;

	ck_assert_uint_eq(map(BASE, 8 * PG, RW, ANON | MAP_FIXED), BASE);
	fill_pages(BASE, 8, 0x10);
	ck_assert_int_eq(mm_munmap(mm, BASE + 3 * PG, 2 * PG), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 2);
	expect_vma(&s, 0, BASE, BASE + 3 * PG, RW);
	expect_vma(&s, 1, BASE + 5 * PG, BASE + 8 * PG, RW);
	ck_assert_uint_eq(mm->committed, 6 * PG);
	for (unsigned i = 0; i < 8; i++)
		ck_assert(page_is(BASE + i * PG, 0x10 + i) == (i < 3 || i >= 5));
	/* The hole: -EFAULT, and a partial copy stops right at it. */
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 3 * PG, 1), -EFAULT);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 2 * PG, 2 * PG), -EFAULT);
	ck_assert_uint_eq(mm_copy_in_partial(mm, buf, BASE + 2 * PG + 7, 2 * PG), PG - 7);
	ck_assert_int_eq(buf[0], 0x12);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 5 * PG - 1, buf, 2), -EFAULT);
	ck_assert(!mm_access_ok(mm, BASE, 4 * PG, false));
	ck_assert(mm_access_ok(mm, BASE, 3 * PG, true));

	/* Unmapping nothing is fine; MAP_FIXED into the hole gives zero pages. */
	ck_assert_int_eq(mm_munmap(mm, BASE + 3 * PG, 2 * PG), 0);
	ck_assert_uint_eq(map(BASE + 3 * PG, 2 * PG, RW, ANON | MAP_FIXED), BASE + 3 * PG);
	ck_assert(page_is(BASE + 3 * PG, 0));
	ck_assert(page_is(BASE + 4 * PG, 0));
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 2 * PG, 2 * PG), 0);

	/* An unaligned length rounds up; an unmap over everything leaves nothing. */
	ck_assert_int_eq(mm_munmap(mm, BASE + 7 * PG, 1), 0);
	ck_assert(!page_is(BASE + 7 * PG, 0x17));
	ck_assert_int_eq(mm_munmap(mm, BASE - 16 * PG, 64 * PG), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(mm->committed, 0);
	finish();
}
END_TEST

/* munmap's argument checks. */
START_TEST(test_munmap_bad_arguments)
{
	ck_assert_uint_eq(map(BASE, PG, RW, ANON | MAP_FIXED), BASE);
	ck_assert_int_eq(mm_munmap(mm, BASE + 1, PG), -EINVAL);
	ck_assert_int_eq(mm_munmap(mm, BASE, 0), -EINVAL);
	ck_assert_int_eq(mm_munmap(mm, BASE, ~0ul), -EINVAL);
	ck_assert_int_eq(mm_munmap(mm, HOST_TASK_SIZE - PG, 2 * PG), -EINVAL);
	/* Above the guest range there is nothing to unmap, and that is not an error. */
	ck_assert_int_eq(mm_munmap(mm, GUEST_MAX_ADDR, PG), 0);
	ck_assert_uint_eq(mm->nr_vmas, 1);
	ck_assert(page_is(BASE, 0));
	finish();
}
END_TEST

/* mprotect of a middle part splits into three; changing it back merges into one. */
START_TEST(test_mprotect_split_and_merge)
{
	unsigned char buf[16] = "read-only?";
	struct snap s;

	ck_assert_uint_eq(map(BASE, 8 * PG, RW, ANON | MAP_FIXED), BASE);
	fill_pages(BASE, 8, 0x40);
	ck_assert_int_eq(mm_mprotect(mm, BASE + 2 * PG, 3 * PG, PROT_READ), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	expect_vma(&s, 0, BASE, BASE + 2 * PG, RW);
	expect_vma(&s, 1, BASE + 2 * PG, BASE + 5 * PG, PROT_READ);
	expect_vma(&s, 2, BASE + 5 * PG, BASE + 8 * PG, RW);
	ck_assert_uint_eq(mm->committed, 8 * PG);
	/* Writes to the read-only part fault; reads work; writes around it work. */
	ck_assert_int_eq(mm_copy_out(mm, BASE + 3 * PG, buf, sizeof(buf)), -EFAULT);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 2 * PG - 8, buf, sizeof(buf)), -EFAULT);
	ck_assert_uint_eq(mm_copy_out_partial(mm, BASE + 2 * PG - 8, buf, sizeof(buf)), 8);
	ck_assert_int_eq(mm_zero_out(mm, BASE + 4 * PG, 1), -EFAULT);
	ck_assert(!mm_access_ok(mm, BASE + 2 * PG, 1, true));
	ck_assert(mm_access_ok(mm, BASE + 2 * PG, 1, false));
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 4 * PG, sizeof(buf)), 0);
	ck_assert_int_eq(buf[0], 0x44);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 5 * PG, "rw", 3), 0);

	/* Back to RW: one VMA again, every page's data intact. */
	ck_assert_int_eq(mm_mprotect(mm, BASE + 2 * PG, 3 * PG, RW), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, BASE, BASE + 8 * PG, RW);
	ck_assert_uint_eq(mm->committed, 8 * PG);
	for (unsigned i = 0; i < 8; i++) {
		unsigned char want = 0x40 + i;
		ck_assert_int_eq(mm_copy_in(mm, buf, BASE + i * PG + 100, 1), 0);
		ck_assert_int_eq(buf[0], want);
	}
	/* The bytes written before the split sit where they were written. */
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 2 * PG - 8, 8), 0);
	ck_assert_int_eq(memcmp(buf, "read-onl", 8), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 5 * PG, 3), 0);
	ck_assert_str_eq((char *)buf, "rw");

	/* Protecting the whole range with the protection it has changes nothing. */
	ck_assert_int_eq(mm_mprotect(mm, BASE, 8 * PG, RW), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	/* Splitting at the ends and merging back. */
	ck_assert_int_eq(mm_mprotect(mm, BASE, PG, PROT_READ), 0);
	ck_assert_int_eq(mm_mprotect(mm, BASE + 7 * PG, PG, PROT_EXEC), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	expect_vma(&s, 2, BASE + 7 * PG, BASE + 8 * PG, PROT_EXEC);
	ck_assert_int_eq(mm_mprotect(mm, BASE, 8 * PG, RW), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert(page_is(BASE + 7 * PG, 0x47));
	finish();
}
END_TEST

/* mprotect's argument checks and Linux's "up to the first hole, then ENOMEM". */
START_TEST(test_mprotect_holes_and_arguments)
{
	struct snap s;

	ck_assert_uint_eq(map(BASE, 4 * PG, RW, ANON | MAP_FIXED), BASE);
	ck_assert_uint_eq(map(BASE + 6 * PG, 2 * PG, RW, ANON | MAP_FIXED), BASE + 6 * PG);
	ck_assert_int_eq(mm_mprotect(mm, BASE + 1, PG, PROT_READ), -EINVAL);
	ck_assert_int_eq(mm_mprotect(mm, BASE, PG, 0x100), -EINVAL);
	ck_assert_int_eq(mm_mprotect(mm, BASE, PG, PROT_READ | PROT_GROWSUP), -EINVAL);
	ck_assert_int_eq(mm_mprotect(mm, BASE, PG, PROT_READ | PROT_GROWSDOWN), -EINVAL);
	ck_assert_int_eq(mm_mprotect(mm, BASE, PG, PROT_GROWSDOWN | PROT_GROWSUP), -EINVAL);
	ck_assert_int_eq(mm_mprotect(mm, BASE, 0, PROT_READ), 0);
	ck_assert_int_eq(mm_mprotect(mm, BASE, ~0ul - PG, PROT_READ), -ENOMEM);
	/* Starting in a hole: ENOMEM, nothing changes. */
	ck_assert_int_eq(mm_mprotect(mm, BASE + 4 * PG, 4 * PG, PROT_READ), -ENOMEM);
	ck_assert_int_eq(mm_mprotect(mm, BASE - PG, 2 * PG, PROT_READ), -ENOMEM);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 2);
	expect_vma(&s, 0, BASE, BASE + 4 * PG, RW);
	expect_vma(&s, 1, BASE + 6 * PG, BASE + 8 * PG, RW);
	/* Running into a hole: the part before it changes, then ENOMEM. */
	ck_assert_int_eq(mm_mprotect(mm, BASE + 2 * PG, 6 * PG, PROT_READ), -ENOMEM);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	expect_vma(&s, 0, BASE, BASE + 2 * PG, RW);
	expect_vma(&s, 1, BASE + 2 * PG, BASE + 4 * PG, PROT_READ);
	expect_vma(&s, 2, BASE + 6 * PG, BASE + 8 * PG, RW);
	finish();
}
END_TEST

/* PROT_NONE: memory kept behind a protected VMA, and reservations without memory. */
START_TEST(test_prot_none)
{
	unsigned char c;
	struct snap s;

	ck_assert_uint_eq(map(BASE, 2 * PG, RW, ANON | MAP_FIXED), BASE);
	fill_pages(BASE, 2, 0x61);
	ck_assert_int_eq(mm_mprotect(mm, BASE, 2 * PG, PROT_NONE), 0);
	ck_assert_int_eq(mm_copy_in(mm, &c, BASE, 1), -EFAULT);
	ck_assert(!mm_access_ok(mm, BASE, 1, false));
	ck_assert_int_eq(mm_peek(mm, &c, BASE + PG, 1), 0); /* the fault reporter still sees it */
	ck_assert_int_eq(c, 0x62);
	ck_assert_int_eq(mm_mprotect(mm, BASE, 2 * PG, PROT_READ), 0);
	ck_assert(page_is(BASE, 0x61));

	/* A PROT_NONE reservation commits nothing and has no memory. */
	ck_assert_uint_eq(map(BASE + 16 * PG, 8 * PG, PROT_NONE, ANON | MAP_FIXED), BASE + 16 * PG);
	ck_assert_uint_eq(mm->committed, 2 * PG);
	ck_assert_int_eq(mm_peek(mm, &c, BASE + 16 * PG, 1), -EFAULT);
	/* Opening its middle makes three VMAs; only the middle one gets memory. */
	ck_assert_int_eq(mm_mprotect(mm, BASE + 18 * PG, 2 * PG, RW), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 4);
	expect_vma(&s, 1, BASE + 16 * PG, BASE + 18 * PG, PROT_NONE);
	expect_vma(&s, 2, BASE + 18 * PG, BASE + 20 * PG, RW);
	expect_vma(&s, 3, BASE + 20 * PG, BASE + 24 * PG, PROT_NONE);
	ck_assert_ptr_null(s.v[1].mobj);
	ck_assert_ptr_nonnull(s.v[2].mobj);
	ck_assert_ptr_null(s.v[3].mobj);
	ck_assert_uint_eq(mm->committed, 4 * PG);
	ck_assert(page_is(BASE + 18 * PG, 0));
	fill_pages(BASE + 18 * PG, 2, 0x70);
	/* And closing it again keeps its data. */
	ck_assert_int_eq(mm_mprotect(mm, BASE + 16 * PG, 8 * PG, PROT_NONE), 0);
	ck_assert(page_is(BASE + 19 * PG, 0x71));
	finish();
}
END_TEST

/* MAP_FIXED over existing mappings replaces exactly the range it covers. */
START_TEST(test_map_fixed_over_existing)
{
	struct snap s;

	ck_assert_uint_eq(map(BASE, 8 * PG, RW, ANON | MAP_FIXED), BASE);
	fill_pages(BASE, 8, 0x20);
	ck_assert_uint_eq(map(BASE + 2 * PG, 2 * PG, PROT_READ, ANON | MAP_FIXED), BASE + 2 * PG);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	expect_vma(&s, 0, BASE, BASE + 2 * PG, RW);
	expect_vma(&s, 1, BASE + 2 * PG, BASE + 4 * PG, PROT_READ);
	expect_vma(&s, 2, BASE + 4 * PG, BASE + 8 * PG, RW);
	ck_assert_uint_eq(mm->committed, 8 * PG);
	ck_assert(page_is(BASE + PG, 0x21));
	ck_assert(page_is(BASE + 2 * PG, 0));
	ck_assert(page_is(BASE + 3 * PG, 0));
	ck_assert(page_is(BASE + 4 * PG, 0x24));

	/* Across two VMAs and a hole after them. */
	ck_assert_uint_eq(map(BASE + 3 * PG, 8 * PG, RW, ANON | MAP_FIXED), BASE + 3 * PG);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	expect_vma(&s, 1, BASE + 2 * PG, BASE + 3 * PG, PROT_READ);
	expect_vma(&s, 2, BASE + 3 * PG, BASE + 11 * PG, RW);
	ck_assert_uint_eq(mm->committed, 11 * PG);
	ck_assert(page_is(BASE + 7 * PG, 0));

	/* A PROT_NONE mapping over all of it gives back every committed byte. */
	ck_assert_uint_eq(map(BASE, 11 * PG, PROT_NONE, ANON | MAP_FIXED), BASE);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, BASE, BASE + 11 * PG, PROT_NONE);
	ck_assert_uint_eq(mm->committed, 0);
	finish();
}
END_TEST

/* MAP_FIXED_NOREPLACE: EEXIST on any overlap, never clobbering; adjacency is fine. */
START_TEST(test_map_fixed_noreplace)
{
	struct snap s;

	ck_assert_uint_eq(map(BASE, 4 * PG, RW, ANON | MAP_FIXED_NOREPLACE), BASE);
	fill_pages(BASE, 4, 0x30);
	ck_assert_int_eq(map(BASE, 4 * PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert_int_eq(map(BASE + 3 * PG, 4 * PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert_int_eq(map(BASE - 2 * PG, 3 * PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert_int_eq(map(BASE - PG, 8 * PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	/* Linux: NOREPLACE wins even when MAP_FIXED is passed with it. */
	ck_assert_int_eq(map(BASE, PG, RW, ANON | MAP_FIXED | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert(page_is(BASE, 0x30));
	ck_assert_uint_eq(map(BASE + 4 * PG, PG, RW, ANON | MAP_FIXED_NOREPLACE), BASE + 4 * PG);
	ck_assert_uint_eq(map(BASE - PG, PG, RW, ANON | MAP_FIXED_NOREPLACE), BASE - PG);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 3);
	for (unsigned i = 0; i < 4; i++)
		ck_assert(page_is(BASE + i * PG, 0x30 + i));
	finish();
}
END_TEST

/* The guest memory limit: ENOMEM past it, room again after unmapping. */
START_TEST(test_memory_limit)
{
	struct snap s;
	long r;

	start(64ull << 20, 16 * PG);
	ck_assert_uint_eq(map(BASE, 16 * PG, RW, ANON | MAP_FIXED), BASE);
	ck_assert_int_eq(map(0, PG, RW, ANON), -ENOMEM);
	ck_assert_int_eq(map(0, PG, RW, MAP_SHARED | MAP_ANONYMOUS), -ENOMEM);
	ck_assert_int_eq(map(0, ~0ul >> 20, RW, ANON), -ENOMEM);
	/* Reservations cost nothing; making them accessible does. */
	r = map(0, 1024 * PG, PROT_NONE, ANON);
	ck_assert_int_gt(r, 0);
	ck_assert_int_eq(mm_mprotect(mm, r, PG, PROT_READ), -ENOMEM);
	/* MAP_FIXED over memory already counted replaces it within the limit. */
	ck_assert_uint_eq(map(BASE + 4 * PG, 8 * PG, PROT_READ, ANON | MAP_FIXED), BASE + 4 * PG);
	ck_assert_int_eq(map(BASE + 12 * PG, 8 * PG, RW, ANON | MAP_FIXED), -ENOMEM);
	/* Growth through mremap, brk and stacks is limited too. */
	ck_assert_int_eq(mm_mremap(mm, BASE, 4 * PG, 5 * PG, MREMAP_MAYMOVE, 0), -ENOMEM);
	mm_set_brk(mm, BASE + 64 * PG);
	ck_assert_uint_eq(mm_brk(mm, BASE + 65 * PG), BASE + 64 * PG);
	ck_assert_int_eq(mm_map_stack(mm, BASE + 256 * PG, PG, PG), -ENOMEM);
	snapshot(&s);
	ck_assert_uint_eq(mm->committed, 16 * PG);

	/* Unmapping four pages lets four pages be mapped again, and no more. */
	ck_assert_int_eq(mm_munmap(mm, BASE, 4 * PG), 0);
	ck_assert_int_gt(map(0, 4 * PG, RW, ANON), 0);
	ck_assert_int_eq(map(0, PG, RW, ANON), -ENOMEM);
	snapshot(&s);
	ck_assert_uint_eq(mm->committed, 16 * PG);
	finish();
}
END_TEST

/* Copies across VMA boundaries, into holes, wrapping, and per-protection rules. */
START_TEST(test_copy_rules)
{
	char buf[64], str[32];

	ck_assert_uint_eq(map(BASE, PG, RW, ANON | MAP_FIXED), BASE);
	ck_assert_uint_eq(map(BASE + PG, PG, RW, ANON | MAP_FIXED), BASE + PG);
	ck_assert_uint_eq(map(BASE + 2 * PG, PG, PROT_WRITE, ANON | MAP_FIXED), BASE + 2 * PG);
	ck_assert_uint_eq(map(BASE + 3 * PG, PG, PROT_EXEC, ANON | MAP_FIXED), BASE + 3 * PG);
	/* Across two VMAs with different memory objects. */
	ck_assert_int_eq(mm_copy_out(mm, BASE + PG - 5, "0123456789", 11), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + PG - 5, 11), 0);
	ck_assert_str_eq(buf, "0123456789");
	/* x86: write-only and exec-only memory is readable. */
	ck_assert_int_eq(mm_copy_out(mm, BASE + 2 * PG, "w", 2), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 2 * PG, 2), 0);
	ck_assert_str_eq(buf, "w");
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 3 * PG, 8), 0);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 3 * PG, "x", 1), -EFAULT);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 3 * PG - 1, "xx", 2), -EFAULT);
	/* Past the end, before the start, below the guest range, wrapping around. */
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + 4 * PG - 1, 2), -EFAULT);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE - 1, 2), -EFAULT);
	ck_assert_int_eq(mm_copy_in(mm, buf, 0, 1), -EFAULT);
	ck_assert_int_eq(mm_copy_in(mm, buf, ~0ul - 3, 8), -EFAULT);
	ck_assert_int_eq(mm_copy_out(mm, ~0ul, "x", 2), -EFAULT);
	ck_assert(!mm_access_ok(mm, BASE, ~0ul, false));
	ck_assert(!mm_access_ok(mm, ~0ul - 3, 8, false));
	/* Nothing to copy is never a fault. */
	ck_assert_int_eq(mm_copy_in(mm, buf, 0, 0), 0);
	ck_assert_int_eq(mm_copy_out(mm, 0, buf, 0), 0);
	ck_assert(mm_access_ok(mm, 0, 0, true));

	/* Zeroing. */
	ck_assert_int_eq(mm_zero_out(mm, BASE + PG - 2, 4), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, BASE + PG - 5, 8), 0);
	ck_assert_int_eq(memcmp(buf,
				"012\0\0\0\0"
				"7",
				8),
			 0);
	ck_assert_int_eq(mm_zero_out(mm, BASE + 4 * PG - 1, 2), -EFAULT);

	/* Strings: across VMAs, too long, running off the mapping. */
	ck_assert_int_eq(mm_copy_out(mm, BASE + PG - 3, "hello", 6), 0);
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + PG - 3, sizeof(str)), 5);
	ck_assert_str_eq(str, "hello");
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + PG - 3, 6), 5);
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + PG - 3, 5), -ENAMETOOLONG);
	memset(buf, 'a', sizeof(buf));
	ck_assert_int_eq(mm_copy_out(mm, BASE + 4 * PG - 8, buf, 8), -EFAULT); /* exec-only */
	ck_assert_int_eq(mm_copy_out(mm, BASE + 3 * PG - 8, buf, 8), 0);
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + 3 * PG - 8, sizeof(str)), 8);
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + 5 * PG, sizeof(str)), -EFAULT);
	ck_assert_uint_eq(map(BASE + 5 * PG, PG, RW, ANON | MAP_FIXED), BASE + 5 * PG);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 6 * PG - 4, "abcd", 4), 0);
	ck_assert_int_eq(mm_strncpy_in(mm, str, BASE + 6 * PG - 4, sizeof(str)), -EFAULT);
	finish();
}
END_TEST

/* mremap: shrink, grow in place, move (keeping the data), fixed, dontunmap, errors. */
START_TEST(test_mremap)
{
	unsigned char c;
	struct snap s;
	long r;

	ck_assert_uint_eq(map(BASE, 8 * PG, RW, ANON | MAP_FIXED), BASE);
	fill_pages(BASE, 8, 0x50);
	/* Shrink in place. */
	ck_assert_uint_eq(mm_mremap(mm, BASE, 8 * PG, 4 * PG, 0, 0), BASE);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, BASE, BASE + 4 * PG, RW);
	ck_assert_uint_eq(mm->committed, 4 * PG);
	/* Grow in place: old data stays, new pages read zero. */
	ck_assert_uint_eq(mm_mremap(mm, BASE, 4 * PG, 6 * PG, 0, 0), BASE);
	snapshot(&s);
	ck_assert_uint_eq(s.v[0].start, BASE);
	ck_assert_uint_eq(s.v[s.n - 1].end, BASE + 6 * PG);
	ck_assert_uint_eq(mm->committed, 6 * PG);
	ck_assert(page_is(BASE + 3 * PG, 0x53));
	ck_assert(page_is(BASE + 4 * PG, 0));
	ck_assert(page_is(BASE + 5 * PG, 0));

	/* Blocked: ENOMEM without MAYMOVE, a move with it. */
	ck_assert_uint_eq(map(BASE + 6 * PG, PG, PROT_READ, ANON | MAP_FIXED), BASE + 6 * PG);
	ck_assert_int_eq(mm_mremap(mm, BASE, 4 * PG, 8 * PG, 0, 0), -ENOMEM);
	r = mm_mremap(mm, BASE, 4 * PG, 8 * PG, MREMAP_MAYMOVE, 0);
	ck_assert_int_gt(r, 0);
	ck_assert_uint_ne(r, BASE);
	for (unsigned i = 0; i < 4; i++)
		ck_assert(page_is(r + i * PG, 0x50 + i));
	ck_assert(page_is(r + 7 * PG, 0));
	ck_assert_int_eq(mm_copy_in(mm, &c, BASE, 1), -EFAULT); /* the old range is gone */
	ck_assert(page_is(BASE + 4 * PG, 0));			/* what was after it stays */
	snapshot(&s);

	/* MREMAP_FIXED moves to exactly new_addr, replacing what was there. */
	ck_assert_uint_eq(
		mm_mremap(mm, r, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, BASE + 64 * PG),
		BASE + 64 * PG);
	ck_assert(page_is(BASE + 64 * PG + 2 * PG, 0x52));
	ck_assert_uint_eq(mm_mremap(mm, BASE + 64 * PG, 2 * PG, 2 * PG,
				    MREMAP_MAYMOVE | MREMAP_FIXED, BASE + 4 * PG),
			  BASE + 4 * PG);
	ck_assert(page_is(BASE + 5 * PG, 0x51));
	ck_assert_int_eq(mm_copy_in(mm, &c, BASE + 64 * PG, 1), -EFAULT);
	ck_assert(page_is(BASE + 66 * PG, 0x52));

	/* DONTUNMAP: the old range stays mapped and reads as fresh zero pages. */
	r = mm_mremap(mm, BASE + 66 * PG, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0);
	ck_assert_int_gt(r, 0);
	ck_assert(page_is(r, 0x52));
	ck_assert(page_is(BASE + 66 * PG, 0));
	snapshot(&s);

	/* Errors. */
	ck_assert_int_eq(mm_mremap(mm, BASE + 1, PG, PG, 0, 0), -EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, PG, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, PG, PG, 0x80, 0), -EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, PG, PG, MREMAP_FIXED, BASE), -EINVAL);
	ck_assert_int_eq(
		mm_mremap(mm, BASE + 4 * PG, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0),
		-EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED,
				   BASE + 4 * PG + 1),
			 -EINVAL);
	/* Overlapping old and new ranges. */
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
				   BASE + 5 * PG),
			 -EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 200 * PG, PG, PG, MREMAP_MAYMOVE, 0), -EFAULT);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, 8 * PG, 8 * PG, MREMAP_MAYMOVE, 0), -EFAULT);
	/* Duplicating (old_len 0) is for shared memory only. */
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, 0, PG, MREMAP_MAYMOVE, 0), -EINVAL);
	ck_assert_int_eq(mm_mremap(mm, BASE + 4 * PG, PG, GUEST_MAX_ADDR + PG, MREMAP_MAYMOVE, 0),
			 -ENOMEM);
	finish();
}
END_TEST

/* A second view of shared anonymous memory (mremap with old_len 0) sees the same bytes. */
START_TEST(test_mremap_shared_alias)
{
	char buf[8];
	long a, b;

	a = map(0, 2 * PG, RW, MAP_SHARED | MAP_ANONYMOUS);
	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(mm_copy_out(mm, a + PG, "shared", 7), 0);
	b = mm_mremap(mm, a, 0, 2 * PG, MREMAP_MAYMOVE, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_uint_ne(a, b);
	ck_assert_int_eq(mm_copy_in(mm, buf, b + PG, 7), 0);
	ck_assert_str_eq(buf, "shared");
	ck_assert_int_eq(mm_copy_out(mm, b, "other", 6), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, a, 6), 0);
	ck_assert_str_eq(buf, "other");
	/* Unmapping one view leaves the other intact. */
	ck_assert_int_eq(mm_munmap(mm, a, 2 * PG), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, b, 6), 0);
	ck_assert_str_eq(buf, "other");
	/* A duplicate larger than the memory object is refused. */
	ck_assert_int_eq(mm_mremap(mm, b, 0, 3 * PG, MREMAP_MAYMOVE, 0), -EINVAL);
	finish();
}
END_TEST

/* madvise: DONTNEED zeroes private memory only, holes give ENOMEM, flag advice splits. */
START_TEST(test_madvise)
{
	struct snap s;
	long sh;

	ck_assert_uint_eq(map(BASE, 4 * PG, RW, ANON | MAP_FIXED), BASE);
	ck_assert_uint_eq(map(BASE + 6 * PG, 2 * PG, RW, ANON | MAP_FIXED), BASE + 6 * PG);
	fill_pages(BASE, 4, 0x80);
	fill_pages(BASE + 6 * PG, 2, 0x90);
	ck_assert_int_eq(mm_madvise(mm, BASE + PG, PG, MADV_DONTNEED), 0);
	ck_assert(page_is(BASE, 0x80));
	ck_assert(page_is(BASE + PG, 0));
	ck_assert(page_is(BASE + 2 * PG, 0x82));
	/* Over a hole: every mapped part is advised, then ENOMEM. */
	ck_assert_int_eq(mm_madvise(mm, BASE + 3 * PG, 4 * PG, MADV_DONTNEED), -ENOMEM);
	ck_assert(page_is(BASE + 3 * PG, 0));
	ck_assert(page_is(BASE + 6 * PG, 0));
	ck_assert(page_is(BASE + 7 * PG, 0x91));
	ck_assert_int_eq(mm_madvise(mm, BASE + 8 * PG, PG, MADV_NORMAL), -ENOMEM);
	/* Argument checks. */
	ck_assert_int_eq(mm_madvise(mm, BASE + 1, PG, MADV_DONTNEED), -EINVAL);
	ck_assert_int_eq(mm_madvise(mm, BASE, PG, 12345), -EINVAL);
	ck_assert_int_eq(mm_madvise(mm, BASE, 0, MADV_DONTNEED), 0);
	ck_assert_int_eq(mm_madvise(mm, BASE, ~0ul, MADV_DONTNEED), -EINVAL);
	ck_assert_int_eq(mm_madvise(mm, BASE, PG, MADV_REMOVE), -EINVAL); /* private */
	ck_assert(page_is(BASE, 0x80));

	/* Shared memory keeps its data on DONTNEED. */
	sh = map(0, PG, RW, MAP_SHARED | MAP_ANONYMOUS);
	ck_assert_int_gt(sh, 0);
	ck_assert_int_eq(mm_copy_out(mm, sh, "keep", 5), 0);
	ck_assert_int_eq(mm_madvise(mm, sh, PG, MADV_DONTNEED), 0);
	ck_assert(!page_is(sh, 0));
	ck_assert_int_eq(mm_madvise(mm, sh, PG, MADV_WIPEONFORK), -EINVAL);
	ck_assert_int_eq(mm_madvise(mm, sh, PG, MADV_REMOVE), 0);
	ck_assert(page_is(sh, 0));
	ck_assert_int_eq(mm_munmap(mm, sh, PG), 0);

	/* Advice that sets a VMA flag splits exactly the advised range. */
	ck_assert_int_eq(mm_madvise(mm, BASE + PG, 2 * PG, MADV_DONTFORK), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 4);
	expect_vma(&s, 1, BASE + PG, BASE + 3 * PG, RW);
	ck_assert(!(s.v[0].flags & VMA_DONTFORK));
	ck_assert(s.v[1].flags & VMA_DONTFORK);
	ck_assert(!(s.v[2].flags & VMA_DONTFORK));
	ck_assert_int_eq(mm_madvise(mm, BASE, 4 * PG, MADV_DOFORK), 0);
	snapshot(&s);
	for (unsigned i = 0; i < s.n; i++)
		ck_assert(!(s.v[i].flags & VMA_DONTFORK));
	ck_assert(page_is(BASE + 2 * PG, 0x82));

	/* Locked memory cannot be dropped. */
	ck_assert_uint_eq(map(BASE + 32 * PG, PG, RW, ANON | MAP_FIXED | MAP_LOCKED),
			  BASE + 32 * PG);
	ck_assert_int_eq(mm_madvise(mm, BASE + 32 * PG, PG, MADV_DONTNEED), -EINVAL);
	finish();
}
END_TEST

/* brk: grows and shrinks the heap, data survives growth, shrunk pages come back zeroed. */
START_TEST(test_brk)
{
	struct snap s;
	unsigned char c;

	mm_set_brk(mm, BASE);
	ck_assert_uint_eq(mm_brk(mm, 0), BASE);
	ck_assert_uint_eq(mm_brk(mm, BASE - 1), BASE);
	ck_assert_uint_eq(mm_brk(mm, GUEST_MAX_ADDR + 1), BASE);
	ck_assert_uint_eq(mm->nr_vmas, 0);

	ck_assert_uint_eq(mm_brk(mm, BASE + 100), BASE + 100);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, BASE, BASE + PG, RW);
	ck_assert(s.v[0].flags & VMA_HEAP);
	ck_assert_int_eq(mm_copy_out(mm, BASE + 50, "heap", 5), 0);
	/* Within the same page: no new memory. */
	ck_assert_uint_eq(mm_brk(mm, BASE + PG), BASE + PG);
	ck_assert_uint_eq(mm->committed, PG);

	ck_assert_uint_eq(mm_brk(mm, BASE + 3 * PG + 5), BASE + 3 * PG + 5);
	snapshot(&s);
	ck_assert_uint_eq(s.v[0].start, BASE);
	ck_assert_uint_eq(s.v[s.n - 1].end, BASE + 4 * PG);
	ck_assert_uint_eq(mm->committed, 4 * PG);
	ck_assert_int_eq(mm_copy_in(mm, &c, BASE + 50, 1), 0);
	ck_assert_int_eq(c, 'h');
	fill_pages(BASE + PG, 3, 0xa0);

	/* Shrink: the pages above the new break are gone... */
	ck_assert_uint_eq(mm_brk(mm, BASE + PG + 1), BASE + PG + 1);
	ck_assert_int_eq(mm_copy_in(mm, &c, BASE + 2 * PG, 1), -EFAULT);
	ck_assert_uint_eq(mm->committed, 2 * PG);
	ck_assert(page_is(BASE + PG, 0xa0));
	/* ...and read as zero when the heap grows again. */
	ck_assert_uint_eq(mm_brk(mm, BASE + 4 * PG), BASE + 4 * PG);
	ck_assert(page_is(BASE + 2 * PG, 0));
	ck_assert(page_is(BASE + 3 * PG, 0));

	/* The heap stops a page short of the next mapping. */
	ck_assert_uint_eq(map(BASE + 10 * PG, PG, RW, ANON | MAP_FIXED), BASE + 10 * PG);
	ck_assert_uint_eq(mm_brk(mm, BASE + 9 * PG + 1), BASE + 4 * PG);
	ck_assert_uint_eq(mm_brk(mm, BASE + 9 * PG), BASE + 9 * PG);
	/* Back to the start: no heap at all. */
	ck_assert_uint_eq(mm_brk(mm, BASE), BASE);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, BASE + 10 * PG, BASE + 11 * PG, RW);
	finish();
}
END_TEST

/* The main stack: creation, growth on faults within the limit, the guard gap. */
START_TEST(test_stack_growth)
{
	const uint64_t top = 0x7e0000000000ul;
	struct snap s;
	long r;

	ck_assert_int_eq(mm_map_stack(mm, top + 1, PG, 64 * PG), -EINVAL);
	ck_assert_int_eq(mm_map_stack(mm, top, PG + 1, 64 * PG), -EINVAL);
	ck_assert_int_eq(mm_map_stack(mm, top, 0, 64 * PG), -EINVAL);
	ck_assert_int_eq(mm_map_stack(mm, GUEST_MAX_ADDR + PG, PG, 64 * PG), -EINVAL);
	ck_assert_int_eq(mm_map_stack(mm, top, 4 * PG, 64 * PG), 0);
	ck_assert_int_eq(mm_map_stack(mm, top, 4 * PG, 64 * PG), -EEXIST);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, top - 4 * PG, top, RW);
	ck_assert_uint_eq(s.v[0].flags & (VMA_GROWSDOWN | VMA_STACK), VMA_GROWSDOWN | VMA_STACK);
	ck_assert_uint_eq(mm->committed, 4 * PG);
	ck_assert_int_eq(mm_copy_out(mm, top - 4 * PG, "low", 4), 0);

	/* A fault just below grows it, in the same VMA (the reserve is below it). */
	ck_assert_int_eq(mm_handle_fault(mm, top - 4 * PG - 10, ACCESS_WRITE, 1 << 20), 0);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	expect_vma(&s, 0, top - 5 * PG, top, RW);
	ck_assert_uint_eq(mm->committed, 5 * PG);
	ck_assert(page_is(top - 5 * PG, 0));
	ck_assert_int_eq(mm_copy_out(mm, top - 5 * PG, "new", 4), 0);
	ck_assert_int_eq(mm_strncpy_in(mm, (char[8]){0}, top - 4 * PG, 8), 3);

	/* Beyond the stack limit: SEGV_MAPERR, nothing changes. */
	ck_assert_int_eq(mm_handle_fault(mm, top - (2 << 20), ACCESS_WRITE, 1 << 20), SEGV_MAPERR);
	snapshot(&s);
	ck_assert_uint_eq(s.n, 1);
	/* Beyond the reserve but within the limit: a new VMA below, still one stack. */
	ck_assert_int_eq(mm_handle_fault(mm, top - 100 * PG, ACCESS_READ, 1 << 20), 0);
	snapshot(&s);
	ck_assert_uint_ge(s.n, 1);
	ck_assert_uint_eq(s.v[0].start, top - 100 * PG);
	ck_assert(s.v[0].flags & VMA_GROWSDOWN);
	ck_assert_uint_eq(s.v[s.n - 1].end, top);
	ck_assert_uint_eq(mm->committed, 100 * PG);
	ck_assert_int_eq(mm_strncpy_in(mm, (char[8]){0}, top - 5 * PG, 8), 3);

	/* Non-fixed mmaps keep out of the guard gap below the stack. */
	r = map(top - 101 * PG, PG, RW, ANON);
	ck_assert_int_gt(r, 0);
	ck_assert((uint64_t)r + PG <= top - 100 * PG - STACK_GUARD_GAP || (uint64_t)r >= top);
	/* A mapping inside the gap (MAP_FIXED may put one there) blocks growth into it. */
	ck_assert_uint_eq(map(top - 110 * PG, PG, RW, ANON | MAP_FIXED), top - 110 * PG);
	ck_assert_int_eq(mm_handle_fault(mm, top - 105 * PG, ACCESS_WRITE, 1 << 20), SEGV_MAPERR);
	finish();
}
END_TEST

/* Faults that are not stack growth: protection errors and unmapped addresses. */
START_TEST(test_fault_classification)
{
	ck_assert_uint_eq(map(BASE, PG, PROT_READ, ANON | MAP_FIXED), BASE);
	ck_assert_uint_eq(map(BASE + PG, PG, PROT_NONE, ANON | MAP_FIXED), BASE + PG);
	ck_assert_int_eq(mm_handle_fault(mm, BASE + 8, ACCESS_WRITE, 1 << 20), SEGV_ACCERR);
	ck_assert_int_eq(mm_handle_fault(mm, BASE + 8, ACCESS_EXEC, 1 << 20), SEGV_ACCERR);
	/* An allowed access means the platform lost the page: retry. */
	ck_assert_int_eq(mm_handle_fault(mm, BASE + 8, ACCESS_READ, 1 << 20), 0);
	ck_assert_int_eq(mm_handle_fault(mm, BASE + PG, ACCESS_READ, 1 << 20), SEGV_ACCERR);
	ck_assert_int_eq(mm_handle_fault(mm, BASE + 2 * PG, ACCESS_READ, 1 << 20), SEGV_MAPERR);
	ck_assert_int_eq(mm_handle_fault(mm, BASE - 1, ACCESS_READ, 1 << 20), SEGV_MAPERR);
	ck_assert_int_eq(mm_handle_fault(mm, 0, ACCESS_READ, 1 << 20), SEGV_MAPERR);
	ck_assert_uint_eq(mm->nr_vmas, 2);
	finish();
}
END_TEST

/* The VMA count limit (vm.max_map_count): splitting stops with ENOMEM, never beyond it. */
START_TEST(test_vma_count_limit)
{
	const unsigned pages = MM_MAX_VMAS + 64;
	unsigned long n = 0;
	struct snap s;
	int ret = 0;

	start(1ull << 30, 1ull << 30);
	ck_assert_uint_eq(map(BASE, (uint64_t)pages * PG, RW, ANON | MAP_FIXED), BASE);
	for (unsigned i = 1; i < pages; i += 2) {
		ret = mm_mprotect(mm, BASE + (uint64_t)i * PG, PG, PROT_READ);
		if (ret < 0)
			break;
		ck_assert_uint_le(mm->nr_vmas, MM_MAX_VMAS);
	}
	ck_assert_int_eq(ret, -ENOMEM);
	ck_assert_uint_le(mm->nr_vmas, MM_MAX_VMAS);
	ck_assert_uint_ge(mm->nr_vmas, MM_MAX_VMAS - 3);
	n = mm->nr_vmas;
	/* Nothing new may be mapped either, and the failed calls changed nothing. */
	ck_assert_int_eq(map(0, PG, RW, ANON), -ENOMEM);
	ck_assert_uint_eq(mm->nr_vmas, n);
	snapshot(&s);
	ck_assert_uint_eq(s.count, n);
	/* Unmapping everything gives the room back. */
	ck_assert_int_eq(mm_munmap(mm, BASE, (uint64_t)pages * PG), 0);
	ck_assert_uint_eq(mm->nr_vmas, 0);
	ck_assert_int_gt(map(0, PG, RW, ANON), 0);
	finish();
}
END_TEST

/*
 * Random mmap/munmap/mprotect/madvise/writes over a small window, checked page by
 * page against a model of what Linux would leave: mapped or not, protection, contents.
 */
START_TEST(test_random_against_model)
{
	enum { NP = 48, ROUNDS = 4000 };
	struct {
		bool mapped;
		int prot;
		unsigned char fill;
	} model[NP] = {0};
	static const int prots[] = {PROT_NONE, PROT_READ, RW, PROT_READ | PROT_EXEC, PROT_WRITE};
	uint64_t seed = 42;
	struct snap s;

	for (int round = 0; round < ROUNDS; round++) {
		unsigned a = (unsigned)(unit_rand(&seed) % NP);
		unsigned n = 1 + (unsigned)(unit_rand(&seed) % (NP - a));
		int prot = prots[unit_rand(&seed) % ARRAY_SIZE(prots)];
		uint64_t addr = BASE + (uint64_t)a * PG, len = (uint64_t)n * PG;
		unsigned op = (unsigned)(unit_rand(&seed) % 5);
		bool hole = false;
		int ret;

		switch (op) {
		case 0: /* mmap MAP_FIXED */
			ck_assert_uint_eq(map(addr, len, prot, ANON | MAP_FIXED), addr);
			for (unsigned i = a; i < a + n; i++)
				model[i].mapped = true, model[i].prot = prot, model[i].fill = 0;
			break;
		case 1: /* munmap */
			ck_assert_int_eq(mm_munmap(mm, addr, len), 0);
			for (unsigned i = a; i < a + n; i++)
				model[i].mapped = false;
			break;
		case 2: /* mprotect: up to the first hole, ENOMEM if there is one */
			ret = mm_mprotect(mm, addr, len, prot);
			for (unsigned i = a; i < a + n && !hole; i++) {
				if (!model[i].mapped)
					hole = true;
				else
					model[i].prot = prot;
			}
			ck_assert_int_eq(ret, hole ? -ENOMEM : 0);
			break;
		case 3: /* madvise(DONTNEED): every mapped page zeroed, ENOMEM for holes */
			ret = mm_madvise(mm, addr, len, MADV_DONTNEED);
			for (unsigned i = a; i < a + n; i++) {
				if (!model[i].mapped)
					hole = true;
				else
					model[i].fill = 0;
			}
			ck_assert_int_eq(ret, hole ? -ENOMEM : 0);
			break;
		default: /* write one byte value over a page if it is writable */
			for (unsigned i = a; i < a + MIN(n, 3u); i++) {
				static unsigned char buf[PAGE_SIZE];
				unsigned char v = (unsigned char)(unit_rand(&seed) | 1);
				bool ok = model[i].mapped && (model[i].prot & PROT_WRITE);
				memset(buf, v, PG);
				ret = mm_copy_out(mm, BASE + (uint64_t)i * PG, buf, PG);
				ck_assert_int_eq(ret, ok ? 0 : -EFAULT);
				if (ok)
					model[i].fill = v;
			}
			break;
		}
		snapshot(&s);
		for (unsigned i = 0; i < NP; i++) {
			uint64_t p = BASE + (uint64_t)i * PG;
			bool readable = model[i].mapped && model[i].prot != PROT_NONE;
			bool writable = model[i].mapped && (model[i].prot & PROT_WRITE);
			ck_assert_msg(mm_access_ok(mm, p, PG, false) == readable,
				      "round %d op %u: page %u readable?", round, op, i);
			ck_assert(mm_access_ok(mm, p, PG, true) == writable);
			if (readable)
				ck_assert_msg(page_is(p, model[i].fill), "round %d op %u: page %u",
					      round, op, i);
		}
	}
	finish();
}
END_TEST

/*
 * A fake platform address space that records what is mapped, page by page, over
 * a window of the guest range: what the stub would hold.
 */
#define WIN_PAGES 64
struct fake_as {
	struct address_space as;
	struct {
		bool mapped;
		int prot;
		uint64_t off;
	} page[WIN_PAGES];
	const char *error;
};

static struct fake_as *fake_of(struct address_space *as)
{
	return container_of(as, struct fake_as, as);
}

/* The window pages [addr, addr+len) touches; records misuse. */
static bool fake_range(struct fake_as *f, uint64_t addr, uint64_t len, unsigned *lo, unsigned *hi)
{
	if (!IS_ALIGNED(addr, PG) || !IS_ALIGNED(len, PG) || !len || addr < GUEST_MIN_ADDR ||
	    addr + len > GUEST_MAX_ADDR) {
		f->error = "bad range passed to the platform";
		return false;
	}
	*lo = addr < BASE ? 0 : (unsigned)MIN((addr - BASE) / PG, WIN_PAGES);
	*hi = addr + len < BASE ? 0 : (unsigned)MIN((addr + len - BASE) / PG, WIN_PAGES);
	return true;
}

static int fake_map(struct address_space *as, uint64_t addr, uint64_t len, int prot,
		    uint64_t file_off)
{
	struct fake_as *f = fake_of(as);
	unsigned lo, hi;

	if (fake_range(f, addr, len, &lo, &hi))
		for (unsigned i = lo; i < hi; i++) {
			f->page[i].mapped = true;
			f->page[i].prot = prot;
			f->page[i].off = file_off + (BASE + i * PG - addr);
		}
	return 0;
}

static int fake_unmap(struct address_space *as, uint64_t addr, uint64_t len)
{
	struct fake_as *f = fake_of(as);
	unsigned lo, hi;

	if (fake_range(f, addr, len, &lo, &hi))
		for (unsigned i = lo; i < hi; i++)
			f->page[i].mapped = false;
	return 0;
}

static void fake_release(struct address_space *as)
{
}

static const struct as_ops fake_ops = {
	.map = fake_map, .unmap = fake_unmap, .release = fake_release};

/* Compare the platform's view of the window with the VMA tree. */
static void check_mirror(struct fake_as *f, int round)
{
	ck_assert_msg(!f->error, "round %d: %s", round, f->error);
	pthread_rwlock_rdlock(&mm->lock);
	for (unsigned i = 0; i < WIN_PAGES; i++) {
		uint64_t p = BASE + i * PG;
		struct vma *v = mm_find_vma(mm, p);
		bool want = v && v->mobj;
		ck_assert_msg(f->page[i].mapped == want, "round %d: page %u: platform %s, tree %s",
			      round, i, f->page[i].mapped ? "mapped" : "unmapped",
			      want ? "mapped" : "unmapped");
		if (!want)
			continue;
		ck_assert_msg(f->page[i].prot == v->prot, "round %d: page %u: prot %d vs %d", round,
			      i, f->page[i].prot, v->prot);
		ck_assert_msg(f->page[i].off == v->mobj->off + v->mobj_off + (p - v->start),
			      "round %d: page %u: platform maps another part of the file", round,
			      i);
	}
	pthread_rwlock_unlock(&mm->lock);
}

/*
 * With a platform attached, every change to the tree reaches it: after random
 * mmap/munmap/mprotect/mremap/madvise/brk over a window, the platform maps exactly
 * the pages that have memory, with the tree's protection and file offset.
 */
START_TEST(test_platform_mirrors_tree)
{
	static const int prots[] = {PROT_NONE, PROT_READ, RW, PROT_READ | PROT_EXEC};
	static struct fake_as f = {.as = {.ops = &fake_ops}};
	uint64_t seed = 1234;

	ck_assert_uint_eq(map(BASE + 4 * PG, 4 * PG, RW, ANON | MAP_FIXED), BASE + 4 * PG);
	ck_assert_uint_eq(map(BASE + 12 * PG, 2 * PG, PROT_NONE, ANON | MAP_FIXED), BASE + 12 * PG);
	/* Attaching maps what exists. */
	ck_assert_int_eq(mm_attach(mm, &f.as), 0);
	check_mirror(&f, -1);
	mm_set_brk(mm, BASE + 48 * PG);
	for (int round = 0; round < 3000; round++) {
		unsigned a = (unsigned)(unit_rand(&seed) % 40);
		unsigned n = 1 + (unsigned)(unit_rand(&seed) % 8);
		unsigned b = (unsigned)(unit_rand(&seed) % 40);
		int prot = prots[unit_rand(&seed) % ARRAY_SIZE(prots)];
		uint64_t addr = BASE + (uint64_t)a * PG, len = (uint64_t)n * PG;

		switch (unit_rand(&seed) % 8) {
		case 0:
		case 1:
			map(addr, len, prot,
			    ANON | MAP_FIXED | (unit_rand(&seed) % 4 ? 0 : MAP_SHARED));
			break;
		case 2:
			mm_munmap(mm, addr, len);
			break;
		case 3:
		case 4:
			mm_mprotect(mm, addr, len, prot);
			break;
		case 5: /* move or resize, inside the window */
			if (unit_rand(&seed) & 1)
				mm_mremap(mm, addr, len, (1 + unit_rand(&seed) % 8) * PG,
					  MREMAP_MAYMOVE | MREMAP_FIXED, BASE + (uint64_t)b * PG);
			else
				mm_mremap(mm, addr, len, (1 + unit_rand(&seed) % 8) * PG, 0, 0);
			break;
		case 6:
			mm_madvise(mm, addr, len,
				   unit_rand(&seed) & 1 ? MADV_DONTNEED : MADV_DONTFORK);
			break;
		default:
			mm_brk(mm, BASE + (48 + unit_rand(&seed) % 16) * PG);
			break;
		}
		check_mirror(&f, round);
	}
	finish();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mm");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mmap_anywhere);
	tcase_add_test(tc, test_mmap_bad_arguments);
	tcase_add_test(tc, test_munmap_middle);
	tcase_add_test(tc, test_munmap_bad_arguments);
	tcase_add_test(tc, test_mprotect_split_and_merge);
	tcase_add_test(tc, test_mprotect_holes_and_arguments);
	tcase_add_test(tc, test_prot_none);
	tcase_add_test(tc, test_map_fixed_over_existing);
	tcase_add_test(tc, test_map_fixed_noreplace);
	tcase_add_test(tc, test_copy_rules);
	tcase_add_test(tc, test_mremap);
	tcase_add_test(tc, test_mremap_shared_alias);
	tcase_add_test(tc, test_madvise);
	tcase_add_test(tc, test_brk);
	tcase_add_test(tc, test_stack_growth);
	tcase_add_test(tc, test_fault_classification);
	tcase_add_test(tc, test_random_against_model);
	tcase_add_test(tc, test_platform_mirrors_tree);
	suite_add_tcase(s, tc);

	/* Tests that make their own mm, with other limits. */
	tc = tcase_create("limit");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_memory_limit);
	tcase_add_test(tc, test_vma_count_limit);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
