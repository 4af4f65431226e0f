/*
 * Raw IP sockets over the loopback: what an AF_INET raw socket receives
 * (the whole packet), ICMP echo through a raw socket and its ICMP_FILTER,
 * IP_HDRINCL's fix-ups, a per-message IP_TTL, IPv6 raw sockets with
 * IPV6_CHECKSUM, the ICMPv6 socket's fixed checksum, and the errors of the
 * calls a raw socket does not have. Needs CAP_NET_RAW (run as root).
 */
#include "guest.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>

#ifndef ICMP_FILTER
#define ICMP_FILTER 1
#endif

static struct sockaddr_in lo4 = {.sin_family = AF_INET};
static struct sockaddr_in6 lo6 = {.sin6_family = AF_INET6};

/* Readable within 2 s? */
static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 2000) == 1;
}

/* One datagram within 2 s, or -1. */
static ssize_t recv_wait(int fd, void *buf, size_t len)
{
	if (!readable(fd))
		return -1;
	return recv(fd, buf, len, MSG_DONTWAIT);
}

static uint16_t sum16(const void *data, size_t len)
{
	const uint8_t *b = data;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)(b[len - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void errors(void)
{
	int s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP), v = 0;
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	char dev[IFNAMSIZ];

	CHECK_ERRNO(socket(AF_INET, SOCK_RAW, 0), EPROTONOSUPPORT, "a raw socket of protocol 0");
	CHECK_ERRNO(socket(AF_INET, SOCK_RAW, 263), EINVAL, "a raw socket of protocol 263");
	CHECK(s >= 0, "a raw UDP socket");
	CHECK(getsockname(s, (struct sockaddr *)&a, &l) == 0 && ntohs(a.sin_port) == IPPROTO_UDP &&
		      a.sin_addr.s_addr == 0,
	      "getsockname: 0.0.0.0, the protocol as the port");
	CHECK_ERRNO(listen(s, 1), EOPNOTSUPP, "listen");
	CHECK_ERRNO(shutdown(s, SHUT_RD), ENOTCONN, "shutdown before connect");
	CHECK_ERRNO(send(s, "x", 1, 0), EDESTADDRREQ, "send before connect");
	CHECK(connect(s, (struct sockaddr *)&lo4, sizeof(lo4)) == 0, "connect to 127.0.0.1");
	l = sizeof(a);
	CHECK(getsockname(s, (struct sockaddr *)&a, &l) == 0 &&
		      a.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	      "getsockname after connect: the source address");
	l = sizeof(a);
	CHECK_ERRNO(getpeername(s, (struct sockaddr *)&a, &l), ENOTCONN,
		    "getpeername, even connected");
	CHECK_ERRNO(setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "nosuchdev", 10), ENODEV,
		    "SO_BINDTODEVICE to no interface");
	CHECK(setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3) == 0, "SO_BINDTODEVICE lo");
	l = sizeof(dev);
	CHECK(getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &l) == 0 && l == 3 &&
		      strcmp(dev, "lo") == 0,
	      "SO_BINDTODEVICE reads back lo");
	CHECK_ERRNO(setsockopt(s, SOL_SOCKET, SO_DETACH_FILTER, &v, sizeof(v)), ENOENT,
		    "SO_DETACH_FILTER without a filter");
	CHECK_ERRNO(setsockopt(s, SOL_IPV6, IPV6_CHECKSUM, &v, sizeof(v)), ENOPROTOOPT,
		    "IPV6_CHECKSUM on an AF_INET raw socket");
	close(s);
}

/* A UDP datagram to itself, as the raw UDP socket sees it. */
static void receive_udp(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), r = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	struct sockaddr_in a = lo4, from;
	socklen_t l = sizeof(a);
	uint8_t buf[256];
	struct iphdr ip;
	struct udphdr uh;
	ssize_t n;

	CHECK(bind(u, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		      getsockname(u, (struct sockaddr *)&a, &l) == 0,
	      "a UDP socket on 127.0.0.1");
	CHECK_EQ(sendto(u, "abcdefgh", 9, 0, (struct sockaddr *)&a, sizeof(a)), 9,
		 "the UDP socket sends 9 bytes to itself");
	l = sizeof(from);
	n = readable(r) ? recvfrom(r, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &l)
			: -1;
	CHECK_EQ(n, 20 + 8 + 9, "the raw socket gets the IP header, the UDP header, the data");
	memcpy(&ip, buf, sizeof(ip));
	memcpy(&uh, buf + 20, sizeof(uh));
	CHECK(ip.version == 4 && ip.ihl == 5 && ntohs(ip.tot_len) == 37 &&
		      ip.protocol == IPPROTO_UDP && ip.saddr == htonl(INADDR_LOOPBACK) &&
		      ip.daddr == htonl(INADDR_LOOPBACK),
	      "the IPv4 header: version, length, protocol, addresses");
	CHECK(uh.source == a.sin_port && uh.dest == a.sin_port && ntohs(uh.len) == 17,
	      "the UDP header: ports and length");
	CHECK(memcmp(buf + 28, "abcdefgh", 9) == 0, "the data");
	CHECK(l == sizeof(from) && from.sin_port == 0 && from.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	      "the source: 127.0.0.1, port 0");
	n = recv(u, buf, sizeof(buf), MSG_DONTWAIT);
	CHECK_EQ(n, 9, "the UDP socket still gets its datagram");
	close(u);
	close(r);
}

static void icmp_echo(void)
{
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	struct icmphdr h = {.type = ICMP_ECHO};
	uint8_t buf[128];
	bool req = false, rep = false;
	uint32_t filter = 1u << ICMP_ECHO;

	h.un.echo.id = htons(77);
	h.un.echo.sequence = htons(5);
	h.checksum = htons(sum16(&h, sizeof(h)));
	CHECK_EQ(sendto(r, &h, sizeof(h), 0, (struct sockaddr *)&lo4, sizeof(lo4)), 8,
		 "an echo request to 127.0.0.1");
	for (int i = 0; i < 2; i++) {
		struct icmphdr g;
		if (recv_wait(r, buf, sizeof(buf)) != 28)
			break;
		memcpy(&g, buf + 20, sizeof(g));
		if (g.type == ICMP_ECHO && memcmp(&g, &h, sizeof(h)) == 0)
			req = true;
		if (g.type == ICMP_ECHOREPLY && g.un.echo.id == h.un.echo.id &&
		    g.un.echo.sequence == h.un.echo.sequence && sum16(&g, sizeof(g)) == 0)
			rep = true;
	}
	CHECK(req, "the raw ICMP socket sees the request");
	CHECK(rep, "and the stack's reply, its checksum right");
	CHECK(setsockopt(r, SOL_RAW, ICMP_FILTER, &filter, sizeof(filter)) == 0,
	      "ICMP_FILTER blocks echo requests");
	h.un.echo.sequence = htons(6);
	h.checksum = 0;
	h.checksum = htons(sum16(&h, sizeof(h)));
	sendto(r, &h, sizeof(h), 0, (struct sockaddr *)&lo4, sizeof(lo4));
	CHECK(recv_wait(r, buf, sizeof(buf)) == 28 && buf[20] == ICMP_ECHOREPLY,
	      "then only the reply comes");
	CHECK_ERRNO(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "and nothing else");
	close(r);
}

/* IPPROTO_RAW: the guest's header, with length, checksum and source filled in. */
static void hdrincl(void)
{
	int w = socket(AF_INET, SOCK_RAW, IPPROTO_RAW), r = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	uint8_t pkt[20 + 8 + 4] = {0x45, 0, 0, 0, 0, 0, 0, 0, 9, IPPROTO_UDP};
	uint8_t buf[128];
	struct iphdr ip;
	int v = 0;
	socklen_t l = sizeof(v);

	CHECK(getsockopt(w, SOL_IP, IP_HDRINCL, &v, &l) == 0 && v == 1,
	      "IPPROTO_RAW: IP_HDRINCL is on");
	memcpy(pkt + 16, &lo4.sin_addr, 4);
	pkt[20] = 0x9c, pkt[21] = 0x40, pkt[22] = 0x9c, pkt[23] = 0x40; /* ports 40000 */
	pkt[25] = 12;
	memcpy(pkt + 28, "toto", 4);
	CHECK_ERRNO(sendto(w, pkt, 19, 0, (struct sockaddr *)&lo4, sizeof(lo4)), EINVAL,
		    "a packet shorter than an IP header");
	CHECK_EQ(sendto(w, pkt, sizeof(pkt), 0, (struct sockaddr *)&lo4, sizeof(lo4)), 32,
		 "a UDP packet with its own IP header");
	CHECK_EQ(recv_wait(r, buf, sizeof(buf)), 32, "the raw UDP socket receives it");
	memcpy(&ip, buf, sizeof(ip));
	CHECK(ntohs(ip.tot_len) == 32 && ip.saddr == htonl(INADDR_LOOPBACK) && ip.ttl == 9 &&
		      ip.id != 0 && sum16(buf, 20) == 0,
	      "length, source, identification and checksum filled in; the TTL kept");
	CHECK_ERRNO(recv(w, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		    "an IPPROTO_RAW socket receives nothing");
	close(w);
	close(r);
}

/* IP_TTL as a control message, for one send. */
static void ttl_cmsg(void)
{
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_UDP), one = 1, ttl = 33, got = 0;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c = {0}, rc;
	struct iovec iov = {.iov_base = "malformed", .iov_len = 9};
	struct msghdr m = {.msg_name = &lo4, .msg_namelen = sizeof(lo4), .msg_iov = &iov,
			   .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof(c.b)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	uint8_t buf[64];

	h->cmsg_level = IPPROTO_IP;
	h->cmsg_type = IP_TTL;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &ttl, sizeof(int));
	CHECK(bind(r, (struct sockaddr *)&lo4, sizeof(lo4)) == 0 &&
		      setsockopt(r, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)) == 0,
	      "a raw UDP socket on 127.0.0.1, IP_RECVTTL");
	CHECK_EQ(sendmsg(r, &m, 0), 9, "sendmsg with IP_TTL 33");
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	m.msg_name = NULL;
	m.msg_namelen = 0;
	m.msg_control = rc.b;
	m.msg_controllen = sizeof(rc.b);
	CHECK_EQ(readable(r) ? recvmsg(r, &m, MSG_DONTWAIT) : -1, 29, "it comes back, header first");
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_TTL)
		memcpy(&got, CMSG_DATA(h), sizeof(got));
	CHECK(buf[8] == 33 && got == 33, "with TTL 33 in the header and the control message");
	ttl = 0;
	m.msg_name = &lo4;
	m.msg_namelen = sizeof(lo4);
	m.msg_control = c.b;
	m.msg_controllen = sizeof(c.b);
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &ttl, sizeof(int));
	CHECK_ERRNO(sendmsg(r, &m, 0), EINVAL, "IP_TTL 0 in a control message");
	close(r);
}

/* IPv6: no header on receive, IPV6_CHECKSUM, the ICMPv6 socket's own sum. */
static void ipv6(void)
{
	int sum = socket(AF_INET6, SOCK_RAW, IPPROTO_UDP);
	int nosum = socket(AF_INET6, SOCK_RAW, IPPROTO_UDP);
	int icmp6 = socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6);
	uint8_t pkt[12] = {0, 1, 0, 2, 0, 12, 0, 0, 'a', 'b', 'c', 'd'}, buf[64];
	int v = 3, got = 0;
	socklen_t l = sizeof(got);
	struct icmp6_filter f;

	CHECK(sum >= 0 && nosum >= 0 && icmp6 >= 0, "IPv6 raw sockets (UDP, ICMPv6)");
	CHECK_ERRNO(setsockopt(sum, IPPROTO_IPV6, IPV6_CHECKSUM, &v, sizeof(v)), EINVAL,
		    "IPV6_CHECKSUM at an odd offset");
	CHECK(getsockopt(sum, IPPROTO_IPV6, IPV6_CHECKSUM, &got, &l) == 0 && got == -1,
	      "IPV6_CHECKSUM is off at first");
	v = 6;
	CHECK(setsockopt(sum, IPPROTO_IPV6, IPV6_CHECKSUM, &v, sizeof(v)) == 0,
	      "IPV6_CHECKSUM at UDP's offset");
	CHECK(bind(sum, (struct sockaddr *)&lo6, sizeof(lo6)) == 0 &&
		      bind(nosum, (struct sockaddr *)&lo6, sizeof(lo6)) == 0,
	      "both bound to ::1");
	CHECK_EQ(sendto(nosum, pkt, sizeof(pkt), 0, (struct sockaddr *)&lo6, sizeof(lo6)), 12,
		 "a datagram without a checksum");
	CHECK(recv_wait(nosum, buf, sizeof(buf)) == 12 && memcmp(buf, pkt, 12) == 0,
	      "the unchecked socket gets it, without the IPv6 header");
	CHECK_ERRNO(recv(sum, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		    "the checksumming socket drops it");
	CHECK_EQ(sendto(sum, pkt, sizeof(pkt), 0, (struct sockaddr *)&lo6, sizeof(lo6)), 12,
		 "a datagram the stack sums");
	CHECK(recv_wait(sum, buf, sizeof(buf)) == 12 && (buf[6] || buf[7]),
	      "the checksumming socket gets it, its checksum set");
	CHECK(recv_wait(nosum, buf, sizeof(buf)) == 12, "and so does the other");
	l = sizeof(got);
	CHECK(getsockopt(icmp6, IPPROTO_IPV6, IPV6_CHECKSUM, &got, &l) == 0 && got == 2,
	      "ICMPv6: the checksum is at 2");
	v = 4;
	CHECK_ERRNO(setsockopt(icmp6, IPPROTO_IPV6, IPV6_CHECKSUM, &v, sizeof(v)), EINVAL,
		    "ICMPv6: IPV6_CHECKSUM cannot be moved");
	l = sizeof(f);
	memset(&f, 0xff, sizeof(f));
	CHECK(getsockopt(icmp6, IPPROTO_ICMPV6, ICMP6_FILTER, &f, &l) == 0 && l == sizeof(f) &&
		      ICMP6_FILTER_WILLPASS(ICMP6_ECHO_REQUEST, &f),
	      "ICMP6_FILTER passes all at first");
	CHECK_ERRNO(setsockopt(sum, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)), EOPNOTSUPP,
		    "ICMP6_FILTER on a UDP raw socket");
	CHECK_ERRNO(setsockopt(sum, SOL_IP, IP_TTL, &v, sizeof(v)), ENOPROTOOPT,
		    "SOL_IP options on an AF_INET6 raw socket");
	close(sum);
	close(nosum);
	close(icmp6);
}

int main(void)
{
	lo4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lo6.sin6_addr = in6addr_loopback;
	errors();
	receive_udp();
	icmp_echo();
	hdrincl();
	ttl_cmsg();
	ipv6();
	return GUEST_DONE();
}
