/*
 * Guest test: setitimer/getitimer. Validation (EINVAL for a tv_usec out of
 * range, a negative tv_sec or an unknown timer; EFAULT), the values read
 * back (microseconds, interval kept exactly, the old value returned),
 * ITIMER_REAL intervals counted, ITIMER_VIRTUAL and ITIMER_PROF firing
 * only while the process computes (a sleeping process never sees them),
 * and what fork (nothing) and exec (every itimer) keep.
 */
#include "guest.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t hits, stop_after;
static volatile int which_stops;

/* Count; the stop_after-th signal disarms the itimer (so exactly that many arrive). */
static void count(int sig)
{
	struct itimerval zero = {{0, 0}, {0, 0}};

	if (++hits == stop_after)
		setitimer(which_stops, &zero, NULL);
}

static void set(int sig, void (*fn)(int))
{
	struct sigaction sa = {.sa_handler = fn};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static long raw_setitimer(long which, const void *nv, void *ov)
{
	return syscall(SYS_setitimer, which, nv, ov);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Compute until cond() holds or 20 s of wall time pass; returns cond(). */
static int spin_until(int (*cond)(void))
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + 20000000000ull;
	volatile uint64_t x = 0;

	while (!cond() && now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i * 7;
	return cond();
}

static int one_hit(void)
{
	return hits >= 1;
}

static int stopped(void)
{
	return hits >= stop_after;
}

static int is_zero(const struct itimerval *v)
{
	return !v->it_value.tv_sec && !v->it_value.tv_usec && !v->it_interval.tv_sec &&
	       !v->it_interval.tv_usec;
}

static void validation(void)
{
	struct itimerval it = {{0, 0}, {0, 1000000}}, got;

	CHECK_ERRNO(setitimer(ITIMER_REAL, &it, NULL), EINVAL, "it_value.tv_usec of 1000000");
	it.it_value.tv_usec = -1;
	CHECK_ERRNO(setitimer(ITIMER_REAL, &it, NULL), EINVAL, "a negative tv_usec");
	it.it_value.tv_usec = 0;
	it.it_value.tv_sec = -1;
	CHECK_ERRNO(setitimer(ITIMER_VIRTUAL, &it, NULL), EINVAL, "a negative tv_sec");
	it.it_value.tv_sec = 1;
	it.it_interval.tv_usec = 1000000;
	CHECK_ERRNO(setitimer(ITIMER_PROF, &it, NULL), EINVAL, "it_interval.tv_usec of 1000000");
	it.it_interval.tv_usec = 0;
	CHECK_ERRNO(raw_setitimer(3, &it, NULL), EINVAL, "setitimer of timer 3");
	CHECK_ERRNO(raw_setitimer(-1, &it, NULL), EINVAL, "setitimer of timer -1");
	CHECK_ERRNO(syscall(SYS_getitimer, 3, &got), EINVAL, "getitimer of timer 3");
	CHECK_ERRNO(raw_setitimer(ITIMER_REAL, (void *)16, NULL), EFAULT, "an unreadable new value");
	CHECK_ERRNO(syscall(SYS_getitimer, ITIMER_REAL, (void *)16), EFAULT,
		    "getitimer into unwritable memory");
	CHECK_EQ(raw_setitimer(ITIMER_REAL, NULL, NULL), 0, "a NULL new value disarms (Linux)");
	CHECK(getitimer(ITIMER_REAL, &got) == 0 && is_zero(&got), "nothing is armed");
}

static void values(void)
{
	struct itimerval it = {{0, 1}, {100, 0}}, got, old;

	setitimer(ITIMER_REAL, &it, NULL);
	getitimer(ITIMER_REAL, &got);
	CHECK(got.it_interval.tv_sec == 0 && got.it_interval.tv_usec == 1,
	      "a 1 us interval reads back as 1 us");
	CHECK(got.it_value.tv_sec == 99 && got.it_value.tv_usec > 0,
	      "the value reads back as a little less than 100 s");
	it.it_value.tv_sec = 0;
	it.it_value.tv_usec = 0;
	CHECK_EQ(setitimer(ITIMER_REAL, &it, &old), 0, "disarm");
	CHECK(old.it_value.tv_sec == 99 && old.it_interval.tv_usec == 1,
	      "setitimer returns the old setting");
	getitimer(ITIMER_REAL, &got);
	CHECK(is_zero(&got), "a zero value disarms and clears the interval");

	it.it_value.tv_sec = 50;
	it.it_interval.tv_sec = 2;
	it.it_interval.tv_usec = 500000;
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	getitimer(ITIMER_VIRTUAL, &got);
	CHECK(got.it_interval.tv_sec == 2 && got.it_interval.tv_usec == 500000,
	      "ITIMER_VIRTUAL keeps its interval");
	CHECK(got.it_value.tv_sec == 50, "and a value of about 50 s of CPU time");
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_VIRTUAL, &it, &old);
	CHECK(old.it_value.tv_sec == 50 && old.it_interval.tv_sec == 2, "old ITIMER_VIRTUAL value");
	getitimer(ITIMER_VIRTUAL, &got);
	CHECK(is_zero(&got), "ITIMER_VIRTUAL disarmed");
}

static void real_intervals(void)
{
	struct itimerval it = {{0, 5000}, {0, 5000}};
	sigset_t none;

	sigemptyset(&none);
	set(SIGALRM, count);
	hits = 0;
	stop_after = 10;
	which_stops = ITIMER_REAL;
	setitimer(ITIMER_REAL, &it, NULL);
	while (hits < 10)
		sigsuspend(&none);
	usleep(50000);
	/* The 10th handler disarms; an expiry that came while it ran (a slow
	 * machine: more than 5 ms in the handler) is delivered after it. */
	CHECK(hits == 10 || hits == 11,
	      "a 5 ms ITIMER_REAL interval fires again and again (10 counted), then stops");
}

static void cpu_timers(void)
{
	struct itimerval it = {{0, 0}, {0, 50000}}, got;
	struct timespec ts = {0, 300000000};

	set(SIGVTALRM, count);
	hits = 0;
	stop_after = 0;
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	nanosleep(&ts, NULL);
	CHECK_EQ(hits, 0, "ITIMER_VIRTUAL (50 ms) does not fire while the process sleeps 300 ms");
	getitimer(ITIMER_VIRTUAL, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec > 0, "it is still armed");
	CHECK(spin_until(one_hit) && hits == 1, "it fires once the process computes");
	getitimer(ITIMER_VIRTUAL, &got);
	CHECK(is_zero(&got), "a one-shot ITIMER_VIRTUAL is disarmed after it fired");

	set(SIGPROF, count);
	hits = 0;
	stop_after = 3;
	which_stops = ITIMER_PROF;
	it.it_interval.tv_usec = 10000;
	it.it_value.tv_usec = 10000;
	setitimer(ITIMER_PROF, &it, NULL);
	nanosleep(&ts, NULL);
	CHECK_EQ(hits, 0, "ITIMER_PROF does not fire while the process sleeps");
	CHECK(spin_until(stopped) && hits == 3, "a 10 ms ITIMER_PROF interval fires while it computes");
	nanosleep(&ts, NULL);
	CHECK_EQ(hits, 3, "and not after it was disarmed");
}

static void inheritance(const char *self)
{
	struct itimerval it = {{0, 0}, {100, 0}};
	int st = 0;
	pid_t p;

	setitimer(ITIMER_REAL, &it, NULL);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	p = fork();
	if (p == 0) {
		struct itimerval r, v, pr;
		getitimer(ITIMER_REAL, &r);
		getitimer(ITIMER_VIRTUAL, &v);
		getitimer(ITIMER_PROF, &pr);
		_exit(is_zero(&r) && is_zero(&v) && is_zero(&pr) ? 0 : 1);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a fork child starts with no itimers");

	p = fork();
	if (p == 0) {
		char *argv[] = {(char *)self, "exec-child", NULL};
		setitimer(ITIMER_REAL, &it, NULL);
		setitimer(ITIMER_VIRTUAL, &it, NULL);
		setitimer(ITIMER_PROF, &it, NULL);
		execv(self, argv);
		_exit(3);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "every itimer survives exec");
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
		struct itimerval r, v, p;
		getitimer(ITIMER_REAL, &r);
		getitimer(ITIMER_VIRTUAL, &v);
		getitimer(ITIMER_PROF, &p);
		return r.it_value.tv_sec >= 98 && r.it_value.tv_sec < 100 &&
				       v.it_value.tv_sec >= 99 && p.it_value.tv_sec >= 99
			       ? 0
			       : 1;
	}
	validation();
	values();
	real_intervals();
	cpu_timers();
	inheritance(argv[0]);
	return GUEST_DONE();
}
