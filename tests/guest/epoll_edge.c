/*
 * Guest test: edge-triggered epoll (EPOLLET) on both ends of a pipe,
 * EPOLLONESHOT and its re-arming with EPOLL_CTL_MOD, EPOLLEXCLUSIVE's
 * rules, EPOLLRDHUP (never set for pipes), and blocking epoll_wait calls
 * that a timeout ends.
 */
#include "guest.h"

#include <fcntl.h>
#include <sys/epoll.h>

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

/* Print the events one epoll_wait returns. */
static int show(int ep, int timeout, const char *what)
{
	struct epoll_event evs[8];
	int n = epoll_wait(ep, evs, 8, timeout);

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
	static char buf[65536];
	int ep, ep2, fds[2], r, w;
	long n;

	for (int i = 3; i < 1024; i++)
		close(i);
	ep = epoll_create1(0);
	CHECK(ep >= 0, "epoll_create1");
	CHECK_EQ(pipe2(fds, O_NONBLOCK), 0, "a non-blocking pipe");
	r = fds[0];
	w = fds[1];

	/* Edge-triggered reading: one event per write, however much is left. */
	CHECK_EQ(add(ep, r, EPOLLIN | EPOLLET | EPOLLRDHUP, 1), 0, "ADD the read end, IN|ET|RDHUP");
	CHECK_EQ(show(ep, 0, "empty"), 0, "nothing");
	CHECK_EQ(write(w, "ab", 2), 2, "write 2 bytes");
	CHECK_EQ(show(ep, 0, "after a write"), 1, "one event");
	CHECK_EQ(show(ep, 0, "again"), 0, "no new edge: nothing");
	CHECK_EQ(show(ep, 20, "again, waiting 20 ms"), 0, "still nothing");
	CHECK_EQ(read(r, buf, 1), 1, "read 1 of the 2 bytes");
	CHECK_EQ(show(ep, 0, "after a partial read"), 0, "a read is no edge for the reader");
	CHECK_EQ(write(w, "c", 1), 1, "write 1 more byte");
	CHECK_EQ(show(ep, 0, "after another write"), 1, "every write is an edge");
	CHECK_EQ(write(w, "d", 1), 1, "write");
	CHECK_EQ(write(w, "e", 1), 1, "and write");
	CHECK_EQ(show(ep, 0, "after two writes"), 1, "two edges, one event");
	CHECK_EQ(read(r, buf, sizeof(buf)), 4, "drain");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLET, 2), 0, "MOD (data 2)");
	CHECK_EQ(show(ep, 0, "MOD of a drained pipe"), 0, "nothing");
	CHECK_EQ(write(w, "f", 1), 1, "write");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLET, 3), 0, "MOD (data 3) with data waiting");
	CHECK_EQ(show(ep, 0, "MOD when ready"), 1, "MOD makes an edge of a ready file");
	CHECK_EQ(show(ep, 0, "once"), 0, "once");
	CHECK_EQ(read(r, buf, sizeof(buf)), 1, "drain");

	/* Edge-triggered writing: POLLOUT comes back when a full pipe gets room. */
	CHECK_EQ(add(ep, w, EPOLLOUT | EPOLLET, 4), 0, "ADD the write end, OUT|ET (data 4)");
	CHECK_EQ(show(ep, 0, "the write end"), 1, "writable at once");
	CHECK_EQ(show(ep, 0, "again"), 0, "then no edge");
	CHECK_EQ(write(w, "g", 1), 1, "write a byte");
	CHECK_EQ(show(ep, 0, "after a write"), 1, "the reader's edge only");
	CHECK_EQ(read(r, buf, 1), 1, "read it back");
	CHECK_EQ(show(ep, 0, "after a read of a pipe that was not full"), 0, "no edge");
	n = 0;
	while (write(w, buf, 4096) == 4096)
		n += 4096;
	CHECK_EQ(n, 65536, "fill the pipe");
	CHECK_EQ(show(ep, 0, "full"), 1, "the reader's edge");
	CHECK_EQ(read(r, buf, 10), 10, "read 10 bytes of the full pipe");
	CHECK_EQ(show(ep, 0, "room for 10 bytes"), 0, "a wake-up, but not writable");
	CHECK_EQ(read(r, buf, 4096), 4096, "read a page");
	CHECK_EQ(show(ep, 0, "room for a page"), 1,
		 "the pipe was still full (in pages) before this read: an edge");
	CHECK_EQ(read(r, buf, 4096), 4096, "read another page");
	CHECK_EQ(show(ep, 0, "more room"), 0, "the pipe was not full before this read: no edge");
	while (read(r, buf, sizeof(buf)) > 0)
		;
	CHECK_EQ(show(ep, 0, "drained"), 0, "no edge");
	n = 0;
	while (write(w, buf, 4096) == 4096)
		n += 4096;
	CHECK_EQ(show(ep, 0, "full again"), 1, "the reader's edge");
	CHECK_EQ(read(r, buf, 8192), 8192, "read two pages at once");
	CHECK_EQ(show(ep, 0, "room after a read of a full pipe"), 1, "the writer's edge");
	while (read(r, buf, sizeof(buf)) > 0)
		;

	/* Hang-up: an edge too; RDHUP is a socket thing. */
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, w, NULL), 0, "DEL the write end");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLET | EPOLLRDHUP, 5), 0, "MOD the read end (data 5)");
	CHECK_EQ(close(w), 0, "close the write end");
	CHECK_EQ(show(ep, 0, "hang-up"), 1, "HUP, no RDHUP");
	CHECK_EQ(show(ep, 0, "again"), 0, "once");
	CHECK_EQ(close(r), 0, "close the read end");

	/* One-shot: one event, then nothing until MOD re-arms it. */
	CHECK_EQ(pipe2(fds, O_NONBLOCK), 0, "another pipe");
	r = fds[0];
	w = fds[1];
	CHECK_EQ(add(ep, r, EPOLLIN | EPOLLONESHOT, 6), 0, "ADD the read end, IN|ONESHOT (data 6)");
	CHECK_EQ(write(w, "h", 1), 1, "write");
	CHECK_EQ(show(ep, 0, "one-shot"), 1, "one event");
	CHECK_EQ(show(ep, 0, "level, but disarmed"), 0, "no more");
	CHECK_EQ(write(w, "i", 1), 1, "write again");
	CHECK_EQ(show(ep, 0, "a new edge while disarmed"), 0, "still nothing");
	CHECK_ERRNO(add(ep, r, EPOLLIN, 6), EEXIST, "a disarmed fd is still in the set");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLONESHOT, 7), 0, "re-arm with MOD (data 7)");
	CHECK_EQ(show(ep, 0, "re-armed"), 1, "one event");
	CHECK_EQ(show(ep, 0, "disarmed again"), 0, "none");
	CHECK_EQ(mod(ep, r, EPOLLIN | EPOLLONESHOT | EPOLLET, 8), 0, "re-arm as ET (data 8)");
	CHECK_EQ(show(ep, 0, "re-armed, edge-triggered"), 1, "one event");
	CHECK_EQ(write(w, "j", 1), 1, "write");
	CHECK_EQ(show(ep, 0, "an edge after the shot"), 0, "none");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, r, NULL), 0, "DEL it");

	/* EPOLLEXCLUSIVE: only with ADD, only some events, never an epoll fd. */
	CHECK_EQ(add(ep, r, EPOLLIN | EPOLLEXCLUSIVE, 9), 0, "ADD with IN|EXCLUSIVE (data 9)");
	CHECK_EQ(show(ep, 0, "exclusive"), 1, "reported like any other");
	CHECK_ERRNO(mod(ep, r, EPOLLIN, 9), EINVAL, "MOD of an exclusive entry");
	CHECK_ERRNO(mod(ep, r, EPOLLIN | EPOLLEXCLUSIVE, 9), EINVAL, "MOD with EXCLUSIVE");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, r, NULL), 0, "DEL is fine");
	CHECK_ERRNO(add(ep, r, EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, 9), EINVAL,
		    "EXCLUSIVE with ONESHOT");
	CHECK_ERRNO(add(ep, r, EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDHUP, 9), EINVAL,
		    "EXCLUSIVE with RDHUP");
	CHECK_ERRNO(add(ep, r, EPOLLPRI | EPOLLEXCLUSIVE, 9), EINVAL, "EXCLUSIVE with PRI");
	CHECK_EQ(add(ep, w, EPOLLOUT | EPOLLEXCLUSIVE | EPOLLET | EPOLLERR | EPOLLHUP, 10), 0,
		 "EXCLUSIVE with OUT|ET|ERR|HUP (data 10)");
	CHECK_EQ(add(ep, r, EPOLLEXCLUSIVE, 11), 0, "EXCLUSIVE alone (data 11)");
	CHECK_EQ(show(ep, 0, "exclusive entries"), 1, "the write end");
	ep2 = epoll_create1(0);
	CHECK_ERRNO(add(ep2, ep, EPOLLIN | EPOLLEXCLUSIVE, 12), EINVAL, "EXCLUSIVE of an epoll fd");
	CHECK_EQ(add(ep2, ep, EPOLLIN, 12), 0, "an epoll fd without EXCLUSIVE");

	/* Unknown bits are kept and harmless. */
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, r, NULL), 0, "DEL the read end");
	CHECK_EQ(add(ep, r, EPOLLIN | 0x00800000, 13), 0, "ADD with an unknown bit (data 13)");
	CHECK_EQ(show(ep, 0, "unknown bit"), 1, "data is waiting: IN");
	close(ep2);
	close(ep);
	close(r);
	close(w);
	return GUEST_DONE();
}
