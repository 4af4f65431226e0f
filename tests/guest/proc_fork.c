/*
 * Guest test: fork, wait4/waitid and exit statuses; zombies and reaping;
 * process groups and sessions; private memory copied at fork, shared
 * memory shared; pipes between parent and child; SIGCHLD.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

static volatile sig_atomic_t chld;

static void on_chld(int sig)
{
	chld++;
}

static void statuses(void)
{
	int st;
	pid_t p, w;

	p = fork();
	if (p == 0)
		_exit(42);
	CHECK(p > 0, "fork");
	w = waitpid(p, &st, 0);
	CHECK(w == p && WIFEXITED(st) && WEXITSTATUS(st) == 42, "exit status 42 is reported");

	p = fork();
	if (p == 0) {
		raise(SIGTERM);
		_exit(1);
	}
	w = waitpid(p, &st, 0);
	CHECK(w == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "death by SIGTERM is reported");

	p = fork();
	if (p == 0) {
		*(volatile int *)0 = 1;
		_exit(1);
	}
	w = waitpid(p, &st, 0);
	CHECK(w == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "a segfault is a SIGSEGV death");

	CHECK_ERRNO(waitpid(-1, &st, 0), ECHILD, "waitpid with no children");
	CHECK_ERRNO(waitpid(-1, &st, 0x1000 /* bogus option */), EINVAL, "waitpid bad options");
}

static void waitid_and_nohang(void)
{
	siginfo_t si;
	int fds[2], st;
	pid_t p;
	char c;

	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		read(fds[0], &c, 1); /* wait for the parent's go */
		_exit(5);
	}
	CHECK_EQ(waitpid(p, &st, WNOHANG), 0, "WNOHANG before the child exits gives 0");
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PID, (id_t)p, &si, WEXITED | WNOHANG), 0, "waitid WNOHANG");
	CHECK_EQ(si.si_pid, 0, "nothing to report yet");
	write(fds[1], "x", 1);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PID, (id_t)p, &si, WEXITED | WNOWAIT), 0, "waitid WNOWAIT");
	CHECK(si.si_pid == p && si.si_code == CLD_EXITED && si.si_status == 5,
	      "it reports CLD_EXITED with status 5");
	CHECK_ERRNO(waitid(P_ALL, 0, &si, WSTOPPED), ECHILD,
		    "waitid for stops only: the zombie is nothing to wait for (ECHILD)");
	CHECK_EQ(waitpid(p, &st, 0), p, "WNOWAIT left the zombie for waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5, "same status");
	CHECK_ERRNO(waitid(P_PID, 0, &si, WEXITED), EINVAL, "waitid P_PID 0");
	CHECK_ERRNO(waitid(P_ALL, 0, &si, 0), EINVAL, "waitid with no event");
	close(fds[0]);
	close(fds[1]);
}

static void memory(void)
{
	int *shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int *private = malloc(sizeof(int)), st;
	pid_t p;

	*shared = 1;
	*private = 1;
	p = fork();
	if (p == 0) {
		*shared = 2;
		*private = 2;
		_exit(*private == 2 ? 0 : 1);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child writes its copy");
	CHECK_EQ(*shared, 2, "MAP_SHARED memory is shared with the child");
	CHECK_EQ(*private, 1, "private memory is the parent's own");
	free(private);
	munmap(shared, PAGE);
}

static void pipes(void)
{
	int fds[2], st;
	char buf[64] = {0};
	pid_t p;

	pipe(fds);
	p = fork();
	if (p == 0) {
		close(fds[0]);
		dprintf(fds[1], "hello from the child");
		_exit(0);
	}
	close(fds[1]);
	CHECK_EQ(read(fds[0], buf, sizeof(buf) - 1), 20, "read what the child wrote");
	CHECK(strcmp(buf, "hello from the child") == 0, "the bytes are the child's");
	CHECK_EQ(read(fds[0], buf, sizeof(buf)), 0, "EOF once the child is gone");
	waitpid(p, &st, 0);
	close(fds[0]);
}

static void groups(void)
{
	int fds[2], st;
	pid_t p, me = getpid();
	char c;

	CHECK_EQ(getpgid(0), getpgrp(), "getpgid(0) is getpgrp()");
	pipe(fds);
	p = fork();
	if (p == 0) {
		int ok = setsid() == getpid() && getsid(0) == getpid() && getpgrp() == getpid();
		ok = ok && setsid() == -1 && errno == EPERM;
		ok = ok && getppid() == me;
		write(fds[1], ok ? "y" : "n", 1);
		_exit(0);
	}
	read(fds[0], &c, 1);
	CHECK(c == 'y', "a child's setsid makes it leader of a new session and group");
	waitpid(p, &st, 0);

	p = fork();
	if (p == 0) {
		read(fds[0], &c, 1);
		_exit(0);
	}
	CHECK_EQ(setpgid(p, p), 0, "setpgid puts the child in its own group");
	CHECK_EQ(getpgid(p), p, "getpgid sees it");
	CHECK_ERRNO(setpgid(p, 999999), EPERM, "no such group in the session");
	CHECK_ERRNO(setpgid(999999, 0), ESRCH, "no such process");
	CHECK_EQ(kill(-p, 0), 0, "kill(-pgid, 0) finds the group");
	write(fds[1], "x", 1);
	waitpid(p, &st, 0);
	CHECK_ERRNO(kill(-p, 0), ESRCH, "the empty group is gone");
	close(fds[0]);
	close(fds[1]);
}

static void sigchld(void)
{
	struct sigaction sa = {.sa_handler = on_chld};
	sigset_t block, old;
	int st;
	pid_t p;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	chld = 0;
	p = fork();
	if (p == 0)
		_exit(0);
	sigsuspend(&old);
	CHECK_EQ(chld, 1, "SIGCHLD arrives when a child exits");
	sigprocmask(SIG_SETMASK, &old, NULL);
	waitpid(p, &st, 0);

	/* SIG_IGN for SIGCHLD: children are reaped by themselves. */
	signal(SIGCHLD, SIG_IGN);
	p = fork();
	if (p == 0)
		_exit(0);
	CHECK_ERRNO(waitpid(p, &st, 0), ECHILD, "with SIGCHLD ignored there is no zombie to wait for");
	signal(SIGCHLD, SIG_DFL);
}

int main(void)
{
	statuses();
	waitid_and_nohang();
	memory();
	pipes();
	groups();
	sigchld();
	return GUEST_DONE();
}
