/*
 * Guest test: the program break. Grow it, write the new memory, shrink it,
 * grow it again and find zeros; the failures Linux answers with "the break
 * stays where it was". Uses the raw system call so malloc is not involved
 * (nothing here allocates once stdout's buffer exists).
 */
#include "guest.h"

static uintptr_t sys_brk(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

int main(void)
{
	uintptr_t start, base, cur;
	unsigned char *p;
	int all = 1;

	CHECK(1, "stdout is set up before the break moves");
	start = sys_brk(0);
	CHECK(start != 0 && start != (uintptr_t)-1, "brk(0) reports the break");
	CHECK_EQ(sys_brk(0), start, "brk(0) twice gives the same break");

	/* Page-align the break so that shrinking really unmaps pages. */
	base = (start + PAGE - 1) & ~(PAGE - 1);
	CHECK_EQ(sys_brk(base), base, "brk moves to the next page boundary");

	/* Grow by 1 MiB and fill it. */
	CHECK_EQ(sys_brk(base + (1 << 20)), base + (1 << 20), "brk grows by 1 MiB");
	p = (unsigned char *)base;
	for (size_t i = 0; i < (1 << 20); i++)
		all &= p[i] == 0;
	CHECK(all, "new break memory reads zeros");
	memset(p, 0xa5, 1 << 20);
	all = 1;
	for (size_t i = 0; i < (1 << 20); i += 4093)
		all &= p[i] == 0xa5;
	CHECK(all, "new break memory is writable");
	CHECK(guest_mapped(p + (1 << 20) - 1), "the last grown page is mapped");

	/* An unaligned break: the page holding it stays mapped. */
	CHECK_EQ(sys_brk(base + (1 << 20) - 100), base + (1 << 20) - 100,
		 "brk shrinks to an unaligned address");
	CHECK_EQ(p[(1 << 20) - 50], 0xa5, "memory in the break's own page survives");

	/* Shrink by half: the top half is gone. */
	CHECK_EQ(sys_brk(base + (512 << 10)), base + (512 << 10), "brk shrinks by 512 KiB");
	CHECK(!guest_mapped(p + (512 << 10)), "memory above the shrunk break is unmapped");
	CHECK(guest_mapped(p + (512 << 10) - 1), "memory below the shrunk break stays mapped");
	CHECK_EQ(p[(512 << 10) - 1], 0xa5, "memory below the shrunk break keeps its contents");

	/* Grow again: the pages given back come back zeroed. */
	CHECK_EQ(sys_brk(base + (1 << 20)), base + (1 << 20), "brk grows again");
	all = 1;
	for (size_t i = 512 << 10; i < (1 << 20); i++)
		all &= p[i] == 0;
	CHECK(all, "regrown break memory reads zeros");
	CHECK_EQ(p[0], 0xa5, "the start of the heap still holds its data");

	/* Failures leave the break alone and return it. */
	cur = sys_brk(0);
	CHECK_EQ(sys_brk(1), cur, "brk below the heap start fails, returning the break");
	CHECK_EQ(sys_brk(start - (64 << 20)), cur, "brk far below the heap start fails");
	CHECK_EQ(sys_brk(cur + (1ul << 47)), cur, "brk beyond the address space fails");
	CHECK_EQ(sys_brk((uintptr_t)-PAGE), cur, "brk at the top of memory fails");
	CHECK_EQ(sys_brk(0), cur, "the break did not move");

	/* A mapping in the way stops the break. */
	{
		uintptr_t wall = (cur + (4 << 20)) & ~(PAGE - 1);
		void *m = mmap((void *)wall, PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		CHECK(m == (void *)wall, "a mapping is placed above the break");
		CHECK_EQ(sys_brk(wall + PAGE), cur, "brk cannot grow over a mapping");
		CHECK_EQ(sys_brk(wall), cur, "brk keeps a page free below a mapping");
		CHECK_EQ(sys_brk(wall - PAGE), wall - PAGE, "brk grows to a page below a mapping");
		*(volatile char *)(wall - PAGE - 1) = 1;
		CHECK(1, "the break's last page is usable");
		munmap(m, PAGE);
	}

	/* sbrk agrees with the raw call once the break is back where it was. */
	CHECK_EQ(sys_brk(start), start, "brk returns to its start");
	CHECK(sbrk(0) == (void *)start, "sbrk(0) agrees");
	p = sbrk(3 * PAGE);
	CHECK(p == (void *)start, "sbrk returns the old break");
	memset(p, 1, 3 * PAGE);
	CHECK(sbrk(-(intptr_t)(3 * PAGE)) == (void *)(start + 3 * PAGE), "sbrk shrinks back");
	CHECK(sbrk(0) == (void *)start, "the break is back at its start");

	return GUEST_DONE();
}
