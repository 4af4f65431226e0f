/*
 * Dual-stack AF_INET6 sockets over the loopback: a listener on :: takes
 * IPv4 connections and names their peers ::ffff:127.0.0.1; an AF_INET6
 * client reaches an IPv4 listener through a v4-mapped address; with
 * IPV6_V6ONLY neither works (ECONNREFUSED, ENETUNREACH). UDP the same
 * way. Addresses are printed, ports never.
 */
#include "netguest.h"

static void show(const char *what, const struct sockaddr *sa)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, sizeof(buf));
	else if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, sizeof(buf));
	printf("%s: family %s, %s\n", what, sa->sa_family == AF_INET6 ? "AF_INET6" : "AF_INET",
	       buf);
}

static int listener6(int v6only, struct sockaddr_in6 *a)
{
	int s = socket(AF_INET6, SOCK_STREAM, 0), one = v6only;
	socklen_t len = sizeof(*a);

	memset(a, 0, sizeof(*a));
	a->sin6_family = AF_INET6;
	a->sin6_addr = in6addr_any;
	if (s < 0 || setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)a, sizeof(*a)) < 0 || listen(s, 8) < 0 ||
	    getsockname(s, (struct sockaddr *)a, &len) < 0)
		return -1;
	return s;
}

int main(void)
{
	struct sockaddr_in6 a6, peer6;
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_storage ss;
	socklen_t len;
	int l, c, s, v = -1;
	char buf[16];

	/* A dual-stack listener and an IPv4 client. */
	l = listener6(0, &a6);
	CHECK(l >= 0, "a listener on :: (dual stack)");
	len = sizeof(v);
	CHECK_EQ(getsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len), 0, "IPV6_V6ONLY");
	CHECK_EQ(v, 0, "... is off");
	show("the listener", (struct sockaddr *)&a6);
	a4.sin_port = a6.sin6_port;
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(connect(c, (struct sockaddr *)&a4, sizeof(a4)), 0, "an IPv4 client connects");
	len = sizeof(peer6);
	s = accept(l, (struct sockaddr *)&peer6, &len);
	CHECK(s >= 0, "accept");
	CHECK_EQ(len, sizeof(peer6), "the peer's address is a sockaddr_in6");
	show("the peer", (struct sockaddr *)&peer6);
	len = sizeof(ss);
	CHECK_EQ(getsockname(s, (struct sockaddr *)&ss, &len), 0, "getsockname");
	show("the accepted end", (struct sockaddr *)&ss);
	CHECK_EQ(write(c, "ping", 4), 4, "write");
	CHECK_EQ(net_read_all(s, buf, 4), 4, "the v6 socket reads it");
	close(c);
	close(s);

	/* An IPv6 client to a v4-mapped address. */
	c = socket(AF_INET6, SOCK_STREAM, 0);
	memset(&peer6, 0, sizeof(peer6));
	peer6.sin6_family = AF_INET6;
	peer6.sin6_port = a6.sin6_port;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &peer6.sin6_addr);
	CHECK_EQ(connect(c, (struct sockaddr *)&peer6, sizeof(peer6)), 0,
		 "an AF_INET6 client connects to ::ffff:127.0.0.1");
	len = sizeof(ss);
	CHECK_EQ(getsockname(c, (struct sockaddr *)&ss, &len), 0, "getsockname");
	show("the client", (struct sockaddr *)&ss);
	s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept");
	close(s);
	close(c);
	close(l);

	/* IPV6_V6ONLY: no IPv4 on either side. */
	l = listener6(1, &a6);
	CHECK(l >= 0, "a listener on :: with IPV6_V6ONLY");
	a4.sin_port = a6.sin6_port;
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_ERRNO(connect(c, (struct sockaddr *)&a4, sizeof(a4)), ECONNREFUSED,
		    "an IPv4 client is refused");
	close(c);
	close(l);
	c = socket(AF_INET6, SOCK_STREAM, 0);
	v = 1;
	CHECK_EQ(setsockopt(c, IPPROTO_IPV6, IPV6_V6ONLY, &v, sizeof(v)), 0, "IPV6_V6ONLY");
	CHECK_ERRNO(connect(c, (struct sockaddr *)&peer6, sizeof(peer6)), ENETUNREACH,
		    "a v4-mapped destination is unreachable");
	close(c);

	/* UDP: an AF_INET6 socket and an AF_INET one. */
	{
		struct sockaddr_in u4 = {.sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int s4 = socket(AF_INET, SOCK_DGRAM, 0), s6 = socket(AF_INET6, SOCK_DGRAM, 0);
		len = sizeof(u4);
		CHECK_EQ(bind(s4, (struct sockaddr *)&u4, sizeof(u4)), 0, "bind a UDP socket");
		getsockname(s4, (struct sockaddr *)&u4, &len);
		peer6.sin6_port = u4.sin_port;
		CHECK_EQ(sendto(s6, "six", 3, 0, (struct sockaddr *)&peer6, sizeof(peer6)), 3,
			 "sendto ::ffff:127.0.0.1");
		len = sizeof(ss);
		CHECK_EQ(recvfrom(s4, buf, sizeof(buf), 0, (struct sockaddr *)&ss, &len), 3,
			 "the IPv4 socket receives it");
		show("from", (struct sockaddr *)&ss);
		CHECK_EQ(sendto(s4, "four", 4, 0, (struct sockaddr *)&ss, len), 4, "the reply");
		len = sizeof(ss);
		CHECK_EQ(recvfrom(s6, buf, sizeof(buf), 0, (struct sockaddr *)&ss, &len), 4,
			 "the AF_INET6 socket receives it");
		show("from", (struct sockaddr *)&ss);
		close(s4);
		close(s6);
	}
	return GUEST_DONE();
}
