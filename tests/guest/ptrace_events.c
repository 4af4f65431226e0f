/* PTRACE_SEIZE with TRACEFORK, TRACEEXEC and TRACEEXIT: the event stops,
 * GETEVENTMSG, the fork child attached automatically (its first stop is
 * PTRACE_EVENT_STOP), and the exits the tracer reaps before the real
 * parent learns of them. Events of the two tracees may interleave: they are
 * recorded and printed in a fixed order. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

struct rec {
	pid_t pid;
	char log[8][80];
	int n;
};

static void note(struct rec *r, const char *s)
{
	if (r->n < 8)
		snprintf(r->log[r->n++], sizeof(r->log[0]), "%s", s);
}

int main(int argc, char **argv)
{
	struct rec a = {0}, b = {0};
	int fds[2], st, exits = 0;
	char c, buf[80];

	if (argc > 2 && strcmp(argv[1], "exec") == 0)
		return atoi(argv[2]);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (pipe(fds) < 0)
		return 1;
	a.pid = fork();
	if (a.pid == 0) {
		pid_t k;
		if (read(fds[0], &c, 1) != 1)
			_exit(90);
		k = fork();
		if (k == 0)
			_exit(3);
		if (waitpid(k, &st, 0) != k || !WIFEXITED(st))
			_exit(91);
		snprintf(buf, sizeof(buf), "%d", WEXITSTATUS(st) + 2);
		execl("/proc/self/exe", argv[0], "exec", buf, (char *)0);
		_exit(92);
	}
	printf("seize: %ld\n",
	       ptrace(PTRACE_SEIZE, a.pid, 0,
		      PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT));
	printf("seize again: %ld\n", ptrace(PTRACE_SEIZE, a.pid, 0, 0));
	if (write(fds[1], "x", 1) != 1)
		return 1;
	while (exits < 2) {
		pid_t p = waitpid(-1, &st, __WALL);
		struct rec *r;
		unsigned long msg = 0;
		int sig = 0, ev;
		if (p < 0) {
			printf("waitpid failed\n");
			break;
		}
		if (p != a.pid && !b.pid)
			b.pid = p; /* its first stop may come before the fork event */
		r = p == a.pid ? &a : &b;
		if (WIFEXITED(st)) {
			snprintf(buf, sizeof(buf), "exited %d", WEXITSTATUS(st));
			note(r, buf);
			exits++;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		ev = st >> 16;
		ptrace(PTRACE_GETEVENTMSG, p, 0, &msg);
		switch (ev) {
		case PTRACE_EVENT_FORK:
			if (!b.pid)
				b.pid = (pid_t)msg;
			note(r, msg == (unsigned long)b.pid ? "fork event: message is the child"
							   : "fork event: wrong message");
			break;
		case PTRACE_EVENT_EXEC:
			note(r, msg == (unsigned long)p ? "exec event: message is its pid"
							: "exec event: wrong message");
			break;
		case PTRACE_EVENT_EXIT:
			snprintf(buf, sizeof(buf), "exit event: status %lu", msg >> 8);
			note(r, buf);
			break;
		case PTRACE_EVENT_STOP:
			snprintf(buf, sizeof(buf), "event stop by %s",
				 WSTOPSIG(st) == SIGTRAP ? "SIGTRAP" : "another signal");
			note(r, buf);
			break;
		default:
			sig = WSTOPSIG(st);
			if (sig != SIGCHLD) {
				snprintf(buf, sizeof(buf), "signal %d", sig);
				note(r, buf);
			}
			break;
		}
		ptrace(PTRACE_CONT, p, 0, sig);
	}
	printf("child:\n");
	for (int i = 0; i < a.n; i++)
		printf("  %s\n", a.log[i]);
	printf("grandchild:\n");
	for (int i = 0; i < b.n; i++)
		printf("  %s\n", b.log[i]);
	printf("no more children: %s\n", waitpid(-1, &st, __WALL | WNOHANG) < 0 ? "yes" : "no");
	return 0;
}
