/*
 * Guest test: signals and the waiting calls. A handler always ends poll,
 * ppoll, select, pselect6 and epoll_wait with EINTR (SA_RESTART or not);
 * ppoll, pselect6 and epoll_pwait apply their mask only while they wait
 * (a pending signal they unblock interrupts them at once, and the old mask
 * is back afterwards); select writes back the time left when interrupted;
 * a stop and continue (no handler) restarts poll and select, which keep
 * their end time. Signals come from a child process, after the parent has
 * started to wait.
 */
#include "guest.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t hits;

static void handler(int sig)
{
	hits++;
}

/* A child that sends sig to the parent after ms milliseconds (and, for
 * SIGSTOP, SIGCONT 100 ms later). */
static pid_t signal_later(int sig, int ms)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		kill(parent, sig);
		if (sig == SIGSTOP) {
			ts = (struct timespec){0, 100000000};
			nanosleep(&ts, NULL);
			kill(parent, SIGCONT);
		}
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = handler};
	struct pollfd p;
	struct epoll_event ev = {.events = EPOLLIN}, out;
	struct timeval tv;
	struct timespec ts, start;
	sigset_t usr1, none, now;
	fd_set in;
	int fds[2], ep, n, e;
	pid_t pid;

	CHECK_EQ(pipe(fds), 0, "a pipe nobody writes to");
	p = (struct pollfd){.fd = fds[0], .events = POLLIN};
	sigemptyset(&none);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);

	/* A handler without SA_RESTART. */
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0, "SIGUSR1 handler, no SA_RESTART");
	pid = signal_later(SIGUSR1, 50);
	n = poll(&p, 1, 5000);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR && hits == 1, "poll is interrupted: EINTR, the handler ran");

	/* SA_RESTART does not restart them. */
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0, "SIGUSR1 handler with SA_RESTART");
	pid = signal_later(SIGUSR1, 50);
	n = poll(&p, 1, 5000);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR && hits == 2, "poll: EINTR even with SA_RESTART");

	pid = signal_later(SIGUSR1, 50);
	FD_ZERO(&in);
	FD_SET(fds[0], &in);
	tv = (struct timeval){5, 0};
	n = select(fds[0] + 1, &in, NULL, NULL, &tv);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR && hits == 3, "select: EINTR");
	CHECK(tv.tv_sec == 4 || (tv.tv_sec < 5 && tv.tv_sec >= 0 && tv.tv_usec > 0),
	      "select wrote back the time left (under 5 s)");
	CHECK(FD_ISSET(fds[0], &in), "the sets are left as they were");

	ep = epoll_create1(0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev), 0, "epoll watches the pipe");
	pid = signal_later(SIGUSR1, 50);
	n = epoll_wait(ep, &out, 1, 5000);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR && hits == 4, "epoll_wait: EINTR");

	pid = signal_later(SIGUSR1, 50);
	ts = (struct timespec){5, 0};
	n = ppoll(&p, 1, &ts, NULL);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR && hits == 5, "ppoll: EINTR");

	/* The temporary masks: a blocked pending signal interrupts at once. */
	CHECK_EQ(sigprocmask(SIG_BLOCK, &usr1, NULL), 0, "block SIGUSR1");
	CHECK_EQ(kill(getpid(), SIGUSR1), 0, "send it: pending");
	CHECK_EQ(poll(&p, 1, 0), 0, "poll does not see a blocked signal");
	ts = (struct timespec){5, 0};
	n = ppoll(&p, 1, &ts, &none);
	e = errno;
	CHECK(n == -1 && e == EINTR && hits == 6, "ppoll with an empty mask: EINTR at once");
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR1), "SIGUSR1 is blocked again afterwards");
	CHECK_EQ(kill(getpid(), SIGUSR1), 0, "send it again");
	n = pselect(fds[0] + 1, &in, NULL, NULL, NULL, &none);
	e = errno;
	CHECK(n == -1 && e == EINTR && hits == 7, "pselect with an empty mask: EINTR");
	CHECK_EQ(kill(getpid(), SIGUSR1), 0, "send it again");
	n = epoll_pwait(ep, &out, 1, -1, &none);
	e = errno;
	CHECK(n == -1 && e == EINTR && hits == 8, "epoll_pwait with an empty mask: EINTR");
	CHECK_EQ(kill(getpid(), SIGUSR1), 0, "send it again");
	n = ppoll(&p, 1, &(struct timespec){0, 0}, &none);
	e = errno;
	CHECK(n == -1 && e == EINTR && hits == 9, "ppoll with a zero timeout: EINTR too");
	CHECK_EQ(kill(getpid(), SIGUSR1), 0, "send it again");
	CHECK_EQ(write(fds[1], "x", 1), 1, "make the pipe readable");
	n = ppoll(&p, 1, NULL, &none);
	CHECK_EQ(n, 1, "a ready fd wins over the signal");
	CHECK_EQ(hits, 9, "the old mask came back first: no handler");
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR1), "SIGUSR1 is still blocked");
	sigpending(&now);
	CHECK(sigismember(&now, SIGUSR1), "and still pending");
	FD_ZERO(&in);
	FD_SET(fds[0], &in);
	CHECK_EQ(pselect(fds[0] + 1, &in, NULL, NULL, NULL, &none), 1,
		 "pselect: the ready fd wins");
	CHECK_EQ(epoll_pwait(ep, &out, 1, -1, &none), 1, "epoll_pwait: the ready fd wins");
	CHECK_EQ(hits, 9, "no handler ran");
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "drain the pipe");
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &usr1, NULL), 0, "unblock SIGUSR1");
	CHECK_EQ(hits, 10, "the handler runs now");

	/* Stopped and continued, no handler runs: poll and select go on
	 * waiting until their end time (600 ms; checked loosely, at 3 s, which
	 * a loaded machine's scheduling stays under and a wait that never
	 * ends does not). */
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = signal_later(SIGSTOP, 50);
	n = poll(&p, 1, 600);
	reap(pid);
	CHECK_EQ(n, 0, "poll across a stop and a continue times out with 0");
	CHECK(elapsed_ms(&start) < 3000, "at its end time, not later");
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = signal_later(SIGSTOP, 50);
	FD_ZERO(&in);
	FD_SET(fds[0], &in);
	tv = (struct timeval){0, 600000};
	n = select(fds[0] + 1, &in, NULL, NULL, &tv);
	reap(pid);
	CHECK_EQ(n, 0, "select across a stop and a continue times out with 0");
	CHECK(elapsed_ms(&start) < 3000, "at its end time");
	/* (A long timeout: the stop must come while it waits, however slow
	 * the fork of the process that sends it.) */
	pid = signal_later(SIGSTOP, 50);
	n = epoll_wait(ep, &out, 1, 10000);
	e = errno;
	reap(pid);
	CHECK(n == -1 && e == EINTR,
	      "epoll_wait across a stop and a continue: EINTR (never restarted)");
	close(ep);
	close(fds[0]);
	close(fds[1]);
	return GUEST_DONE();
}
