/* strace's start, many times over: a child stops itself, the tracer waits
 * for the stop, PTRACE_SEIZEs and PTRACE_INTERRUPTs it and sends SIGCONT.
 * Whichever of the group stop and the SIGCONT the tracee sees first, a
 * PTRACE_LISTEN on a group stop that SIGCONT has ended must trap again
 * (Linux's JOBCTL_TRAP_NOTIFY), or the tracer waits for ever. */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 300

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* One round: 0 when the child was traced to its exit with status 0. */
static int round_once(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		kill(getpid(), SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
		return -2;
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_TRACESYSGOOD) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || kill(pid, SIGCONT) < 0)
		return -3;
	for (;;) {
		int sig, event;

		if (waitpid(pid, &st, __WALL) != pid)
			return -4;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (!WIFSTOPPED(st))
			return -5;
		sig = WSTOPSIG(st);
		event = (unsigned)st >> 16;
		if (event == PTRACE_EVENT_STOP && is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else if (event == PTRACE_EVENT_STOP)
			ptrace(PTRACE_CONT, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
}

int main(void)
{
	int i, r;

	alarm(60); /* a lost SIGCONT hangs the tracer: fail instead */
	for (i = 0; i < ROUNDS; i++) {
		r = round_once();
		if (r != 0) {
			printf("round %d: %d\n", i, r);
			return 1;
		}
	}
	printf("%d rounds: each child stopped, was seized, continued and exited 0\n", ROUNDS);
	return 0;
}
