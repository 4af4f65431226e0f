/*
 * Guest test: jumping into memory mapped without PROT_EXEC kills the program
 * with SIGSEGV (status 139), while the same code in an executable mapping
 * runs.
 */
#include "guest.h"

int main(void)
{
	/* mov $42, %eax; ret */
	static const unsigned char code[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
	unsigned char *x, *nx;
	int (*fn)(void);

	x = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(x, code, sizeof(code));
	CHECK_EQ(mprotect(x, PAGE, PROT_READ | PROT_EXEC), 0, "mprotect code read-execute");
	fn = (int (*)(void))x;
	CHECK_EQ(fn(), 42, "code in an executable mapping runs");

	nx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(nx, code, sizeof(code));
	fn = (int (*)(void))nx;
	printf("calling into a non-executable mapping\n");
	fflush(stdout);
	fn();
	printf("FAIL: code ran from a non-executable mapping\n");
	return 1;
}
