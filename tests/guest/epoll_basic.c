/*
 * Guest test: epoll_create, epoll_ctl and epoll_wait in level-triggered
 * mode: errors of every call (EBADF, EINVAL, EPERM, EEXIST, ENOENT,
 * EFAULT), the events and data reported, maxevents and the round-robin
 * order it causes, MOD and DEL, the interest set outliving a closed fd
 * while a duplicate remains and the entry going with the file's last
 * close, and epoll_pwait/epoll_pwait2 arguments.
 */
#include "guest.h"

#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>

static int add(int ep, int fd, unsigned events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static int mod(int ep, int fd, unsigned events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};

	return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

/* Print the events one epoll_wait returns (timeout 0). */
static int show(int ep, int max, const char *what)
{
	struct epoll_event evs[8];
	int n = epoll_wait(ep, evs, max, 0);

	printf("%s:", what);
	if (n < 0)
		printf(" error %s", strerrorname_np(errno));
	for (int i = 0; i < n; i++)
		printf(" [%llu %#x]", (unsigned long long)evs[i].data.u64, evs[i].events);
	printf("\n");
	return n;
}

int main(void)
{
	struct epoll_event ev, evs[4];
	struct timespec ts;
	int ep, fds[2], fds2[2], r, w, r2, w2, fd, null;
	sigset_t mask;

	for (int i = 3; i < 1024; i++)
		close(i);

	/* Creation. */
	CHECK_ERRNO(epoll_create(0), EINVAL, "epoll_create(0)");
	CHECK_ERRNO(epoll_create(-1), EINVAL, "epoll_create(-1)");
	ep = epoll_create(1);
	CHECK_EQ(ep, 3, "epoll_create(1) gives fd 3");
	CHECK_EQ(fcntl(ep, F_GETFD), 0, "without close-on-exec");
	CHECK_EQ(fcntl(ep, F_GETFL), O_RDWR, "opened read-write");
	close(ep);
	CHECK_ERRNO(epoll_create1(O_NONBLOCK), EINVAL, "epoll_create1(O_NONBLOCK)");
	CHECK_ERRNO(epoll_create1(-1), EINVAL, "epoll_create1(-1)");
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK_EQ(ep, 3, "epoll_create1(EPOLL_CLOEXEC)");
	CHECK_EQ(fcntl(ep, F_GETFD), FD_CLOEXEC, "has close-on-exec");
	{
		char link[64] = {0};
		CHECK_EQ(readlink("/proc/self/fd/3", link, sizeof(link) - 1), 22,
			 "readlink /proc/self/fd/3");
		CHECK(strcmp(link, "anon_inode:[eventpoll]") == 0, "it is anon_inode:[eventpoll]");
	}
	CHECK_ERRNO(read(ep, &ev, sizeof(ev)), EINVAL, "read of an epoll fd");
	CHECK_ERRNO(write(ep, &ev, sizeof(ev)), EINVAL, "write of an epoll fd");
	CHECK_EQ(lseek(ep, 5, SEEK_SET), 0, "lseek of an epoll fd does nothing and returns 0");

	CHECK_EQ(pipe(fds), 0, "pipe");
	r = fds[0];
	w = fds[1];
	CHECK_EQ(pipe(fds2), 0, "another pipe");
	r2 = fds2[0];
	w2 = fds2[1];

	/* epoll_ctl errors, in Linux's order. */
	ev = (struct epoll_event){.events = EPOLLIN};
	CHECK_ERRNO(epoll_ctl(100, EPOLL_CTL_ADD, r, &ev), EBADF, "ADD to a closed epfd");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, 100, &ev), EBADF, "ADD of a closed fd");
	CHECK_ERRNO(epoll_ctl(r, EPOLL_CTL_ADD, w, &ev), EINVAL, "ADD to a fd that is not epoll");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL, "ADD of the epoll fd to itself");
	null = open("/dev/null", O_RDWR);
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, null, &ev), EPERM, "ADD of /dev/null (no poll)");
	fd = open("/proc/self/exe", O_RDONLY);
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), EPERM, "ADD of a regular file");
	close(fd);
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev), EPERM, "ADD of stdin (/dev/null)");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, r, NULL), EFAULT, "ADD with a NULL event");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, r, (void *)8), EFAULT, "ADD with a bad event");
	CHECK_ERRNO(epoll_ctl(ep, 42, r, &ev), EINVAL, "an unknown op");
	CHECK_ERRNO(epoll_ctl(ep, 42, r, NULL), EFAULT, "an unknown op reads its event first");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_MOD, r, &ev), ENOENT, "MOD of a fd not in the set");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, r, NULL), ENOENT, "DEL of a fd not in the set");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, null, NULL), EPERM, "DEL of a file without poll");

	/* Level-triggered: reported while it holds. */
	CHECK_EQ(add(ep, r, EPOLLIN, 1), 0, "ADD the read end (IN, data 1)");
	CHECK_ERRNO(add(ep, r, EPOLLIN, 1), EEXIST, "ADD it again");
	CHECK_EQ(add(ep, w, EPOLLOUT, 2), 0, "ADD the write end (OUT, data 2)");
	CHECK_EQ(add(ep, r2, EPOLLIN | EPOLLOUT, 3), 0, "ADD the second read end (IN|OUT, data 3)");
	CHECK_EQ(show(ep, 8, "only the write end"), 1, "one event");
	CHECK_EQ(write(w, "abc", 3), 3, "write to the first pipe");
	CHECK_EQ(show(ep, 8, "both ends"), 2, "two events");
	CHECK_EQ(show(ep, 8, "again, level-triggered"), 2, "still two");
	CHECK_EQ(write(w2, "d", 1), 1, "write to the second pipe");
	CHECK_EQ(show(ep, 8, "three"), 3, "three events");

	/* maxevents: the rest wait their turn, round robin. */
	CHECK_EQ(show(ep, 1, "max 1"), 1, "one event");
	CHECK_EQ(show(ep, 1, "max 1"), 1, "the next one");
	CHECK_EQ(show(ep, 2, "max 2"), 2, "two more");
	CHECK_EQ(show(ep, 8, "all"), 3, "all three");

	/* MOD changes events and data. */
	CHECK_EQ(mod(ep, r, EPOLLOUT, 11), 0, "MOD the read end to OUT (data 11)");
	CHECK_EQ(show(ep, 8, "the read end asks for OUT only"), 2, "two events");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLRDNORM, 12), 0, "MOD it to IN|RDNORM (data 12)");
	CHECK_EQ(show(ep, 8, "with RDNORM"), 3, "three events");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, w, NULL), 0, "DEL the write end");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, w, NULL), ENOENT, "DEL it again");
	CHECK_EQ(show(ep, 8, "without the write end"), 2, "two events");

	/* Hang-up and error are always reported. */
	CHECK_EQ(mod(ep, r2, 0, 13), 0, "MOD the second read end to no events (data 13)");
	CHECK_EQ(show(ep, 8, "no events asked"), 1, "one event");
	CHECK_EQ(close(w2), 0, "close the second write end");
	CHECK_EQ(show(ep, 8, "hang-up"), 2, "HUP reported without asking");
	CHECK_EQ(add(ep, w, EPOLLIN, 14), 0, "ADD the first write end back, asking IN (data 14)");
	CHECK_EQ(show(ep, 8, "IN on a write end"), 2, "nothing new");
	fd = dup(r);
	CHECK_EQ(close(r), 0, "close the first read end (a duplicate remains)");
	CHECK_EQ(show(ep, 8, "reader still open through the dup"), 2, "two events");
	CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, r, NULL), EBADF, "DEL through the closed fd");
	CHECK_EQ(close(fd), 0, "close the duplicate: the file goes");
	CHECK_EQ(show(ep, 8, "the read end left the set; the writer sees ERR"), 2, "two events");
	CHECK_EQ(read(r2, (char[4]){0}, 4), 1, "drain the second pipe");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, r2, NULL), 0, "DEL the second read end");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, w, (void *)8), 0, "DEL ignores its event argument");
	CHECK_EQ(show(ep, 8, "empty"), 0, "nothing");

	/* epoll_wait's arguments. */
	CHECK_EQ(pipe(fds), 0, "a third pipe");
	r = fds[0];
	w = fds[1];
	CHECK_EQ(add(ep, r, EPOLLIN, 21), 0, "ADD its read end (data 21)");
	CHECK_ERRNO(epoll_wait(ep, evs, 0, 0), EINVAL, "maxevents 0");
	CHECK_ERRNO(epoll_wait(ep, evs, -1, 0), EINVAL, "maxevents -1");
	CHECK_ERRNO(epoll_wait(ep, evs, 0x7fffffff, 0), EINVAL, "maxevents INT_MAX");
	CHECK_ERRNO(epoll_wait(100, evs, 1, 0), EBADF, "a closed epfd");
	CHECK_ERRNO(epoll_wait(r, evs, 1, 0), EINVAL, "a fd that is not epoll");
	CHECK_ERRNO(epoll_wait(ep, (void *)-4096L, 1, 0), EFAULT, "events in kernel space");
	CHECK_ERRNO(epoll_wait(ep, (void *)-4096L, 0, 0), EINVAL, "maxevents is checked first");
	CHECK_EQ(epoll_wait(ep, NULL, 1, 0), 0, "NULL events and nothing ready: 0");
	CHECK_EQ(epoll_wait(ep, evs, 1, 20), 0, "a 20 ms timeout passes with 0");
	CHECK_EQ(write(w, "x", 1), 1, "write to it");
	CHECK_ERRNO(epoll_wait(ep, NULL, 1, 0), EFAULT, "NULL events with an event ready");
	CHECK_ERRNO(epoll_wait(ep, (void *)8, 1, -1), EFAULT, "an unmapped buffer, no timeout");
	CHECK_EQ(show(ep, 8, "the event was not lost"), 1, "one event");
	{
		/* A buffer whose second entry is unmapped: one event, no error. */
		char *page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct epoll_event *last;
		munmap(page + PAGE, PAGE);
		last = (struct epoll_event *)(page + PAGE - sizeof(struct epoll_event));
		CHECK_EQ(add(ep, w, EPOLLOUT, 22), 0, "ADD the write end (data 22)");
		CHECK_EQ(epoll_wait(ep, last, 2, 0), 1, "two events, room for one: 1");
		CHECK_EQ(last->data.u64, 21, "the first one");
		CHECK_EQ(show(ep, 8, "then both"), 2, "two events");
	}
	CHECK_EQ(epoll_wait(ep, evs, 4, -1), 2, "no timeout, events ready");
	ts = (struct timespec){0, 0};
	sigemptyset(&mask);
	CHECK_EQ(epoll_pwait(ep, evs, 4, 0, &mask), 2, "epoll_pwait with a mask");
	CHECK_EQ(syscall(SYS_epoll_pwait, ep, evs, 4, 0, NULL, 3), 2,
		 "epoll_pwait without a mask: its size does not matter");
	CHECK_ERRNO(syscall(SYS_epoll_pwait, ep, evs, 4, 0, &mask, 4), EINVAL,
		    "epoll_pwait with a mask size of 4");
	CHECK_ERRNO(syscall(SYS_epoll_pwait, ep, evs, 0, 0, (void *)8, 8), EFAULT,
		    "epoll_pwait reads its mask first");
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8), 2,
		 "epoll_pwait2, zero timeout");
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, evs, 4, NULL, &mask, 8), 2,
		 "epoll_pwait2 without a timeout");
	ts = (struct timespec){0, 1000000000};
	CHECK_ERRNO(syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8), EINVAL,
		    "epoll_pwait2 with tv_nsec 1e9");
	ts = (struct timespec){-1, 0};
	CHECK_ERRNO(syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8), EINVAL,
		    "epoll_pwait2 with a negative timeout");
	CHECK_ERRNO(syscall(SYS_epoll_pwait2, ep, evs, 0, (void *)8, NULL, 8), EFAULT,
		    "epoll_pwait2 reads its timeout first");
	CHECK_EQ(read(r, (char[4]){0}, 4), 1, "drain the pipe");
	ts = (struct timespec){0, 20000000};
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8), 1, "epoll_pwait2, 20 ms");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 20000000, "leaves its timeout alone");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, w, NULL), 0, "DEL the write end");
	ts = (struct timespec){0, 20000000};
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8), 0,
		 "epoll_pwait2 times out after 20 ms");

	/* Closing the epoll fd with files in it. */
	CHECK_EQ(close(ep), 0, "close the epoll fd with a file in it");
	CHECK_EQ(write(w, "y", 1), 1, "the pipe still works");
	CHECK_EQ(read(r, (char[4]){0}, 4), 1, "both ways");
	close(r);
	close(w);
	close(null);
	return GUEST_DONE();
}
