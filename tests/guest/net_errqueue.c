/*
 * Guest test: recvmsg(MSG_ERRQUEUE) with an empty error queue. An inet
 * socket (TCP in any state, UDP, IPv4 and IPv6, with IP_RECVERR or
 * without) answers EAGAIN at once, blocking or not, and its data stays
 * queued (ip_recv_error); recvfrom and recvmmsg say the same. Unix
 * sockets have no error queue and ignore the flag: a normal receive.
 */
#include "netguest.h"

#include <fcntl.h>

static int getopt_int(int fd, int level, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, level, opt, &v, &l) < 0 ? -2 : v;
}

/* recvmsg(fd, MSG_ERRQUEUE | flags) into a buffer with room for a cmsg. */
static long errqueue(int fd, int flags)
{
	char data[64], ctl[256];
	struct iovec iov = {data, sizeof(data)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	return recvmsg(fd, &mh, MSG_ERRQUEUE | flags);
}

static void tcp_checks(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c, s, fresh;
	char buf[8], b;

	printf("-- TCP\n");
	fresh = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_ERRNO(errqueue(fresh, 0), EAGAIN, "a new socket");
	CHECK_ERRNO(errqueue(l, 0), EAGAIN, "a listener");
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&addr, alen), 0, "connect");
	s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept");
	CHECK_ERRNO(errqueue(c, 0), EAGAIN, "a connection, blocking");
	CHECK_ERRNO(errqueue(c, MSG_DONTWAIT), EAGAIN, "a connection, MSG_DONTWAIT");
	CHECK_EQ(write(s, "x", 1), 1, "one byte sent");
	CHECK_EQ(read(c, &b, 1), 1, "... read");
	CHECK_EQ(write(s, "data", 4), 4, "four bytes sent");
	CHECK_ERRNO(recv(c, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN, "recv with data queued");
	CHECK_EQ(net_read_all(c, buf, 4), 4, "the data is still there");
	close(s);
	CHECK_EQ(read(c, &b, 1), 0, "EOF");
	CHECK_ERRNO(errqueue(c, 0), EAGAIN, "after EOF");
	close(c);
	close(l);
	close(fresh);
}

static void udp_checks(int family)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	int u = net_bound(family, SOCK_DGRAM, &addr, &alen), one = 1;
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int name = family == AF_INET ? IP_RECVERR : IPV6_RECVERR;
	struct mmsghdr mm = {0};
	char buf[8];
	struct iovec iov = {buf, sizeof(buf)};

	printf("-- UDP, %s\n", family == AF_INET ? "IPv4" : "IPv6");
	CHECK(u >= 0, "a bound socket");
	CHECK_ERRNO(errqueue(u, 0), EAGAIN, "without IP_RECVERR");
	CHECK_EQ(setsockopt(u, level, name, &one, sizeof(one)), 0, "set IP_RECVERR");
	CHECK_EQ(getopt_int(u, level, name), 1, "... reads back");
	CHECK_ERRNO(errqueue(u, 0), EAGAIN, "with IP_RECVERR, blocking");
	CHECK_EQ(sendto(u, "dgram", 5, 0, (struct sockaddr *)&addr, alen), 5, "a datagram to itself");
	CHECK_ERRNO(recvfrom(u, buf, sizeof(buf), MSG_ERRQUEUE, NULL, NULL), EAGAIN,
		    "recvfrom with a datagram queued");
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	CHECK_ERRNO(recvmmsg(u, &mm, 1, MSG_ERRQUEUE, NULL), EAGAIN, "recvmmsg");
	CHECK_EQ(recv(u, buf, sizeof(buf), 0), 5, "the datagram is still there");
	close(u);
}

static void unix_checks(void)
{
	int sv[2];
	char buf[8];

	printf("-- Unix\n");
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0, "a stream pair");
	CHECK_ERRNO(errqueue(sv[0], MSG_DONTWAIT), EAGAIN, "nothing to read, MSG_DONTWAIT");
	CHECK_EQ(write(sv[1], "abc", 3), 3, "three bytes sent");
	CHECK_EQ(recv(sv[0], buf, sizeof(buf), MSG_ERRQUEUE), 3, "MSG_ERRQUEUE reads the data");
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0, "a datagram pair");
	CHECK_EQ(write(sv[1], "abcd", 4), 4, "a datagram sent");
	CHECK_EQ(errqueue(sv[0], 0), 4, "MSG_ERRQUEUE receives it");
	CHECK_ERRNO(errqueue(sv[0], MSG_DONTWAIT), EAGAIN, "then nothing, MSG_DONTWAIT");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	alarm(30); /* a receive that blocks instead is a failure */
	tcp_checks();
	udp_checks(AF_INET);
	net_ipv6_quietly(udp_checks);
	unix_checks();
	return GUEST_DONE();
}
