/*
 * Unit tests: the user-space TCP/IP stack (sentry/net/netstack*.c) in
 * process, over its loopback: TCP echo, half-close, reset on close with
 * unread data and with SO_LINGER 0, refused connections (blocking and
 * not), many connections at once, a large transfer between two threads,
 * IPv6 and dual-stack sockets, UDP, ICMP echo sockets, addresses in use,
 * options, poll, the /proc/net listing.
 */
#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/net/netstack.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/netstack_proc.h"
#include "sentry/net/socket.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct kernel *k;
static struct task *t;

static void setup(void)
{
	struct rung_error err = {0};

	k = calloc(1, sizeof(*k));
	t = calloc(1, sizeof(*t));
	t->k = k;
	t->tgid = t->tid = 1;
	netstack_test_task = t;
	ck_assert_int_eq(netstack_start(k, NULL, false, NULL, &err), 0);
}

static void teardown(void)
{
	netstack_stop(k);
}

static struct socket *mk(int family, int type)
{
	struct socket *s;

	ck_assert_int_eq(netstack_socket_create(k, family, type, 0, &s), 0);
	socket_file_new(s, 0);
	return s;
}

static void done(struct socket *s)
{
	file_put(s->file);
}

static struct sockaddr_in sin4(const char *ip, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static struct sockaddr_in6 sin6(const char *ip, int port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	inet_pton(AF_INET6, ip, &a.sin6_addr);
	return a;
}

static int port_of(struct socket *s)
{
	char a[SOCK_ADDR_MAX];
	int len = s->ops->getname(s, a, false);

	ck_assert_int_gt(len, 0);
	return ntohs(((struct sockaddr_in *)a)->sin_port); /* same offset in sockaddr_in6 */
}

static long xfer(struct socket *s, void *buf, size_t len, int flags, bool send)
{
	struct iovec v = {buf, len};
	struct sock_msg m = {.flags = flags | MSG_NOSIGNAL};

	msg_iter_init(&m.iter, NULL, &v, 1);
	return send ? s->ops->sendmsg(s, &m) : s->ops->recvmsg(s, &m);
}

#define SEND(s, b, l, f) xfer(s, (void *)(b), l, f, true)
#define RECV(s, b, l, f) xfer(s, b, l, f, false)

/* A listener on 127.0.0.1 and a connected pair through it. */
static struct socket *listener4(int *port)
{
	struct socket *l = mk(AF_INET, SOCK_STREAM);
	struct sockaddr_in a = sin4("127.0.0.1", 0);

	ck_assert_int_eq(l->ops->bind(l, &a, sizeof(a)), 0);
	ck_assert_int_eq(l->ops->listen(l, 128), 0);
	*port = port_of(l);
	ck_assert_int_gt(*port, 0);
	return l;
}

static void pair4(struct socket **c, struct socket **srv)
{
	int port;
	struct socket *l = listener4(&port);
	struct sockaddr_in a = sin4("127.0.0.1", port);

	*c = mk(AF_INET, SOCK_STREAM);
	ck_assert_int_eq((*c)->ops->connect(*c, &a, sizeof(a), false), 0);
	ck_assert_int_eq(l->ops->accept(l, false, srv), 0);
	socket_file_new(*srv, 0);
	done(l);
}

/* Poll s until one of want shows, at most a second. */
static unsigned wait_poll(struct socket *s, unsigned want)
{
	unsigned m = 0;

	for (int i = 0; i < 1000; i++) {
		m = file_poll(s->file, NULL);
		if (m & want)
			break;
		usleep(1000);
	}
	return m;
}

START_TEST(test_tcp_echo)
{
	struct socket *c, *s;
	char buf[64], a[SOCK_ADDR_MAX], b[SOCK_ADDR_MAX];
	int la, lb;

	pair4(&c, &s);
	ck_assert_int_eq(SEND(c, "hello", 5, 0), 5);
	ck_assert_int_eq(RECV(s, buf, sizeof(buf), 0), 5);
	ck_assert_int_eq(memcmp(buf, "hello", 5), 0);
	ck_assert_int_eq(SEND(s, buf, 5, 0), 5);
	/* MSG_PEEK leaves the bytes; FIONREAD counts them. */
	ck_assert_int_eq(RECV(c, buf, 2, MSG_PEEK | MSG_WAITALL), 2);
	wait_poll(c, POLLIN);
	ck_assert_int_eq(c->ops->inq(c), 5);
	ck_assert_int_eq(RECV(c, buf, sizeof(buf), 0), 5);
	ck_assert_int_eq(memcmp(buf, "hello", 5), 0);
	ck_assert_int_eq(RECV(c, buf, sizeof(buf), MSG_DONTWAIT), -EAGAIN);
	/* The two ends name each other. */
	la = c->ops->getname(c, a, false);
	lb = s->ops->getname(s, b, true);
	ck_assert_int_eq(la, (int)sizeof(struct sockaddr_in));
	ck_assert_int_eq(la, lb);
	ck_assert_int_eq(memcmp(a, b, (size_t)la), 0);
	ck_assert_uint_eq(file_poll(c->file, NULL), POLLOUT | POLLWRNORM);
	done(c);
	done(s);
}
END_TEST

START_TEST(test_tcp_half_close)
{
	struct socket *c, *s;
	char buf[16];

	pair4(&c, &s);
	ck_assert_int_eq(SEND(c, "req", 3, 0), 3);
	ck_assert_int_eq(c->ops->shutdown(c, SHUT_WR), 0);
	ck_assert_int_eq(RECV(s, buf, sizeof(buf), MSG_WAITALL), 3);
	ck_assert_int_eq(RECV(s, buf, sizeof(buf), 0), 0);
	ck_assert(file_poll(s->file, NULL) & POLLRDHUP);
	/* The other direction still carries data. */
	ck_assert_int_eq(SEND(s, "reply", 5, 0), 5);
	ck_assert_int_eq(RECV(c, buf, 5, MSG_WAITALL), 5);
	ck_assert_int_eq(SEND(c, "x", 1, 0), -EPIPE);
	done(s);
	ck_assert_int_eq(RECV(c, buf, sizeof(buf), 0), 0);
	done(c);
}
END_TEST

START_TEST(test_tcp_reset)
{
	struct socket *c, *s;
	struct linger lg = {1, 0};
	char buf[16];

	/* Closed with unread data: the peer is reset. */
	pair4(&c, &s);
	ck_assert_int_eq(SEND(c, "unread", 6, 0), 6);
	ck_assert(wait_poll(s, POLLIN) & POLLIN);
	done(s);
	ck_assert(wait_poll(c, POLLERR) & POLLERR);
	ck_assert_int_eq(RECV(c, buf, sizeof(buf), 0), -ECONNRESET);
	ck_assert_int_eq(SEND(c, "x", 1, 0), -EPIPE);
	done(c);

	/* SO_LINGER 0: the same. */
	pair4(&c, &s);
	ck_assert_int_eq(s->ops->setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	done(s);
	ck_assert_int_eq(RECV(c, buf, sizeof(buf), 0), -ECONNRESET);
	done(c);
}
END_TEST

START_TEST(test_tcp_refused)
{
	int port, e = 0;
	unsigned len = sizeof(e);
	struct socket *l = listener4(&port), *c;
	struct sockaddr_in a = sin4("127.0.0.1", port);

	done(l); /* nobody listens there now */
	c = mk(AF_INET, SOCK_STREAM);
	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), false), -ECONNREFUSED);
	done(c);

	c = mk(AF_INET, SOCK_STREAM);
	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), true), -EINPROGRESS);
	ck_assert(wait_poll(c, POLLERR) & POLLHUP);
	ck_assert_int_eq(c->ops->getsockopt(c, SOL_SOCKET, SO_ERROR, &e, &len), 0);
	ck_assert_int_eq(e, ECONNREFUSED);
	done(c);
}
END_TEST

START_TEST(test_tcp_nonblocking_connect)
{
	int port, e = -1;
	unsigned len = sizeof(e);
	struct socket *l = listener4(&port), *c = mk(AF_INET, SOCK_STREAM), *s;
	struct sockaddr_in a = sin4("127.0.0.1", port);

	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), true), -EINPROGRESS);
	ck_assert(wait_poll(c, POLLOUT) & POLLOUT);
	ck_assert_int_eq(c->ops->getsockopt(c, SOL_SOCKET, SO_ERROR, &e, &len), 0);
	ck_assert_int_eq(e, 0);
	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), true), -EISCONN);
	ck_assert(wait_poll(l, POLLIN) & POLLIN);
	ck_assert_int_eq(l->ops->accept(l, true, &s), 0);
	socket_file_new(s, 0);
	ck_assert_int_eq(l->ops->accept(l, true, &s), -EAGAIN);
	done(s);
	done(c);
	done(l);
}
END_TEST

#define MANY 64

START_TEST(test_tcp_many)
{
	int port;
	struct socket *l = listener4(&port), *c[MANY], *s[MANY];
	struct sockaddr_in a = sin4("127.0.0.1", port);
	char buf[8];

	for (int i = 0; i < MANY; i++) {
		c[i] = mk(AF_INET, SOCK_STREAM);
		ck_assert_int_eq(c[i]->ops->connect(c[i], &a, sizeof(a), false), 0);
	}
	for (int i = 0; i < MANY; i++) {
		ck_assert_int_eq(l->ops->accept(l, false, &s[i]), 0);
		socket_file_new(s[i], 0);
	}
	for (int i = 0; i < MANY; i++)
		ck_assert_int_eq(SEND(c[i], &i, sizeof(i), 0), (long)sizeof(i));
	for (int i = 0; i < MANY; i++) {
		int v;
		ck_assert_int_eq(RECV(s[i], buf, sizeof(int), MSG_WAITALL), (long)sizeof(int));
		memcpy(&v, buf, sizeof(v));
		ck_assert_int_eq(v, i); /* accepted in the order they connected */
	}
	for (int i = 0; i < MANY; i++) {
		done(c[i]);
		done(s[i]);
	}
	done(l);
}
END_TEST

#define BIG (4u << 20)

struct big {
	struct socket *s;
	uint64_t sum;
	size_t n;
};

static void *big_reader(void *arg)
{
	struct big *b = arg;
	struct task *me = calloc(1, sizeof(*me));
	unsigned char buf[10000];
	long n;

	netstack_test_task = me;
	while ((n = RECV(b->s, buf, sizeof(buf), 0)) > 0) {
		for (long i = 0; i < n; i++)
			b->sum = b->sum * 31 + buf[i];
		b->n += (size_t)n;
	}
	return NULL;
}

START_TEST(test_tcp_large)
{
	struct socket *c, *s;
	struct big b = {0};
	unsigned char *data = malloc(BIG);
	uint64_t sum = 0, seed = 7;
	pthread_t th;
	size_t off = 0;

	for (size_t i = 0; i < BIG; i++) {
		data[i] = (unsigned char)unit_rand(&seed);
		sum = sum * 31 + data[i];
	}
	pair4(&c, &s);
	b.s = s;
	ck_assert_int_eq(pthread_create(&th, NULL, big_reader, &b), 0);
	while (off < BIG) {
		long n = SEND(c, data + off, MIN(BIG - off, (size_t)300000), 0);
		ck_assert_int_gt(n, 0);
		off += (size_t)n;
	}
	ck_assert_int_eq(c->ops->shutdown(c, SHUT_WR), 0);
	pthread_join(th, NULL);
	ck_assert_uint_eq(b.n, BIG);
	ck_assert(b.sum == sum);
	done(c);
	done(s);
	free(data);
}
END_TEST

START_TEST(test_tcp_ipv6)
{
	struct socket *l = mk(AF_INET6, SOCK_STREAM), *c, *s;
	struct sockaddr_in6 a = sin6("::", 0), peer;
	struct sockaddr_in a4;
	char buf[8], mapped[INET6_ADDRSTRLEN];
	int port, v6only = 1;

	/* A dual-stack listener takes v6 and v4. */
	ck_assert_int_eq(l->ops->bind(l, &a, sizeof(a)), 0);
	ck_assert_int_eq(l->ops->listen(l, 8), 0);
	port = port_of(l);
	c = mk(AF_INET6, SOCK_STREAM);
	a = sin6("::1", port);
	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), false), 0);
	ck_assert_int_eq(l->ops->accept(l, false, &s), 0);
	socket_file_new(s, 0);
	ck_assert_int_eq(SEND(c, "v6", 2, 0), 2);
	ck_assert_int_eq(RECV(s, buf, 2, MSG_WAITALL), 2);
	done(c);
	done(s);

	c = mk(AF_INET, SOCK_STREAM);
	a4 = sin4("127.0.0.1", port);
	ck_assert_int_eq(c->ops->connect(c, &a4, sizeof(a4), false), 0);
	ck_assert_int_eq(l->ops->accept(l, false, &s), 0);
	socket_file_new(s, 0);
	ck_assert_int_eq(s->ops->getname(s, &peer, true), (int)sizeof(peer));
	inet_ntop(AF_INET6, &peer.sin6_addr, mapped, sizeof(mapped));
	ck_assert_str_eq(mapped, "::ffff:127.0.0.1");
	done(c);
	done(s);
	done(l);

	/* IPV6_V6ONLY: v4-mapped destinations are unreachable. */
	c = mk(AF_INET6, SOCK_STREAM);
	ck_assert_int_eq(c->ops->setsockopt(c, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)),
			 0);
	a = sin6("::ffff:127.0.0.1", port);
	ck_assert_int_eq(c->ops->connect(c, &a, sizeof(a), false), -ENETUNREACH);
	done(c);
}
END_TEST

START_TEST(test_udp)
{
	struct socket *a = mk(AF_INET, SOCK_DGRAM), *b = mk(AF_INET, SOCK_DGRAM);
	struct sockaddr_in sa = sin4("127.0.0.1", 0), from;
	struct iovec v;
	struct sock_msg m = {0};
	char buf[64];
	long n;

	ck_assert_int_eq(b->ops->bind(b, &sa, sizeof(sa)), 0);
	sa.sin_port = htons((uint16_t)port_of(b));
	/* sendto an address; recvfrom names the sender. */
	v = (struct iovec){"datagram", 8};
	m.name = &sa;
	m.namelen = sizeof(sa);
	msg_iter_init(&m.iter, NULL, &v, 1);
	ck_assert_int_eq(a->ops->sendmsg(a, &m), 8);
	memset(&m, 0, sizeof(m));
	v = (struct iovec){buf, 4};
	m.name_out = &from;
	m.flags = MSG_TRUNC;
	msg_iter_init(&m.iter, NULL, &v, 1);
	ck_assert(wait_poll(b, POLLIN) & POLLIN);
	ck_assert_int_eq(b->ops->inq(b), 8);
	n = b->ops->recvmsg(b, &m);
	ck_assert_int_eq(n, 8); /* MSG_TRUNC: the real length */
	ck_assert(m.out_flags & MSG_TRUNC);
	ck_assert_int_eq(memcmp(buf, "data", 4), 0);
	ck_assert_int_eq(m.namelen_out, (int)sizeof(from));
	ck_assert_int_eq(ntohs(from.sin_port), port_of(a));
	/* Connected: send without an address, and none is an error otherwise. */
	ck_assert_int_eq(SEND(b, "x", 1, 0), -EDESTADDRREQ);
	ck_assert_int_eq(a->ops->connect(a, &sa, sizeof(sa), false), 0);
	ck_assert_int_eq(SEND(a, "again", 5, 0), 5);
	ck_assert_int_eq(RECV(b, buf, sizeof(buf), 0), 5);
	ck_assert_int_eq(RECV(b, buf, sizeof(buf), MSG_DONTWAIT), -EAGAIN);
	ck_assert_int_eq(a->ops->listen(a, 1), -EOPNOTSUPP);
	done(a);
	done(b);

	/* IPv6 */
	a = mk(AF_INET6, SOCK_DGRAM);
	b = mk(AF_INET6, SOCK_DGRAM);
	{
		struct sockaddr_in6 s6 = sin6("::1", 0);
		ck_assert_int_eq(b->ops->bind(b, &s6, sizeof(s6)), 0);
		s6.sin6_port = htons((uint16_t)port_of(b));
		ck_assert_int_eq(a->ops->connect(a, &s6, sizeof(s6), false), 0);
		ck_assert_int_eq(SEND(a, "six", 3, 0), 3);
		ck_assert_int_eq(RECV(b, buf, sizeof(buf), 0), 3);
	}
	done(a);
	done(b);
}
END_TEST

START_TEST(test_addr_in_use)
{
	struct socket *a = mk(AF_INET, SOCK_STREAM), *b = mk(AF_INET, SOCK_STREAM), *c;
	struct sockaddr_in sa = sin4("127.0.0.1", 0), bad = sin4("10.9.9.9", 0);
	int one = 1, v = 0;
	unsigned len = sizeof(v);

	ck_assert_int_eq(a->ops->bind(a, &bad, sizeof(bad)), -EADDRNOTAVAIL);
	ck_assert_int_eq(a->ops->bind(a, &sa, sizeof(sa)), 0);
	ck_assert_int_eq(a->ops->bind(a, &sa, sizeof(sa)), -EINVAL);
	sa.sin_port = htons((uint16_t)port_of(a));
	ck_assert_int_eq(b->ops->bind(b, &sa, sizeof(sa)), -EADDRINUSE);
	ck_assert_int_eq(a->ops->listen(a, 4), 0);
	/* SO_REUSEADDR does not share a listening port. */
	c = mk(AF_INET, SOCK_STREAM);
	ck_assert_int_eq(c->ops->setsockopt(c, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
	ck_assert_int_eq(c->ops->getsockopt(c, SOL_SOCKET, SO_REUSEADDR, &v, &len), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(c->ops->getsockopt(c, SOL_SOCKET, SO_ACCEPTCONN, &v, &len), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(a->ops->getsockopt(a, SOL_SOCKET, SO_ACCEPTCONN, &v, &len), 0);
	ck_assert_int_eq(v, 1);
	done(a);
	done(b);
	done(c);
}
END_TEST

START_TEST(test_options)
{
	struct socket *s = mk(AF_INET, SOCK_STREAM), *u = mk(AF_INET6, SOCK_DGRAM);
	int v = 0, bad = 0;
	unsigned len = sizeof(v);

	ck_assert_int_eq(s->ops->getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len), 0);
	ck_assert_int_eq(v, SOCK_STREAM);
	ck_assert_int_eq(s->ops->getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &v, &len), 0);
	ck_assert_int_eq(v, IPPROTO_TCP);
	ck_assert_int_eq(u->ops->getsockopt(u, SOL_SOCKET, SO_DOMAIN, &v, &len), 0);
	ck_assert_int_eq(v, AF_INET6);
	v = 1;
	ck_assert_int_eq(s->ops->setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)), 0);
	ck_assert_int_eq(s->ops->setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &bad, sizeof(bad)),
			 -EINVAL);
	v = 30;
	ck_assert_int_eq(s->ops->setsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &v, sizeof(v)), 0);
	ck_assert_int_eq(s->ops->getsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &v, &len), 0);
	ck_assert_int_eq(v, 30);
	v = 4096;
	ck_assert_int_eq(s->ops->setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), 0);
	ck_assert_int_eq(s->ops->getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &len), 0);
	ck_assert_int_eq(v, 8192);
	v = 0x10;
	ck_assert_int_eq(s->ops->setsockopt(s, IPPROTO_IP, IP_TOS, &v, sizeof(v)), 0);
	ck_assert_int_eq(s->ops->getsockopt(s, IPPROTO_IP, IP_TOS, &v, &len), 0);
	ck_assert_int_eq(v, 0x10);
	ck_assert_int_eq(s->ops->setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v, sizeof(v)),
			 -ENOPROTOOPT);
	ck_assert_int_eq(u->ops->setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)),
			 -ENOPROTOOPT);
	ck_assert_int_eq(s->ops->setsockopt(s, SOL_SOCKET, 9999, &v, sizeof(v)), -ENOPROTOOPT);
	/* A fresh TCP socket polls writable and hung up, as Linux's. */
	ck_assert_uint_eq(file_poll(s->file, NULL), POLLOUT | POLLWRNORM | POLLHUP);
	done(s);
	done(u);
}
END_TEST

/* Ping a loopback address through an ICMP echo socket of family. */
static void ping_once(int family, int proto, const void *to, int tolen)
{
	struct socket *p;
	unsigned char req[16] = {family == AF_INET ? 8 : 128, 0, 0, 0, 0, 0, 0, 7}, rep[64];
	struct iovec v = {req, sizeof(req)};
	struct sock_msg m = {.name = to, .namelen = tolen};
	char name[SOCK_ADDR_MAX];
	int id;

	memcpy(req + 8, "pingdata", 8);
	ck_assert_int_eq(netstack_socket_create(k, family, SOCK_DGRAM, proto, &p), 0);
	socket_file_new(p, 0);
	msg_iter_init(&m.iter, NULL, &v, 1);
	ck_assert_int_eq(p->ops->sendmsg(p, &m), (long)sizeof(req));
	id = port_of(p);
	ck_assert_int_ne(id, 0);
	memset(&m, 0, sizeof(m));
	v = (struct iovec){rep, sizeof(rep)};
	m.name_out = name;
	msg_iter_init(&m.iter, NULL, &v, 1);
	ck_assert_int_eq(p->ops->recvmsg(p, &m), (long)sizeof(req));
	ck_assert_int_eq(rep[0], family == AF_INET ? 0 : 129); /* an echo reply */
	ck_assert_int_eq(rep[4] << 8 | rep[5], id);	       /* with our identifier */
	ck_assert_int_eq(rep[7], 7);
	ck_assert_int_eq(memcmp(rep + 8, "pingdata", 8), 0);
	ck_assert_int_eq(m.namelen_out, family == AF_INET ? (int)sizeof(struct sockaddr_in)
							  : (int)sizeof(struct sockaddr_in6));
	/* Only echo requests go out. */
	req[0] = 13;
	v = (struct iovec){req, sizeof(req)};
	memset(&m, 0, sizeof(m));
	m.name = to;
	m.namelen = tolen;
	msg_iter_init(&m.iter, NULL, &v, 1);
	ck_assert_int_eq(p->ops->sendmsg(p, &m), -EINVAL);
	done(p);
}

START_TEST(test_ping)
{
	struct sockaddr_in a4 = sin4("127.0.0.1", 0);
	struct sockaddr_in6 a6 = sin6("::1", 0);
	struct socket *s;

	ping_once(AF_INET, IPPROTO_ICMP, &a4, sizeof(a4));
	ping_once(AF_INET6, IPPROTO_ICMPV6, &a6, sizeof(a6));
	ck_assert_int_eq(netstack_socket_create(k, AF_INET, SOCK_DGRAM, IPPROTO_ICMPV6, &s),
			 -EPROTONOSUPPORT);
}
END_TEST

START_TEST(test_proc)
{
	struct socket *c, *s;
	struct strbuf o;
	char want[64];
	int port;
	struct socket *l = listener4(&port);

	pair4(&c, &s);
	strbuf_init(&o);
	netstack_proc(k, AF_INET, SOCK_STREAM, &o);
	strbuf_append(&o, "", 1);
	/* The listener (0A), and the two ends of a connection (01). */
	snprintf(want, sizeof(want), "0100007F:%04X 00000000:0000 0A", port);
	ck_assert_msg(strstr(o.buf, want), "%s", o.buf);
	ck_assert_int_eq(o.len > 0 && strstr(o.buf, " 01 ") != NULL, 1);
	strbuf_release(&o);
	strbuf_init(&o);
	netstack_proc(k, AF_INET6, SOCK_STREAM, &o);
	ck_assert_uint_eq(o.len, 0);
	strbuf_release(&o);
	done(c);
	done(s);
	done(l);
}
END_TEST

START_TEST(test_create)
{
	struct socket *s;

	ck_assert_int_eq(netstack_socket_create(k, AF_INET, SOCK_STREAM, IPPROTO_UDP, &s),
			 -EPROTONOSUPPORT);
	ck_assert_int_eq(netstack_socket_create(k, AF_INET, SOCK_SEQPACKET, 0, &s),
			 -ESOCKTNOSUPPORT);
	ck_assert_int_eq(netstack_socket_create(k, AF_PACKET, SOCK_RAW, 0, &s), -EAFNOSUPPORT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netstack");
	TCase *tc = tcase_create("loopback");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tcp_echo);
	tcase_add_test(tc, test_tcp_half_close);
	tcase_add_test(tc, test_tcp_reset);
	tcase_add_test(tc, test_tcp_refused);
	tcase_add_test(tc, test_tcp_nonblocking_connect);
	tcase_add_test(tc, test_tcp_many);
	tcase_add_test(tc, test_tcp_large);
	tcase_add_test(tc, test_tcp_ipv6);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_addr_in_use);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_ping);
	tcase_add_test(tc, test_proc);
	tcase_add_test(tc, test_create);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
