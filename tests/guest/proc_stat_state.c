/*
 * Guest test: /proc/<pid>/stat and status show each process's real state
 * and CPU times. A child blocked in read(2) is S (sleeping), one spinning
 * is R (running), one stopped by SIGSTOP is T (stopped) and back to S after
 * SIGCONT, one dead and not yet reaped is Z (zombie) and gone once reaped;
 * the caller reading its own is R. utime + stime cover the CPU a
 * process spent (as times(2) counts it), a thread's task/<tid>/stat shows
 * its own, and cutime counts a reaped child's.
 */
#include "guest.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>

/* Field n (1-based; 3 is the state) of a stat file, as a string. */
static int stat_field(const char *path, int n, char *out, size_t size)
{
	char buf[1024], *p;
	int fd = open(path, O_RDONLY), len;

	if (fd < 0)
		return -1;
	len = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	p = strrchr(buf, ')'); /* the comm may hold blanks */
	if (!p)
		return -1;
	p += 2;
	for (int i = 3; i < n; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	snprintf(out, size, "%.*s", (int)strcspn(p, " \n"), p);
	return 0;
}

static char state_of(pid_t pid)
{
	char path[64], s[8];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return stat_field(path, 3, s, sizeof(s)) == 0 ? s[0] : '?';
}

/* The state "State:" in status shows, letter and name. */
static void status_state(pid_t pid, char *out, size_t size)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	snprintf(out, size, "?");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "State:\t", 7) == 0) {
			snprintf(out, size, "%.*s", (int)strcspn(line + 7, "\n"), line + 7);
			break;
		}
	fclose(f);
}

/* Wait up to 5 s for pid's state to become want. */
static char await_state(pid_t pid, char want)
{
	char s = '?';

	for (int i = 0; i < 500; i++) {
		s = state_of(pid);
		if (s == want)
			break;
		usleep(10000);
	}
	return s;
}

static long ticks_of(const char *path, int first)
{
	char a[32], b[32];

	if (stat_field(path, first, a, sizeof(a)) < 0 || stat_field(path, first + 1, b, sizeof(b)) < 0)
		return -1;
	return atol(a) + atol(b);
}

static double cpu_seconds(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(clockid_t clk, double seconds)
{
	double end = cpu_seconds(clk) + seconds;

	while (cpu_seconds(clk) < end)
		;
}

static volatile pid_t spinner_tid;

static void *spinner(void *arg)
{
	spinner_tid = gettid();
	spin(CLOCK_THREAD_CPUTIME_ID, 0.3);
	return NULL;
}

int main(void)
{
	int p[2], status;
	pid_t sleeper, runner, child;
	char s[64], path[64];
	struct tms tms;
	pthread_t th;
	long own, ticks = sysconf(_SC_CLK_TCK);

	CHECK_EQ(ticks, 100, "USER_HZ is 100");
	CHECK_EQ(state_of(getpid()), 'R', "the reader itself is R");
	status_state(getpid(), s, sizeof(s));
	CHECK(strcmp(s, "R (running)") == 0, "status says R (running)");

	if (pipe(p) < 0)
		return 1;
	sleeper = fork();
	if (sleeper == 0) {
		char c;
		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	CHECK_EQ(await_state(sleeper, 'S'), 'S', "a child blocked in read is S");
	status_state(sleeper, s, sizeof(s));
	CHECK(strcmp(s, "S (sleeping)") == 0, "status says S (sleeping)");

	kill(sleeper, SIGSTOP);
	CHECK_EQ(waitpid(sleeper, &status, WUNTRACED), sleeper, "waitpid sees the stop");
	CHECK(WIFSTOPPED(status), "the child stopped");
	CHECK_EQ(state_of(sleeper), 'T', "a stopped child is T");
	status_state(sleeper, s, sizeof(s));
	CHECK(strcmp(s, "T (stopped)") == 0, "status says T (stopped)");
	kill(sleeper, SIGCONT);
	CHECK_EQ(await_state(sleeper, 'S'), 'S', "after SIGCONT it sleeps again");
	close(p[1]);
	CHECK_EQ(waitpid(sleeper, &status, 0), sleeper, "the sleeper ends at EOF");

	runner = fork();
	if (runner == 0) {
		spin(CLOCK_PROCESS_CPUTIME_ID, 10);
		_exit(0);
	}
	CHECK_EQ(await_state(runner, 'R'), 'R', "a spinning child is R");
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)runner);
	for (int i = 0; i < 300 && ticks_of(path, 14) < 5; i++)
		usleep(10000);
	CHECK(ticks_of(path, 14) >= 5, "a spinning child's utime + stime grow");
	kill(runner, SIGKILL);
	waitpid(runner, &status, 0);

	/* Our own CPU: stat agrees with times(2). */
	spin(CLOCK_PROCESS_CPUTIME_ID, 0.3);
	own = ticks_of("/proc/self/stat", 14);
	times(&tms);
	CHECK(own >= 25, "utime + stime cover 0.3 s of CPU");
	CHECK(labs(own - (long)(tms.tms_utime + tms.tms_stime)) <= 5,
	      "utime + stime agree with times(2)");

	/* A thread's own times in task/<tid>/stat. */
	pthread_create(&th, NULL, spinner, NULL);
	pthread_join(th, NULL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)gettid());
	{
		long mine = ticks_of(path, 14), all = ticks_of("/proc/self/stat", 14);
		CHECK(all >= own + 25, "the process's times include its thread's");
		CHECK(mine >= 0 && mine <= all - 25, "the main thread's own times leave it out");
	}

	/* A child that ended and is not reaped yet: a zombie, until waitpid. */
	child = fork();
	if (child == 0)
		_exit(3);
	CHECK_EQ(await_state(child, 'Z'), 'Z', "an unreaped dead child is Z");
	status_state(child, s, sizeof(s));
	CHECK(strcmp(s, "Z (zombie)") == 0, "status says Z (zombie)");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)child);
	{
		char c;
		int fd = open(path, O_RDONLY);
		CHECK(fd >= 0 && read(fd, &c, 1) == 0, "a zombie's cmdline is empty");
		if (fd >= 0)
			close(fd);
	}
	CHECK_EQ(waitpid(child, &status, 0), child, "waitpid reaps it");
	snprintf(path, sizeof(path), "/proc/%d", (int)child);
	CHECK_ERRNO(access(path, F_OK), ENOENT, "a reaped child's /proc directory");

	/* A reaped child's times land in cutime + cstime. */
	child = fork();
	if (child == 0) {
		spin(CLOCK_PROCESS_CPUTIME_ID, 0.3);
		_exit(0);
	}
	waitpid(child, &status, 0);
	CHECK(ticks_of("/proc/self/stat", 16) >= 25, "cutime + cstime count the reaped child");
	return GUEST_DONE();
}
