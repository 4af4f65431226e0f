/*
 * e2e guest for tests/e2e/robustness.sh: workloads that try to exhaust or
 * wedge the kernel under them. Each prints a line or two that the test
 * checks, and exits with a known status.
 *
 *   bomb fork [MAX]     fork children (each waiting in pause) until fork
 *                       fails or MAX are made: "fork: N children, then
 *                       ERRNO"; then kill and reap them all and fork once
 *                       more: "fork after: ok"
 *   bomb limits SECS    all of the task limit in one sandbox, cheaply (an
 *                       address space is what a task costs most in a
 *                       sandbox; threads share one). A child process, the
 *                       filler, makes threads until pthread_create fails:
 *                       "filler: T threads, then ERRNO"; it lets 64 of them
 *                       end. This process then forks until fork fails:
 *                       "fork: T' threads + C children + 2 processes = N
 *                       tasks, then ERRNO"; kills and reaps the children,
 *                       forks once more: "fork after: ok". Then the classic
 *                       fork bomb in the room left: a child forks forever,
 *                       and so does every process it makes, retrying when
 *                       fork fails. This process sleeps SECS, prints "init
 *                       alive" and exits 42: the bomb and the filler die with
 *                       the sandbox's init.
 *   bomb threads        make threads (64 KiB stacks, blocked until
 *                       exit_group) until pthread_create fails: "threads:
 *                       N, then ERRNO"
 *   bomb few-threads N  make N threads, join them: "threads: N joined"
 *   bomb nproc N UID    setrlimit(RLIMIT_NPROC, N), setuid(UID), fork until
 *                       fork fails: "nproc: N children, then ERRNO"
 *   bomb storm          parent and child signal each other (SIGUSR1 with a
 *                       handler) as fast as they can, forever
 *   bomb immortal [FILE]  block every signal and ignore every catchable
 *                       one, print "immortal", create FILE (to say it is
 *                       ready), then wait forever (only SIGKILL ends it)
 *   bomb sigqueue N     block SIGRTMIN, lower RLIMIT_SIGPENDING to N and
 *                       queue SIGRTMIN to itself (sigqueue) until that
 *                       fails, at most 4 N times: "sigqueue: N queued, then
 *                       ERRNO" (or "no error")
 *
 * Exit status: 0 when the mode ran, 2 for bad usage, 3 when a set-up call
 * failed (with a line saying which).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_KIDS 65536
#define STACK	 (64 * 1024)

static pid_t kids[MAX_KIDS];
static pthread_t threads[MAX_KIDS];

static const char *ename(int e)
{
	const char *s = e ? strerrorname_np(e) : "no error";
	return s ? s : "unknown";
}

static void die(const char *what)
{
	printf("%s: %s\n", what, ename(errno));
	exit(3);
}

_Noreturn static void wait_forever(void)
{
	for (;;)
		pause();
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Fork children that wait, until fork fails or max are made; *n is how many. */
static int fork_children(int max, int *n)
{
	*n = 0;
	while (*n < max) {
		pid_t p = fork();
		if (p == 0)
			wait_forever();
		if (p < 0)
			return errno;
		kids[(*n)++] = p;
	}
	return 0;
}

/* Kill and reap children; each must end by SIGKILL. */
static void reap(int n)
{
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++) {
		int st;
		if (waitpid(kids[i], &st, 0) != kids[i] || !WIFSIGNALED(st) ||
		    WTERMSIG(st) != SIGKILL)
			printf("child %d: not reaped as killed\n", i);
	}
}

static void fork_after(void)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(7);
	if (p < 0)
		die("fork after");
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
		printf("fork after: wrong status %#x\n", st);
	else
		printf("fork after: ok\n");
}

static int mode_fork(int max)
{
	int n, e = fork_children(max, &n);

	printf("fork: %d children, then %s\n", n, ename(e));
	reap(n);
	fork_after();
	return 0;
}

/* --- threads that wait until released --------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long release_from = MAX_KIDS;

static void *thread_wait(void *arg)
{
	long i = (long)arg;

	pthread_mutex_lock(&lock);
	while (i < release_from)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Make threads until pthread_create fails or max are made; *n is how many. */
static int make_threads(int max, int *n)
{
	pthread_attr_t attr;
	int e = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK);
	for (*n = 0; *n < max; (*n)++) {
		e = pthread_create(&threads[*n], &attr, thread_wait, (void *)(long)*n);
		if (e)
			break;
	}
	pthread_attr_destroy(&attr);
	return e;
}

/*
 * Fork a filler: a process that makes threads until it cannot, then lets
 * `room` of them end and reports how many it keeps (through a pipe). Returns
 * that number, or -1.
 */
static int filler(int room, pid_t *pid)
{
	int fds[2], n = -1;

	if (pipe(fds) < 0)
		die("pipe");
	*pid = fork();
	if (*pid < 0)
		die("fork filler");
	if (*pid == 0) {
		int made, e = make_threads(MAX_KIDS, &made);
		printf("filler: %d threads, then %s\n", made, ename(e));
		if (e != EAGAIN || made < room)
			made = -1;
		else {
			pthread_mutex_lock(&lock);
			release_from = made - room;
			pthread_cond_broadcast(&cond);
			pthread_mutex_unlock(&lock);
			for (int i = made - room; i < made; i++)
				pthread_join(threads[i], NULL);
			made -= room;
			sleep_ms(200); /* joined threads are gone from the task count */
		}
		if (write(fds[1], &made, sizeof(made)) != sizeof(made))
			_exit(1);
		wait_forever();
	}
	close(fds[1]);
	if (read(fds[0], &n, sizeof(n)) != sizeof(n))
		n = -1;
	close(fds[0]);
	return n;
}

static int mode_limits(int secs)
{
	pid_t f, p;
	int n, e, t = filler(64, &f);

	if (t < 0) {
		kids[0] = f;
		reap(1);
		return 3;
	}
	e = fork_children(MAX_KIDS, &n);
	printf("fork: %d threads + %d children + 2 processes = %d tasks, then %s\n", t, n,
	       t + n + 2, ename(e));
	reap(n);
	fork_after();

	p = fork();
	if (p < 0)
		die("fork");
	if (p == 0) {
		for (;;)
			fork(); /* parents and children alike; a failure is retried */
	}
	sleep_ms(secs * 1000L);
	printf("init alive\n");
	return 42;
}

static int mode_threads(void)
{
	int n, e = make_threads(MAX_KIDS, &n);

	printf("threads: %d, then %s\n", n, ename(e));
	return 0; /* exit_group takes the blocked threads with it */
}

static int mode_few_threads(int want)
{
	int n, e = make_threads(want, &n);

	if (e)
		printf("threads: %d, then %s\n", n, ename(e));
	pthread_mutex_lock(&lock);
	release_from = 0;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	printf("threads: %d joined\n", n);
	return 0;
}

static int mode_nproc(int limit, uid_t uid)
{
	struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
	int n, e;

	if (setrlimit(RLIMIT_NPROC, &rl) < 0)
		die("setrlimit");
	if (setuid(uid) < 0)
		die("setuid");
	e = fork_children(MAX_KIDS, &n);
	printf("nproc: %d children, then %s\n", n, ename(e));
	reap(n);
	return 0;
}

/* --- signals ---------------------------------------------------------------------- */

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

_Noreturn static void mode_storm(void)
{
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
	pid_t other, p;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die("sigaction");
	p = fork();
	if (p < 0)
		die("fork");
	if (p > 0) {
		other = p;
		printf("storm\n");
	} else {
		other = getppid();
	}
	for (;;)
		kill(other, SIGUSR1);
}

_Noreturn static void mode_immortal(const char *ready)
{
	struct sigaction sa = {.sa_handler = SIG_IGN};
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL); /* 32 and 33 are glibc's: EINVAL */
	printf("immortal\n");
	if (ready && creat(ready, 0644) < 0)
		die("creat");
	wait_forever();
}

static int mode_sigqueue(int limit)
{
	struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
	union sigval v = {0};
	sigset_t s;
	int n = 0, e = 0;

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &s, NULL);
	if (setrlimit(RLIMIT_SIGPENDING, &rl) < 0)
		die("setrlimit");
	while (n < 4 * limit) {
		if (sigqueue(getpid(), SIGRTMIN, v) < 0) {
			e = errno;
			break;
		}
		n++;
	}
	printf("sigqueue: %d queued, then %s\n", n, ename(e));
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0); /* flushed before every fork */
	if (!strcmp(m, "fork"))
		return mode_fork(argc > 2 ? atoi(argv[2]) : MAX_KIDS);
	if (!strcmp(m, "limits") && argc > 2)
		return mode_limits(atoi(argv[2]));
	if (!strcmp(m, "threads"))
		return mode_threads();
	if (!strcmp(m, "few-threads") && argc > 2)
		return mode_few_threads(atoi(argv[2]));
	if (!strcmp(m, "nproc") && argc > 3)
		return mode_nproc(atoi(argv[2]), (uid_t)atoi(argv[3]));
	if (!strcmp(m, "storm"))
		mode_storm();
	if (!strcmp(m, "immortal"))
		mode_immortal(argc > 2 ? argv[2] : NULL);
	if (!strcmp(m, "sigqueue") && argc > 2)
		return mode_sigqueue(atoi(argv[2]));
	fprintf(stderr, "usage: bomb fork [MAX]|limits SECS|threads|few-threads N|nproc N UID|"
			"storm|immortal [FILE]|sigqueue N\n");
	return 2;
}
