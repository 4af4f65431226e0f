/*
 * Guest test: mremap (grow in place, grow by moving, shrink, MREMAP_FIXED,
 * DONTUNMAP, aliasing a shared mapping) keeps contents, and madvise
 * (DONTNEED zeroes private memory but not shared memory) with its errors.
 */
#include "guest.h"

#define RW   (PROT_READ | PROT_WRITE)
#define PRIV (MAP_PRIVATE | MAP_ANONYMOUS)

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

static int same(const unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != (unsigned char)(i * 7 + seed))
			return 0;
	return 1;
}

static int zeros(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static void grow_shrink(void)
{
	unsigned char *p, *q, *r;

	/* Grow in place: room behind it. */
	p = mmap(NULL, 8 * PAGE, RW, PRIV, -1, 0);
	munmap(p + 2 * PAGE, 6 * PAGE);
	fill(p, 2 * PAGE, 1);
	q = mremap(p, 2 * PAGE, 4 * PAGE, 0);
	CHECK(q == p, "mremap grows in place when there is room");
	if (q != p)
		return;
	CHECK(same(q, 2 * PAGE, 1), "the old part keeps its contents");
	CHECK(zeros(q + 2 * PAGE, 2 * PAGE), "the grown part reads zeros");
	q[4 * PAGE - 1] = 9;

	/* Blocked: without MAYMOVE it fails, with MAYMOVE it moves. */
	r = mmap(p + 4 * PAGE, PAGE, RW, PRIV | MAP_FIXED, -1, 0);
	CHECK(r == p + 4 * PAGE, "a mapping blocks the way");
	CHECK_ERRNO(mremap(p, 4 * PAGE, 8 * PAGE, 0), ENOMEM, "mremap grow when blocked");
	CHECK(same(p, 2 * PAGE, 1), "a failed mremap leaves the mapping alone");
	q = mremap(p, 4 * PAGE, 8 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED && q != p, "mremap MAYMOVE moves when blocked");
	if (q == MAP_FAILED)
		return;
	CHECK(same(q, 2 * PAGE, 1) && q[4 * PAGE - 1] == 9, "the moved mapping keeps its contents");
	CHECK(zeros(q + 4 * PAGE, 4 * PAGE), "the moved mapping's new part reads zeros");
	CHECK(!guest_mapped(p) && !guest_mapped(p + 3 * PAGE), "the old place is unmapped");
	CHECK(guest_mapped(r), "the blocking mapping is untouched");
	munmap(r, PAGE);

	/* Shrink: same address, the tail goes away. */
	p = mremap(q, 8 * PAGE, 3 * PAGE, 0);
	CHECK(p == q, "mremap shrinks in place");
	CHECK(same(q, 2 * PAGE, 1), "the shrunk mapping keeps its contents");
	CHECK(!guest_mapped(q + 3 * PAGE) && !guest_mapped(q + 7 * PAGE), "the tail is unmapped");
	munmap(q, 3 * PAGE);
}

static void fixed(void)
{
	unsigned char *p, *q, *r;

	/* MREMAP_FIXED: to a chosen address, replacing what is there. */
	p = mmap(NULL, 3 * PAGE, RW, PRIV, -1, 0);
	fill(p, 3 * PAGE, 1);
	r = mmap(NULL, 4 * PAGE, RW, PRIV, -1, 0);
	memset(r, 0xee, 4 * PAGE);
	q = mremap(p, 3 * PAGE, 3 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	CHECK(q == r, "mremap FIXED moves to the given address");
	if (q != r)
		return;
	CHECK(same(q, 3 * PAGE, 1), "the contents move along");
	CHECK(r[3 * PAGE] == 0xee, "the rest of the replaced mapping stays");
	CHECK(!guest_mapped(p), "the source is unmapped");
	CHECK_ERRNO(mremap(r, PAGE, PAGE, MREMAP_FIXED, r + 8 * PAGE), EINVAL,
		    "mremap FIXED without MAYMOVE");
	CHECK_ERRNO(mremap(r, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, r + PAGE), EINVAL,
		    "mremap FIXED onto an overlapping range");
	CHECK_ERRNO(mremap(r, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, r + 1), EINVAL,
		    "mremap FIXED to an unaligned address");
	munmap(r, 4 * PAGE);
}

static void middle(void)
{
	unsigned char *p, *q;

	/* Moving a piece out of the middle splits the source. */
	p = mmap(NULL, 3 * PAGE, RW, PRIV, -1, 0);
	fill(p, 3 * PAGE, 5);
	q = mremap(p + PAGE, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap of a middle page to a larger size");
	if (q == MAP_FAILED)
		return;
	/* fill's pattern repeats every 256 bytes and PAGE is a multiple of it. */
	CHECK(same(q, PAGE, 5), "the middle page moved with its contents");
	CHECK(zeros(q + PAGE, PAGE), "its new second page reads zeros");
	CHECK(guest_mapped(p) && !guest_mapped(p + PAGE) && guest_mapped(p + 2 * PAGE),
	      "the source's middle is now a hole");
	CHECK(same(p, PAGE, 5), "the source's first page is intact");
	munmap(p, 3 * PAGE);
	munmap(q, 2 * PAGE);
}

static void dontunmap(void)
{
	unsigned char *p, *q;

	/* MREMAP_DONTUNMAP: the old range stays mapped, empty. The raw call:
	 * glibc passes new_address only with MREMAP_FIXED. */
	p = mmap(NULL, 2 * PAGE, RW, PRIV, -1, 0);
	fill(p, 2 * PAGE, 3);
	q = (unsigned char *)syscall(SYS_mremap, p, 2 * PAGE, 2 * PAGE,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0);
	CHECK(q != MAP_FAILED && q != p, "mremap DONTUNMAP moves");
	if (q == MAP_FAILED)
		return;
	CHECK(same(q, 2 * PAGE, 3), "mremap DONTUNMAP moves the contents");
	CHECK(guest_mapped(p) && zeros(p, 2 * PAGE), "the old range stays mapped and reads zeros");
	munmap(p, 2 * PAGE);
	munmap(q, 2 * PAGE);
}

static void shared(void)
{
	unsigned char *p, *q;

	/* old_size 0 on a shared mapping makes a second view of the same memory. */
	p = mmap(NULL, 2 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fill(p, 2 * PAGE, 4);
	q = mremap(p, 0, 2 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED && q != p, "mremap old_size 0 duplicates a shared mapping");
	if (q != MAP_FAILED) {
		CHECK(same(q, 2 * PAGE, 4), "the duplicate shows the same contents");
		q[10] = 0x77;
		CHECK_EQ(p[10], 0x77, "a write through one view shows in the other");
		munmap(q, 2 * PAGE);
	}
	/* ... and a shared mapping keeps its contents when moved. */
	p[10] = 0x77;
	q = mremap(p, 2 * PAGE, 16 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap grows a shared mapping");
	if (q == MAP_FAILED)
		return;
	CHECK(q[10] == 0x77 && q[0] == 4, "a grown shared mapping keeps its data");
	munmap(q, 16 * PAGE);
}

static void errors(void)
{
	unsigned char *p = mmap(NULL, 2 * PAGE, RW, PRIV, -1, 0);

	CHECK_ERRNO(mremap(p, 0, PAGE, MREMAP_MAYMOVE), EINVAL, "mremap old_size 0 of private");
	CHECK_ERRNO(mremap(p + 1, PAGE, PAGE, 0), EINVAL, "mremap of an unaligned address");
	CHECK_ERRNO(mremap(p, PAGE, 0, 0), EINVAL, "mremap to size 0");
	CHECK_ERRNO(mremap(p, PAGE, PAGE, 0x80), EINVAL, "mremap with unknown flags");
	CHECK_ERRNO(mremap(p, 4 * PAGE, 8 * PAGE, MREMAP_MAYMOVE), EFAULT,
		    "mremap of a range running into a hole");
	munmap(p, 2 * PAGE);
	CHECK_ERRNO(mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE), EFAULT, "mremap of a hole");
}

static void advise(void)
{
	unsigned char *p, *s;

	p = mmap(NULL, 4 * PAGE, RW, PRIV, -1, 0);
	memset(p, 0x5a, 4 * PAGE);
	CHECK_EQ(madvise(p + PAGE, 2 * PAGE, MADV_DONTNEED), 0, "madvise DONTNEED on private");
	CHECK(zeros(p + PAGE, 2 * PAGE), "DONTNEED private memory reads zeros");
	CHECK(p[0] == 0x5a && p[4 * PAGE - 1] == 0x5a, "the pages around it keep their data");
	p[PAGE] = 1;
	CHECK_EQ(p[PAGE], 1, "DONTNEED memory is usable again");

	s = mmap(NULL, 2 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(s, 0x6b, 2 * PAGE);
	CHECK_EQ(madvise(s, 2 * PAGE, MADV_DONTNEED), 0, "madvise DONTNEED on shared");
	CHECK(s[0] == 0x6b && s[2 * PAGE - 1] == 0x6b, "DONTNEED shared memory keeps its data");
	CHECK_EQ(madvise(s, 2 * PAGE, MADV_REMOVE), 0, "madvise REMOVE on shared");
	CHECK(zeros(s, 2 * PAGE), "REMOVE shared memory reads zeros");
	munmap(s, 2 * PAGE);

	CHECK_EQ(madvise(p, 4 * PAGE, MADV_FREE), 0, "madvise FREE");
	p[0] = 2;
	CHECK_EQ(p[0], 2, "FREE memory is usable again");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_WILLNEED), 0, "madvise WILLNEED");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_SEQUENTIAL), 0, "madvise SEQUENTIAL");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_RANDOM), 0, "madvise RANDOM");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_NORMAL), 0, "madvise NORMAL");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_DONTFORK), 0, "madvise DONTFORK");
	CHECK_EQ(madvise(p, 4 * PAGE, MADV_DOFORK), 0, "madvise DOFORK");
	CHECK_EQ(madvise(p, 0, MADV_DONTNEED), 0, "madvise of length 0");
	CHECK_EQ(madvise(p, 1, MADV_NORMAL), 0, "madvise with an unaligned length");
	CHECK_ERRNO(madvise(p + 1, PAGE, MADV_DONTNEED), EINVAL, "madvise of an unaligned address");
	CHECK_ERRNO(madvise(p, PAGE, 12345), EINVAL, "madvise with unknown advice");
	munmap(p + 2 * PAGE, PAGE);
	CHECK_ERRNO(madvise(p + 2 * PAGE, PAGE, MADV_DONTNEED), ENOMEM, "madvise of a hole");
	CHECK_ERRNO(madvise(p, 4 * PAGE, MADV_NORMAL), ENOMEM, "madvise across a hole");
	munmap(p, 4 * PAGE);
}

int main(void)
{
	grow_shrink();
	fixed();
	middle();
	dontunmap();
	shared();
	errors();
	advise();
	return GUEST_DONE();
}
