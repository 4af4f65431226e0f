/*
 * Many TCP connections at once over the loopback: a server process
 * multiplexes 100 connections with epoll, echoing what each sends; the
 * client opens them all with non-blocking connects, waits for them with
 * poll, then talks on each, each with its own bytes. Then a close with
 * SO_LINGER 0 resets the peer.
 */
#include "netguest.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>

#define N 100

static void serve(int l)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), done = 0;
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = l};

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev) < 0)
		_exit(2);
	while (done < N) {
		struct epoll_event evs[16];
		int n = epoll_wait(ep, evs, 16, 10000);
		if (n <= 0)
			_exit(3);
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			char buf[64];
			ssize_t r;
			if (fd == l) {
				int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
				struct epoll_event ce = {.events = EPOLLIN | EPOLLRDHUP};
				if (c < 0)
					_exit(4);
				ce.data.fd = c;
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
				continue;
			}
			r = read(fd, buf, sizeof(buf));
			if (r > 0) {
				if (net_write_all(fd, buf, (size_t)r) < 0)
					_exit(5);
			} else {
				epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
				close(fd);
				done++;
			}
		}
	}
	_exit(0);
}

int main(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), fds[N], status, bad = 0;
	struct pollfd pf[N];
	pid_t pid;

	CHECK(l >= 0, "a listener on the loopback");
	pid = fork();
	if (pid == 0)
		serve(l);
	close(l);
	for (int i = 0; i < N; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(fds[i], (struct sockaddr *)&addr, alen) < 0 && errno != EINPROGRESS)
			bad++;
		pf[i] = (struct pollfd){.fd = fds[i], .events = POLLOUT};
	}
	CHECK_EQ(bad, 0, "100 non-blocking connects start");
	for (int left = N; left > 0;) {
		int n = poll(pf, N, 10000);
		if (n <= 0)
			break;
		for (int i = 0; i < N; i++)
			if (pf[i].fd >= 0 && pf[i].revents) {
				int e = -1;
				socklen_t el = sizeof(e);
				getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &e, &el);
				if (e != 0 || (pf[i].revents & (POLLERR | POLLHUP)))
					bad++;
				pf[i].fd = -1;
				left--;
			}
	}
	CHECK_EQ(bad, 0, "all of them connect");
	for (int i = 0; i < N; i++) {
		int fl = fcntl(fds[i], F_GETFL);
		fcntl(fds[i], F_SETFL, fl & ~O_NONBLOCK);
		char msg[32];
		int len = snprintf(msg, sizeof(msg), "connection %d", i);
		if (net_write_all(fds[i], msg, (size_t)len) < 0)
			bad++;
	}
	CHECK_EQ(bad, 0, "a message on each");
	for (int i = 0; i < N; i++) {
		char msg[32], got[32] = {0};
		int len = snprintf(msg, sizeof(msg), "connection %d", i);
		if (net_read_all(fds[i], got, (size_t)len) != len || memcmp(got, msg, (size_t)len))
			bad++;
		close(fds[i]);
	}
	CHECK_EQ(bad, 0, "each echo is its own");
	CHECK_EQ(waitpid(pid, &status, 0), pid, "the server exits");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server saw every connection end");

	/* SO_LINGER 0: close resets the connection. */
	{
		struct linger lg = {1, 0};
		int c, s;
		char b;
		l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen);
		c = socket(AF_INET, SOCK_STREAM, 0);
		CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
		s = accept(l, NULL, NULL);
		CHECK(s >= 0, "accept");
		CHECK_EQ(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0, "SO_LINGER 0");
		close(s);
		CHECK_ERRNO(read(c, &b, 1), ECONNRESET, "the peer reads ECONNRESET");
		CHECK_EQ(read(c, &b, 1), 0, "then EOF");
		close(c);
		close(l);
	}
	return GUEST_DONE();
}
