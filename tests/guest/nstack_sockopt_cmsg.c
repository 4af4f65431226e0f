/*
 * Control messages of UDP receives over the loopback, as the options ask
 * for them: SO_TIMESTAMP(NS), IP_PKTINFO, IP_RECVTTL, IP_RECVTOS on
 * AF_INET; IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS on
 * AF_INET6 (also for an IPv4 datagram to a dual-stack socket); MSG_CTRUNC
 * when the buffer is short. Timestamps are printed as "recent" only.
 */
#define _GNU_SOURCE
#include "netguest.h"

#include <errno.h>
#include <sys/time.h>
#include <time.h>

static void show(int fd, size_t room)
{
	char data[16], ctl[512];
	struct iovec iov = {data, sizeof(data)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = room};
	struct cmsghdr *c;
	time_t now = time(NULL);
	char a[INET6_ADDRSTRLEN];
	ssize_t n = recvmsg(fd, &mh, 0);

	if (n < 0) {
		printf("  recvmsg: %s\n", strerrorname_np(errno));
		return;
	}
	printf("  %zd bytes, flags%s, controllen %zu\n", n,
	       mh.msg_flags & MSG_CTRUNC ? " CTRUNC" : "", (size_t)mh.msg_controllen);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		unsigned char *p = CMSG_DATA(c);
		printf("  cmsg level %d type %d len %zu:", c->cmsg_level, c->cmsg_type,
		       (size_t)c->cmsg_len);
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMP) {
			struct timeval tv;
			memcpy(&tv, p, sizeof(tv));
			printf(" %s", tv.tv_sec >= now - 10 && tv.tv_sec <= now + 10 ? "recent" : "?");
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			memcpy(&ts, p, sizeof(ts));
			printf(" %s", ts.tv_sec >= now - 10 && ts.tv_sec <= now + 10 ? "recent" : "?");
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			memcpy(&pi, p, sizeof(pi));
			printf(" ifindex %d spec_dst %s", pi.ipi_ifindex, inet_ntoa(pi.ipi_spec_dst));
			printf(" addr %s", inet_ntoa(pi.ipi_addr));
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			printf(" %d", p[0]);
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			memcpy(&pi, p, sizeof(pi));
			printf(" ifindex %u addr %s", pi.ipi6_ifindex,
			       inet_ntop(AF_INET6, &pi.ipi6_addr, a, sizeof(a)));
		} else {
			int v;
			memcpy(&v, p, sizeof(v));
			printf(" %d", v);
		}
		printf("\n");
	}
}

static int on(int fd, int lvl, int name)
{
	int one = 1;

	return setsockopt(fd, lvl, name, &one, sizeof(one));
}

int main(void)
{
	struct sockaddr_storage a, b;
	socklen_t alen, blen;
	int r, s, tos = 0x20, ttl = 9, r6, s6, s4;

	r = net_bound(AF_INET, SOCK_DGRAM, &a, &alen);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(r >= 0 && s >= 0, "UDP sockets");
	CHECK_EQ(setsockopt(s, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)), 0, "IP_TOS");
	CHECK_EQ(setsockopt(s, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)), 0, "IP_TTL");

	printf("AF_INET, no options\n");
	sendto(s, "x", 1, 0, (struct sockaddr *)&a, alen);
	show(r, 512);
	CHECK_EQ(on(r, SOL_SOCKET, SO_TIMESTAMP) | on(r, IPPROTO_IP, IP_PKTINFO) |
			 on(r, IPPROTO_IP, IP_RECVTTL) | on(r, IPPROTO_IP, IP_RECVTOS),
		 0, "SO_TIMESTAMP, IP_PKTINFO, IP_RECVTTL, IP_RECVTOS");
	printf("AF_INET, all\n");
	sendto(s, "xy", 2, 0, (struct sockaddr *)&a, alen);
	show(r, 512);
	printf("AF_INET, room for one\n");
	sendto(s, "xy", 2, 0, (struct sockaddr *)&a, alen);
	show(r, CMSG_SPACE(sizeof(struct timeval)));
	CHECK_EQ(on(r, SOL_SOCKET, SO_TIMESTAMPNS), 0, "SO_TIMESTAMPNS");
	printf("AF_INET, SO_TIMESTAMPNS\n");
	sendto(s, "xyz", 3, 0, (struct sockaddr *)&a, alen);
	show(r, 512);

	r6 = net_bound(AF_INET6, SOCK_DGRAM, &b, &blen);
	s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	CHECK(r6 >= 0 && s6 >= 0, "UDPv6 sockets");
	tos = 0x40;
	CHECK_EQ(setsockopt(s6, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)), 0, "IPV6_TCLASS");
	CHECK_EQ(setsockopt(s6, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl)), 0,
		 "IPV6_UNICAST_HOPS");
	CHECK_EQ(on(r6, IPPROTO_IPV6, IPV6_RECVPKTINFO) | on(r6, IPPROTO_IPV6, IPV6_RECVHOPLIMIT) |
			 on(r6, IPPROTO_IPV6, IPV6_RECVTCLASS),
		 0, "IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS");
	printf("AF_INET6\n");
	sendto(s6, "v6", 2, 0, (struct sockaddr *)&b, blen);
	show(r6, 512);

	/* IPv4 to a dual-stack socket on the wildcard address. */
	close(r6);
	r6 = socket(AF_INET6, SOCK_DGRAM, 0);
	memset(&b, 0, sizeof(b));
	((struct sockaddr_in6 *)&b)->sin6_family = AF_INET6;
	CHECK_EQ(bind(r6, (struct sockaddr *)&b, sizeof(struct sockaddr_in6)), 0, "bind ::");
	blen = sizeof(b);
	getsockname(r6, (struct sockaddr *)&b, &blen);
	CHECK_EQ(on(r6, IPPROTO_IPV6, IPV6_RECVPKTINFO) | on(r6, IPPROTO_IPV6, IPV6_RECVHOPLIMIT),
		 0, "IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT");
	s4 = socket(AF_INET, SOCK_DGRAM, 0);
	((struct sockaddr_in *)&a)->sin_port = ((struct sockaddr_in6 *)&b)->sin6_port;
	printf("AF_INET6, from IPv4\n");
	sendto(s4, "v4", 2, 0, (struct sockaddr *)&a, sizeof(struct sockaddr_in));
	show(r6, 512);
	return 0;
}
