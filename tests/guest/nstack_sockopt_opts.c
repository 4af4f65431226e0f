/*
 * Socket options of TCP, UDP and TCPv6 sockets as Linux checks and reports
 * them: defaults, values read back after a set, range errors, short and
 * long option lengths, read-only and unknown options. Values that depend
 * on the host's sysctls (buffer maxima) are kept below them.
 */
#define _GNU_SOURCE
#include "netguest.h"

#include <errno.h>
#include <sys/time.h>

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif
#ifndef TCP_INQ
#define TCP_INQ 36
#endif

#define O(lvl, n) lvl, n, #n

static const char *err(int r)
{
	static char buf[32];

	if (r == 0)
		return "ok";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(errno));
	return buf;
}

static void get(int fd, int lvl, int name, const char *what)
{
	int v = -12345;
	socklen_t len = sizeof(v);
	int r = getsockopt(fd, lvl, name, &v, &len);

	if (r < 0)
		printf("  get %s: %s\n", what, err(r));
	else
		printf("  get %s: %d (len %u)\n", what, v, (unsigned)len);
}

static void set(int fd, int lvl, int name, const char *what, int v)
{
	int r = setsockopt(fd, lvl, name, &v, sizeof(v));

	printf("  set %s %d: %s\n", what, v, err(r));
	if (r == 0)
		get(fd, lvl, name, what);
}

static void lens(int fd, int lvl, int name, const char *what)
{
	int v = 1, r;
	char c = 1;
	long long big = 1;
	unsigned char out[8];
	socklen_t len;

	r = setsockopt(fd, lvl, name, &c, 1);
	printf("  set %s len 1: %s\n", what, err(r));
	r = setsockopt(fd, lvl, name, &big, sizeof(big));
	printf("  set %s len 8: %s\n", what, err(r));
	r = setsockopt(fd, lvl, name, &v, 0);
	printf("  set %s len 0: %s\n", what, err(r));
	memset(out, 0xaa, sizeof(out));
	len = 1;
	r = getsockopt(fd, lvl, name, out, &len);
	printf("  get %s len 1: %s len %u byte %d\n", what, err(r), (unsigned)len, out[0]);
	len = 8;
	memset(out, 0xaa, sizeof(out));
	r = getsockopt(fd, lvl, name, out, &len);
	printf("  get %s len 8: %s len %u\n", what, err(r), (unsigned)len);
	len = 0;
	r = getsockopt(fd, lvl, name, out, &len);
	printf("  get %s len 0: %s len %u\n", what, err(r), (unsigned)len);
}

static void cookies(int fd)
{
	uint64_t c1 = 0, c2 = 0, c3 = 0;
	socklen_t len = sizeof(c1);
	int other = socket(AF_INET, SOCK_DGRAM, 0), r;

	r = getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c1, &len);
	printf("  get SO_COOKIE: %s len %u nonzero %d\n", err(r), (unsigned)len, c1 != 0);
	len = sizeof(c2);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c2, &len);
	len = sizeof(c3);
	getsockopt(other, SOL_SOCKET, SO_COOKIE, &c3, &len);
	printf("  SO_COOKIE stable %d, another socket's differs %d\n", c1 == c2, c1 != c3);
	len = 4;
	r = getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c2, &len);
	printf("  get SO_COOKIE len 4: %s\n", err(r));
	r = setsockopt(fd, SOL_SOCKET, SO_COOKIE, &c1, sizeof(c1));
	printf("  set SO_COOKIE: %s\n", err(r));
	close(other);
}

static void sol_socket(int fd, int tcp)
{
	struct linger l = {1, 0};
	struct timeval tv;
	socklen_t len;
	int v, r;

	get(fd, O(SOL_SOCKET, SO_TYPE));
	get(fd, O(SOL_SOCKET, SO_DOMAIN));
	get(fd, O(SOL_SOCKET, SO_PROTOCOL));
	get(fd, O(SOL_SOCKET, SO_ERROR));
	get(fd, O(SOL_SOCKET, SO_ACCEPTCONN));
	set(fd, O(SOL_SOCKET, SO_TYPE), 1);
	set(fd, O(SOL_SOCKET, SO_PROTOCOL), 1);
	set(fd, O(SOL_SOCKET, SO_ERROR), 1);
	set(fd, O(SOL_SOCKET, SO_RCVBUF), 4096);
	set(fd, O(SOL_SOCKET, SO_RCVBUF), 1);
	set(fd, O(SOL_SOCKET, SO_RCVBUF), -1 & 0xffff);
	set(fd, O(SOL_SOCKET, SO_SNDBUF), 10000);
	set(fd, O(SOL_SOCKET, SO_SNDBUF), 0);
	set(fd, O(SOL_SOCKET, SO_KEEPALIVE), 5);
	set(fd, O(SOL_SOCKET, SO_KEEPALIVE), 0);
	set(fd, O(SOL_SOCKET, SO_BROADCAST), 7);
	set(fd, O(SOL_SOCKET, SO_NO_CHECK), 1);
	set(fd, O(SOL_SOCKET, SO_OOBINLINE), 1);
	set(fd, O(SOL_SOCKET, SO_REUSEADDR), 3);
	set(fd, O(SOL_SOCKET, SO_REUSEPORT), 3);
	get(fd, O(SOL_SOCKET, SO_RCVLOWAT));
	set(fd, O(SOL_SOCKET, SO_RCVLOWAT), 100);
	set(fd, O(SOL_SOCKET, SO_RCVLOWAT), 0);
	set(fd, O(SOL_SOCKET, SO_RCVLOWAT), -5);
	get(fd, O(SOL_SOCKET, SO_SNDLOWAT));
	set(fd, O(SOL_SOCKET, SO_SNDLOWAT), 10);
	set(fd, O(SOL_SOCKET, SO_PRIORITY), 6);
	set(fd, O(SOL_SOCKET, SO_PRIORITY), 0);
	get(fd, O(SOL_SOCKET, SO_MARK));
	get(fd, O(SOL_SOCKET, SO_TIMESTAMP));
	set(fd, O(SOL_SOCKET, SO_TIMESTAMP), 1);
	set(fd, O(SOL_SOCKET, SO_TIMESTAMP), 0);
	get(fd, O(SOL_SOCKET, SO_TIMESTAMPNS));
	set(fd, O(SOL_SOCKET, SO_TIMESTAMPNS), 1);
	set(fd, O(SOL_SOCKET, SO_TIMESTAMPNS), 0);
	get(fd, O(SOL_SOCKET, SO_BUSY_POLL));
	set(fd, O(SOL_SOCKET, SO_BUSY_POLL), 0);
	get(fd, O(SOL_SOCKET, SO_DONTROUTE));
	set(fd, O(SOL_SOCKET, SO_DONTROUTE), 1);
	set(fd, O(SOL_SOCKET, SO_DONTROUTE), 0);
	get(fd, O(SOL_SOCKET, SO_RXQ_OVFL));
	set(fd, O(SOL_SOCKET, SO_RXQ_OVFL), 1);
	get(fd, O(SOL_SOCKET, SO_ZEROCOPY));
	set(fd, O(SOL_SOCKET, SO_ZEROCOPY), 1);
	set(fd, O(SOL_SOCKET, SO_ZEROCOPY), 2);
	set(fd, O(SOL_SOCKET, SO_ZEROCOPY), 0);
	get(fd, O(SOL_SOCKET, SO_INCOMING_CPU));
	set(fd, O(SOL_SOCKET, SO_INCOMING_CPU), 0);
	cookies(fd);
	set(fd, O(SOL_SOCKET, 12345), 1);
	get(fd, O(SOL_SOCKET, 12345));
	lens(fd, O(SOL_SOCKET, SO_KEEPALIVE));
	lens(fd, O(SOL_SOCKET, SO_TYPE));

	len = sizeof(l);
	r = setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	printf("  set SO_LINGER {1,0}: %s\n", err(r));
	l = (struct linger){9, 9};
	r = getsockopt(fd, SOL_SOCKET, SO_LINGER, &l, &len);
	printf("  get SO_LINGER: %s {%d,%d} len %u\n", err(r), l.l_onoff, l.l_linger,
	       (unsigned)len);
	l = (struct linger){5, 3};
	r = setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	len = sizeof(l);
	getsockopt(fd, SOL_SOCKET, SO_LINGER, &l, &len);
	printf("  set SO_LINGER {5,3}: %s -> {%d,%d}\n", err(r), l.l_onoff, l.l_linger);
	r = setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(int));
	printf("  set SO_LINGER len 4: %s\n", err(r));
	l = (struct linger){0, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));

	tv = (struct timeval){1, 1000000};
	r = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("  set SO_RCVTIMEO usec 1000000: %s\n", err(r));
	tv = (struct timeval){2, 500000};
	r = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO_NEW, &tv, sizeof(tv));
	printf("  set SO_SNDTIMEO_NEW 2.5: %s\n", err(r));
	len = sizeof(tv);
	memset(&tv, 0, sizeof(tv));
	r = getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len);
	printf("  get SO_SNDTIMEO: %s %ld.%06ld len %u\n", err(r), (long)tv.tv_sec,
	       (long)tv.tv_usec, (unsigned)len);
	tv = (struct timeval){-1, 0};
	r = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	len = sizeof(tv);
	getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len);
	printf("  set SO_SNDTIMEO -1: %s -> %ld.%06ld\n", err(r), (long)tv.tv_sec,
	       (long)tv.tv_usec);
	r = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, 4);
	printf("  set SO_RCVTIMEO len 4: %s\n", err(r));

	r = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, (void *)8, sizeof(int));
	printf("  set SO_KEEPALIVE bad pointer: %s\n", err(r));
	len = sizeof(int);
	r = getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, (void *)8, &len);
	printf("  get SO_KEEPALIVE bad pointer: %s\n", err(r));
	r = getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, (void *)8);
	printf("  get SO_KEEPALIVE bad len pointer: %s\n", err(r));
	len = (socklen_t)-1;
	r = getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, &len);
	printf("  get SO_KEEPALIVE len -1: %s\n", err(r));
	(void)tcp;
}

static void tcp_opts(int fd)
{
	char name[32];
	socklen_t len;
	int r;

	get(fd, O(IPPROTO_TCP, TCP_NODELAY));
	set(fd, O(IPPROTO_TCP, TCP_NODELAY), 9);
	set(fd, O(IPPROTO_TCP, TCP_NODELAY), 0);
	get(fd, O(IPPROTO_TCP, TCP_CORK));
	set(fd, O(IPPROTO_TCP, TCP_CORK), 2);
	set(fd, O(IPPROTO_TCP, TCP_CORK), 0);
	get(fd, O(IPPROTO_TCP, TCP_MAXSEG));
	set(fd, O(IPPROTO_TCP, TCP_MAXSEG), 87);
	set(fd, O(IPPROTO_TCP, TCP_MAXSEG), 88);
	set(fd, O(IPPROTO_TCP, TCP_MAXSEG), 1400);
	set(fd, O(IPPROTO_TCP, TCP_MAXSEG), 32768);
	set(fd, O(IPPROTO_TCP, TCP_MAXSEG), 0);
	get(fd, O(IPPROTO_TCP, TCP_KEEPIDLE));
	get(fd, O(IPPROTO_TCP, TCP_KEEPINTVL));
	get(fd, O(IPPROTO_TCP, TCP_KEEPCNT));
	set(fd, O(IPPROTO_TCP, TCP_KEEPIDLE), 0);
	set(fd, O(IPPROTO_TCP, TCP_KEEPIDLE), 32768);
	set(fd, O(IPPROTO_TCP, TCP_KEEPIDLE), 60);
	set(fd, O(IPPROTO_TCP, TCP_KEEPINTVL), 0);
	set(fd, O(IPPROTO_TCP, TCP_KEEPINTVL), 10);
	set(fd, O(IPPROTO_TCP, TCP_KEEPCNT), 128);
	set(fd, O(IPPROTO_TCP, TCP_KEEPCNT), 3);
	get(fd, O(IPPROTO_TCP, TCP_SYNCNT));
	set(fd, O(IPPROTO_TCP, TCP_SYNCNT), 0);
	set(fd, O(IPPROTO_TCP, TCP_SYNCNT), 128);
	set(fd, O(IPPROTO_TCP, TCP_SYNCNT), 3);
	get(fd, O(IPPROTO_TCP, TCP_LINGER2));
	set(fd, O(IPPROTO_TCP, TCP_LINGER2), 30);
	set(fd, O(IPPROTO_TCP, TCP_LINGER2), -1);
	set(fd, O(IPPROTO_TCP, TCP_LINGER2), 0);
	set(fd, O(IPPROTO_TCP, TCP_LINGER2), 1000000);
	get(fd, O(IPPROTO_TCP, TCP_DEFER_ACCEPT));
	set(fd, O(IPPROTO_TCP, TCP_DEFER_ACCEPT), 0);
	set(fd, O(IPPROTO_TCP, TCP_DEFER_ACCEPT), -1);
	get(fd, O(IPPROTO_TCP, TCP_WINDOW_CLAMP));
	set(fd, O(IPPROTO_TCP, TCP_WINDOW_CLAMP), 0);
	get(fd, O(IPPROTO_TCP, TCP_QUICKACK));
	set(fd, O(IPPROTO_TCP, TCP_QUICKACK), 0);
	set(fd, O(IPPROTO_TCP, TCP_QUICKACK), 5);
	get(fd, O(IPPROTO_TCP, TCP_USER_TIMEOUT));
	set(fd, O(IPPROTO_TCP, TCP_USER_TIMEOUT), -1);
	set(fd, O(IPPROTO_TCP, TCP_USER_TIMEOUT), 5000);
	get(fd, O(IPPROTO_TCP, TCP_NOTSENT_LOWAT));
	set(fd, O(IPPROTO_TCP, TCP_NOTSENT_LOWAT), 4096);
	get(fd, O(IPPROTO_TCP, TCP_INQ));
	set(fd, O(IPPROTO_TCP, TCP_INQ), 1);
	set(fd, O(IPPROTO_TCP, TCP_INQ), 0);
	get(fd, O(IPPROTO_TCP, TCP_FASTOPEN));
	set(fd, O(IPPROTO_TCP, TCP_FASTOPEN), 5);
	set(fd, O(IPPROTO_TCP, TCP_FASTOPEN), -1);
	get(fd, O(IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS));
	set(fd, O(IPPROTO_TCP, 999), 1);
	get(fd, O(IPPROTO_TCP, 999));
	lens(fd, O(IPPROTO_TCP, TCP_NODELAY));

	len = sizeof(name);
	memset(name, 0, sizeof(name));
	r = getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len);
	printf("  get TCP_CONGESTION: %s len %u\n", err(r), (unsigned)len);
	r = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "nosuchcc", 8);
	printf("  set TCP_CONGESTION nosuchcc: %s\n", err(r));
	r = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "reno", 4);
	len = sizeof(name);
	memset(name, 0, sizeof(name));
	getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len);
	printf("  set TCP_CONGESTION reno: %s -> %s\n", err(r), name);
}

static void ip_opts(int fd, int udp)
{
	get(fd, O(IPPROTO_IP, IP_TOS));
	set(fd, O(IPPROTO_IP, IP_TOS), 0x10);
	set(fd, O(IPPROTO_IP, IP_TOS), 0x1ff);
	set(fd, O(IPPROTO_IP, IP_TOS), 0);
	get(fd, O(IPPROTO_IP, IP_TTL));
	set(fd, O(IPPROTO_IP, IP_TTL), 0);
	set(fd, O(IPPROTO_IP, IP_TTL), 256);
	set(fd, O(IPPROTO_IP, IP_TTL), 7);
	set(fd, O(IPPROTO_IP, IP_TTL), -1);
	set(fd, O(IPPROTO_IP, IP_TTL), -2);
	get(fd, O(IPPROTO_IP, IP_RECVTOS));
	set(fd, O(IPPROTO_IP, IP_RECVTOS), 3);
	set(fd, O(IPPROTO_IP, IP_RECVTOS), 0);
	get(fd, O(IPPROTO_IP, IP_RECVTTL));
	set(fd, O(IPPROTO_IP, IP_RECVTTL), 1);
	set(fd, O(IPPROTO_IP, IP_RECVTTL), 0);
	get(fd, O(IPPROTO_IP, IP_PKTINFO));
	set(fd, O(IPPROTO_IP, IP_PKTINFO), 1);
	set(fd, O(IPPROTO_IP, IP_PKTINFO), 0);
	get(fd, O(IPPROTO_IP, IP_MTU_DISCOVER));
	set(fd, O(IPPROTO_IP, IP_MTU_DISCOVER), IP_PMTUDISC_DONT);
	set(fd, O(IPPROTO_IP, IP_MTU_DISCOVER), 99);
	get(fd, O(IPPROTO_IP, IP_MTU));
	get(fd, O(IPPROTO_IP, IP_RECVERR));
	set(fd, O(IPPROTO_IP, IP_RECVERR), 1);
	set(fd, O(IPPROTO_IP, IP_RECVERR), 0);
	get(fd, O(IPPROTO_IP, IP_FREEBIND));
	set(fd, O(IPPROTO_IP, IP_FREEBIND), 1);
	set(fd, O(IPPROTO_IP, IP_FREEBIND), 0);
	get(fd, O(IPPROTO_IP, IP_TRANSPARENT));
	get(fd, O(IPPROTO_IP, IP_MULTICAST_TTL));
	set(fd, O(IPPROTO_IP, IP_MULTICAST_TTL), 5);
	set(fd, O(IPPROTO_IP, IP_MULTICAST_TTL), 256);
	set(fd, O(IPPROTO_IP, IP_MULTICAST_TTL), -1);
	get(fd, O(IPPROTO_IP, IP_MULTICAST_LOOP));
	set(fd, O(IPPROTO_IP, IP_MULTICAST_LOOP), 0);
	set(fd, O(IPPROTO_IP, IP_MULTICAST_LOOP), 1);
	get(fd, O(IPPROTO_IP, IP_HDRINCL));
	set(fd, O(IPPROTO_IP, 999), 1);
	get(fd, O(IPPROTO_IP, 999));
	lens(fd, O(IPPROTO_IP, IP_TTL));
	lens(fd, O(IPPROTO_IP, IP_TOS));
	(void)udp;
}

static void ipv6_opts(int fd)
{
	get(fd, O(IPPROTO_IPV6, IPV6_V6ONLY));
	set(fd, O(IPPROTO_IPV6, IPV6_V6ONLY), 1);
	set(fd, O(IPPROTO_IPV6, IPV6_V6ONLY), 0);
	get(fd, O(IPPROTO_IPV6, IPV6_UNICAST_HOPS));
	set(fd, O(IPPROTO_IPV6, IPV6_UNICAST_HOPS), 9);
	set(fd, O(IPPROTO_IPV6, IPV6_UNICAST_HOPS), 256);
	set(fd, O(IPPROTO_IPV6, IPV6_UNICAST_HOPS), -1);
	set(fd, O(IPPROTO_IPV6, IPV6_UNICAST_HOPS), -2);
	get(fd, O(IPPROTO_IPV6, IPV6_TCLASS));
	set(fd, O(IPPROTO_IPV6, IPV6_TCLASS), 0x20);
	set(fd, O(IPPROTO_IPV6, IPV6_TCLASS), 256);
	set(fd, O(IPPROTO_IPV6, IPV6_TCLASS), -1);
	get(fd, O(IPPROTO_IPV6, IPV6_RECVPKTINFO));
	set(fd, O(IPPROTO_IPV6, IPV6_RECVPKTINFO), 1);
	set(fd, O(IPPROTO_IPV6, IPV6_RECVPKTINFO), 0);
	get(fd, O(IPPROTO_IPV6, IPV6_RECVTCLASS));
	set(fd, O(IPPROTO_IPV6, IPV6_RECVTCLASS), 1);
	get(fd, O(IPPROTO_IPV6, IPV6_RECVHOPLIMIT));
	set(fd, O(IPPROTO_IPV6, IPV6_RECVHOPLIMIT), 1);
	get(fd, O(IPPROTO_IPV6, IPV6_MULTICAST_HOPS));
	set(fd, O(IPPROTO_IPV6, IPV6_MULTICAST_HOPS), 3);
	get(fd, O(IPPROTO_IPV6, IPV6_MULTICAST_LOOP));
	get(fd, O(IPPROTO_IPV6, IPV6_RECVERR));
	set(fd, O(IPPROTO_IPV6, IPV6_RECVERR), 1);
	get(fd, O(IPPROTO_IPV6, IPV6_MTU));
	set(fd, O(IPPROTO_IPV6, 999), 1);
	get(fd, O(IPPROTO_IPV6, 999));
	get(fd, O(IPPROTO_IP, IP_TOS));
	get(fd, O(IPPROTO_IP, IP_TTL));
}

int main(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	int t6 = socket(AF_INET6, SOCK_STREAM, 0);
	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);

	CHECK(t >= 0 && u >= 0 && t6 >= 0 && u6 >= 0, "sockets");
	printf("TCP SOL_SOCKET\n");
	sol_socket(t, 1);
	printf("UDP SOL_SOCKET\n");
	sol_socket(u, 0);
	printf("TCP IPPROTO_TCP\n");
	tcp_opts(t);
	printf("UDP IPPROTO_TCP\n");
	set(u, O(IPPROTO_TCP, TCP_NODELAY), 1);
	printf("TCP IPPROTO_IP\n");
	ip_opts(t, 0);
	printf("UDP IPPROTO_IP\n");
	ip_opts(u, 1);
	printf("TCP6 IPPROTO_IPV6\n");
	ipv6_opts(t6);
	printf("UDP6 IPPROTO_IPV6\n");
	ipv6_opts(u6);
	printf("TCP6 IPPROTO_TCP\n");
	get(t6, O(IPPROTO_TCP, TCP_MAXSEG));
	return 0;
}
