/*
 * Guest test: POSIX timers on the wall clocks. Each notification kind
 * (SIGEV_SIGNAL with its siginfo, no sigevent at all, SIGEV_THREAD_ID to
 * one thread, SIGEV_NONE, glibc's SIGEV_THREAD), CLOCK_REALTIME,
 * MONOTONIC, BOOTTIME and TAI, TIMER_ABSTIME, the old value, overruns counted
 * while the signal stays blocked (si_overrun and timer_getoverrun agree),
 * timers not inherited by fork, the RLIMIT_SIGPENDING limit, and the
 * errors (EINVAL, EOPNOTSUPP, EFAULT).
 */
#include "guest.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t hits;
static volatile int got_code, got_timerid, got_overrun, got_value, got_getoverrun;
static volatile pid_t got_tid;
static timer_t disarm_me;

/* Records the siginfo; hits goes up last (another thread may be waiting for it). */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	got_code = si->si_code;
	got_timerid = si->si_timerid;
	got_overrun = si->si_overrun;
	got_value = si->si_value.sival_int;
	got_tid = gettid();
	hits++;
}

/* The first delivery: record, read timer_getoverrun, disarm the timer. */
static void on_timer_disarm(int sig, siginfo_t *si, void *uc)
{
	struct itimerspec zero = {{0, 0}, {0, 0}};

	if (hits++ == 0) {
		got_overrun = si->si_overrun;
		got_getoverrun = timer_getoverrun(disarm_me);
		timer_settime(disarm_me, 0, &zero, NULL);
	}
}

static void set_info(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa = {.sa_sigaction = fn, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static struct itimerspec ms(long value, long interval)
{
	struct itimerspec its = {{interval / 1000, (interval % 1000) * 1000000},
				 {value / 1000, (value % 1000) * 1000000}};
	return its;
}

/* Wait (in short sleeps, up to 5 s) until hits reaches n. */
static int wait_hits(int n)
{
	for (int i = 0; i < 500 && hits < n; i++)
		usleep(10000);
	return hits >= n;
}

static int kid(timer_t t)
{
	return (int)(intptr_t)t;
}

static void signal_kind(clockid_t clk, const char *what)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 1};
	struct itimerspec its = ms(10, 0);
	timer_t t;
	char msg[128];

	ev.sigev_value.sival_int = 77;
	set_info(SIGRTMIN + 1, on_timer);
	hits = 0;
	snprintf(msg, sizeof(msg), "timer_create(%s, SIGEV_SIGNAL)", what);
	CHECK_EQ(timer_create(clk, &ev, &t), 0, msg);
	timer_settime(t, 0, &its, NULL);
	snprintf(msg, sizeof(msg), "a %s timer fires once", what);
	CHECK(wait_hits(1) && hits == 1, msg);
	CHECK(got_code == SI_TIMER && got_timerid == kid(t) && got_overrun == 0 && got_value == 77,
	      "  with SI_TIMER, its timer id, no overrun and its sigev_value");
	CHECK_EQ(timer_getoverrun(t), 0, "  timer_getoverrun is 0");
	timer_delete(t);
}

static void default_event(void)
{
	struct itimerspec its = ms(10, 0);
	int id = -1;

	set_info(SIGALRM, on_timer);
	hits = 0;
	/* The raw call: glibc passes a sigevent of its own. */
	CHECK_EQ(syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &id), 0,
		 "timer_create without a sigevent");
	syscall(SYS_timer_settime, id, 0, &its, NULL);
	CHECK(wait_hits(1) && got_code == SI_TIMER && got_value == id && got_timerid == id,
	      "it sends SIGALRM with the timer id as its value");
	syscall(SYS_timer_delete, id);
}

static volatile int worker_stop;

static void *worker(void *arg)
{
	*(volatile pid_t *)arg = gettid();
	while (!worker_stop)
		usleep(1000);
	return NULL;
}

static void thread_id_kind(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGRTMIN + 2};
	struct itimerspec its = ms(20, 0);
	volatile pid_t wtid = 0;
	pthread_t th;
	timer_t t;
	pid_t child;
	int st;

	set_info(SIGRTMIN + 2, on_timer);
	pthread_create(&th, NULL, worker, (void *)&wtid);
	while (!wtid)
		usleep(1000);
	hits = 0;
	ev._sigev_un._tid = wtid;
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0, "timer_create(SIGEV_THREAD_ID)");
	timer_settime(t, 0, &its, NULL);
	CHECK(wait_hits(1) && got_tid == wtid && got_code == SI_TIMER,
	      "SIGEV_THREAD_ID: the handler runs in the chosen thread");
	timer_delete(t);
	worker_stop = 1;
	pthread_join(th, NULL);

	ev._sigev_un._tid = 0x3fffffff;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL, "SIGEV_THREAD_ID of no thread");
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	ev._sigev_un._tid = child;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL,
		    "SIGEV_THREAD_ID of another process");
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev._sigev_un._tid = gettid();
	ev.sigev_signo = 0;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL, "SIGEV_THREAD_ID with signal 0");
}

static void none_kind(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_NONE};
	struct itimerspec its = ms(200, 0), got, got2;
	timer_t t;

	hits = 0;
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0, "timer_create(SIGEV_NONE)");
	timer_settime(t, 0, &its, NULL);
	timer_gettime(t, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec > 100000000 &&
		      got.it_value.tv_nsec <= 200000000,
	      "SIGEV_NONE: timer_gettime shows the time left");
	usleep(20000);
	timer_gettime(t, &got2);
	CHECK(got2.it_value.tv_nsec < got.it_value.tv_nsec, "  and it goes down");
	its = ms(10, 30);
	timer_settime(t, 0, &its, NULL);
	usleep(100000);
	timer_gettime(t, &got);
	CHECK(got.it_interval.tv_nsec == 30000000 && got.it_value.tv_sec == 0 &&
		      got.it_value.tv_nsec > 0 && got.it_value.tv_nsec <= 30000000,
	      "  a periodic one keeps counting within its interval");
	its = ms(10, 0);
	timer_settime(t, 0, &its, NULL);
	usleep(50000);
	timer_gettime(t, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec == 0, "  an expired one-shot shows 0");
	CHECK_EQ(hits, 0, "  and no signal ever came");
	timer_delete(t);
}

static volatile int thread_value;
static volatile pid_t thread_tid;

static void notify_fn(union sigval v)
{
	thread_tid = gettid();
	thread_value = v.sival_int;
}

static void thread_kind(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD, .sigev_notify_function = notify_fn};
	struct itimerspec its = ms(10, 0);
	timer_t t;

	ev.sigev_value.sival_int = 4242;
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0, "timer_create(SIGEV_THREAD) (glibc)");
	timer_settime(t, 0, &its, NULL);
	for (int i = 0; i < 500 && !thread_value; i++)
		usleep(10000);
	CHECK(thread_value == 4242 && thread_tid != gettid(),
	      "SIGEV_THREAD: the function runs in another thread with the value");
	timer_delete(t);
}

static void absolute_and_old(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 1};
	struct itimerspec its = {{0, 0}, {0, 0}}, old;
	struct timespec now;
	timer_t t;

	set_info(SIGRTMIN + 1, on_timer);
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	hits = 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	its.it_value = now;
	its.it_value.tv_nsec += 20000000;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_nsec -= 1000000000;
		its.it_value.tv_sec++;
	}
	CHECK_EQ(timer_settime(t, TIMER_ABSTIME, &its, NULL), 0, "TIMER_ABSTIME 20 ms ahead");
	CHECK(wait_hits(1) && hits == 1, "  fires");
	its.it_value.tv_sec = 1;
	its.it_value.tv_nsec = 0;
	hits = 0;
	timer_settime(t, TIMER_ABSTIME, &its, NULL);
	CHECK(wait_hits(1) && hits == 1, "TIMER_ABSTIME in the past fires at once");

	its = ms(100000, 2500);
	timer_settime(t, 0, &its, NULL);
	its = ms(0, 0);
	CHECK_EQ(timer_settime(t, 0, &its, &old), 0, "disarm with the old value asked for");
	CHECK(old.it_interval.tv_sec == 2 && old.it_interval.tv_nsec == 500000000 &&
		      old.it_value.tv_sec == 99 && old.it_value.tv_nsec > 0,
	      "  the old value: the interval exactly, a little less than 100 s left");
	timer_gettime(t, &old);
	CHECK(old.it_value.tv_sec == 0 && old.it_value.tv_nsec == 0 && old.it_interval.tv_sec == 0,
	      "  then timer_gettime shows it disarmed");
	timer_delete(t);
}

static void overruns(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 3};
	struct itimerspec its = ms(2, 2), got;
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN + 3);
	sigprocmask(SIG_BLOCK, &block, NULL);
	set_info(SIGRTMIN + 3, on_timer_disarm);
	timer_create(CLOCK_MONOTONIC, &ev, &disarm_me);
	hits = 0;
	timer_settime(disarm_me, 0, &its, NULL);
	usleep(200000);
	CHECK_EQ(hits, 0, "a periodic 2 ms timer whose signal is blocked for 200 ms");
	timer_gettime(disarm_me, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec > 0 &&
		      got.it_value.tv_nsec <= 2000000,
	      "  timer_gettime meanwhile: the next expiry within one interval");
	/* (Another expiry may come before the handler disarms the timer.) */
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	CHECK(hits >= 1, "  is delivered when unblocked");
	CHECK(got_overrun >= 50 && got_overrun <= 5000,
	      "  with the missed expirations in si_overrun");
	CHECK_EQ(got_getoverrun, got_overrun, "  which timer_getoverrun also reports");
	timer_delete(disarm_me);
}

static void inheritance(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_NONE};
	struct itimerspec its = ms(100000, 0);
	timer_t t;
	int st = 0;
	pid_t p;

	timer_create(CLOCK_MONOTONIC, &ev, &t);
	timer_settime(t, 0, &its, NULL);
	p = fork();
	if (p == 0) {
		struct itimerspec got;
		timer_t c;
		/* Raw calls: the child has no such timer, and ids start at 0 again. */
		if (syscall(SYS_timer_gettime, kid(t), &got) != -1 || errno != EINVAL)
			_exit(1);
		if (timer_create(CLOCK_MONOTONIC, &ev, &c) != 0 || kid(c) != 0)
			_exit(2);
		_exit(0);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a fork child inherits no timer (and numbers its own from 0)");
	timer_delete(t);
}

static void limit(void)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		struct rlimit rl = {0, 0};
		struct sigevent ev = {.sigev_notify = SIGEV_NONE};
		timer_t t;
		if (setrlimit(RLIMIT_SIGPENDING, &rl) < 0)
			_exit(3);
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) != -1 || errno != EAGAIN)
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "with RLIMIT_SIGPENDING 0, timer_create fails with EAGAIN");
}

static void errors(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 1};
	struct itimerspec its = ms(10, 0);
	timer_t t;
	int id;

	CHECK_ERRNO(timer_create(12345, &ev, &t), EINVAL, "timer_create of an unknown clock");
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC_RAW, &ev, &t), EOPNOTSUPP,
		    "timer_create(CLOCK_MONOTONIC_RAW)");
	CHECK_ERRNO(timer_create(CLOCK_REALTIME_COARSE, &ev, &t), EOPNOTSUPP,
		    "timer_create(CLOCK_REALTIME_COARSE)");
	ev.sigev_signo = 0;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL, "signal 0");
	ev.sigev_signo = 65;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL, "signal 65");
	ev.sigev_signo = SIGRTMIN + 1;
	ev.sigev_notify = 99;
	CHECK_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &t), EINVAL, "sigev_notify 99");
	ev.sigev_notify = SIGEV_NONE;
	ev.sigev_signo = 0;
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0, "SIGEV_NONE needs no signal");
	CHECK_ERRNO(syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)16, &id), EFAULT,
		    "an unreadable sigevent");
	CHECK_ERRNO(syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, (void *)16), EFAULT,
		    "an unwritable timer id");

	its.it_value.tv_nsec = 1000000000;
	CHECK_ERRNO(timer_settime(t, 0, &its, NULL), EINVAL, "timer_settime with tv_nsec 1e9");
	its.it_value.tv_nsec = 0;
	its.it_value.tv_sec = -1;
	CHECK_ERRNO(timer_settime(t, 0, &its, NULL), EINVAL, "timer_settime with a negative time");
	its.it_value.tv_sec = 0;
	its.it_interval.tv_nsec = -1;
	CHECK_ERRNO(timer_settime(t, 0, &its, NULL), EINVAL, "a negative interval");
	CHECK_ERRNO(syscall(SYS_timer_settime, kid(t), 0, NULL, NULL), EINVAL,
		    "timer_settime without a new value");
	CHECK_ERRNO(syscall(SYS_timer_settime, kid(t), 0, (void *)16, NULL), EFAULT,
		    "an unreadable new value");
	CHECK_ERRNO(syscall(SYS_timer_gettime, kid(t), (void *)16), EFAULT,
		    "timer_gettime into unwritable memory");
	CHECK_EQ(timer_delete(t), 0, "timer_delete");
	CHECK_ERRNO(syscall(SYS_timer_delete, kid(t)), EINVAL, "timer_delete again");
	CHECK_ERRNO(syscall(SYS_timer_gettime, kid(t), &its), EINVAL, "timer_gettime of a deleted timer");
	CHECK_ERRNO(syscall(SYS_timer_settime, 123456, 0, &its, NULL), EINVAL,
		    "timer_settime of an unknown id");
	CHECK_ERRNO(syscall(SYS_timer_getoverrun, -1), EINVAL, "timer_getoverrun of id -1");
}

int main(void)
{
	signal_kind(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	signal_kind(CLOCK_REALTIME, "CLOCK_REALTIME");
	signal_kind(CLOCK_BOOTTIME, "CLOCK_BOOTTIME");
	signal_kind(CLOCK_TAI, "CLOCK_TAI");
	default_event();
	thread_id_kind();
	none_kind();
	thread_kind();
	absolute_and_old();
	overruns();
	inheritance();
	limit();
	errors();
	return GUEST_DONE();
}
