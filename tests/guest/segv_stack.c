/*
 * Guest test: the stack grows on demand to well past its first pages, and
 * unbounded recursion ends in SIGSEGV (status 139) at the stack limit.
 */
#include "guest.h"

#include <sys/resource.h>

static unsigned long depth(unsigned long n, unsigned long stop)
{
	volatile char frame[1024];

	frame[0] = (char)n;
	frame[sizeof(frame) - 1] = (char)n;
	if (n == stop)
		return frame[0] + frame[sizeof(frame) - 1];
	return depth(n + 1, stop) + (frame[0] == (char)n);
}

int main(void)
{
	struct rlimit rl;

	/* Bound the stack at 8 MiB whatever the caller's limit. */
	CHECK_EQ(getrlimit(RLIMIT_STACK, &rl), 0, "getrlimit STACK");
	rl.rlim_cur = 8ul << 20;
	CHECK_EQ(setrlimit(RLIMIT_STACK, &rl), 0, "setrlimit STACK to 8 MiB");
	/* About 3 MiB of frames: the stack grows page by page. */
	CHECK(depth(0, 3000) > 0, "3000 nested 1 KiB frames fit on the stack");
	{
		volatile char *big = __builtin_alloca(2 << 20);
		big[0] = 1;
		big[(2 << 20) - 1] = 2;
		CHECK(big[0] + big[(2 << 20) - 1] == 3, "a 2 MiB alloca is usable");
	}
	printf("recursing without end\n");
	fflush(stdout);
	depth(0, (unsigned long)-1);
	printf("FAIL: unbounded recursion returned\n");
	return 1;
}
