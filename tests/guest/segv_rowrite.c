/*
 * Guest test: a write to memory made read-only with mprotect kills the
 * program with SIGSEGV (status 139), after reads of it have worked. The
 * lines before the fault must reach stdout in both runs.
 */
#include "guest.h"

int main(void)
{
	volatile unsigned char *p =
		mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap two read-write pages");
	p[0] = 0x42;
	p[PAGE] = 0x43;
	CHECK_EQ(mprotect((void *)p, PAGE, PROT_READ), 0, "mprotect the first page read-only");
	CHECK_EQ(p[0], 0x42, "the read-only page is readable");
	p[PAGE] = 0x44;
	CHECK_EQ(p[PAGE], 0x44, "the second page is still writable");
	printf("writing to the read-only page\n");
	fflush(stdout);
	p[1] = 0x45;
	printf("FAIL: the write to read-only memory succeeded\n");
	return 1;
}
