/*
 * e2e guest for tests/e2e/limits.sh: workloads that try to take the host's
 * memory through the sandbox. Each prints what stopped it, then shows that
 * the sandbox still works ("after: ok"), and exits 0 (2: bad usage, 3: a
 * set-up call failed, with a line saying which).
 *
 *   membomb anon MB [SECS]  map and touch 1 MiB at a time, up to MB MiB:
 *                           "anon: N MiB, then ERRNO" or "anon: N MiB";
 *                           then hold it for SECS seconds ("held")
 *   membomb procs N MB      N children, each touching MB MiB and holding
 *                           it until all do (or died); how they ended:
 *                           "procs: K killed by SIGKILL, E exited" (the
 *                           sandbox's OOM monitor ends the biggest once
 *                           they hold too much), ", F failed" after it
 *                           when some ended otherwise
 *   membomb pipes           fill pipes of 64 KiB until pipe() or a write
 *                           fails: "pipes: N filled, then ERRNO (call)"
 *   membomb unix            fill socket pairs until a send fails with
 *                           something other than EAGAIN: "unix: N MiB
 *                           queued, then ERRNO"
 *   membomb files DIR       create empty files in DIR until that fails:
 *                           "files: ERRNO after more than 1000" (or few)
 *
 * Run it only in a sandbox with a small --memory-limit: natively it takes
 * what it asks for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB (1u << 20)

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

/* After a bomb: a fresh page, written and read back. */
static int after(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("after: mmap");
	p[0] = 42;
	printf(p[0] == 42 ? "after: ok\n" : "after: bad\n");
	return 0;
}

/* As many file descriptors as the hard limit lets the process have. */
static void more_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static size_t touch(size_t mb, int *err)
{
	size_t n = 0;

	*err = 0;
	for (; n < mb; n++) {
		char *p =
			mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			*err = errno;
			break;
		}
		memset(p, 1, MIB);
	}
	return n;
}

static int mode_anon(size_t mb, int secs)
{
	int e;
	size_t n = touch(mb, &e);

	if (e)
		printf("anon: %zu MiB, then %s\n", n, ename(e));
	else
		printf("anon: %zu MiB\n", n);
	if (secs > 0) {
		sleep((unsigned)secs);
		printf("held\n");
	}
	return after();
}

/* How a child of mode_procs ended, counted. */
static void count_end(int st, int *killed, int *exited, int *other)
{
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		++*killed;
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		++*exited;
	else
		++*other;
}

/*
 * N children touch MB MiB each and hold it until every one has said it
 * holds its memory or died, so that all of it is wanted at once however
 * slowly they are scheduled; a second later they are let go.
 */
static int mode_procs(int n, size_t mb)
{
	int killed = 0, exited = 0, other = 0, held[2], go[2];
	pid_t pid[256];
	char state[256] = {0}; /* 0 touching, 1 holding, 2 ended */
	unsigned char c = 0;

	if (n < 1 || n > 256)
		return 2;
	/* The pipe's ring is made now: a write once the memory is gone
	 * would fail with ENOMEM. */
	if (pipe(held) < 0 || pipe(go) < 0 || write(held[1], &c, 1) != 1 ||
	    read(held[0], &c, 1) != 1)
		die("pipe");
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			die("fork");
		if (pid[i] == 0) {
			int e;
			c = (unsigned char)i;
			close(held[0]);
			close(go[1]);
			touch(mb, &e);
			if (write(held[1], &c, 1) != 1)
				_exit(3);
			(void)read(go[0], &c, 1); /* EOF: the parent lets go */
			_exit(0);
		}
	}
	close(held[1]);
	close(go[0]);
	for (int tries = 0, waiting = n; waiting > 0 && tries < 600; tries++) {
		struct pollfd pfd = {.fd = held[0], .events = POLLIN};
		unsigned char buf[256];
		int st;
		pid_t p;
		if (poll(&pfd, 1, 100) > 0)
			for (ssize_t r = read(held[0], buf, sizeof(buf)), j = 0; j < r; j++)
				if (buf[j] < n && state[buf[j]] == 0)
					state[buf[j]] = 1, waiting--;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			for (int i = 0; i < n; i++)
				if (pid[i] == p) {
					waiting -= state[i] == 0;
					state[i] = 2;
					count_end(st, &killed, &exited, &other);
				}
	}
	sleep(1);
	close(go[1]);
	for (int i = 0; i < n; i++) {
		int st;
		if (state[i] == 2)
			continue;
		if (waitpid(pid[i], &st, 0) < 0)
			die("wait");
		count_end(st, &killed, &exited, &other);
	}
	if (other)
		printf("procs: %d killed by SIGKILL, %d exited, %d failed\n", killed, exited,
		       other);
	else
		printf("procs: %d killed by SIGKILL, %d exited\n", killed, exited);
	return after();
}

static int mode_pipes(void)
{
	static char buf[65536];
	int n = 0, fds[2];
	const char *call = "pipe";
	int e;

	more_files();
	memset(buf, 7, sizeof(buf));
	for (;;) {
		if (pipe2(fds, O_NONBLOCK) < 0) {
			e = errno;
			break;
		}
		if (write(fds[1], buf, sizeof(buf)) < 0) {
			e = errno;
			call = "write";
			break;
		}
		n++;
	}
	printf("pipes: %d filled, then %s (%s)\n", n, ename(e), call);
	return after();
}

static int mode_unix(void)
{
	static char buf[65536];
	size_t queued = 0;
	int sv[2], e = 0;

	more_files();
	while (!e) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) {
			e = errno;
			break;
		}
		for (;;) {
			ssize_t w = send(sv[0], buf, sizeof(buf), 0);
			if (w < 0) {
				if (errno != EAGAIN)
					e = errno;
				break;
			}
			queued += (size_t)w;
		}
	}
	printf("unix: %zu MiB queued, then %s\n", queued / MIB, ename(e));
	return after();
}

static int mode_files(const char *dir)
{
	char path[4096];
	long n = 0;
	int fd;

	for (;; n++) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, n);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0)
			break;
		close(fd);
	}
	printf("files: %s after %s\n", ename(errno), n > 1000 ? "more than 1000" : "few");
	return after();
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(m, "anon") && argc > 2)
		return mode_anon(strtoul(argv[2], NULL, 10), argc > 3 ? atoi(argv[3]) : 0);
	if (!strcmp(m, "procs") && argc > 3)
		return mode_procs(atoi(argv[2]), strtoul(argv[3], NULL, 10));
	if (!strcmp(m, "pipes"))
		return mode_pipes();
	if (!strcmp(m, "unix"))
		return mode_unix();
	if (!strcmp(m, "files") && argc > 2)
		return mode_files(argv[2]);
	fprintf(stderr, "usage: membomb anon MB [SECS]|procs N MB|pipes|unix|files DIR\n");
	return 2;
}
