/*
 * Guest test: what exec does to timers. POSIX timers are deleted (their
 * ids no longer name anything), a timer signal still pending is discarded
 * while other pending signals stay, and the itimers (alarm, ITIMER_VIRTUAL)
 * go on in the new program.
 */
#include "guest.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

static int kid(timer_t t)
{
	return (int)(intptr_t)t;
}

/* The new image: checks what came through; argv[2..3] are the old timer ids. */
static int after_exec(char **argv)
{
	struct itimerspec its;
	struct itimerval v;
	sigset_t pend;
	unsigned left;

	CHECK_ERRNO(syscall(SYS_timer_gettime, atoi(argv[2]), &its), EINVAL,
		    "timer_gettime, after exec, of a timer that was armed");
	CHECK_ERRNO(syscall(SYS_timer_gettime, atoi(argv[3]), &its), EINVAL,
		    "timer_gettime of one that was idle");
	CHECK_ERRNO(syscall(SYS_timer_delete, atoi(argv[3])), EINVAL, "timer_delete of it");
	sigpending(&pend);
	CHECK(!sigismember(&pend, SIGRTMIN + 5), "the pending timer signal was discarded");
	CHECK(sigismember(&pend, SIGUSR1), "a pending signal from kill stays pending");
	left = alarm(0);
	CHECK(left >= 99 && left <= 100, "the alarm goes on");
	getitimer(ITIMER_VIRTUAL, &v);
	CHECK(v.it_value.tv_sec >= 99 && v.it_interval.tv_sec == 1, "ITIMER_VIRTUAL goes on");
	return GUEST_DONE();
}

int main(int argc, char **argv)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 5};
	struct itimerspec its = {{0, 0}, {0, 1000000}};
	struct itimerval v = {{1, 0}, {100, 0}};
	char id1[16], id2[16];
	timer_t t1, t2;
	sigset_t block, pend;
	int st;
	pid_t p;

	if (argc > 3 && strcmp(argv[1], "exec-child") == 0)
		return after_exec(argv);

	p = fork();
	if (p == 0) {
		sigemptyset(&block);
		sigaddset(&block, SIGRTMIN + 5);
		sigaddset(&block, SIGUSR1);
		sigprocmask(SIG_BLOCK, &block, NULL);
		timer_create(CLOCK_MONOTONIC, &ev, &t1);
		timer_create(CLOCK_MONOTONIC, &ev, &t2);
		timer_settime(t1, 0, &its, NULL);
		usleep(50000);
		sigpending(&pend);
		if (!sigismember(&pend, SIGRTMIN + 5))
			printf("FAIL: the timer signal should be pending\n");
		raise(SIGUSR1);
		its.it_value.tv_sec = 1000;
		timer_settime(t2, 0, &its, NULL);
		alarm(100);
		setitimer(ITIMER_VIRTUAL, &v, NULL);
		snprintf(id1, sizeof(id1), "%d", kid(t1));
		snprintf(id2, sizeof(id2), "%d", kid(t2));
		fflush(stdout);
		{
			char *args[] = {argv[0], "exec-child", id1, id2, NULL};
			execv(argv[0], args);
		}
		_exit(3);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the exec'd program saw what it should");
	return GUEST_DONE();
}
