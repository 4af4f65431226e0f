/*
 * Guest test: more of a UDP socket's options, as Linux takes them:
 * - IP_RECVORIGDSTADDR (IPV6_RECVORIGDSTADDR): each datagram comes with
 *   the address and port it was sent to (IP_ORIGDSTADDR, after IP_TOS);
 *   a v4 datagram on a dual-stack socket gets the IPv4 one;
 * - multicast membership (IP_ADD_MEMBERSHIP/IP_DROP_MEMBERSHIP with
 *   ip_mreq and ip_mreqn, IPV6_ADD_MEMBERSHIP/IPV6_DROP_MEMBERSHIP) on the
 *   loopback: joins and leaves, and the errors (not a group, no such
 *   interface, joined twice, not joined, a short option, a TCP socket,
 *   the 21st group);
 * - SO_PASSCRED, which any socket takes before Linux 6.16.
 */
#include "netguest.h"

#include <stdbool.h>

#include <net/if.h>

static int getint(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, level, name, &v, &l) < 0 ? -2 : v;
}

/* Receive one datagram on fd and find the IP_ORIGDSTADDR (level, type)
 * message: its address into out. */
static bool recv_origdst(int fd, int level, int type, struct sockaddr_storage *out)
{
	char data[16], ctl[512];
	struct iovec iov = {data, sizeof(data)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl)};

	if (recvmsg(fd, &mh, 0) < 0)
		return false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == level && c->cmsg_type == type) {
			memset(out, 0, sizeof(*out));
			memcpy(out, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
			return true;
		}
	}
	return false;
}

static void origdst(int family, bool v4_on_dual)
{
	struct sockaddr_storage addr, got, to;
	socklen_t len;
	int one = 1, r, s;
	int level = family == AF_INET || v4_on_dual ? IPPROTO_IP : IPPROTO_IPV6;
	int type = family == AF_INET || v4_on_dual ? IP_ORIGDSTADDR : IPV6_ORIGDSTADDR;

	printf("-- %s ORIGDSTADDR%s\n", family == AF_INET ? "IPv4" : "IPv6",
	       v4_on_dual ? ", an IPv4 datagram on a dual-stack socket" : "");
	if (v4_on_dual) {
		struct sockaddr_in6 any = {.sin6_family = AF_INET6};
		r = socket(AF_INET6, SOCK_DGRAM, 0);
		len = sizeof(any);
		CHECK(bind(r, (struct sockaddr *)&any, len) == 0 &&
			      getsockname(r, (struct sockaddr *)&addr, &len) == 0,
		      "a dual-stack socket on the wildcard");
		net_loopback(AF_INET, &to);
		((struct sockaddr_in *)&to)->sin_port = ((struct sockaddr_in6 *)&addr)->sin6_port;
		len = sizeof(struct sockaddr_in);
		s = socket(AF_INET, SOCK_DGRAM, 0);
	} else {
		r = net_bound(family, SOCK_DGRAM, &addr, &len);
		to = addr;
		s = socket(family, SOCK_DGRAM, 0);
	}
	CHECK_EQ(getint(r, level, family == AF_INET || v4_on_dual ? IP_RECVORIGDSTADDR
								   : IPV6_RECVORIGDSTADDR),
		 0, "off at first");
	CHECK_EQ(setsockopt(r, level,
			    family == AF_INET || v4_on_dual ? IP_RECVORIGDSTADDR : IPV6_RECVORIGDSTADDR,
			    &one, sizeof(one)),
		 0, "on");
	CHECK_EQ(sendto(s, "x", 1, 0, (struct sockaddr *)&to, len), 1, "a datagram");
	CHECK(recv_origdst(r, level, type, &got), "... comes with the message");
	if (level == IPPROTO_IP) {
		struct sockaddr_in *g = (struct sockaddr_in *)&got, *t = (struct sockaddr_in *)&to;
		CHECK(g->sin_family == AF_INET && g->sin_port == t->sin_port &&
			      g->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
		      "... 127.0.0.1 and the port it was sent to");
	} else {
		struct sockaddr_in6 *g = (struct sockaddr_in6 *)&got, *t = (struct sockaddr_in6 *)&to;
		CHECK(g->sin6_family == AF_INET6 && g->sin6_port == t->sin6_port &&
			      memcmp(&g->sin6_addr, &in6addr_loopback, 16) == 0,
		      "... ::1 and the port it was sent to");
	}
	close(r);
	close(s);
}

static void membership4(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);
	int lo = (int)if_nametoindex("lo");
	struct ip_mreqn m = {.imr_ifindex = lo};
	struct ip_mreq old = {.imr_interface.s_addr = htonl(INADDR_LOOPBACK)};
	int i, ret = 0;

	printf("-- IPv4 multicast membership\n");
	m.imr_multiaddr.s_addr = htonl(0xe00000fb); /* 224.0.0.251 */
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), 0,
		 "join 224.0.0.251 on lo (ip_mreqn)");
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), EADDRINUSE,
		    "twice: EADDRINUSE");
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)), 0, "leave it");
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)), EADDRNOTAVAIL,
		    "leave again: EADDRNOTAVAIL");
	old.imr_multiaddr.s_addr = htonl(0xe00000fc);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &old, sizeof(old)), 0,
		 "join 224.0.0.252 by lo's address (ip_mreq)");
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &old, sizeof(old)), 0,
		 "... and leave");
	m.imr_multiaddr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), EINVAL,
		    "not a group: EINVAL");
	memset(&m, 0, sizeof(m));
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), EINVAL,
		    "all zero: EINVAL");
	m.imr_multiaddr.s_addr = htonl(0xe00000fb);
	m.imr_ifindex = 4242;
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), ENODEV,
		    "no such interface: ENODEV");
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(struct ip_mreq) - 1),
		    EINVAL, "a short option: EINVAL");
	CHECK_ERRNO(setsockopt(t, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), EPROTO,
		    "a TCP socket: EPROTO");
	m.imr_ifindex = lo;
	for (i = 0; i < 21 && ret == 0; i++) {
		m.imr_multiaddr.s_addr = htonl(0xe0000100 + (uint32_t)i);
		ret = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m));
	}
	CHECK(i == 21 && ret == -1 && errno == ENOBUFS, "20 groups; the 21st: ENOBUFS");
	close(fd);
	close(t);
}

static void membership6(int family)
{
	int fd = socket(family, SOCK_DGRAM, 0);
	struct ipv6_mreq m = {.ipv6mr_interface = if_nametoindex("lo")};

	printf("-- IPv6 multicast membership\n");
	inet_pton(AF_INET6, "ff02::fb", &m.ipv6mr_multiaddr);
	CHECK_EQ(setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)), 0,
		 "join ff02::fb on lo");
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)), EADDRINUSE,
		    "twice: EADDRINUSE");
	CHECK_EQ(setsockopt(fd, IPPROTO_IPV6, IPV6_DROP_MEMBERSHIP, &m, sizeof(m)), 0, "leave it");
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IPV6, IPV6_DROP_MEMBERSHIP, &m, sizeof(m)),
		    EADDRNOTAVAIL, "again: EADDRNOTAVAIL");
	m.ipv6mr_multiaddr = in6addr_loopback;
	CHECK_ERRNO(setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)), EINVAL,
		    "not a group: EINVAL");
	close(fd);
}

static void passcred(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
	int set = setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));

	printf("-- SO_PASSCRED\n");
	/* Linux 6.16 took it from all but Unix and netlink sockets */
	CHECK(set == 0 ? getint(fd, SOL_SOCKET, SO_PASSCRED) == 1 : errno == EOPNOTSUPP,
	      "taken and read back (before 6.16), or EOPNOTSUPP");
	close(fd);
}

static void v6_parts(int family)
{
	origdst(AF_INET6, false);
	origdst(AF_INET6, true);
	membership6(family);
}

int main(void)
{
	alarm(30);
	origdst(AF_INET, false);
	membership4();
	passcred();
	net_ipv6_quietly(v6_parts);
	return GUEST_DONE();
}
