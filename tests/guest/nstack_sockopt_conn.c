/*
 * Options of connected and listening sockets: TCP_INFO's state through a
 * connection's life, a connected TCP_MAXSEG and IP_MTU, options a
 * connection takes from its listener, SO_ERROR after a refused connect,
 * and close with SO_LINGER {1, 0} resetting the peer. Sizes are printed
 * only as "positive", never their values.
 */
#include "netguest.h"

#include <errno.h>
#include <sys/time.h>

static void info(const char *what, int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0) {
		printf("%s: TCP_INFO %s\n", what, strerror(errno));
		return;
	}
	printf("%s: state %d, len %s, rto %s, snd_mss %s\n", what, ti.tcpi_state,
	       len == sizeof(ti) ? "full" : "short", ti.tcpi_rto > 0 ? "positive" : "0",
	       ti.tcpi_snd_mss > 0 ? "positive" : "0");
}

static int getint(int fd, int lvl, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, lvl, name, &v, &len) < 0)
		return -errno;
	return v;
}

int main(void)
{
	struct sockaddr_storage a;
	socklen_t alen;
	struct linger lg = {1, 0};
	struct timeval tv = {3, 0};
	int one = 1, l, c, s, u, r;
	char buf[8];
	unsigned char small = 0xaa;
	socklen_t slen = 1;

	l = socket(AF_INET, SOCK_STREAM, 0);
	info("new", l);
	r = getsockopt(l, IPPROTO_TCP, TCP_INFO, &small, &slen);
	printf("TCP_INFO len 1: %d, len %u\n", r, (unsigned)slen);
	alen = net_loopback(AF_INET, &a);
	CHECK_EQ(setsockopt(l, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)), 0, "SO_KEEPALIVE");
	CHECK_EQ(setsockopt(l, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), 0, "TCP_NODELAY");
	CHECK_EQ(setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0, "SO_RCVTIMEO");
	CHECK_EQ(setsockopt(l, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)), 0,
		 "IP_RECVTOS");
	CHECK_EQ(bind(l, (struct sockaddr *)&a, alen), 0, "bind");
	CHECK_EQ(listen(l, 4), 0, "listen");
	printf("listener SO_ACCEPTCONN %d\n", getint(l, SOL_SOCKET, SO_ACCEPTCONN));
	info("listener", l);
	alen = sizeof(a);
	getsockname(l, (struct sockaddr *)&a, &alen);

	c = socket(AF_INET, SOCK_STREAM, 0);
	printf("unconnected IP_MTU: %s\n", getint(c, IPPROTO_IP, IP_MTU) == -ENOTCONN ? "ENOTCONN" : "?");
	CHECK_EQ(connect(c, (struct sockaddr *)&a, alen), 0, "connect");
	s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept");
	info("client", c);
	info("accepted", s);
	printf("accepted SO_KEEPALIVE %d TCP_NODELAY %d IP_RECVTOS %d SO_ACCEPTCONN %d\n",
	       getint(s, SOL_SOCKET, SO_KEEPALIVE), getint(s, IPPROTO_TCP, TCP_NODELAY),
	       getint(s, IPPROTO_IP, IP_RECVTOS), getint(s, SOL_SOCKET, SO_ACCEPTCONN));
	memset(&tv, 0, sizeof(tv));
	alen = sizeof(tv);
	getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, &alen);
	printf("accepted SO_RCVTIMEO %ld\n", (long)tv.tv_sec);
	printf("connected TCP_MAXSEG %s\n", getint(c, IPPROTO_TCP, TCP_MAXSEG) > 0 ? "positive" : "0");
	printf("connected IP_MTU %s\n", getint(c, IPPROTO_IP, IP_MTU) > 1000 ? "positive" : "small");
	r = getint(c, IPPROTO_TCP, TCP_WINDOW_CLAMP);
	printf("connected TCP_WINDOW_CLAMP %s\n", r > 0 ? "positive" : "0");
	r = setsockopt(c, IPPROTO_TCP, TCP_WINDOW_CLAMP, &(int){0}, sizeof(int));
	printf("connected TCP_WINDOW_CLAMP 0: %s\n", r ? strerror(errno) : "ok");
	r = setsockopt(c, IPPROTO_TCP, TCP_FASTOPEN, &one, sizeof(one));
	printf("connected TCP_FASTOPEN: %s\n", r ? strerror(errno) : "ok");

	CHECK_EQ(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0, "SO_LINGER {1,0}");
	close(s);
	r = (int)read(c, buf, sizeof(buf));
	printf("read after the peer's linger-0 close: %d %s\n", r, r < 0 ? strerror(errno) : "");
	close(c);

	/* A refused connection: SO_ERROR once, then 0. */
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	close(l);
	r = connect(c, (struct sockaddr *)&a, sizeof(struct sockaddr_in));
	printf("connect to a closed port: %s\n", r == 0 ? "ok" : strerror(errno));
	if (r < 0 && errno == EINPROGRESS) {
		struct timeval w = {0, 200000};
		select(0, NULL, NULL, NULL, &w);
		r = getint(c, SOL_SOCKET, SO_ERROR);
		printf("SO_ERROR %s\n", r ? strerror(r) : "0");
	}
	printf("SO_ERROR again %d\n", getint(c, SOL_SOCKET, SO_ERROR));
	close(c);

	/* UDP: IP_MTU once connected. */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	printf("UDP unconnected IP_MTU: %s\n",
	       getint(u, IPPROTO_IP, IP_MTU) == -ENOTCONN ? "ENOTCONN" : "?");
	CHECK_EQ(connect(u, (struct sockaddr *)&a, sizeof(struct sockaddr_in)), 0, "UDP connect");
	printf("UDP connected IP_MTU %s\n", getint(u, IPPROTO_IP, IP_MTU) > 1000 ? "positive" : "small");
	return 0;
}
