/*
 * e2e guest program for tty.sh: on its terminal (stdin), a child becomes
 * the foreground job and waits for the SIGINT the keyboard's ^C sends; the
 * parent, in the background meanwhile, must not get it. Prints what each
 * saw; exits 0 when the child got SIGINT and the parent did not.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_int;

static void on_int(int sig)
{
	got_int++;
}

static void nap(void)
{
	struct timespec ts = {0, 20000000};

	nanosleep(&ts, NULL);
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_int};
	int st, i;
	pid_t c;

	setvbuf(stdout, NULL, _IONBF, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGTTOU, SIG_IGN); /* to take the terminal back */
	printf("parent: pgrp is the foreground: %s\n", tcgetpgrp(0) == getpgrp() ? "yes" : "no");
	c = fork();
	if (c == 0) {
		setpgid(0, 0);
		for (i = 0; i < 500 && tcgetpgrp(0) != getpgrp(); i++)
			nap();
		printf("child ready\n");
		for (i = 0; i < 1500 && !got_int; i++)
			nap();
		printf("child got SIGINT: %s\n", got_int ? "yes" : "no");
		_exit(got_int ? 0 : 1);
	}
	setpgid(c, c);
	if (tcsetpgrp(0, c) < 0)
		perror("tcsetpgrp");
	waitpid(c, &st, 0);
	if (tcsetpgrp(0, getpgrp()) < 0)
		perror("tcsetpgrp back");
	printf("parent: child exited with %d, parent got SIGINT: %s\n",
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), got_int ? "yes" : "no");
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && !got_int ? 0 : 1;
}
