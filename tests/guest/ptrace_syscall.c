/* PTRACE_SYSCALL with PTRACE_O_TRACESYSGOOD: entry and exit stops,
 * PTRACE_GET_SYSCALL_INFO, GETSIGINFO of a syscall stop, and a system
 * call's result changed by SETREGS at its exit stop. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	struct __ptrace_syscall_info si;
	struct user_regs_struct regs;
	siginfo_t info;
	int st, entries = 0, exits = 0, changed = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		long r = syscall(SYS_getpid);
		printf("child: getpid returned %ld\n", r);
		printf("child: getppid is the parent: %s\n", syscall(SYS_getppid) == getppid() ? "yes" : "no");
		_exit(3);
	}
	waitpid(pid, &st, 0);
	printf("setoptions: %ld\n", ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD));
	for (;;) {
		long n;
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) < 0)
			break;
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			printf("unexpected stop %d\n", WSTOPSIG(st));
			continue;
		}
		n = ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si);
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
			entries++;
			if (si.entry.nr == SYS_getpid) {
				printf("entry getpid: info size %ld\n", n);
				ptrace(PTRACE_GETSIGINFO, pid, 0, &info);
				printf("siginfo code is SIGTRAP|0x80: %s\n",
				       info.si_code == (SIGTRAP | 0x80) ? "yes" : "no");
				ptrace(PTRACE_GETREGS, pid, 0, &regs);
				printf("entry rax is -ENOSYS: %s\n", (long)regs.rax == -38 ? "yes" : "no");
			}
		} else if (si.op == PTRACE_SYSCALL_INFO_EXIT) {
			exits++;
			ptrace(PTRACE_GETREGS, pid, 0, &regs);
			if (regs.orig_rax == SYS_getpid && !changed) {
				printf("exit getpid: info size %ld, rval is the child: %s, error %d\n", n,
				       si.exit.rval == pid ? "yes" : "no", si.exit.is_error);
				regs.rax = 4242;
				printf("setregs: %ld\n", ptrace(PTRACE_SETREGS, pid, 0, &regs));
				changed = 1;
			}
		}
	}
	printf("exited: %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
	printf("one entry without an exit (exit_group): %s\n", entries == exits + 1 ? "yes" : "no");
	return 0;
}
