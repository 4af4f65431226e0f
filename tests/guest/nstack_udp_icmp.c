/*
 * Guest test: what a UDP socket learns of the ICMP errors its datagrams
 * draw, and the rest of its connect/disconnect life, IPv4 and IPv6:
 * - a connected socket sending to a closed port: POLLERR, the next send
 *   fails with ECONNREFUSED, the one after succeeds;
 * - with IP_RECVERR (IPV6_RECVERR): recvmsg(MSG_ERRQUEUE) gives the
 *   datagram's payload, its destination, MSG_ERRQUEUE and a
 *   sock_extended_err (errno, origin, type, code, the offender's address),
 *   then SO_ERROR is 0 and the queue is empty; an unconnected socket gets
 *   it too, and only with the option; a short buffer gets MSG_TRUNC;
 * - SIOCGSTAMP/SIOCGSTAMPNS: ENOENT before a read, the arrival after one,
 *   unchanged by a read with SO_TIMESTAMP on;
 * - connect(AF_UNSPEC) gives up the address and the port bind() did not
 *   choose (a port 0 bind chose none); a socket bound to the wildcard and connected shows the
 *   route's source address;
 * - an AF_INET address on an AF_INET6 socket's connect and sendto;
 * - a read after SHUT_RD: EAGAIN when non-blocking, 0 when blocking.
 */
#include "netguest.h"

#include <linux/errqueue.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/ioctl.h>

#define PAYLOAD 300

static const char *fam_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

/* A loopback port no socket holds (it was bound a moment ago). */
static socklen_t closed_port(int family, struct sockaddr_storage *addr)
{
	socklen_t len;
	int fd = net_bound(family, SOCK_DGRAM, addr, &len);

	close(fd);
	return len;
}

static int sock_error(int fd)
{
	int e = -1;
	socklen_t l = sizeof(e);

	return getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0 ? -2 : e;
}

static bool wait_err(int fd)
{
	struct pollfd p = {fd, POLLERR, 0};

	return poll(&p, 1, 5000) == 1 && (p.revents & POLLERR);
}

static void refused(int family)
{
	struct sockaddr_storage dst;
	socklen_t len = closed_port(family, &dst);
	int fd = socket(family, SOCK_DGRAM, 0);
	char buf[64] = {0};

	printf("-- %s: a connected socket, no IP_RECVERR\n", fam_name(family));
	CHECK_EQ(connect(fd, (struct sockaddr *)&dst, len), 0, "connect to a closed port");
	CHECK_EQ(send(fd, buf, sizeof(buf), 0), sizeof(buf), "the first send succeeds");
	CHECK(wait_err(fd), "POLLERR follows");
	CHECK_ERRNO(send(fd, buf, sizeof(buf), 0), ECONNREFUSED, "the next send: ECONNREFUSED");
	CHECK_EQ(send(fd, buf, sizeof(buf), 0), sizeof(buf), "the one after succeeds");
	CHECK(wait_err(fd), "POLLERR again");
	CHECK_EQ(sock_error(fd), ECONNREFUSED, "SO_ERROR takes it");
	CHECK_EQ(sock_error(fd), 0, "... once");
	CHECK_ERRNO(recv(fd, buf, sizeof(buf), MSG_ERRQUEUE | MSG_DONTWAIT), EAGAIN,
		    "no queue without IP_RECVERR");
	close(fd);
}

/* recvmsg(MSG_ERRQUEUE) with a data buffer of room bytes: checks all of it. */
static void read_queue(int fd, int family, const struct sockaddr_storage *dst, socklen_t len,
		       const char *sent, size_t room)
{
	char data[PAYLOAD], ctl[CMSG_SPACE(sizeof(struct sock_extended_err) +
					   sizeof(struct sockaddr_in6))];
	struct sockaddr_storage name;
	struct iovec iov = {data, room};
	struct msghdr mh = {.msg_name = &name, .msg_namelen = sizeof(name), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	struct sock_extended_err ee;
	long n = recvmsg(fd, &mh, MSG_ERRQUEUE);

	CHECK_EQ(n, (long)room, "MSG_ERRQUEUE: the payload's length (or the buffer's)");
	CHECK(n > 0 && memcmp(data, sent, (size_t)n) == 0, "... the datagram's payload");
	CHECK(mh.msg_flags & MSG_ERRQUEUE, "... msg_flags has MSG_ERRQUEUE");
	CHECK(!!(mh.msg_flags & MSG_TRUNC) == (room < PAYLOAD), "... MSG_TRUNC when cut");
	CHECK(mh.msg_namelen == len && memcmp(&name, dst, len) == 0,
	      "... the name: the datagram's destination");
	c = CMSG_FIRSTHDR(&mh);
	CHECK(c != NULL, "... a control message");
	if (!c)
		return;
	CHECK(c->cmsg_level == (family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6) &&
		      c->cmsg_type == (family == AF_INET ? IP_RECVERR : IPV6_RECVERR),
	      "... IP_RECVERR (IPV6_RECVERR)");
	CHECK(CMSG_NXTHDR(&mh, c) == NULL, "... only that one");
	memcpy(&ee, CMSG_DATA(c), sizeof(ee));
	CHECK_EQ(ee.ee_errno, ECONNREFUSED, "... ee_errno");
	if (family == AF_INET) {
		struct sockaddr_in off;
		memcpy(&off, CMSG_DATA(c) + sizeof(ee), sizeof(off));
		CHECK(ee.ee_origin == SO_EE_ORIGIN_ICMP && ee.ee_type == 3 && ee.ee_code == 3,
		      "... ICMP port unreachable");
		CHECK(off.sin_family == AF_INET && off.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
		      "... the offender: 127.0.0.1");
	} else {
		struct sockaddr_in6 off;
		memcpy(&off, CMSG_DATA(c) + sizeof(ee), sizeof(off));
		CHECK(ee.ee_origin == SO_EE_ORIGIN_ICMP6 && ee.ee_type == 1 && ee.ee_code == 4,
		      "... ICMPv6 port unreachable");
		CHECK(off.sin6_family == AF_INET6 &&
			      memcmp(&off.sin6_addr, &in6addr_loopback, 16) == 0,
		      "... the offender: ::1");
	}
	CHECK_EQ(ee.ee_info, 0, "... ee_info 0");
}

static void recverr(int family, bool connected)
{
	struct sockaddr_storage dst;
	socklen_t len = closed_port(family, &dst);
	int fd = socket(family, SOCK_DGRAM, 0), one = 1, zero = 0;
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int name = family == AF_INET ? IP_RECVERR : IPV6_RECVERR;
	char buf[PAYLOAD];

	printf("-- %s: IP_RECVERR, %s\n", fam_name(family), connected ? "connected" : "sendto");
	for (int i = 0; i < PAYLOAD; i++)
		buf[i] = (char)(i * 7 + 1);
	CHECK_EQ(setsockopt(fd, level, name, &one, sizeof(one)), 0, "set the option");
	if (connected)
		CHECK_EQ(connect(fd, (struct sockaddr *)&dst, len), 0, "connect to a closed port");
	for (int round = 0; round < 2; round++) {
		long n = connected ? send(fd, buf, sizeof(buf), 0)
				   : sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&dst, len);
		CHECK_EQ(n, sizeof(buf), "a datagram to it");
		CHECK(wait_err(fd), "POLLERR follows");
		read_queue(fd, family, &dst, len, buf, round ? 100 : PAYLOAD);
		CHECK_EQ(sock_error(fd), 0, "SO_ERROR is 0 after the read");
		CHECK_ERRNO(recv(fd, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN,
			    "the queue is empty (and does not block)");
	}
	CHECK_EQ(sendto(fd, buf, 10, 0, (struct sockaddr *)&dst, len), 10, "one more");
	CHECK(wait_err(fd), "POLLERR");
	CHECK_EQ(setsockopt(fd, level, name, &zero, sizeof(zero)), 0, "the option off");
	CHECK_ERRNO(recv(fd, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN, "... empties the queue");
	close(fd);

	if (connected)
		return;
	fd = socket(family, SOCK_DGRAM, 0);
	CHECK_EQ(sendto(fd, buf, 10, 0, (struct sockaddr *)&dst, len), 10,
		 "without the option, unconnected: a datagram to the closed port");
	/* A second socket's error, to the same port, comes back after the
	 * first one's would have. */
	{
		int w = socket(family, SOCK_DGRAM, 0);
		CHECK_EQ(setsockopt(w, level, name, &one, sizeof(one)), 0, "(a witness)");
		CHECK_EQ(sendto(w, buf, 10, 0, (struct sockaddr *)&dst, len), 10, "(its datagram)");
		CHECK(wait_err(w), "(its error)");
		close(w);
	}
	CHECK_EQ(sock_error(fd), 0, "... no error");
	CHECK_ERRNO(recv(fd, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN, "... nothing queued");
	CHECK_EQ(sendto(fd, buf, 10, 0, (struct sockaddr *)&dst, len), 10, "... sends go on");
	close(fd);
}

static void timestamps(int family)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int r = net_bound(family, SOCK_DGRAM, &addr, &len), s = socket(family, SOCK_DGRAM, 0);
	int one = 1;
	struct timeval tv = {0}, tv2 = {0};
	struct timespec ts = {0};
	char buf[8];

	printf("-- %s: SIOCGSTAMP\n", fam_name(family));
	CHECK_ERRNO(ioctl(r, SIOCGSTAMP, &tv), ENOENT, "before any read: ENOENT");
	CHECK_ERRNO(ioctl(r, SIOCGSTAMPNS, &ts), ENOENT, "SIOCGSTAMPNS too");
	CHECK_EQ(sendto(s, "abc", 3, 0, (struct sockaddr *)&addr, len), 3, "a datagram");
	CHECK_ERRNO(ioctl(r, SIOCGSTAMP, &tv), ENOENT, "not yet read: ENOENT");
	CHECK_EQ(recv(r, buf, sizeof(buf), 0), 3, "read");
	CHECK_EQ(ioctl(r, SIOCGSTAMP, &tv), 0, "then SIOCGSTAMP succeeds");
	CHECK(tv.tv_sec > 0 && tv.tv_usec >= 0 && tv.tv_usec < 1000000, "... a time of day");
	CHECK_EQ(ioctl(r, SIOCGSTAMPNS, &ts), 0, "SIOCGSTAMPNS");
	CHECK(ts.tv_sec == tv.tv_sec && ts.tv_nsec / 1000 == tv.tv_usec, "... the same time");
	CHECK_EQ(setsockopt(r, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)), 0, "SO_TIMESTAMP on");
	CHECK_EQ(sendto(s, "de", 2, 0, (struct sockaddr *)&addr, len), 2, "another");
	CHECK_EQ(recv(r, buf, sizeof(buf), 0), 2, "read");
	CHECK_EQ(ioctl(r, SIOCGSTAMP, &tv2), 0, "SIOCGSTAMP");
	CHECK(tv2.tv_sec == tv.tv_sec && tv2.tv_usec == tv.tv_usec,
	      "... still the first one's (the option's reads leave it)");
	CHECK_ERRNO(ioctl(s, SIOCGSTAMP, &tv), ENOENT, "the sender never read: ENOENT");
	close(r);
	close(s);
	r = socket(family, SOCK_STREAM, 0);
	CHECK_ERRNO(ioctl(r, SIOCGSTAMP, &tv), ENOENT, "a TCP socket: ENOENT");
	close(r);
}

static void check_name(int fd, int family, bool loopback, int port, const char *what)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	bool ok = getsockname(fd, (struct sockaddr *)&ss, &l) == 0;

	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		ok = ok && l == sizeof(*a) &&
		     a->sin_addr.s_addr == htonl(loopback ? INADDR_LOOPBACK : INADDR_ANY) &&
		     (port < 0 ? a->sin_port != 0 : a->sin_port == htons((uint16_t)port));
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		ok = ok && l == sizeof(*a) &&
		     memcmp(&a->sin6_addr, loopback ? &in6addr_loopback : &in6addr_any, 16) == 0 &&
		     (port < 0 ? a->sin6_port != 0 : a->sin6_port == htons((uint16_t)port));
	}
	CHECK(ok, what);
}

static void disconnect(int family)
{
	struct sockaddr_storage peer, any, unspec = {.ss_family = AF_UNSPEC};
	socklen_t len;
	int p = net_bound(family, SOCK_DGRAM, &peer, &len), fd, port;

	printf("-- %s: connect and disconnect\n", fam_name(family));
	fd = socket(family, SOCK_DGRAM, 0);
	CHECK_EQ(connect(fd, (struct sockaddr *)&peer, len), 0, "connect, not bound");
	check_name(fd, family, true, -1, "getsockname: the loopback and a port");
	CHECK_EQ(connect(fd, (struct sockaddr *)&unspec, sizeof(unspec)), 0, "AF_UNSPEC");
	check_name(fd, family, false, 0, "getsockname: the wildcard, port 0 (unbound)");
	CHECK_ERRNO(getpeername(fd, (struct sockaddr *)&any, &len), ENOTCONN, "no peer");
	close(fd);

	fd = socket(family, SOCK_DGRAM, 0);
	memset(&any, 0, sizeof(any));
	any.ss_family = (sa_family_t)family;
	CHECK_EQ(bind(fd, (struct sockaddr *)&any, len), 0, "bind the wildcard, port 0");
	CHECK_EQ(connect(fd, (struct sockaddr *)&peer, len), 0, "connect");
	check_name(fd, family, true, -1, "getsockname: the route's source address");
	CHECK_EQ(connect(fd, (struct sockaddr *)&unspec, sizeof(unspec)), 0, "AF_UNSPEC");
	check_name(fd, family, false, 0, "getsockname: unbound again");
	close(fd);

	fd = net_bound(family, SOCK_DGRAM, &any, &len);
	port = ntohs(((struct sockaddr_in *)&any)->sin_port); /* the same place in both */
	close(fd);
	fd = socket(family, SOCK_DGRAM, 0);
	memset(&any, 0, sizeof(any));
	any.ss_family = (sa_family_t)family;
	((struct sockaddr_in *)&any)->sin_port = htons((uint16_t)port);
	CHECK_EQ(bind(fd, (struct sockaddr *)&any, len), 0, "bind the wildcard, a port");
	CHECK_EQ(connect(fd, (struct sockaddr *)&peer, len), 0, "connect");
	CHECK_EQ(connect(fd, (struct sockaddr *)&unspec, sizeof(unspec)), 0, "AF_UNSPEC");
	check_name(fd, family, false, port, "getsockname: the wildcard, the bound port");
	close(fd);

	fd = net_bound(family, SOCK_DGRAM, &any, &len);
	CHECK_EQ(connect(fd, (struct sockaddr *)&peer, len), 0, "bound to the loopback, connect");
	CHECK_EQ(connect(fd, (struct sockaddr *)&unspec, sizeof(unspec)), 0, "AF_UNSPEC");
	check_name(fd, family, true, 0, "getsockname: the bound address, port 0 (the kernel chose it)");
	close(fd);
	close(p);
}

static void v4_on_v6(void)
{
	struct sockaddr_storage peer, from;
	socklen_t len, flen = sizeof(from);
	int p = net_bound(AF_INET, SOCK_DGRAM, &peer, &len), fd = socket(AF_INET6, SOCK_DGRAM, 0);
	int one = 1;
	char buf[8];
	struct sockaddr_in6 got;
	socklen_t glen = sizeof(got);

	printf("-- an AF_INET address on an AF_INET6 socket\n");
	CHECK_EQ(sendto(fd, "x", 1, 0, (struct sockaddr *)&peer, len), 1, "sendto");
	CHECK_EQ(recvfrom(p, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 1,
		 "... arrives");
	CHECK_EQ(connect(fd, (struct sockaddr *)&peer, len), 0, "connect");
	CHECK_EQ(getpeername(fd, (struct sockaddr *)&got, &glen), 0, "getpeername");
	CHECK(glen == sizeof(got) && got.sin6_family == AF_INET6 &&
		      IN6_IS_ADDR_V4MAPPED(&got.sin6_addr) &&
		      got.sin6_port == ((struct sockaddr_in *)&peer)->sin_port,
	      "... the v4-mapped address");
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&peer, sizeof(struct sockaddr_in) - 1), EINVAL,
		    "a short one: EINVAL");
	close(fd);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)), 0, "v6-only");
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&peer, len), EAFNOSUPPORT,
		    "connect: EAFNOSUPPORT");
	CHECK_ERRNO(sendto(fd, "x", 1, 0, (struct sockaddr *)&peer, len), ENETUNREACH,
		    "sendto: ENETUNREACH");
	close(fd);
	close(p);
}

static void shut_rd(void)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int r = net_bound(AF_INET, SOCK_DGRAM, &addr, &len);
	char buf[8];

	printf("-- a read after SHUT_RD\n");
	CHECK_EQ(connect(r, (struct sockaddr *)&addr, len), 0, "connected to itself");
	CHECK_EQ(send(r, "abc", 3, 0), 3, "a datagram");
	CHECK_EQ(shutdown(r, SHUT_RD), 0, "SHUT_RD");
	CHECK_EQ(recv(r, buf, 2, MSG_DONTWAIT), 2, "the queued datagram, cut");
	CHECK_ERRNO(recv(r, buf, 1, MSG_DONTWAIT), EAGAIN, "then non-blocking: EAGAIN");
	CHECK_EQ(recv(r, buf, 1, 0), 0, "blocking: 0");
	close(r);
}

static void per_family(int family)
{
	refused(family);
	recverr(family, true);
	recverr(family, false);
	timestamps(family);
	disconnect(family);
}

int main(void)
{
	alarm(60); /* a receive that blocks instead is a failure */
	per_family(AF_INET);
	net_ipv6_quietly(per_family);
	v4_on_v6();
	shut_rd();
	return GUEST_DONE();
}
