/*
 * Waiting on an inherited host descriptor: stdin is a host pipe that
 * tests/e2e/hostpoll.sh writes a line into each time this program says it
 * is ready. poll, select and epoll (edge-triggered) must each wait for the
 * line (readiness comes from the host), and see the hang-up when the
 * writer closes. Prints the same natively and in the sandbox.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

static void say(const char *s)
{
	printf("%s\n", s);
	fflush(stdout);
}

static void read_line(void)
{
	char buf[64] = {0};
	ssize_t n = read(0, buf, sizeof(buf) - 1);

	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	printf("read %zd: %s\n", n, n > 0 ? buf : "");
	fflush(stdout);
}

int main(void)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 7}, out;
	struct timeval tv = {10, 0};
	fd_set in;
	int ep, n;

	n = poll(&p, 1, 100);
	printf("poll before any data: %d revents %#x\n", n, p.revents);
	say("ready 1");
	n = poll(&p, 1, 10000);
	printf("poll: %d revents %#x\n", n, p.revents);
	read_line();

	say("ready 2");
	FD_ZERO(&in);
	FD_SET(0, &in);
	n = select(1, &in, NULL, NULL, &tv);
	printf("select: %d readable %d\n", n, FD_ISSET(0, &in));
	read_line();

	ep = epoll_create1(0);
	n = epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
	printf("epoll_ctl ADD stdin: %d\n", n);
	n = epoll_wait(ep, &out, 1, 0);
	printf("epoll_wait before data: %d\n", n);
	say("ready 3");
	n = epoll_wait(ep, &out, 1, 10000);
	printf("epoll_wait: %d events %#x data %llu\n", n, n > 0 ? out.events : 0,
	       n > 0 ? (unsigned long long)out.data.u64 : 0);
	read_line();
	n = epoll_wait(ep, &out, 1, 0);
	printf("epoll_wait after the read: %d\n", n);

	say("ready 4");
	n = epoll_wait(ep, &out, 1, 10000);
	printf("epoll_wait: %d events %#x\n", n, n > 0 ? out.events : 0);
	read_line();
	n = poll(&p, 1, 0);
	printf("poll at the end: %d revents %#x\n", n, p.revents);
	return 0;
}
