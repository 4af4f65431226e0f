/*
 * Guest test: alarm(2) and ITIMER_REAL as SIGALRM's source. What alarm
 * returns (the remaining seconds, rounded as Linux rounds), a blocking read
 * interrupted (EINTR without SA_RESTART, restarted with it), pause and
 * nanosleep interrupted, SIGALRM's default action killing a process, and
 * what survives fork (nothing) and exec (the alarm).
 */
#include "guest.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t hits;
static int pipe_w = -1;

static void count(int sig)
{
	hits++;
}

/* An SA_RESTART handler that also makes the interrupted read succeed. */
static void count_and_write(int sig)
{
	hits++;
	write(pipe_w, "a", 1);
}

static void set(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = {.sa_handler = fn, .sa_flags = flags};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Arm ITIMER_REAL once, ms milliseconds from now. */
static void real_in_ms(long ms)
{
	struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};

	setitimer(ITIMER_REAL, &it, NULL);
}

static void returns(void)
{
	CHECK_EQ(alarm(0), 0, "alarm(0) with no alarm set returns 0");
	CHECK_EQ(alarm(5), 0, "alarm(5) returns 0: there was none");
	CHECK_EQ(alarm(0), 5, "alarm(0) returns the 5 seconds left (rounded up)");
	CHECK_EQ(alarm(0), 0, "and the alarm is gone");
	alarm(100);
	CHECK_EQ(alarm(7), 100, "a new alarm replaces the old one and returns its time");
	CHECK_EQ(alarm(0), 7, "the new one is the one left");
	{
		struct itimerval it = {{0, 0}, {0, 300000}};
		setitimer(ITIMER_REAL, &it, NULL);
		CHECK_EQ(alarm(0), 1, "less than a second left still counts as 1");
	}
	{
		struct itimerval it = {{1, 0}, {10, 0}}, got;
		setitimer(ITIMER_REAL, &it, NULL);
		alarm(0);
		getitimer(ITIMER_REAL, &got);
		CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec == 0 &&
			      got.it_interval.tv_sec == 0 && got.it_interval.tv_usec == 0,
		      "alarm(0) also clears setitimer's interval");
	}
}

static void interrupts(void)
{
	int fds[2];
	char c;
	ssize_t n;
	struct timespec ts = {5, 0}, rem = {0, 0};

	if (pipe(fds) < 0)
		return;
	pipe_w = fds[1];

	set(SIGALRM, count, 0);
	hits = 0;
	real_in_ms(50);
	errno = 0;
	n = read(fds[0], &c, 1);
	CHECK(n == -1 && errno == EINTR && hits == 1,
	      "an alarm interrupts a blocking read: EINTR without SA_RESTART");

	set(SIGALRM, count_and_write, SA_RESTART);
	hits = 0;
	real_in_ms(50);
	n = read(fds[0], &c, 1);
	CHECK(n == 1 && c == 'a' && hits == 1, "with SA_RESTART the read goes on after the handler");

	set(SIGALRM, count, 0);
	hits = 0;
	real_in_ms(50);
	errno = 0;
	CHECK(pause() == -1 && errno == EINTR && hits == 1, "pause returns after the SIGALRM handler");

	hits = 0;
	real_in_ms(50);
	errno = 0;
	n = nanosleep(&ts, &rem);
	CHECK(n == -1 && errno == EINTR && hits == 1, "nanosleep is interrupted with EINTR");
	CHECK(rem.tv_sec >= 1 && rem.tv_sec <= 5, "and says how much of its time is left");

	hits = 0;
	real_in_ms(100);
	CHECK_EQ(alarm(0), 1, "an alarm cancelled in time");
	usleep(300000);
	CHECK_EQ(hits, 0, "never fires");
	close(fds[0]);
	close(fds[1]);
}

static void default_action(void)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		signal(SIGALRM, SIG_DFL);
		real_in_ms(20);
		for (;;)
			pause();
	}
	CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM,
	      "SIGALRM's default action kills the process");
}

static void inheritance(const char *self)
{
	int st = 0;
	unsigned left;
	pid_t p;

	alarm(100);
	p = fork();
	if (p == 0)
		_exit(alarm(0) == 0 ? 0 : 1);
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a fork child has no alarm");
	left = alarm(100);
	CHECK(left >= 99 && left <= 100, "the parent keeps its own");

	p = fork();
	if (p == 0) {
		char *argv[] = {(char *)self, "exec-child", NULL};
		alarm(100);
		execv(self, argv);
		_exit(3);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the alarm survives exec");
	alarm(0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
		unsigned left = alarm(0);
		/* Only the exit status speaks for this image. */
		return left >= 99 && left <= 100 ? 0 : 1;
	}
	returns();
	interrupts();
	default_action();
	inheritance(argv[0]);
	return GUEST_DONE();
}
