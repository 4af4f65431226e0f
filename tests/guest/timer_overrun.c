/*
 * Guest test: the overrun count is capped. A periodic timer with a 1 ns
 * interval whose signal stays blocked for more than 2.15 s misses more
 * than INT_MAX expirations: si_overrun and timer_getoverrun both report
 * DELAYTIMER_MAX (INT_MAX) instead. Also a one-shot timer whose signal
 * was blocked reports no overrun.
 */
#include "guest.h"

#include <limits.h>
#include <signal.h>
#include <time.h>

static volatile sig_atomic_t hits;
static volatile int got_overrun, got_getoverrun;
static timer_t timer;

/* The first delivery: record, then disarm (the next would come at once). */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	struct itimerspec zero = {{0, 0}, {0, 0}};

	if (hits++ == 0) {
		got_overrun = si->si_overrun;
		got_getoverrun = timer_getoverrun(timer);
		timer_settime(timer, 0, &zero, NULL);
	}
}

int main(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN};
	struct sigaction sa = {.sa_sigaction = on_timer, .sa_flags = SA_SIGINFO};
	struct itimerspec its = {{0, 1}, {0, 1000000}};
	struct timespec wait = {2, 300000000};
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &block, NULL);
	timer_create(CLOCK_MONOTONIC, &ev, &timer);

	its.it_interval.tv_nsec = 0;
	timer_settime(timer, 0, &its, NULL);
	usleep(50000);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	CHECK(hits == 1 && got_overrun == 0 && got_getoverrun == 0,
	      "a one-shot timer delivered late has no overrun");

	sigprocmask(SIG_BLOCK, &block, NULL);
	hits = 0;
	its.it_interval.tv_nsec = 1;
	timer_settime(timer, 0, &its, NULL);
	while (nanosleep(&wait, &wait) < 0 && errno == EINTR)
		;
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	CHECK(hits >= 1, "a 1 ns periodic timer blocked for 2.3 s is delivered");
	CHECK_EQ(got_overrun, DELAYTIMER_MAX, "si_overrun is capped at DELAYTIMER_MAX");
	CHECK_EQ(got_getoverrun, DELAYTIMER_MAX, "so is timer_getoverrun");
	CHECK_EQ(DELAYTIMER_MAX, INT_MAX, "which is INT_MAX");
	timer_delete(timer);
	return GUEST_DONE();
}
