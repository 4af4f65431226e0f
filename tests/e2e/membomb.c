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
 *                           it; how they ended: "procs: K killed by
 *                           SIGKILL, E exited" (the sandbox's OOM monitor
 *                           ends the biggest once they hold too much)
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

static int mode_procs(int n, size_t mb)
{
	int killed = 0, exited = 0;

	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			int e;
			touch(mb, &e);
			sleep(3);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		int st;
		if (wait(&st) < 0)
			die("wait");
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			killed++;
		else if (WIFEXITED(st))
			exited++;
	}
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
