/*
 * Guest test: signals, stops and kills reach a thread that is running guest
 * code without making system calls (a busy loop): the platform must
 * interrupt it, not wait for its next system call. Processes and threads,
 * a handler, SIGSTOP/SIGCONT, SIGKILL, a default action, and exit_group
 * from another thread. A watchdog alarm turns a hang into a failure.
 */
#include "guest.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t flag;
static volatile unsigned long counter;

static void on_usr(int sig)
{
	(void)sig;
	flag = 1;
}

static void on_watchdog(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: watchdog: a busy guest thread was never interrupted\n";
	write(1, msg, sizeof(msg) - 1);
	_exit(1);
}

/* Busy, no system calls, until flag. */
static void spin_until_flag(void)
{
	while (!flag)
		counter++;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void handler_in_busy_child(void)
{
	int st;
	pid_t p;

	/* Set before the fork: the child may not run before the kill. */
	signal(SIGUSR1, on_usr);
	p = fork();
	if (p == 0) {
		spin_until_flag();
		_exit(7);
	}
	pause_ms(20);
	kill(p, SIGUSR1);
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "a busy child runs its handler");
}

static void stop_and_kill_busy_child(void)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			counter++;
	}
	pause_ms(20);
	kill(p, SIGSTOP);
	CHECK(waitpid(p, &st, WUNTRACED) == p && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
	      "a busy child stops");
	kill(p, SIGCONT);
	CHECK(waitpid(p, &st, WCONTINUED) == p && WIFCONTINUED(st), "and continues");
	pause_ms(10);
	kill(p, SIGKILL);
	CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "SIGKILL ends a busy child");
	p = fork();
	if (p == 0) {
		for (;;)
			counter++;
	}
	pause_ms(10);
	kill(p, SIGTERM);
	CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	      "SIGTERM (default action) ends a busy child");
}

static void *busy_thread(void *arg)
{
	(void)arg;
	spin_until_flag();
	return NULL;
}

static void handler_in_busy_thread(void)
{
	pthread_t t;
	sigset_t set;

	flag = 0;
	signal(SIGUSR2, on_usr);
	/* Only the busy thread may take it. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_create(&t, NULL, busy_thread, NULL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pause_ms(20);
	pthread_kill(t, SIGUSR2);
	CHECK(pthread_join(t, NULL) == 0 && flag, "a busy thread runs its handler");
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void *exit_soon(void *arg)
{
	(void)arg;
	pause_ms(20);
	exit(5);
}

static void exit_group_with_busy_thread(void)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		pthread_t t;
		pthread_create(&t, NULL, exit_soon, NULL);
		for (;;)
			counter++;
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 5,
	      "exit from one thread ends a busy one");
}

int main(void)
{
	signal(SIGALRM, on_watchdog);
	alarm(30);
	handler_in_busy_child();
	stop_and_kill_busy_child();
	handler_in_busy_thread();
	exit_group_with_busy_thread();
	alarm(0);
	return guest_failures ? 1 : 0;
}
