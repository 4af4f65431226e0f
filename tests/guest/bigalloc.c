/*
 * Guest test: large allocations. malloc 256 MiB and touch every page, a
 * 1 GiB PROT_NONE reservation with a window made usable in its middle, a
 * 16 GiB PROT_NONE MAP_NORESERVE reservation (as runtimes like Go and V8
 * make), and impossible sizes failing with ENOMEM.
 */
#include "guest.h"

#define MiB (1ul << 20)
#define GiB (1ul << 30)

int main(void)
{
	unsigned char *p, *r;
	unsigned long sum = 0, want = 0;
	size_t size = 256 * MiB;

	p = malloc(size);
	CHECK(p != NULL, "malloc 256 MiB");
	if (p) {
		for (size_t i = 0; i < size; i += PAGE) {
			p[i] = (unsigned char)(i / PAGE);
			want += (unsigned char)(i / PAGE);
		}
		for (size_t i = 0; i < size; i += PAGE)
			sum += p[i];
		CHECK(sum == want, "every page of 256 MiB holds what was written");
		p[size - 1] = 7;
		CHECK_EQ(p[size - 1], 7, "the last byte is usable");
		free(p);
	}

	r = mmap(NULL, GiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(r != MAP_FAILED, "reserve 1 GiB PROT_NONE");
	if (r == MAP_FAILED)
		return GUEST_DONE();
	CHECK(guest_mapped(r) && guest_mapped(r + GiB - 1), "the reservation is mapped");
	CHECK_EQ(mprotect(r + 512 * MiB, 16 * MiB, PROT_READ | PROT_WRITE), 0,
		 "make 16 MiB in the middle read-write");
	memset(r + 512 * MiB, 0x3c, 16 * MiB);
	CHECK(r[512 * MiB] == 0x3c && r[528 * MiB - 1] == 0x3c, "the window is usable");
	CHECK_EQ(mprotect(r + 512 * MiB, 16 * MiB, PROT_NONE), 0, "close the window again");
	CHECK_EQ(munmap(r, GiB), 0, "unmap the reservation");

	r = mmap(NULL, 16 * GiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(r != MAP_FAILED, "reserve 16 GiB PROT_NONE MAP_NORESERVE");
	if (r == MAP_FAILED)
		return GUEST_DONE();
	CHECK_EQ(mprotect(r + 8 * GiB, MiB, PROT_READ | PROT_WRITE), 0, "a 1 MiB window in it");
	r[8 * GiB] = 1;
	r[8 * GiB + MiB - 1] = 2;
	CHECK_EQ(r[8 * GiB] + r[8 * GiB + MiB - 1], 3, "the window is usable");
	CHECK_EQ(munmap(r, 16 * GiB), 0, "unmap the 16 GiB reservation");

	CHECK(malloc(1ul << 47) == NULL, "malloc of 128 TiB fails");
	CHECK_ERRNO(
		mmap(NULL, 1ul << 47, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		ENOMEM, "mmap of 128 TiB");
	return GUEST_DONE();
}
