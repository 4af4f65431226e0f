/* A debugger's breakpoint: POKETEXT an int3 into the child's (read-only,
 * copy-on-write) code, hit it (SIGTRAP, rip after the int3, SI_KERNEL),
 * restore the byte and rip, single-step (TRAP_TRACE), continue. The
 * parent's own copy of the code is untouched. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2 + 1;
}

int main(void)
{
	uintptr_t at = (uintptr_t)&target;
	struct user_regs_struct regs;
	siginfo_t si;
	long orig;
	pid_t pid;
	int st;

	setvbuf(stdout, NULL, _IONBF, 0);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		printf("child: target(3) = %d\n", target(3));
		_exit(0);
	}
	waitpid(pid, &st, 0);
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, 0);
	printf("poke int3: %ld\n",
	       ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)((orig & ~0xffl) | 0xcc)));
	printf("parent: its own code unchanged: %s\n", *(volatile uint8_t *)at != 0xcc ? "yes" : "no");
	printf("parent: target(1) = %d\n", target(1));
	ptrace(PTRACE_CONT, pid, 0, 0);
	waitpid(pid, &st, 0);
	printf("stopped by SIGTRAP: %s\n", WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP ? "yes" : "no");
	ptrace(PTRACE_GETREGS, pid, 0, &regs);
	printf("rip after the int3: %s\n", regs.rip == at + 1 ? "yes" : "no");
	ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
	printf("si_code SI_KERNEL: %s\n", si.si_code == SI_KERNEL ? "yes" : "no");
	printf("restore: %ld\n", ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig));
	regs.rip = at;
	printf("setregs: %ld\n", ptrace(PTRACE_SETREGS, pid, 0, &regs));
	printf("singlestep: %ld\n", ptrace(PTRACE_SINGLESTEP, pid, 0, 0));
	waitpid(pid, &st, 0);
	printf("stepped, SIGTRAP: %s\n", WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP ? "yes" : "no");
	ptrace(PTRACE_GETREGS, pid, 0, &regs);
	printf("rip moved on by one instruction: %s\n",
	       regs.rip > at && regs.rip < at + 16 ? "yes" : "no");
	printf("trap flag hidden: %s\n", !(regs.eflags & 0x100) ? "yes" : "no");
	ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
	printf("si_code TRAP_TRACE: %s\n", si.si_code == TRAP_TRACE ? "yes" : "no");
	ptrace(PTRACE_CONT, pid, 0, 0);
	waitpid(pid, &st, 0);
	printf("exited: %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
	return 0;
}
