/*
 * nop: the smallest static program, for `procs exec`: no libc, no dynamic
 * loader, one page of code; its only system call is exit_group(0). Build
 * with -static -nostdlib.
 */
void _start(void);

__attribute__((naked, noreturn)) void _start(void)
{
	__asm__ volatile("mov $231, %eax\n\t" /* exit_group */
			 "xor %edi, %edi\n\t"
			 "syscall\n\t"
			 "hlt");
}
