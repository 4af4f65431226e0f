/*
 * Guest test: readiness of unix sockets through poll, select and epoll:
 * writable when connected, readable with data, POLLRDHUP after the peer's
 * shutdown, POLLHUP after its close, a listener readable with a pending
 * connection, an unconnected stream socket's POLLHUP; blocking polls woken
 * by another process's write, by a reader draining a full buffer, and by a
 * full datagram receiver making room; epoll, edge-triggered included.
 */
#include "guest.h"

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#define ALL (POLLIN | POLLPRI | POLLOUT | POLLRDHUP | POLLRDNORM | POLLWRNORM | POLLWRBAND)

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int revents(int fd, short events, int timeout)
{
	struct pollfd p = {.fd = fd, .events = events};

	if (poll(&p, 1, timeout) < 0)
		return -1;
	return p.revents;
}

static int reap(pid_t p)
{
	int st = -1;

	waitpid(p, &st, 0);
	return st;
}

int main(void)
{
	int sv[2], ep, n;
	char buf[64];
	pid_t p;

	signal(SIGPIPE, SIG_IGN);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	printf("stream, idle: %#x\n", revents(sv[0], ALL, 0));
	write(sv[1], "abc", 3);
	printf("stream, data: %#x\n", revents(sv[0], ALL, 0));
	read(sv[0], buf, sizeof(buf));
	{
		fd_set r, w;
		struct timeval tv = {0, 0};
		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_SET(sv[0], &r);
		FD_SET(sv[0], &w);
		CHECK_EQ(select(sv[0] + 1, &r, &w, NULL, &tv), 1, "select: writable only");
		CHECK(!FD_ISSET(sv[0], &r) && FD_ISSET(sv[0], &w), "select sets the write bit");
	}

	/* A blocking poll wakes when a child writes. */
	p = fork();
	if (p == 0) {
		pause_ms(50);
		write(sv[1], "x", 1);
		_exit(0);
	}
	CHECK_EQ(revents(sv[0], POLLIN, 5000), POLLIN, "poll wakes when another process writes");
	reap(p);
	read(sv[0], buf, sizeof(buf));

	/* A full buffer: no POLLOUT until a reader drains it. */
	{
		static char big[65536];
		struct timeval tv = {0, 0};
		while (send(sv[0], big, sizeof(big), MSG_DONTWAIT) > 0)
			;
		(void)tv;
		CHECK_EQ(revents(sv[0], POLLOUT, 0), 0, "a full buffer is not writable");
		p = fork();
		if (p == 0) {
			pause_ms(50);
			while (recv(sv[1], big, sizeof(big), MSG_DONTWAIT) > 0)
				;
			_exit(0);
		}
		CHECK_EQ(revents(sv[0], POLLOUT, 5000), POLLOUT, "poll wakes when a reader drains it");
		reap(p);
	}

	/* Shutdown and close of the peer. */
	shutdown(sv[1], SHUT_WR);
	printf("stream, peer shut down writing: %#x\n", revents(sv[0], ALL, 0));
	close(sv[1]);
	/* (Children had the peer too: wait for the hang-up, which is never masked.) */
	revents(sv[0], 0, 5000);
	printf("stream, peer closed: %#x\n", revents(sv[0], ALL, 0));
	close(sv[0]);
	n = socket(AF_UNIX, SOCK_STREAM, 0);
	printf("stream, unconnected: %#x\n", revents(n, ALL, 0));
	close(n);

	/* A listener. */
	{
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 1 + 9;
		int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0), s;
		memcpy(a.sun_path, "\0rung-poll", 10);
		bind(l, (struct sockaddr *)&a, alen);
		listen(l, 4);
		printf("listener, idle: %#x\n", revents(l, ALL, 0));
		p = fork();
		if (p == 0) {
			pause_ms(50);
			_exit(connect(c, (struct sockaddr *)&a, alen) == 0 ? 0 : 1);
		}
		CHECK_EQ(revents(l, POLLIN, 5000), POLLIN, "a listener's poll wakes on a connection");
		CHECK_EQ(reap(p), 0, "the child connected");
		s = accept(l, NULL, NULL);
		printf("listener, accepted: %#x\n", revents(l, ALL, 0));
		close(s);
		close(c);
		close(l);
	}

	/* A datagram socket connected to a receiver whose queue is full. */
	{
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 1 + 9;
		int r = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0);
		memcpy(a.sun_path, "\0rung-dgrm", 10);
		bind(r, (struct sockaddr *)&a, alen);
		connect(s, (struct sockaddr *)&a, alen);
		printf("dgram, connected: %#x\n", revents(s, ALL, 0));
		while (send(s, "q", 1, MSG_DONTWAIT) == 1)
			;
		printf("dgram, receiver full: %#x\n", revents(s, ALL, 0));
		printf("dgram, the full receiver: %#x\n", revents(r, ALL, 0));
		p = fork();
		if (p == 0) {
			pause_ms(50);
			_exit(recv(r, buf, sizeof(buf), 0) == 1 ? 0 : 1);
		}
		CHECK_EQ(revents(s, POLLOUT, 5000), POLLOUT, "poll wakes when the receiver reads");
		CHECK_EQ(reap(p), 0, "the child read one");
		close(r);
		close(s);
	}

	/* epoll, level- and edge-triggered. */
	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	ep = epoll_create1(0);
	{
		struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.fd = sv[0]}, out[4];
		CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev), 0, "epoll_ctl ADD a socket");
		CHECK_EQ(epoll_wait(ep, out, 4, 0), 0, "nothing ready");
		p = fork();
		if (p == 0) {
			pause_ms(50);
			send(sv[1], "one", 3, 0);
			_exit(0);
		}
		n = epoll_wait(ep, out, 4, 5000);
		CHECK(n == 1 && out[0].data.fd == sv[0] && (out[0].events & EPOLLIN),
		      "epoll_wait wakes with EPOLLIN");
		reap(p);
		CHECK_EQ(epoll_wait(ep, out, 4, 0), 0, "edge-triggered: not again for the same data");
		send(sv[1], "two", 3, 0);
		CHECK_EQ(epoll_wait(ep, out, 4, 0), 1, "a new message is a new edge");
		close(sv[1]);
		n = epoll_wait(ep, out, 4, 5000);
		CHECK(n == 1 && (out[0].events & EPOLLHUP), "the peer's close: EPOLLHUP");
	}
	close(ep);
	close(sv[0]);
	return GUEST_DONE();
}
