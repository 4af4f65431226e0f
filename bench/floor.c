/*
 * floor: the raw PTRACE_SYSEMU round trip, the floor any ptrace platform
 * stands on.
 *
 *   floor peekpoke|regs|info PROGRAM [ARGS...]
 *   floor parts [N]
 *
 * Runs PROGRAM (bench/getpid) traced, and answers every getpid itself with
 * the least a tracer can do:
 *
 *   PTRACE_SYSEMU -> waitpid -> read the syscall number -> write rax -> PTRACE_SYSEMU
 *
 * where "read" and "write" are, by mode:
 *   peekpoke  PTRACE_PEEKUSER(orig_rax) + PTRACE_POKEUSER(rax): the cheapest possible
 *   regs      PTRACE_GETREGS + PTRACE_SETREGS: what a naive tracer does
 *   info      PTRACE_GET_SYSCALL_INFO + PTRACE_POKEUSER(rax): the calls rung's
 *             ptrace platform makes, without the sentry around them
 *
 * Every other system call (the exec, libc start-up, clock_gettime if it is
 * not in the vDSO, the final write and exit_group) is run for real by the
 * host kernel: rewind to the `syscall` instruction and step through it with
 * PTRACE_SYSCALL. Those are outside the timed loop, which PROGRAM measures
 * itself exactly as it does natively and under rung.
 *
 * `floor parts` takes the round trip apart: it times each ptrace request on a
 * child held in a SYSEMU stop, and the bare PTRACE_SYSEMU + waitpid cycle.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { PEEKPOKE, REGS, INFO };

#define OFF_RAX	     offsetof(struct user_regs_struct, rax)
#define OFF_ORIG_RAX offsetof(struct user_regs_struct, orig_rax)

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	exit(125);
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, __WALL) < 0) {
		if (errno != EINTR)
			die("waitpid");
	}
	return status;
}

static int syscall_op(pid_t pid)
{
	struct __ptrace_syscall_info si;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) < 0)
		die("PTRACE_GET_SYSCALL_INFO");
	return si.op;
}

/*
 * pid is in a PTRACE_SYSEMU stop for a system call we do not answer: run it
 * for real. Rewind to the `syscall` instruction (2 bytes) with rax holding
 * the number again, then step with PTRACE_SYSCALL until the re-executed call
 * has entered and exited (an exit stop for the skipped call may come first;
 * an exec adds an event stop). Returns false when the child is stopped after
 * the call and can be resumed with SYSEMU, true when it has ended (*status).
 */
static bool run_for_real(pid_t pid, int *status)
{
	struct user_regs_struct r;
	int sig = 0, entered = 0;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		die("PTRACE_GETREGS");
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) < 0)
		die("PTRACE_SETREGS");
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) < 0)
			die("PTRACE_SYSCALL");
		sig = 0;
		*status = wait_child(pid);
		if (!WIFSTOPPED(*status))
			return true;
		if (WSTOPSIG(*status) == (SIGTRAP | 0x80)) {
			int op = syscall_op(pid);
			if (op == PTRACE_SYSCALL_INFO_ENTRY)
				entered = 1;
			else if (op == PTRACE_SYSCALL_INFO_EXIT && entered)
				return false;
		} else if (!(*status >> 16)) {
			sig = WSTOPSIG(*status); /* a signal: deliver it */
		}
	}
}

static int trace(pid_t pid, enum mode mode)
{
	struct user_regs_struct r;
	struct __ptrace_syscall_info si;
	int status, sig = 0;
	long nr;

	status = wait_child(pid);
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		fprintf(stderr, "floor: the child did not stop\n");
		return 125;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC) < 0)
		die("PTRACE_SETOPTIONS");
	for (;;) {
		if (ptrace(PTRACE_SYSEMU, pid, 0, sig) < 0)
			die("PTRACE_SYSEMU");
		sig = 0;
		status = wait_child(pid);
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			if (!(status >> 16))
				sig = WSTOPSIG(status);
			continue;
		}
		/* The hot path: one read, one write. */
		switch (mode) {
		case PEEKPOKE:
			nr = ptrace(PTRACE_PEEKUSER, pid, OFF_ORIG_RAX, 0);
			if (nr == SYS_getpid) {
				if (ptrace(PTRACE_POKEUSER, pid, OFF_RAX, (long)pid) < 0)
					die("PTRACE_POKEUSER");
				continue;
			}
			break;
		case REGS:
			if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
				die("PTRACE_GETREGS");
			if (r.orig_rax == SYS_getpid) {
				r.rax = (unsigned long long)pid;
				if (ptrace(PTRACE_SETREGS, pid, 0, &r) < 0)
					die("PTRACE_SETREGS");
				continue;
			}
			break;
		case INFO:
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) < 0)
				die("PTRACE_GET_SYSCALL_INFO");
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == SYS_getpid) {
				if (ptrace(PTRACE_POKEUSER, pid, OFF_RAX, (long)pid) < 0)
					die("PTRACE_POKEUSER");
				continue;
			}
			break;
		}
		if (run_for_real(pid, &status))
			break;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define TIME(name, n, expr)                                                      \
	do {                                                                     \
		double t0 = now_ns();                                            \
		for (long i = 0; i < (n); i++)                                   \
			expr;                                                    \
		printf("%-24s %8.0f ns\n", name, (now_ns() - t0) / (double)(n)); \
	} while (0)

/* The cost of each piece of the round trip, one after the other. */
static int parts(long n)
{
	struct user_regs_struct r;
	struct __ptrace_syscall_info si;
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			die("PTRACE_TRACEME");
		raise(SIGSTOP);
		for (;;)
			syscall(SYS_getpid);
	}
	wait_child(pid);
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD) < 0 ||
	    ptrace(PTRACE_SYSEMU, pid, 0, 0) < 0)
		die("ptrace");
	status = wait_child(pid);
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80)) {
		fprintf(stderr, "floor: no SYSEMU stop\n");
		return 125;
	}
	TIME("getppid (a host call)", n, syscall(SYS_getppid));
	TIME("PTRACE_PEEKUSER", n, ptrace(PTRACE_PEEKUSER, pid, OFF_ORIG_RAX, 0));
	TIME("PTRACE_POKEUSER", n, ptrace(PTRACE_POKEUSER, pid, OFF_RAX, 0));
	TIME("PTRACE_GET_SYSCALL_INFO", n, ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si));
	TIME("PTRACE_GETREGS", n, ptrace(PTRACE_GETREGS, pid, 0, &r));
	TIME("PTRACE_SETREGS", n, ptrace(PTRACE_SETREGS, pid, 0, &r));
	TIME("PTRACE_SYSEMU + waitpid", n / 4,
	     (ptrace(PTRACE_SYSEMU, pid, 0, 0), waitpid(pid, &status, __WALL)));
	kill(pid, SIGKILL);
	wait_child(pid);
	return 0;
}

int main(int argc, char **argv)
{
	enum mode mode;
	pid_t pid;

	if (argc >= 2 && !strcmp(argv[1], "parts"))
		return parts(argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 200000);
	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "peekpoke"))
		mode = PEEKPOKE;
	else if (!strcmp(argv[1], "regs"))
		mode = REGS;
	else if (!strcmp(argv[1], "info"))
		mode = INFO;
	else
		goto usage;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			die("PTRACE_TRACEME");
		raise(SIGSTOP);
		execvp(argv[2], argv + 2);
		die(argv[2]);
	}
	return trace(pid, mode);
usage:
	fprintf(stderr, "usage: floor peekpoke|regs|info PROGRAM [ARGS...]\n"
			"       floor parts [N]\n");
	return 2;
}
