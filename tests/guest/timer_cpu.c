/*
 * Guest test: CPU-time clocks and timers. CLOCK_THREAD_CPUTIME_ID and
 * CLOCK_PROCESS_CPUTIME_ID advance while the thread (process) computes and
 * not while it sleeps; the process clock keeps the time of threads that
 * exited; another thread's and another process's clocks can be read (and
 * not once they are gone); timers on CPU clocks fire only once enough CPU
 * time was used: the process clock, the thread's own clock (not advanced
 * by a sibling), a sibling's clock, a child process's clock; and
 * clock_nanosleep on CPU clocks (the process's, a sibling's; not one's own
 * thread clock), interrupted by a signal with the CPU time left.
 */
#include "guest.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#define MS 1000000ull

static volatile sig_atomic_t hits;
static volatile int got_code;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	got_code = si->si_code;
	hits++;
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Compute until clock clk advanced by ns or cond() holds (cond may be
 * NULL); gives up after 20 s of wall time. Returns whether it got there. */
static int spin(clockid_t clk, uint64_t ns, volatile sig_atomic_t *until)
{
	uint64_t start = clock_ns(clk), end = clock_ns(CLOCK_MONOTONIC) + 20000ull * MS;
	volatile uint64_t x = 0;

	for (;;) {
		if (until ? *until != 0 : clock_ns(clk) - start >= ns)
			return 1;
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return 0;
		for (int i = 0; i < 20000; i++)
			x += (uint64_t)i * 3;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void *burner(void *arg)
{
	spin(CLOCK_THREAD_CPUTIME_ID, 100 * MS, NULL);
	return arg;
}

static void clocks(void)
{
	struct timespec res;
	uint64_t t0, p0, t1, p1;
	pthread_t th;
	clockid_t tc;

	CHECK(clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res) == 0 && res.tv_sec == 0 &&
		      res.tv_nsec == 1,
	      "CLOCK_PROCESS_CPUTIME_ID has a 1 ns resolution");
	CHECK(clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) == 0 && res.tv_nsec == 1,
	      "so has CLOCK_THREAD_CPUTIME_ID");
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	CHECK(p0 >= t0, "the process has used at least what its only thread used");
	CHECK(spin(CLOCK_THREAD_CPUTIME_ID, 50 * MS, NULL), "the thread clock advances while it computes");
	CHECK(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 >= 50 * MS, "  and so does the process clock");
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	sleep_ms(200);
	CHECK(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < 50 * MS, "it stands still while it sleeps");

	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	pthread_create(&th, NULL, burner, NULL);
	CHECK(pthread_getcpuclockid(th, &tc) == 0 && clock_ns(tc) < 1000 * MS,
	      "another thread's clock can be read");
	pthread_join(th, NULL);
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	CHECK(t1 - t0 < 50 * MS, "a sibling's work does not move the thread clock");
	CHECK(p1 - p0 >= 100 * MS, "the process clock keeps the time of a thread that exited");

	CHECK_ERRNO(clock_gettime((clockid_t)((~0u << 3) | 3), &res), EINVAL,
		    "a CPU clock id with an invalid clock type");
}

static timer_t make_timer(clockid_t clk);
static void arm_ms(timer_t t, long ms, long interval);

/* Read a byte, through signal interruptions. */
static void read_byte(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

static void other_process(void)
{
	int go[2], done[2], st;
	clockid_t pc;
	struct timespec ts;
	timer_t t;
	pid_t p;

	pipe(go);
	pipe(done);
	p = fork();
	if (p == 0) {
		read_byte(go[0]);
		spin(CLOCK_PROCESS_CPUTIME_ID, 200 * MS, NULL);
		write(done[1], "d", 1);
		read_byte(go[0]);
		_exit(0);
	}
	CHECK_EQ(clock_getcpuclockid(p, &pc), 0, "clock_getcpuclockid of a child");
	hits = 0;
	t = make_timer(pc);
	arm_ms(t, 50, 0);
	sleep_ms(100);
	CHECK_EQ(hits, 0, "a timer on an idle child's CPU clock waits");
	write(go[1], "g", 1);
	read_byte(done[0]);
	CHECK_EQ(hits, 1, "  and fires (here) while the child computes");
	CHECK(clock_ns(pc) >= 200 * MS, "the child's process clock shows the CPU time it used");
	CHECK_ERRNO(clock_gettime(((~(clockid_t)p) << 3) | 2 | 4, &ts), EINVAL,
		    "a thread clock of another process");
	write(go[1], "g", 1);
	waitpid(p, &st, 0);
	CHECK_ERRNO(clock_gettime(pc, &ts), EINVAL, "the clock of a reaped child");
	timer_delete(t);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

static timer_t make_timer(clockid_t clk)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 4};
	timer_t t = 0;

	if (timer_create(clk, &ev, &t) != 0)
		printf("FAIL: timer_create on a CPU clock (errno %d)\n", errno);
	return t;
}

static void arm_ms(timer_t t, long ms, long interval)
{
	struct itimerspec its = {{interval / 1000, (interval % 1000) * 1000000},
				 {ms / 1000, (ms % 1000) * 1000000}};

	timer_settime(t, 0, &its, NULL);
}

static volatile sig_atomic_t sibling_done;
static int sibling_go[2]; /* a byte starts the sibling's work */

static void *sibling(void *arg)
{
	char c;

	/* Idle until then: blocked, not waking every millisecond (on a loaded
	 * host each wake-up's wait for a CPU would look like CPU time to a
	 * platform that counts guest time between system calls). */
	if (read(sibling_go[0], &c, 1) != 1)
		return arg;
	spin(CLOCK_THREAD_CPUTIME_ID, 200 * MS, NULL);
	sibling_done = 1;
	return arg;
}

static void timers(void)
{
	struct itimerspec got;
	pthread_t th;
	clockid_t tc;
	timer_t t;

	CHECK_EQ(pipe(sibling_go), 0, "pipe");
	t = make_timer(CLOCK_PROCESS_CPUTIME_ID);
	hits = 0;
	arm_ms(t, 50, 0);
	sleep_ms(300);
	CHECK_EQ(hits, 0, "a 50 ms process CPU timer does not fire while the process sleeps 300 ms");
	timer_gettime(t, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec > 0 &&
		      got.it_value.tv_nsec <= 50000000,
	      "  timer_gettime shows what is left of it");
	CHECK(spin(CLOCK_MONOTONIC, 0, &hits) && hits == 1 && got_code == SI_TIMER,
	      "  it fires once the process computes");
	timer_gettime(t, &got);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec == 0, "  and is disarmed then");
	hits = 0;
	arm_ms(t, 10, 10);
	CHECK(spin(CLOCK_MONOTONIC, 0, &hits), "a periodic process CPU timer fires");
	hits = 0;
	CHECK(spin(CLOCK_MONOTONIC, 0, &hits), "  and fires again");
	arm_ms(t, 0, 0);
	timer_delete(t);

	/* The thread's own clock: a sibling's work does not count. */
	t = make_timer(CLOCK_THREAD_CPUTIME_ID);
	hits = 0;
	sibling_done = 0;
	pthread_create(&th, NULL, sibling, NULL);
	arm_ms(t, 50, 0);
	write(sibling_go[1], "g", 1);
	pthread_join(th, NULL);
	CHECK(sibling_done && hits == 0, "a thread CPU timer ignores a sibling's 200 ms of work");
	CHECK(spin(CLOCK_MONOTONIC, 0, &hits) && hits == 1, "  and fires when its thread computes");
	timer_delete(t);

	/* A sibling's clock. */
	hits = 0;
	sibling_done = 0;
	pthread_create(&th, NULL, sibling, NULL);
	pthread_getcpuclockid(th, &tc);
	t = make_timer(tc);
	arm_ms(t, 50, 0);
	sleep_ms(100);
	CHECK_EQ(hits, 0, "a timer on an idle sibling's clock waits");
	write(sibling_go[1], "g", 1);
	pthread_join(th, NULL);
	CHECK_EQ(hits, 1, "  and fires while the sibling computes");
	timer_delete(t);
}

static volatile int burner_stop;

static void *burn_until_stopped(void *arg)
{
	volatile uint64_t x = 0;

	while (!burner_stop)
		x++;
	return arg;
}

static void on_alarm(int sig)
{
}

static void sleeps(void)
{
	struct timespec ts = {0, 50000000}, rem = {0, 0};
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval it = {{0, 0}, {0, 50000}};
	clockid_t own = (clockid_t)((~0u << 3) | 6), tc;
	uint64_t p0;
	pthread_t th;

	CHECK_EQ(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL), EINVAL,
		 "clock_nanosleep on CLOCK_THREAD_CPUTIME_ID: EINVAL (glibc)");
	CHECK_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL),
		    EOPNOTSUPP, "the raw call on CLOCK_THREAD_CPUTIME_ID");
	CHECK_ERRNO(syscall(SYS_clock_nanosleep, own, 0, &ts, NULL), EINVAL,
		    "the raw call on the caller's own thread clock");
	CHECK_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC_RAW, 0, &ts, NULL), EOPNOTSUPP,
		    "clock_nanosleep on CLOCK_MONOTONIC_RAW");

	burner_stop = 0;
	pthread_create(&th, NULL, burn_until_stopped, NULL);
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	CHECK_EQ(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &ts, NULL), 0,
		 "clock_nanosleep for 50 ms of process CPU time while a thread computes");
	CHECK(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 >= 50 * MS, "  returns once they were used");
	pthread_getcpuclockid(th, &tc);
	p0 = clock_ns(tc);
	CHECK_EQ(clock_nanosleep(tc, 0, &ts, NULL), 0, "clock_nanosleep on a sibling's clock");
	CHECK(clock_ns(tc) - p0 >= 50 * MS, "  returns once the sibling used 50 ms");
	burner_stop = 1;
	pthread_join(th, NULL);

	/* Nothing computes now: only a signal ends the sleep. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	ts.tv_sec = 10;
	ts.tv_nsec = 0;
	CHECK_EQ(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &ts, &rem), EINTR,
		 "a signal interrupts a CPU-time sleep: EINTR");
	CHECK(rem.tv_sec >= 9 && rem.tv_sec <= 10, "  with the CPU time still to go");
}

int main(void)
{
	struct sigaction sa = {.sa_sigaction = on_timer, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 4, &sa, NULL);
	clocks();
	other_process();
	timers();
	sleeps();
	return GUEST_DONE();
}
