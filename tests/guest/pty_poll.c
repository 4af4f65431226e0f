/*
 * Guest test: poll and epoll on both ends of a pty. The master is readable
 * when the slave wrote, hangs up (POLLHUP) when every slave file closed;
 * the slave is readable with a line (canonical) or VMIN bytes, and is all
 * of POLLIN|POLLOUT|POLLERR|POLLHUP once the master closed. A blocked
 * poll wakes when the other side writes; epoll sees the same events.
 */
#include "ttyguest.h"

#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>

/* poll fd for POLLIN|POLLOUT with a timeout (ms): the revents, or -1 on a timeout. */
static int revents(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};

	if (poll(&p, 1, ms) <= 0)
		return -1;
	return p.revents;
}

static int rin(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) > 0 ? p.revents : 0;
}

int main(void)
{
	char buf[64], name[64];
	struct epoll_event ev = {.events = EPOLLIN}, got;
	int m, s, ep, st;
	pid_t p;

	tty_watchdog(20);
	m = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK_EQ(revents(m, 0), POLLOUT, "a new master is writable only");
	grantpt(m);
	unlockpt(m);
	ptsname_r(m, name, sizeof(name));
	s = open(name, O_RDWR | O_NOCTTY);
	CHECK_EQ(revents(s, 0), POLLOUT, "an idle slave is writable only");
	tty_put(s, "ab\n");
	CHECK_EQ(rin(m, 1000), POLLIN, "the master is readable once the slave wrote");
	CHECK(tty_expect(m, "ab\r\n"), "the master reads it");
	CHECK_EQ(rin(m, 0), 0, "then no more");

	/* Canonical: a line makes the slave readable, not a part of one. */
	tty_put(m, "xy");
	tty_expect(m, "xy");
	CHECK_EQ(rin(s, 50), 0, "half a line is not readable");
	tty_put(m, "\n");
	CHECK_EQ(rin(s, 1000), POLLIN, "a whole line is");
	read(s, buf, sizeof(buf));
	tty_expect(m, "\r\n");

	/* Non-canonical with VMIN 3, VTIME 0: readable at three bytes. */
	tty_raw_min_time(s, 3, 0);
	tty_put(m, "12");
	CHECK_EQ(rin(s, 50), 0, "two bytes of VMIN 3 are not readable");
	tty_put(m, "3");
	CHECK_EQ(rin(s, 1000), POLLIN, "three are");
	CHECK_EQ(tty_read_n(s, buf, 3), 3, "read them");

	/* A blocked poll wakes when the other side writes. */
	p = fork();
	if (p == 0) {
		tty_sleep_ms(100);
		tty_put(s, "late\n");
		_exit(0);
	}
	CHECK_EQ(rin(m, 5000), POLLIN, "a waiting poll of the master wakes for the slave's write");
	waitpid(p, &st, 0);
	tty_expect(m, "late\r\n");

	/* epoll on the master. */
	ep = epoll_create1(0);
	ev.data.fd = m;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, m, &ev), 0, "epoll takes a pty master");
	CHECK_EQ(epoll_wait(ep, &got, 1, 0), 0, "nothing to read yet");
	tty_put(s, "e\n");
	CHECK(epoll_wait(ep, &got, 1, 1000) == 1 && got.data.fd == m && (got.events & EPOLLIN),
	      "epoll_wait reports the master readable");
	tty_expect(m, "e\r\n");

	/* Every slave closed: the master hangs up. */
	close(s);
	CHECK_EQ(revents(m, 0), POLLOUT | POLLHUP, "with no slave open the master has POLLHUP");
	CHECK(epoll_wait(ep, &got, 1, 1000) == 1 && (got.events & EPOLLHUP), "epoll sees the hang-up");
	close(ep);
	s = open(name, O_RDWR | O_NOCTTY);
	CHECK_EQ(revents(m, 0), POLLOUT, "a slave open again: no more POLLHUP");

	/* The master closed: the slave is hung up. */
	close(m);
	CHECK_EQ(revents(s, 0), POLLIN | POLLOUT | POLLERR | POLLHUP,
		 "a hung-up slave polls POLLIN|POLLOUT|POLLERR|POLLHUP");
	close(s);
	return GUEST_DONE();
}
