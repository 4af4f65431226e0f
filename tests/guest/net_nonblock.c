/*
 * Guest test: non-blocking TCP. connect() gives EINPROGRESS (or succeeds
 * at once on the loopback), poll() then says POLLOUT and SO_ERROR is 0;
 * to a closed port, SO_ERROR says ECONNREFUSED; accept() with nothing
 * pending gives EAGAIN; poll and epoll report a pending connection and
 * readable data; accept4(SOCK_NONBLOCK) makes a non-blocking socket;
 * a write that fills the buffer ends in EAGAIN and POLLOUT comes back
 * once the peer reads.
 */
#include "netguest.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>

static int so_error(int fd)
{
	int e = -1;
	socklen_t l = sizeof(e);

	return getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0 ? -2 : e;
}

int main(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	struct pollfd p;
	struct epoll_event ev = {.events = EPOLLIN}, got;
	static char chunk[65536];
	long total = 0;
	int l, c, s, r, ep;

	l = net_bound(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, &addr, &alen);
	CHECK(l >= 0, "a non-blocking listener");
	CHECK_ERRNO(accept(l, NULL, NULL), EAGAIN, "accept with nothing pending");
	ep = epoll_create1(0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev), 0, "the listener in an epoll set");
	CHECK_EQ(epoll_wait(ep, &got, 1, 0), 0, "epoll: nothing yet");

	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	r = connect(c, (struct sockaddr *)&addr, alen);
	CHECK(r == 0 || errno == EINPROGRESS, "connect: 0 or EINPROGRESS");
	p = (struct pollfd){.fd = c, .events = POLLOUT};
	CHECK_EQ(poll(&p, 1, 5000), 1, "poll: the connection is writable");
	CHECK((p.revents & POLLOUT) && !(p.revents & POLLERR), "... POLLOUT without POLLERR");
	CHECK_EQ(so_error(c), 0, "SO_ERROR is 0");
	CHECK_EQ(epoll_wait(ep, &got, 1, 5000), 1, "epoll: the listener is readable");
	s = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	CHECK(s >= 0, "accept4(SOCK_NONBLOCK)");
	CHECK(fcntl(s, F_GETFL) & O_NONBLOCK, "the accepted socket is non-blocking");
	CHECK_ERRNO(read(s, chunk, 1), EAGAIN, "read with nothing to read");

	p = (struct pollfd){.fd = s, .events = POLLIN};
	CHECK_EQ(poll(&p, 1, 0), 0, "poll: not readable yet");
	CHECK_EQ(write(c, "ping", 4), 4, "write 4 bytes");
	CHECK_EQ(poll(&p, 1, 5000), 1, "poll: readable");
	CHECK_EQ(read(s, chunk, sizeof(chunk)), 4, "read them");

	/* Fill the connection until the sender would block; then again after
	 * a pause, when the data in flight at the first EAGAIN has been
	 * acknowledged (a stack with small buffers, such as the sandbox's,
	 * would otherwise have room again a moment later). */
	memset(chunk, 'z', sizeof(chunk));
	for (int pass = 0; pass < 2; pass++) {
		for (;;) {
			ssize_t n = write(c, chunk, sizeof(chunk));
			if (n < 0)
				break;
			total += n;
			if (total > (256l << 20))
				break;
		}
		if (pass == 0)
			usleep(50000);
	}
	CHECK(errno == EAGAIN && total > 0, "writes end in EAGAIN once the buffers are full");
	p = (struct pollfd){.fd = c, .events = POLLOUT};
	CHECK_EQ(poll(&p, 1, 0), 0, "poll: not writable while full");
	while (total > 0) {
		ssize_t n = read(s, chunk, sizeof(chunk));
		if (n < 0 && errno == EAGAIN) {
			struct pollfd q = {.fd = s, .events = POLLIN};
			if (poll(&q, 1, 5000) != 1)
				break;
			continue;
		}
		if (n <= 0)
			break;
		total -= n;
	}
	CHECK_EQ(total, 0, "the reader drains all of it");
	CHECK_EQ(poll(&p, 1, 5000), 1, "poll: writable again");
	close(c);
	close(s);

	/* A refused connection is reported through poll and SO_ERROR. */
	close(l);
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	r = connect(c, (struct sockaddr *)&addr, alen);
	if (r < 0 && errno == EINPROGRESS) {
		p = (struct pollfd){.fd = c, .events = POLLOUT};
		CHECK_EQ(poll(&p, 1, 5000), 1, "poll: the refused connection is done");
		CHECK_EQ(so_error(c), ECONNREFUSED, "SO_ERROR is ECONNREFUSED");
	} else {
		CHECK(r < 0 && errno == ECONNREFUSED, "poll: the refused connection is done");
		CHECK(1, "SO_ERROR is ECONNREFUSED");
	}
	close(c);
	close(ep);
	return GUEST_DONE();
}
