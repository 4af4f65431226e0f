/* ptrace basics: PTRACE_TRACEME, a SIGSTOP signal-delivery stop,
 * PEEKDATA/POKEDATA, GETREGS/SETREGS, GETFPREGS/SETFPREGS, PEEKUSER,
 * TracerPid, CONT with the exit status through waitpid, the exec SIGTRAP
 * and PTRACE_KILL. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long value = 0x1122334455667788ul;

static int tracer_pid_of(pid_t pid)
{
	char path[64], line[256];
	int tp = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tp) == 1)
			break;
	fclose(f);
	return tp;
}

int main(int argc, char **argv)
{
	struct user_regs_struct regs;
	struct user_fpregs_struct fp;
	unsigned long word;
	pid_t pid;
	int st;

	if (argc > 1 && strcmp(argv[1], "exec") == 0)
		return 9;
	setvbuf(stdout, NULL, _IONBF, 0);
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(100);
		raise(SIGSTOP);
		unsigned x5;
		__asm__ volatile("movd %%xmm5, %0" : "=r"(x5));
		printf("child sees 0x%lx, xmm5 %u\n", value, x5);
		_exit(7);
	}
	waitpid(pid, &st, 0);
	printf("stopped by SIGSTOP: %s\n", WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP ? "yes" : "no");
	printf("TracerPid is the parent: %s\n", tracer_pid_of(pid) == getpid() ? "yes" : "no");
	errno = 0;
	word = (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)&value, 0);
	printf("peek: 0x%lx\n", word);
	printf("poke: %ld\n", ptrace(PTRACE_POKEDATA, pid, (void *)&value, (void *)0x0102030405060708ul));
	printf("peek again: 0x%lx\n", (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)&value, 0));
	printf("peek of page 0: %ld\n", ptrace(PTRACE_PEEKDATA, pid, (void *)16, 0));
	printf("getregs: %ld\n", ptrace(PTRACE_GETREGS, pid, 0, &regs));
	printf("orig_rax is tgkill: %s\n", regs.orig_rax == SYS_tgkill ? "yes" : "no");
	printf("peekuser rip matches: %s\n",
	       (unsigned long)ptrace(PTRACE_PEEKUSER, pid,
				     (void *)offsetof(struct user_regs_struct, rip), 0) == regs.rip
		       ? "yes"
		       : "no");
	printf("setregs: %ld\n", ptrace(PTRACE_SETREGS, pid, 0, &regs));
	printf("getfpregs: %ld\n", ptrace(PTRACE_GETFPREGS, pid, 0, &fp));
	fp.xmm_space[5 * 4] = 4711;
	printf("setfpregs: %ld\n", ptrace(PTRACE_SETFPREGS, pid, 0, &fp));
	word = (unsigned long)ptrace(PTRACE_CONT, pid, 0, 0);
	waitpid(pid, &st, 0);
	printf("cont: %ld\n", (long)word);
	printf("exited: %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));

	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl("/proc/self/exe", argv[0], "exec", (char *)0);
		_exit(101);
	}
	waitpid(pid, &st, 0);
	printf("exec stop by SIGTRAP: %s\n", WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP ? "yes" : "no");
	printf("kill: %ld\n", ptrace(PTRACE_KILL, pid, 0, 0));
	waitpid(pid, &st, 0);
	printf("killed by SIGKILL: %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "yes" : "no");
	printf("not traced: %ld\n", ptrace(PTRACE_CONT, getppid(), 0, 0));

	/* What Linux refuses, and with which error. */
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	waitpid(pid, &st, 0);
#define TRY(what, call)                                                     \
	do {                                                                \
		errno = 0;                                                  \
		long r_ = (call);                                           \
		printf("%s: %ld %s\n", what, r_, r_ < 0 ? strerror(errno) : ""); \
	} while (0)
	TRY("attach self", ptrace(PTRACE_ATTACH, getpid(), 0, 0));
	TRY("attach a traced one", ptrace(PTRACE_ATTACH, pid, 0, 0));
	TRY("getregs to NULL", ptrace(PTRACE_GETREGS, pid, 0, NULL));
	TRY("peekuser odd offset", ptrace(PTRACE_PEEKUSER, pid, (void *)3, 0));
	TRY("peekuser past struct user", ptrace(PTRACE_PEEKUSER, pid, (void *)4096, 0));
	TRY("bad options", ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)0x80000000ul));
	TRY("interrupt without seize", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	TRY("listen without seize", ptrace(PTRACE_LISTEN, pid, 0, 0));
	TRY("bad signal", ptrace(PTRACE_CONT, pid, 0, (void *)1000));
	TRY("unknown request", ptrace((enum __ptrace_request)0x7777, pid, 0, 0));
	TRY("bad regset type", ptrace(PTRACE_GETREGSET, pid, (void *)0x9999, &(struct iovec){&regs, sizeof(regs)}));
	TRY("syscall info outside a syscall stop", ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)0, &regs));
	TRY("detach", ptrace(PTRACE_DETACH, pid, 0, 0));
	waitpid(pid, &st, 0);
	printf("detached child exited: %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));

	/* A tracee that is the tracer's own child: __WCLONE reaps it (it is a
	 * tracee), and all of it: nothing is left to wait for. */
	{
		int sync[2];
		char c;
		if (pipe(sync) < 0)
			return 1;
		pid = fork();
		if (pid == 0) {
			ptrace(PTRACE_TRACEME, 0, 0, 0);
			_exit(3); /* closes its end of the pipe: traced by then */
		}
		close(sync[1]);
		while (read(sync[0], &c, 1) > 0)
			;
		close(sync[0]);
	}
	printf("__WCLONE wait of the traced fork child: %s\n",
	       wait4(pid, &st, __WCLONE, NULL) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 3
		       ? "it, exit 3"
		       : "other");
	TRY("then a wait for any child", waitpid(-1, &st, WNOHANG));
	return 0;
}
