/*
 * procs: the process, thread and IPC workloads.
 *
 *   procs fork N          fork; the child _exits at once; waitpid
 *   procs exec N PROGRAM  fork; the child execs PROGRAM (bench/nop.c: a
 *                         static program that only exits); waitpid
 *   procs thread N        pthread_create of a thread that returns; pthread_join
 *   procs pipe N          a round trip between two processes over two pipes:
 *                         the parent writes one byte, the child reads it and
 *                         writes one back, the parent reads it
 *   procs unix N          the same over a unix stream socketpair
 *
 * Like fsops, each command times itself around its loop with
 * clock_gettime(CLOCK_MONOTONIC), after an untimed warm-up of N/10 (at
 * least 10), and prints one line such as
 *
 *   fork n=1000 ns_per_op=123456.7
 *
 * Every child's exit status and every byte is checked; a wrong one fails the
 * run (status 1). When the kernel under it lacks what a workload needs
 * (socketpair failing with ENOSYS, EAFNOSUPPORT, EPROTONOSUPPORT or
 * EOPNOTSUPP), it prints "unsupported: WHAT: ERRNO" and exits with status 0,
 * and bench/run reports the configuration as unsupported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "procs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *msg, const char *arg)
{
	fprintf(stderr, "procs: %s %s\n", msg, arg ? arg : "");
	exit(1);
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v <= 0)
		fail("not a positive number:", s);
	return v;
}

static long warmup(long n)
{
	return n / 10 < 10 ? 10 : n / 10;
}

static void report(const char *name, long n, double ns)
{
	printf("%s n=%ld ns_per_op=%.1f\n", name, n, ns / (double)n);
}

/* Reap pid, which must have exited with status 0. */
static void reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "procs: child ended with status %#x\n", st);
		exit(1);
	}
}

/* --- fork, exec, threads ------------------------------------------------------ */

static void forks(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0)
			_exit(0);
		reap(p);
	}
}

static void bench_fork(long n)
{
	double t0;

	forks(warmup(n));
	t0 = now_ns();
	forks(n);
	report("fork", n, now_ns() - t0);
}

static void execs(long n, const char *prog)
{
	char *argv[] = {(char *)prog, NULL}, *envp[] = {NULL};

	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			execve(prog, argv, envp);
			_exit(127);
		}
		reap(p);
	}
}

static void bench_exec(long n, const char *prog)
{
	double t0;

	execs(warmup(n), prog);
	t0 = now_ns();
	execs(n, prog);
	report("exec", n, now_ns() - t0);
}

static void *thread_main(void *arg)
{
	return arg;
}

static void threads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t th;
		void *ret;
		int e = pthread_create(&th, NULL, thread_main, (void *)i);
		if (e) {
			errno = e;
			die("pthread_create");
		}
		if (pthread_join(th, &ret) != 0 || ret != (void *)i)
			fail("pthread_join: a wrong result", NULL);
	}
}

static void bench_thread(long n)
{
	double t0;

	threads(warmup(n));
	t0 = now_ns();
	threads(n);
	report("thread", n, now_ns() - t0);
}

/* --- ping-pong ---------------------------------------------------------------- */

static void xread(int fd, char want)
{
	char c;
	ssize_t r;

	while ((r = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1)
		r < 0 ? die("read") : fail("read: end of file", NULL);
	if (c != want)
		fail("read: a wrong byte", NULL);
}

static void xwrite(int fd, char c)
{
	ssize_t r;

	while ((r = write(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1)
		die("write");
}

/*
 * Ping-pong over to (parent -> child) and from (child -> parent): the
 * parent's descriptors are to[1] and from[0], the child's to[0] and from[1]
 * (the same descriptor twice for a socketpair).
 */
static void pingpong(const char *name, long n, int to[2], int from[2])
{
	long w = warmup(n);
	double t0;
	pid_t p = fork();

	if (p < 0)
		die("fork");
	if (p == 0) {
		for (long i = 0; i < w + n; i++) {
			xread(to[0], (char)i);
			xwrite(from[1], (char)~i);
		}
		_exit(0);
	}
	for (long i = 0; i < w; i++) {
		xwrite(to[1], (char)i);
		xread(from[0], (char)~i);
	}
	t0 = now_ns();
	for (long i = w; i < w + n; i++) {
		xwrite(to[1], (char)i);
		xread(from[0], (char)~i);
	}
	report(name, n, now_ns() - t0);
	reap(p);
}

static void bench_pipe(long n)
{
	int to[2], from[2];

	if (pipe(to) < 0 || pipe(from) < 0)
		die("pipe");
	pingpong("pipe", n, to, from);
}

static void bench_unix(long n)
{
	int sv[2], to[2], from[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		if (errno == ENOSYS || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT ||
		    errno == EOPNOTSUPP) {
			printf("unsupported: socketpair: %s\n", strerrorname_np(errno));
			exit(0);
		}
		die("socketpair");
	}
	/* The parent uses sv[0] both ways, the child sv[1]. */
	to[0] = sv[1];
	to[1] = sv[0];
	from[0] = sv[0];
	from[1] = sv[1];
	pingpong("unix", n, to, from);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0); /* flushed before every fork */
	if (!strcmp(cmd, "fork") && argc == 3)
		bench_fork(number(argv[2]));
	else if (!strcmp(cmd, "exec") && argc == 4)
		bench_exec(number(argv[2]), argv[3]);
	else if (!strcmp(cmd, "thread") && argc == 3)
		bench_thread(number(argv[2]));
	else if (!strcmp(cmd, "pipe") && argc == 3)
		bench_pipe(number(argv[2]));
	else if (!strcmp(cmd, "unix") && argc == 3)
		bench_unix(number(argv[2]));
	else {
		fprintf(stderr,
			"usage: procs fork|exec|thread|pipe|unix N [PROGRAM] (see the comment "
			"at the top of procs.c)\n");
		return 2;
	}
	return 0;
}
