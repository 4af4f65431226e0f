/*
 * Guest test: /proc/<pid>/cmdline shows the argument area as the process
 * has rewritten it. The program re-executes itself with a known argv and
 * environment, then: the area as exec made it; a word changed in place; a
 * shorter title padded with NULs (the whole area, NULs included); a title
 * that runs on into the environment with no NUL at the end of the argument
 * area (setproctitle: the first string, read by another process too); and
 * one longer than a page (cut at 4096 bytes, without NUL).
 */
#include "guest.h"

#include <fcntl.h>
#include <sys/wait.h>

#define ENV_LEN 6000

extern char **environ;

/* Reads of at most 1000 bytes, as ps makes small ones: the text must not
 * depend on them. */
static size_t chunk(size_t left)
{
	return left < 1000 ? left : 1000;
}

/* cmdline of pid (0: self) into buf; its length or -1. */
static long cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	long n = 0, r;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cmdline");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((size_t)n < size && (r = read(fd, buf + n, chunk(size - (size_t)n))) > 0)
		n += r;
	close(fd);
	return n;
}

static int child(int argc, char **argv)
{
	static char buf[16384], want[8192];
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	size_t area = (size_t)(end - start), title;
	long n;
	pid_t reader;
	int status;

	n = cmdline(0, buf, sizeof(buf));
	CHECK(n == 30 && memcmp(buf, "proc_cmdline\0child\0alpha\0beta\0", 30) == 0,
	      "cmdline is the argv exec gave");
	CHECK(environ[0] == end, "the environment follows the arguments");

	memcpy(argv[1], "CHILD", 5);
	n = cmdline(0, buf, sizeof(buf));
	CHECK(n == 30 && memcmp(buf, "proc_cmdline\0CHILD\0alpha\0beta\0", 30) == 0,
	      "a word rewritten in place shows");

	memset(start, 0, area);
	strcpy(start, "short");
	n = cmdline(0, buf, sizeof(buf));
	memset(want, 0, area);
	strcpy(want, "short");
	CHECK(n == (long)area && memcmp(buf, want, area) == 0,
	      "a shorter title: the whole area, NULs included");

	/* setproctitle: over the last NUL of the arguments, into the environment. */
	title = area + 100;
	memset(start, 'x', title);
	start[title] = 0;
	n = cmdline(0, buf, sizeof(buf));
	CHECK(n == (long)title + 1 && buf[title] == 0 && strspn(buf, "x") == title,
	      "a title into the environment: the first string, with its NUL");
	reader = fork();
	if (reader == 0) {
		n = cmdline(getppid(), buf, sizeof(buf));
		_exit(n == (long)title + 1 && strspn(buf, "x") == title ? 0 : 1);
	}
	waitpid(reader, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "another process reads the same title");

	memset(start, 'y', 5000);
	start[5000] = 0;
	n = cmdline(0, buf, sizeof(buf));
	CHECK(n == 4096 && strspn(buf, "y") == 4096, "a title over a page is cut at 4096 bytes");
	return GUEST_DONE();
}

int main(int argc, char **argv)
{
	static char env[ENV_LEN + 16];
	char *args[] = {"proc_cmdline", "child", "alpha", "beta", NULL};
	char *envp[] = {env, NULL};

	if (argc == 4 && strcmp(argv[1], "child") == 0)
		return child(argc, argv);
	memcpy(env, "E=", 2);
	memset(env + 2, 'e', ENV_LEN);
	execve("/proc/self/exe", args, envp);
	printf("FAIL: execve /proc/self/exe: %s\n", strerror(errno));
	return 1;
}
