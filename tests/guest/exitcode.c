/*
 * Guest test: the exit status is the low 8 bits of exit_group's argument,
 * and output written before exit_group is not lost.
 */
#include "guest.h"

int main(void)
{
	CHECK(1, "about to exit_group(300)");
	syscall(SYS_exit_group, 300);
	printf("FAIL: exit_group returned\n");
	return 1;
}
