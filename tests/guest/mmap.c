/*
 * Guest test: anonymous mmap, munmap and mprotect, with Linux's rules for
 * placement, MAP_FIXED, MAP_FIXED_NOREPLACE, holes, splitting, and the
 * errors (EINVAL, ENOMEM, EEXIST, EBADF, ENODEV). Whether a page is mapped
 * is asked with madvise (ENOMEM on a hole), never by touching it.
 */
#include "guest.h"

#define RW     (PROT_READ | PROT_WRITE)
#define PRIV   (MAP_PRIVATE | MAP_ANONYMOUS)
#define NOREPL (PRIV | MAP_FIXED_NOREPLACE)
#define TOP47  (1ul << 47)

static int all_bytes(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static void anonymous(void)
{
	unsigned char *p, *q, *s;

	p = mmap(NULL, 4 * PAGE, RW, PRIV, -1, 0);
	CHECK(p != MAP_FAILED, "mmap anonymous private, 4 pages");
	CHECK(((uintptr_t)p & (PAGE - 1)) == 0, "the address is page-aligned");
	CHECK(all_bytes(p, 4 * PAGE, 0), "anonymous memory reads zeros");
	memset(p, 0x11, 4 * PAGE);
	CHECK(all_bytes(p, 4 * PAGE, 0x11), "anonymous memory keeps what is written");
	CHECK_EQ(munmap(p, 4 * PAGE), 0, "munmap the 4 pages");
	CHECK(!guest_mapped(p) && !guest_mapped(p + 3 * PAGE), "munmapped pages are gone");
	CHECK_EQ(munmap(p, 4 * PAGE), 0, "munmap of a hole succeeds");

	s = mmap(NULL, 3 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED, "mmap anonymous shared");
	CHECK(all_bytes(s, 3 * PAGE, 0), "shared anonymous memory reads zeros");
	memset(s, 0x22, 3 * PAGE);
	CHECK(all_bytes(s, 3 * PAGE, 0x22), "shared anonymous memory keeps what is written");
	CHECK_EQ(munmap(s + PAGE, PAGE), 0, "munmap the middle of a shared mapping");
	CHECK(all_bytes(s, PAGE, 0x22) && all_bytes(s + 2 * PAGE, PAGE, 0x22),
	      "both shared halves keep their data");
	munmap(s, 3 * PAGE);

	/* Unaligned length: rounded up to whole pages. */
	q = mmap(NULL, 3 * PAGE, RW, PRIV, -1, 0);
	munmap(q, 3 * PAGE);
	p = mmap(q, PAGE + 1, RW, PRIV, -1, 0);
	CHECK(p == q && guest_mapped(p + PAGE) && !guest_mapped(p + 2 * PAGE),
	      "a length of a page plus one maps two pages");
	p[2 * PAGE - 1] = 1;
	CHECK_EQ(munmap(p, PAGE + 1), 0, "munmap with an unaligned length");
	CHECK(!guest_mapped(p + PAGE), "munmap rounds the length up");

	p = mmap(NULL, 2 * PAGE, RW, PRIV | MAP_POPULATE, -1, 0);
	CHECK(p != MAP_FAILED && all_bytes(p, 2 * PAGE, 0), "MAP_POPULATE gives zeroed memory");
	munmap(p, 2 * PAGE);
	p = mmap(NULL, 2 * PAGE, RW, PRIV | MAP_NORESERVE, -1, 0);
	CHECK(p != MAP_FAILED && all_bytes(p, 2 * PAGE, 0), "MAP_NORESERVE gives zeroed memory");
	munmap(p, 2 * PAGE);
	p = mmap(NULL, PAGE, RW, PRIV | MAP_32BIT, -1, 0);
	CHECK(p != MAP_FAILED && (uintptr_t)p + PAGE <= (1ul << 31), "MAP_32BIT maps below 2 GiB");
	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap(p, PAGE);
	}
	p = mmap(NULL, PAGE, PROT_READ, PRIV, -1, 0);
	CHECK(p != MAP_FAILED && p[0] == 0 && p[PAGE - 1] == 0, "a read-only mapping reads zeros");
	munmap(p, PAGE);
	p = mmap(NULL, PAGE, PROT_NONE, PRIV, -1, 0);
	CHECK(p != MAP_FAILED && guest_mapped(p), "a PROT_NONE mapping is still a mapping");
	munmap(p, PAGE);
}

static void placement(void)
{
	unsigned char *p, *q;

	/* A free hint is honoured exactly. */
	p = mmap(NULL, 8 * PAGE, RW, PRIV, -1, 0);
	munmap(p, 8 * PAGE);
	q = mmap(p + 2 * PAGE, 2 * PAGE, RW, PRIV, -1, 0);
	CHECK(q == p + 2 * PAGE, "a free hint address is used as given");
	/* An occupied hint is moved elsewhere, not replaced. */
	q[0] = 0x33;
	p = mmap(q, PAGE, RW, PRIV, -1, 0);
	CHECK(p != MAP_FAILED && p != q, "an occupied hint address is not used");
	CHECK_EQ(q[0], 0x33, "the mapping at the hint is untouched");
	munmap(p, PAGE);
	/* An unaligned hint is rounded, never refused. */
	p = mmap(q + 2 * PAGE + 123, PAGE, RW, PRIV, -1, 0);
	CHECK(p != MAP_FAILED && ((uintptr_t)p & (PAGE - 1)) == 0,
	      "an unaligned hint gives an aligned mapping");
	munmap(p, PAGE);
	munmap(q, 2 * PAGE);
	/* A hint beyond 47 bits still maps below 47 bits (4-level layout). */
	p = mmap((void *)(1ul << 50), PAGE, RW, PRIV, -1, 0);
	CHECK(p != MAP_FAILED && (uintptr_t)p < TOP47, "a hint above 47 bits maps below them");
	munmap(p, PAGE);
	/* Two mappings never overlap. */
	p = mmap(NULL, 16 * PAGE, RW, PRIV, -1, 0);
	q = mmap(NULL, 16 * PAGE, RW, PRIV, -1, 0);
	CHECK(p + 16 * PAGE <= q || q + 16 * PAGE <= p, "two mappings do not overlap");
	munmap(p, 16 * PAGE);
	munmap(q, 16 * PAGE);
}

static void fixed(void)
{
	unsigned char *p, *q;

	p = mmap(NULL, 4 * PAGE, RW, PRIV, -1, 0);
	memset(p, 0xaa, 4 * PAGE);
	q = mmap(p + PAGE, PAGE, RW, PRIV | MAP_FIXED, -1, 0);
	CHECK(q == p + PAGE, "MAP_FIXED over an existing mapping returns its address");
	CHECK(all_bytes(q, PAGE, 0), "the replaced page reads zeros");
	CHECK(all_bytes(p, PAGE, 0xaa) && all_bytes(p + 2 * PAGE, 2 * PAGE, 0xaa),
	      "the pages around the replaced one keep their data");

	/* MAP_FIXED with a different protection in the middle splits it. */
	q = mmap(p + 2 * PAGE, PAGE, PROT_READ, PRIV | MAP_FIXED, -1, 0);
	CHECK(q == p + 2 * PAGE && q[0] == 0, "MAP_FIXED read-only page in the middle");
	p[3 * PAGE] = 0xbb;
	CHECK_EQ(p[3 * PAGE], 0xbb, "the page after it is still writable");

	/* MAP_FIXED_NOREPLACE: EEXIST over anything, even one page of overlap. */
	CHECK_ERRNO(mmap(p, PAGE, RW, NOREPL, -1, 0), EEXIST, "MAP_FIXED_NOREPLACE over a mapping");
	CHECK_ERRNO(mmap(p - PAGE, 2 * PAGE, RW, NOREPL, -1, 0), EEXIST,
		    "MAP_FIXED_NOREPLACE overlapping one page");
	CHECK_EQ(p[0], 0xaa, "the mapping survives a refused MAP_FIXED_NOREPLACE");

	munmap(p, 4 * PAGE);
	q = mmap(p + PAGE, PAGE, RW, NOREPL, -1, 0);
	CHECK(q == p + PAGE, "MAP_FIXED_NOREPLACE in a hole maps at that address");
	CHECK(!guest_mapped(p) && !guest_mapped(p + 2 * PAGE), "and nothing around it");
	munmap(q, PAGE);

	/* MAP_FIXED over a hole and a mapping at once. */
	q = mmap(p + 2 * PAGE, PAGE, RW, PRIV | MAP_FIXED, -1, 0);
	q[0] = 0x44;
	q = mmap(p, 4 * PAGE, RW, PRIV | MAP_FIXED, -1, 0);
	CHECK(q == p && all_bytes(p, 4 * PAGE, 0), "MAP_FIXED over holes and mappings");
	munmap(p, 4 * PAGE);
}

static void unmap_middle(void)
{
	unsigned char *p = mmap(NULL, 5 * PAGE, RW, PRIV, -1, 0);

	for (int i = 0; i < 5; i++)
		memset(p + i * PAGE, 0x50 + i, PAGE);
	CHECK_EQ(munmap(p + PAGE, PAGE), 0, "munmap page 1 of 5");
	CHECK_EQ(munmap(p + 3 * PAGE, PAGE), 0, "munmap page 3 of 5");
	CHECK(guest_mapped(p) && !guest_mapped(p + PAGE) && guest_mapped(p + 2 * PAGE) &&
		      !guest_mapped(p + 3 * PAGE) && guest_mapped(p + 4 * PAGE),
	      "the holes are holes and the rest is mapped");
	CHECK(all_bytes(p, PAGE, 0x50) && all_bytes(p + 2 * PAGE, PAGE, 0x52) &&
		      all_bytes(p + 4 * PAGE, PAGE, 0x54),
	      "the remaining pieces keep their data");
	p[0] = 1;
	p[2 * PAGE] = 1;
	p[5 * PAGE - 1] = 1;
	CHECK(1, "the remaining pieces are writable");
	/* Unmapping across holes takes everything. */
	CHECK_EQ(munmap(p, 5 * PAGE), 0, "munmap across holes");
	CHECK(!guest_mapped(p) && !guest_mapped(p + 2 * PAGE) && !guest_mapped(p + 4 * PAGE),
	      "nothing is left");
}

static void protect(void)
{
	unsigned char *p = mmap(NULL, 4 * PAGE, RW, PRIV, -1, 0);

	memset(p, 0x66, 4 * PAGE);
	CHECK_EQ(mprotect(p + PAGE, PAGE, PROT_READ), 0, "mprotect one page read-only");
	CHECK(all_bytes(p + PAGE, PAGE, 0x66), "the read-only page is readable");
	p[0] = 1;
	p[2 * PAGE] = 2;
	CHECK(1, "the pages around it stay writable");
	CHECK_EQ(mprotect(p + 2 * PAGE, PAGE, PROT_NONE), 0, "mprotect one page PROT_NONE");
	CHECK(guest_mapped(p + 2 * PAGE), "a PROT_NONE page is still mapped");
	CHECK_EQ(mprotect(p, 4 * PAGE, RW), 0, "mprotect the whole range back to read-write");
	CHECK(p[2 * PAGE] == 2 && all_bytes(p + 2 * PAGE + 1, PAGE - 1, 0x66),
	      "contents survive PROT_NONE and back");
	p[PAGE] = 3;
	CHECK_EQ(p[PAGE], 3, "the formerly read-only page is writable");
	CHECK_EQ(mprotect(p, 4 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC), 0,
		 "mprotect read-write-execute");
	CHECK_EQ(mprotect(p, 0, PROT_READ), 0, "mprotect of length 0 succeeds");
	CHECK_EQ(mprotect(p, 1, RW), 0, "mprotect with an unaligned length succeeds");

	CHECK_ERRNO(mprotect(p + 1, PAGE, PROT_READ), EINVAL, "mprotect of an unaligned address");
	CHECK_ERRNO(mprotect(p, PAGE, 0x100), EINVAL, "mprotect with unknown bits");
	CHECK_ERRNO(mprotect(p, PAGE, PROT_READ | PROT_GROWSDOWN | PROT_GROWSUP), EINVAL,
		    "mprotect with both GROWSDOWN and GROWSUP");
	munmap(p + 3 * PAGE, PAGE);
	CHECK_ERRNO(mprotect(p + 3 * PAGE, PAGE, PROT_READ), ENOMEM, "mprotect of a hole");
	CHECK_ERRNO(mprotect(p, 4 * PAGE, PROT_READ), ENOMEM, "mprotect across a hole");
	CHECK_ERRNO(mprotect((void *)(TOP47 - PAGE), 2 * PAGE, PROT_READ), ENOMEM,
		    "mprotect past the end of user space");
	munmap(p, 4 * PAGE);
}

static void errors(void)
{
	void *p = mmap(NULL, PAGE, RW, PRIV, -1, 0);

	CHECK_ERRNO(mmap(NULL, 0, RW, PRIV, -1, 0), EINVAL, "mmap of length 0");
	CHECK_ERRNO(mmap(NULL, PAGE, RW, MAP_ANONYMOUS, -1, 0), EINVAL,
		    "mmap neither shared nor private");
	CHECK_ERRNO(mmap((char *)p + 1, PAGE, RW, PRIV | MAP_FIXED, -1, 0), EINVAL,
		    "MAP_FIXED at an unaligned address");
	CHECK_ERRNO(mmap(NULL, PAGE, RW, PRIV, -1, 1), EINVAL, "mmap with an unaligned offset");
	CHECK_ERRNO(mmap(NULL, PAGE, RW, MAP_PRIVATE, -1, 0), EBADF, "file mmap of fd -1");
	CHECK_ERRNO(mmap(NULL, PAGE, RW, MAP_PRIVATE, 77, 0), EBADF, "file mmap of a closed fd");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 0, 0), ENODEV,
		    "mmap of /dev/null (stdin)");
	CHECK_ERRNO(mmap(NULL, 1ul << 47, RW, PRIV, -1, 0), ENOMEM,
		    "mmap as large as the address space");
	CHECK_ERRNO(mmap(NULL, (size_t)-PAGE, RW, PRIV, -1, 0), ENOMEM, "mmap of length 2^64-4096");
	CHECK_ERRNO(mmap(NULL, (size_t)-1, RW, PRIV, -1, 0), ENOMEM, "mmap of length 2^64-1");
	CHECK_ERRNO(mmap((void *)(TOP47 - PAGE), 2 * PAGE, RW, PRIV | MAP_FIXED, -1, 0), ENOMEM,
		    "MAP_FIXED past the end of user space");
	CHECK_ERRNO(mmap((void *)(1ul << 48), PAGE, RW, PRIV | MAP_FIXED, -1, 0), ENOMEM,
		    "MAP_FIXED at a non-canonical address");

	CHECK_ERRNO(munmap((char *)p + 1, PAGE), EINVAL, "munmap of an unaligned address");
	CHECK_ERRNO(munmap(p, 0), EINVAL, "munmap of length 0");
	CHECK_ERRNO(munmap((void *)(TOP47 - PAGE), 2 * PAGE), EINVAL,
		    "munmap past the end of user space");
	CHECK_ERRNO(munmap((void *)(1ul << 48), PAGE), EINVAL, "munmap of a non-canonical address");
	CHECK(guest_mapped(p), "failed calls left the mapping alone");
	munmap(p, PAGE);
}

int main(void)
{
	anonymous();
	placement();
	fixed();
	unmap_middle();
	protect();
	errors();
	return GUEST_DONE();
}
