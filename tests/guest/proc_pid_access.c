/*
 * Guest test: /proc/<pid>/maps lines as Linux's (an anonymous mapping's
 * header ends in a space, a shared anonymous one is "/dev/zero (deleted)");
 * status has VmData and VmStk; another user's maps, smaps, environ and io
 * are EACCES to a reader that may not ptrace the process; opening an
 * eventfd's /proc/self/fd link with O_DIRECTORY is ENOTDIR.
 */
#include "guest.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

static char maps[1 << 16];

static const char *maps_line(void *addr)
{
	char key[32], *p;
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n, total = 0;

	while (fd >= 0 && (n = read(fd, maps + total, sizeof(maps) - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	maps[total] = 0;
	snprintf(key, sizeof(key), "%08lx-", (unsigned long)addr);
	p = strstr(maps, key);
	if (!p)
		return NULL;
	*strchr(p, '\n') = 0;
	return p;
}

static pid_t other;

static void *as_nobody(void *arg)
{
	char path[64];
	int *ok = arg;
	const char *files[] = {"maps", "smaps", "environ", "io"};

	if (syscall(SYS_setresuid, 65534, 65534, 65534) != 0) {
		*ok = -1;
		return NULL;
	}
	*ok = 1;
	for (unsigned i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", other, files[i]);
		errno = 0;
		if (open(path, O_RDONLY) >= 0 || errno != EACCES)
			*ok = 0;
	}
	return NULL;
}

int main(void)
{
	char path[64], want[160];
	const char *line;
	void *a, *s;
	int pfd[2], ok = 0, efd, status;
	pthread_t th;

	a = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(want, sizeof(want), "%08lx-%08lx r--p 00000000 00:00 0 ", (unsigned long)a,
		 (unsigned long)a + PAGE);
	line = maps_line(a);
	CHECK(line && strcmp(line, want) == 0, "an anonymous mapping's line ends in a space");
	s = mmap(NULL, PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	line = maps_line(s);
	CHECK(line && strlen(line) > 73 && strcmp(line + 73, "/dev/zero (deleted)") == 0 &&
		      strstr(line, " r--s 00000000 "),
	      "a shared anonymous mapping is /dev/zero (deleted), at column 74");
	munmap(a, PAGE);
	munmap(s, PAGE);
	{
		int fd = open("/proc/self/status", O_RDONLY);
		ssize_t n = read(fd, maps, sizeof(maps) - 1);
		close(fd);
		maps[n < 0 ? 0 : n] = 0;
		CHECK(strstr(maps, "\nVmData:\t") && strstr(maps, "\nVmStk:\t"),
		      "status has VmData and VmStk");
	}

	if (pipe(pfd))
		return 1;
	other = fork();
	if (other == 0) {
		char c;
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) < 0);
	}
	close(pfd[0]);
	pthread_create(&th, NULL, as_nobody, &ok);
	pthread_join(th, NULL);
	CHECK(ok == 1, "nobody may not open root's maps, smaps, environ, io");
	close(pfd[1]);
	waitpid(other, &status, 0);

	efd = eventfd(0, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", efd);
	CHECK_ERRNO(open(path, O_RDONLY | O_DIRECTORY), ENOTDIR, "an eventfd's fd link with O_DIRECTORY");
	CHECK_ERRNO(open(path, O_RDONLY), ENXIO, "an eventfd's fd link opened again");
	close(efd);
	return GUEST_DONE();
}
