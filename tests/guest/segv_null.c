/*
 * Guest test: a NULL pointer dereference kills the program with SIGSEGV
 * (status 139); what it printed before survives.
 */
#include "guest.h"

int main(int argc, char **argv)
{
	/* An address the compiler cannot prove is NULL, so the load stays. */
	volatile int *volatile p = (int *)(uintptr_t)(argc > 100);

	printf("about to dereference NULL\n");
	fflush(stdout);
	printf("%d\n", *p);
	printf("FAIL: the NULL dereference succeeded\n");
	return 1;
}
