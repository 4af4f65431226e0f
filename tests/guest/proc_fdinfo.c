/*
 * Guest test: /proc/self/fdinfo/N. The common lines (pos, flags in octal
 * with O_CLOEXEC when the descriptor has it, mnt_id, ino as fstat says),
 * then those of eventfd (eventfd-count), epoll (one tfd line per target),
 * inotify (one line per watch, wd and mask) and signalfd (sigmask). Only
 * what does not depend on the machine is printed.
 */
#include "guest.h"

#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

static char text[8192];

/* fdinfo of fd into text; its length or -1. */
static long fdinfo(int fd)
{
	char path[64];
	long n = 0, r;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	while ((size_t)n < sizeof(text) - 1 && (r = read(f, text + n, 7)) > 0)
		n += r;
	close(f);
	text[n] = 0;
	return n;
}

/* The line of text that starts with key, without its newline, or "". */
static const char *line(const char *key)
{
	static char bufs[2][512];
	static int next;
	char *buf = bufs[next++ % 2];
	const char *p = text;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (strncmp(p, key, strlen(key)) == 0 && len < sizeof(bufs[0])) {
			memcpy(buf, p, len);
			buf[len] = 0;
			return buf;
		}
		p = e ? e + 1 : NULL;
	}
	return "";
}

static int listed(int fd)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct dirent *e;
	int found = 0;
	char name[16];

	snprintf(name, sizeof(name), "%d", fd);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, name) == 0 && e->d_type == DT_REG)
			found = 1;
	if (d)
		closedir(d);
	return found;
}

int main(void)
{
	struct epoll_event ev;
	unsigned long long ino = 0;
	struct stat st;
	int fd, p[2], efd, ep, in, wd, sfd;
	unsigned mask = 0, tfd, events;
	unsigned long long data;
	sigset_t set;

	/* A regular file, read-only with close-on-exec, at position 5. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && lseek(fd, 5, SEEK_SET) == 5, "open the program, seek to 5");
	CHECK(fdinfo(fd) > 0, "read its fdinfo");
	printf("%s\n%s\n", line("pos:"), line("flags:"));
	CHECK(fstat(fd, &st) == 0 && sscanf(line("ino:"), "ino:\t%llu", &ino) == 1 &&
		      ino == (unsigned long long)st.st_ino,
	      "ino is fstat's st_ino");
	CHECK(strncmp(line("mnt_id:"), "mnt_id:\t", 8) == 0 && line("mnt_id:")[8] >= '0' &&
		      line("mnt_id:")[8] <= '9',
	      "mnt_id is a number");
	CHECK(listed(fd), "the directory lists it as a regular file");
	CHECK(fcntl(fd, F_SETFD, 0) == 0 && fdinfo(fd) > 0, "clear close-on-exec");
	printf("%s\n", line("flags:"));
	close(fd);
	CHECK_ERRNO(fdinfo(fd), ENOENT, "fdinfo of a closed descriptor");

	CHECK(pipe2(p, O_NONBLOCK) == 0, "a non-blocking pipe");
	CHECK(fdinfo(p[1]) > 0, "fdinfo of its write end");
	printf("%s\n%s\n", line("pos:"), line("flags:"));

	efd = eventfd(5, EFD_CLOEXEC);
	CHECK(efd >= 0 && fdinfo(efd) > 0, "fdinfo of an eventfd");
	printf("%s\n%s\n", line("flags:"), line("eventfd-count:"));
	CHECK(eventfd_write(efd, 0x100) == 0 && fdinfo(efd) > 0, "add 0x100 to it");
	printf("%s\n", line("eventfd-count:"));

	ep = epoll_create1(0);
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 0x1234;
	CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "epoll watches the pipe");
	CHECK(fdinfo(ep) > 0, "fdinfo of the epoll");
	CHECK(sscanf(line("tfd:"), "tfd: %u events: %x data: %llx", &tfd, &events, &data) == 3 &&
		      tfd == (unsigned)p[0] && events == (EPOLLIN | EPOLLET | EPOLLERR | EPOLLHUP) && data == 0x1234,
	      "its tfd line names the pipe, its events (with EPOLLERR, EPOLLHUP) and data");
	CHECK(strstr(line("tfd:"), " pos:0 ino:") != NULL, "and the target's position");

	in = inotify_init1(IN_NONBLOCK);
	wd = inotify_add_watch(in, "/", IN_CREATE | IN_DELETE | IN_ONESHOT);
	CHECK(in >= 0 && wd > 0 && fdinfo(in) > 0, "fdinfo of an inotify with a watch");
	CHECK(sscanf(line("inotify wd:"), "inotify wd:%x ino:%llx sdev:%*x mask:%x", &tfd, &ino,
		     &mask) == 3 &&
		      (int)tfd == wd,
	      "its watch line has the wd");
	printf("mask: %x\n", mask);
	CHECK(stat("/", &st) == 0 && ino == (unsigned long long)st.st_ino,
	      "and the watched inode's number");
	printf("%s\n", line("flags:"));

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGKILL);
	sfd = signalfd(-1, &set, SFD_NONBLOCK);
	CHECK(sfd >= 0 && fdinfo(sfd) > 0, "fdinfo of a signalfd");
	printf("%s\n%s\n", line("flags:"), line("sigmask:"));
	return GUEST_DONE();
}
