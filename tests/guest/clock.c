/*
 * Guest test: clocks. CLOCK_MONOTONIC never goes backwards, sleeps advance
 * it by at least what was asked, the realtime clocks agree with each other,
 * clock_getres gives sane resolutions, and bad arguments get EINVAL.
 * Timings only ever decide "at least": nothing here depends on speed.
 */
#include "guest.h"

#include <sys/time.h>
#include <time.h>

static int64_t ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* The system call itself, not the vDSO. */
static int64_t mono_sys(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ns(&ts);
}

static int64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns(&ts);
}

int main(void)
{
	static const struct {
		clockid_t id;
		const char *name;
	} clocks[] = {
		{CLOCK_REALTIME, "CLOCK_REALTIME"},
		{CLOCK_MONOTONIC, "CLOCK_MONOTONIC"},
		{CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID"},
		{CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID"},
		{CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW"},
		{CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE"},
		{CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE"},
		{CLOCK_BOOTTIME, "CLOCK_BOOTTIME"},
		{CLOCK_TAI, "CLOCK_TAI"},
	};
	struct timespec ts, res, req;
	struct timeval tv;
	int64_t prev, now, t0, t1;
	time_t t, t2;
	int backwards = 0;
	char what[96];

	/* Every clock a program may ask for works and has a resolution. */
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		snprintf(what, sizeof(what), "clock_gettime(%s)", clocks[i].name);
		CHECK_EQ(syscall(SYS_clock_gettime, clocks[i].id, &ts), 0, what);
		CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, "tv_nsec is in range");
		snprintf(what, sizeof(what), "clock_getres(%s)", clocks[i].name);
		CHECK_EQ(syscall(SYS_clock_getres, clocks[i].id, &res), 0, what);
		CHECK(res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 10000000,
		      "the resolution is between 1ns and 10ms");
		CHECK_EQ(syscall(SYS_clock_getres, clocks[i].id, NULL), 0,
			 "clock_getres with a NULL result");
	}
	CHECK_EQ(syscall(SYS_clock_getres, CLOCK_MONOTONIC, &res), 0, "clock_getres MONOTONIC");
	CHECK(res.tv_sec == 0 && res.tv_nsec <= 1000, "CLOCK_MONOTONIC resolves to 1us or better");

	/* Monotonic: never backwards, by the system call and by libc. */
	prev = mono_sys();
	for (int i = 0; i < 2000; i++) {
		now = (i & 1) ? mono_sys() : mono();
		if (now < prev)
			backwards++;
		prev = now;
	}
	CHECK_EQ(backwards, 0, "CLOCK_MONOTONIC never went backwards in 2000 reads");

	/* Sleeps last at least as long as asked. */
	t0 = mono();
	req = (struct timespec){.tv_sec = 0, .tv_nsec = 10000000};
	CHECK_EQ(nanosleep(&req, NULL), 0, "nanosleep 10ms");
	t1 = mono();
	CHECK(t1 - t0 >= 10000000, "nanosleep 10ms advanced CLOCK_MONOTONIC by at least 10ms");

	t0 = mono();
	CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL), 0, "clock_nanosleep relative");
	t1 = mono();
	CHECK(t1 - t0 >= 10000000, "clock_nanosleep 10ms lasted at least 10ms");

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ns(&ts) + 5000000;
	req = (struct timespec){.tv_sec = t0 / 1000000000, .tv_nsec = t0 % 1000000000};
	CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL), 0,
		 "clock_nanosleep absolute");
	CHECK(mono() >= t0, "clock_nanosleep TIMER_ABSTIME woke no earlier than asked");
	req = (struct timespec){.tv_sec = 0, .tv_nsec = 1};
	CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL), 0,
		 "clock_nanosleep to a time in the past returns at once");
	req = (struct timespec){0, 0};
	CHECK_EQ(nanosleep(&req, NULL), 0, "nanosleep of 0");

	/* The realtime views agree to the second. */
	clock_gettime(CLOCK_REALTIME, &ts);
	t = time(NULL);
	CHECK_EQ(syscall(SYS_gettimeofday, &tv, NULL), 0, "gettimeofday");
	t2 = syscall(SYS_time, NULL);
	/* time() reads the coarse clock, which may lag a tick behind. */
	CHECK(t + 1 >= ts.tv_sec && t - ts.tv_sec <= 1, "time() agrees with CLOCK_REALTIME");
	CHECK(tv.tv_sec >= ts.tv_sec && tv.tv_sec - ts.tv_sec <= 1,
	      "gettimeofday agrees with CLOCK_REALTIME");
	CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000, "tv_usec is in range");
	CHECK(t2 >= t && t2 - t <= 1, "the time system call agrees with time()");
	CHECK(ts.tv_sec > 1600000000, "the realtime clock is past 2020");
	CHECK_EQ(syscall(SYS_time, &t2), t2, "time(&t) returns what it stores");
	CHECK_EQ(syscall(SYS_gettimeofday, NULL, NULL), 0, "gettimeofday with NULL arguments");

	/* Errors. */
	CHECK_ERRNO(syscall(SYS_clock_gettime, 100, &ts), EINVAL, "clock_gettime of clock 100");
	CHECK_ERRNO(syscall(SYS_clock_gettime, -1, &ts), EINVAL, "clock_gettime of clock -1");
	CHECK_ERRNO(syscall(SYS_clock_getres, 100, &res), EINVAL, "clock_getres of clock 100");
	req = (struct timespec){.tv_sec = 0, .tv_nsec = 1000000000};
	CHECK_ERRNO(syscall(SYS_nanosleep, &req, NULL), EINVAL, "nanosleep with tv_nsec 1e9");
	req = (struct timespec){.tv_sec = -1, .tv_nsec = 0};
	CHECK_ERRNO(syscall(SYS_nanosleep, &req, NULL), EINVAL, "nanosleep with tv_sec -1");
	req = (struct timespec){.tv_sec = 0, .tv_nsec = -1};
	CHECK_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL), EINVAL,
		    "clock_nanosleep with tv_nsec -1");
	req = (struct timespec){0, 1};
	CHECK_ERRNO(syscall(SYS_clock_nanosleep, 100, 0, &req, NULL), EINVAL,
		    "clock_nanosleep of clock 100");

	return GUEST_DONE();
}
