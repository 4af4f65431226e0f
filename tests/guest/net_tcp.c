/*
 * Guest test: TCP over the loopback (IPv4 and IPv6) between two guest
 * processes: echo, getsockname/getpeername, half-close (shutdown SHUT_WR,
 * then EOF on the other side while it can still send), MSG_PEEK,
 * MSG_DONTWAIT, MSG_WAITALL, FIONREAD, a refused connection, RST on close
 * with unread data (ECONNRESET), the options of the issue, SO_RCVTIMEO,
 * and signals: a handler interrupts a blocking accept, connect wait or
 * recv with EINTR, and with SA_RESTART the recv goes on.
 */
#include "netguest.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>

static int getopt_int(int fd, int level, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, level, opt, &v, &l) < 0)
		return -2;
	return v;
}

/* The child: accept one connection, echo until EOF, then say "bye" and close. */
static void echo_server(int l)
{
	int c = accept(l, NULL, NULL);
	char buf[4096];
	ssize_t n;

	if (c < 0)
		_exit(10);
	while ((n = read(c, buf, sizeof(buf))) > 0)
		if (net_write_all(c, buf, (size_t)n) < 0)
			_exit(11);
	if (n < 0 || net_write_all(c, "bye", 3) < 0)
		_exit(12);
	close(c);
	_exit(0);
}

static void family_tests(int family)
{
	struct sockaddr_storage addr, peer, self;
	socklen_t alen, plen = sizeof(peer), slen = sizeof(self);
	char buf[64], what[128];
	int l, c, status, one = 1, avail = -1;
	pid_t pid;

	printf("-- %s\n", family == AF_INET ? "IPv4" : "IPv6");
	l = net_bound(family, SOCK_STREAM, &addr, &alen);
	CHECK(l >= 0, "listener bound to the loopback");
	CHECK_EQ(getopt_int(l, SOL_SOCKET, SO_ACCEPTCONN), 1, "SO_ACCEPTCONN on the listener");
	pid = fork();
	if (pid == 0)
		echo_server(l);
	close(l);
	c = socket(family, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
	CHECK_EQ(getpeername(c, (struct sockaddr *)&peer, &plen), 0, "getpeername");
	CHECK(plen == alen && memcmp(&peer, &addr, alen) == 0, "the peer is the listener");
	CHECK_EQ(getsockname(c, (struct sockaddr *)&self, &slen), 0, "getsockname");
	CHECK(self.ss_family == family, "getsockname's family");
	CHECK_EQ(getopt_int(c, SOL_SOCKET, SO_TYPE), SOCK_STREAM, "SO_TYPE");
	CHECK_EQ(getopt_int(c, SOL_SOCKET, SO_DOMAIN), family, "SO_DOMAIN");
	CHECK_EQ(getopt_int(c, SOL_SOCKET, SO_ERROR), 0, "SO_ERROR");
	CHECK_EQ(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), 0, "TCP_NODELAY");
	CHECK_EQ(getopt_int(c, IPPROTO_TCP, TCP_NODELAY), 1, "TCP_NODELAY reads back");
	CHECK_EQ(setsockopt(c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)), 0, "SO_KEEPALIVE");
	CHECK_EQ(getopt_int(c, SOL_SOCKET, SO_KEEPALIVE), 1, "SO_KEEPALIVE reads back");
	one = 30;
	CHECK_EQ(setsockopt(c, IPPROTO_TCP, TCP_KEEPIDLE, &one, sizeof(one)), 0, "TCP_KEEPIDLE");
	CHECK_EQ(getopt_int(c, IPPROTO_TCP, TCP_KEEPIDLE), 30, "TCP_KEEPIDLE reads back");
	one = 5;
	CHECK_EQ(setsockopt(c, IPPROTO_TCP, TCP_KEEPINTVL, &one, sizeof(one)), 0, "TCP_KEEPINTVL");
	CHECK_EQ(setsockopt(c, IPPROTO_TCP, TCP_KEEPCNT, &one, sizeof(one)), 0, "TCP_KEEPCNT");
	CHECK_EQ(getopt_int(c, IPPROTO_TCP, TCP_KEEPCNT), 5, "TCP_KEEPCNT reads back");

	CHECK_EQ(write(c, "hello", 5), 5, "write 5 bytes");
	CHECK_EQ(recv(c, buf, 5, MSG_PEEK | MSG_WAITALL), 5, "MSG_PEEK sees the echo");
	CHECK_EQ(ioctl(c, FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, 5, "FIONREAD counts the echo");
	CHECK_EQ(recv(c, buf, sizeof(buf), 0), 5, "recv takes it");
	CHECK(memcmp(buf, "hello", 5) == 0, "the echo is the same bytes");
	CHECK_ERRNO(recv(c, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "MSG_DONTWAIT with nothing");
	CHECK_EQ(send(c, "0123456789", 10, 0), 10, "send 10 bytes");
	CHECK_EQ(recv(c, buf, 10, MSG_WAITALL), 10, "MSG_WAITALL gets all 10");

	/* Half-close: our side stops writing; the server sees EOF, answers, closes. */
	CHECK_EQ(shutdown(c, SHUT_WR), 0, "shutdown(SHUT_WR)");
	CHECK_ERRNO(send(c, "x", 1, MSG_NOSIGNAL), EPIPE, "send after SHUT_WR");
	CHECK_EQ(net_read_all(c, buf, sizeof(buf)), 3, "the server still sends after our EOF");
	CHECK(memcmp(buf, "bye", 3) == 0, "... its last words");
	CHECK_EQ(read(c, buf, sizeof(buf)), 0, "then EOF");
	close(c);
	CHECK_EQ(waitpid(pid, &status, 0), pid, "the server exits");
	snprintf(what, sizeof(what), "the server's checks passed (status %d)",
		 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, what);

	/* Nobody listens there any more. */
	c = socket(family, SOCK_STREAM, 0);
	CHECK_ERRNO(connect(c, (struct sockaddr *)&addr, alen), ECONNREFUSED,
		    "connect to a closed port");
	close(c);
}

/* Closing with unread data resets the connection: the peer gets ECONNRESET. */
static void reset_test(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c, s;
	char buf[16];

	printf("-- reset\n");
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
	s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept");
	CHECK_EQ(write(c, "unread", 6), 6, "data the server never reads");
	usleep(50000);
	close(s);
	usleep(50000);
	CHECK_ERRNO(read(c, buf, sizeof(buf)), ECONNRESET, "read after the RST");
	close(c);
	close(l);
}

/* SO_RCVTIMEO: a read with nothing to read times out with EAGAIN. */
static void timeout_test(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c, s;
	struct timeval tv = {0, 100000}, got;
	socklen_t gl = sizeof(got);
	char buf[4];

	printf("-- timeout\n");
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
	s = accept(l, NULL, NULL);
	CHECK_EQ(setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0, "SO_RCVTIMEO");
	CHECK_EQ(getsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &got, &gl), 0, "SO_RCVTIMEO reads back");
	CHECK(got.tv_sec == 0 && got.tv_usec == 100000, "... as set");
	CHECK_ERRNO(read(c, buf, sizeof(buf)), EAGAIN, "a read times out");
	close(s);
	close(c);
	close(l);
}

static volatile int alarms;

static void on_alarm(int sig)
{
	alarms++;
}

static void arm(int restart)
{
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = restart ? SA_RESTART : 0};
	struct itimerval it = {.it_value = {0, 100000}};

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void signal_test(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c, s, status;
	char buf[8];
	pid_t pid;

	printf("-- signals\n");
	arm(0);
	CHECK_ERRNO(accept(l, NULL, NULL), EINTR, "a signal interrupts a blocking accept");
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
	s = accept(l, NULL, NULL);
	arm(0);
	CHECK_ERRNO(recv(c, buf, sizeof(buf), 0), EINTR, "... and a blocking recv");
	pid = fork();
	if (pid == 0) {
		usleep(300000);
		_exit(write(s, "late", 4) == 4 ? 0 : 1);
	}
	arm(1);
	CHECK_EQ(recv(c, buf, sizeof(buf), 0), 4, "with SA_RESTART the recv goes on to the data");
	CHECK_EQ(alarms, 3, "the handler ran each time");
	waitpid(pid, &status, 0);
	close(s);
	close(c);
	close(l);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	family_tests(AF_INET);
	net_ipv6_quietly(family_tests);
	reset_test();
	timeout_test();
	signal_test();
	return GUEST_DONE();
}
