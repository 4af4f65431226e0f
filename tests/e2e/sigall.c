/*
 * e2e guest for tests/e2e/sigall.sh: kill(-1) and its relatives inside a
 * sandbox, checked against Linux's kill_something_info (kernel/signal.c):
 * kill(-1) reaches every process but the caller's and init (pid 1),
 * zombies included; it returns 0 when there was any such process, even if
 * none could be signalled for want of permission, ESRCH when there was
 * none, EINVAL for a bad signal. One line per fact.
 *
 * kill(-1) from a process that is not in a pid namespace of its own would
 * reach every process of the host. So this program refuses to do anything
 * unless it is pid 1: then it leads a pid namespace (the sandbox's, or one
 * of its own natively), and kill(-1) from it or its children cannot reach
 * past it. sigall.sh only ever runs it under `rung do`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static volatile sig_atomic_t got_term;
static pid_t other_group; /* a process group of root's, for a kill(-pgid) */

static void on_term(int sig)
{
	got_term = 1;
}

/* "ret" or "ERRNAME" of a call that returned r with errno e. */
static const char *result(long r, int e)
{
	static char buf[32];

	if (r == 0)
		return "0";
	snprintf(buf, sizeof(buf), "%s", r == -1 ? strerrorname_np(e) : "?");
	return buf;
}

static const char *call_kill(pid_t pid, int sig)
{
	long r = kill(pid, sig);

	return result(r, errno);
}

/* A child that waits for signals with the default actions (SIGTERM is
 * blocked until it has them, so that none can meet init's handler). */
static pid_t victim(void)
{
	sigset_t term, old;
	pid_t pid;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid = fork();
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (;;)
			pause();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		/* Never a kill(-1) by mistake: no victim, no test. */
		printf("fork: %s\n", strerrorname_np(errno));
		exit(3);
	}
	return pid;
}

/* How child pid ended: "SIGNAME", "exit N" or "?". */
static const char *ended(pid_t pid)
{
	static char buf[32];
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return "?";
	if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "SIG%s", sigabbrev_np(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	return buf;
}

/* Run fn in a child (the caller of the kills) and wait for it. */
static void in_child(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void alone(void)
{
	printf("a child beside init alone: kill(-1, 0) = %s\n", call_kill(-1, 0));
}

static void sender(void)
{
	printf("kill(-1, SIGTERM) = %s\n", call_kill(-1, SIGTERM));
	printf("the caller took it: %s\n", got_term ? "yes" : "no");
}

static void unprivileged(void)
{
	if (setuid(NOBODY) < 0) {
		printf("setuid: %s\n", strerrorname_np(errno));
		return;
	}
	printf("as nobody, kill(-1, SIGTERM) = %s\n", call_kill(-1, SIGTERM));
	printf("as nobody, kill(-pgid of root's, SIGTERM) = %s\n",
	       call_kill(-other_group, SIGTERM));
}

static void with_zombie(void)
{
	pid_t z = fork();
	siginfo_t si;

	if (z == 0)
		_exit(0);
	/* Until it is a zombie, not reaped. */
	waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT);
	printf("beside a zombie only: kill(-1, 0) = %s\n", call_kill(-1, 0));
	waitpid(z, NULL, 0);
	printf("once it is reaped: kill(-1, 0) = %s\n", call_kill(-1, 0));
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_term};
	pid_t b, c;

	if (getpid() != 1) {
		printf("refusing: not pid 1 of a pid namespace\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);

	printf("init alone: kill(-1, 0) = %s\n", call_kill(-1, 0));
	printf("init alone: kill(-1, 65) = %s\n", call_kill(-1, 65));
	printf("kill(INT_MIN, 0) = %s\n", call_kill(INT_MIN, 0));
	printf("kill(0, 0) = %s\n", call_kill(0, 0));
	in_child(alone);

	/* Two victims: a child's kill(-1) reaches both, not itself, not init. */
	b = victim();
	c = victim();
	printf("init, beside two others: kill(-1, 65) = %s\n", call_kill(-1, 65));
	in_child(sender);
	printf("the others: %s, ", ended(b));
	printf("%s\n", ended(c));
	printf("init took it: %s\n", got_term ? "yes" : "no");

	/* Without permission: 0 all the same, and nobody is signalled. */
	if (getuid() == 0) {
		b = victim();
		c = victim();
		if (setpgid(c, c) == 0) {
			other_group = c;
			in_child(unprivileged);
		}
		kill(b, SIGKILL);
		kill(c, SIGKILL);
		printf("the others: %s, ", ended(b));
		printf("%s\n", ended(c));
	}
	in_child(with_zombie);
	printf("init took a signal at all: %s\n", got_term ? "yes" : "no");
	return 0;
}
