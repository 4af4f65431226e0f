/*
 * Unit tests: the DNS relay of the user-space stack (sentry/net/dns_relay.c)
 * in process: guest sockets of the stack ask 127.0.0.11:53 over UDP
 * (unconnected and connected) and TCP, and a fake nameserver on the
 * host's 127.0.0.11 (the test's network namespace) answers; the guest gets
 * its own IDs back, from 127.0.0.11:53; a guest may still bind port 53
 * elsewhere; 127.0.0.1 and non-loopback nameservers are not relayed.
 */
#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/net/dns_relay.h"
#include "sentry/net/netstack.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/resolvconf.h"
#include "sentry/net/socket.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct kernel *k;
static struct task *t;
static int upstream = -1; /* the fake nameserver's socket */
static pthread_t server;
static int queries; /* what it answered */

/* The fake nameserver: each query back with QR set and "!" after it. */
static void *serve(void *arg)
{
	uint8_t buf[512];

	(void)arg;
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n =
			recvfrom(upstream, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&from, &fl);

		if (n <= 0)
			return NULL;
		buf[2] |= 0x80;
		buf[n++] = '!';
		__atomic_add_fetch(&queries, 1, __ATOMIC_RELAXED);
		sendto(upstream, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
}

static struct resolv_conf conf(const char *a, const char *b)
{
	struct resolv_conf rc = {0};

	rc.ns[rc.n].family = AF_INET;
	inet_pton(AF_INET, a, rc.ns[rc.n++].addr);
	if (b) {
		rc.ns[rc.n].family = AF_INET;
		inet_pton(AF_INET, b, rc.ns[rc.n++].addr);
	}
	return rc;
}

static void setup(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	struct rung_error err = {0};
	struct resolv_conf rc = conf("127.0.0.1", "127.0.0.11");
	struct dns_relay *r = NULL;

	k = calloc(1, sizeof(*k));
	t = calloc(1, sizeof(*t));
	t->k = k;
	t->tgid = t->tid = 1;
	netstack_test_task = t;
	/* The fake nameserver on the host's 127.0.0.11 (any port: the relay
	 * is told which). */
	inet_pton(AF_INET, "127.0.0.11", &sa.sin_addr);
	upstream = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(upstream, 0);
	ck_assert_msg(bind(upstream, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		      "bind 127.0.0.11 (is lo up?): %s", strerror(errno));
	ck_assert_int_eq(getsockname(upstream, (struct sockaddr *)&sa, &len), 0);
	ck_assert_int_eq(pthread_create(&server, NULL, serve, NULL), 0);
	ck_assert_int_eq(dns_relay_open(&rc, ntohs(sa.sin_port), &r, &err), 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(netstack_start(k, NULL, false, r, &err), 0);
}

static void teardown(void)
{
	netstack_stop(k);
	shutdown(upstream, SHUT_RDWR);
	pthread_join(server, NULL);
	close(upstream);
}

static struct socket *mk(int type)
{
	struct socket *s;

	ck_assert_int_eq(netstack_socket_create(k, AF_INET, type, 0, &s), 0);
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

static long xfer(struct socket *s, void *buf, size_t len, const struct sockaddr_in *to,
		 struct sockaddr_in *from, bool send)
{
	struct iovec v = {buf, len};
	struct sock_msg m = {.flags = MSG_NOSIGNAL};

	if (to) {
		m.name = to;
		m.namelen = sizeof(*to);
	}
	m.name_out = from;
	msg_iter_init(&m.iter, NULL, &v, 1);
	return send ? s->ops->sendmsg(s, &m) : s->ops->recvmsg(s, &m);
}

/* Wait (at most 2 s) until s can be read. */
static bool readable(struct socket *s)
{
	for (int i = 0; i < 2000; i++) {
		if (file_poll(s->file, NULL) & POLLIN)
			return true;
		usleep(1000);
	}
	return false;
}

/* A DNS query with ID id (a header and a few bytes). */
static size_t query(uint8_t *q, uint16_t id)
{
	static const uint8_t body[] = {0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'x', 0, 0, 1, 0, 1};

	q[0] = (uint8_t)(id >> 8);
	q[1] = (uint8_t)id;
	memcpy(q + 2, body, sizeof(body));
	return 2 + sizeof(body);
}

/* UDP: sendto and a connected socket; the answer comes from 127.0.0.11:53
 * with the guest's own ID. */
START_TEST(test_udp)
{
	struct socket *s = mk(SOCK_DGRAM);
	struct sockaddr_in ns = sin4("127.0.0.11", 53), from;
	uint8_t q[64], a[128];
	size_t n = query(q, 0x1234);

	ck_assert_int_eq(xfer(s, q, n, &ns, NULL, true), (long)n);
	ck_assert(readable(s));
	ck_assert_int_eq(xfer(s, a, sizeof(a), NULL, &from, false), (long)n + 1);
	ck_assert_int_eq(a[0], 0x12);
	ck_assert_int_eq(a[1], 0x34);
	ck_assert(a[2] & 0x80);
	ck_assert_int_eq(a[n], '!');
	ck_assert_int_eq(memcmp(a + 3, q + 3, n - 3), 0);
	ck_assert_str_eq(inet_ntoa(from.sin_addr), "127.0.0.11");
	ck_assert_int_eq(ntohs(from.sin_port), 53);
	done(s);

	s = mk(SOCK_DGRAM);
	ck_assert_int_eq(s->ops->connect(s, &ns, sizeof(ns), false), 0);
	for (int i = 0; i < 3; i++) {
		n = query(q, (uint16_t)(0xbeef + i));
		ck_assert_int_eq(xfer(s, q, n, NULL, NULL, true), (long)n);
		ck_assert(readable(s));
		ck_assert_int_eq(xfer(s, a, sizeof(a), NULL, NULL, false), (long)n + 1);
		ck_assert_int_eq(a[0] << 8 | a[1], 0xbeef + i);
	}
	/* Too short for DNS: not relayed. */
	ck_assert_int_eq(xfer(s, q, 5, NULL, NULL, true), 5);
	usleep(100000);
	ck_assert(!(file_poll(s->file, NULL) & POLLIN));
	done(s);
	ck_assert_int_eq(__atomic_load_n(&queries, __ATOMIC_RELAXED), 4);
}
END_TEST

/* TCP: two messages in one write, each answered with its ID. */
START_TEST(test_tcp)
{
	struct socket *s = mk(SOCK_STREAM);
	struct sockaddr_in ns = sin4("127.0.0.11", 53);
	uint8_t q[128], a[256];
	size_t n1, n2, got = 0;

	ck_assert_int_eq(s->ops->connect(s, &ns, sizeof(ns), false), 0);
	n1 = query(q + 2, 0x0101);
	q[0] = 0;
	q[1] = (uint8_t)n1;
	n2 = query(q + 4 + n1, 0x0202);
	q[2 + n1] = 0;
	q[3 + n1] = (uint8_t)n2;
	ck_assert_int_eq(xfer(s, q, 4 + n1 + n2, NULL, NULL, true), (long)(4 + n1 + n2));
	while (got < 2 * (2 + n1 + 1)) {
		long r;

		ck_assert(readable(s));
		r = xfer(s, a + got, sizeof(a) - got, NULL, NULL, false);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	ck_assert_int_eq(a[0] << 8 | a[1], (int)n1 + 1);
	ck_assert_int_eq(a[2] << 8 | a[3], 0x0101);
	ck_assert_int_eq(a[2 + n1], '!');
	ck_assert_int_eq(a[5 + n1] << 8 | a[6 + n1], 0x0202);
	done(s);
}
END_TEST

/* The guest may bind port 53 on its other addresses; not twice, not on
 * the relayed address; the relay still answers there, the guest's socket
 * gets what goes to 127.0.0.1:53. */
START_TEST(test_bind)
{
	struct socket *g = mk(SOCK_DGRAM), *g2 = mk(SOCK_DGRAM), *g3 = mk(SOCK_DGRAM);
	struct socket *l = mk(SOCK_STREAM), *c = mk(SOCK_DGRAM);
	struct sockaddr_in any = sin4("0.0.0.0", 53), relayed = sin4("127.0.0.11", 53);
	struct sockaddr_in lo = sin4("127.0.0.1", 53);
	uint8_t q[64], a[128];
	size_t n = query(q, 0x4242);

	ck_assert_int_eq(g->ops->bind(g, &any, sizeof(any)), 0);
	ck_assert_int_eq(g2->ops->bind(g2, &any, sizeof(any)), -EADDRINUSE);
	ck_assert_int_eq(g3->ops->bind(g3, &relayed, sizeof(relayed)), -EADDRINUSE);
	ck_assert_int_eq(l->ops->bind(l, &any, sizeof(any)), 0);
	ck_assert_int_eq(l->ops->listen(l, 4), 0);
	ck_assert_int_eq(xfer(c, q, n, &relayed, NULL, true), (long)n);
	ck_assert(readable(c));
	ck_assert_int_eq(xfer(c, a, sizeof(a), NULL, NULL, false), (long)n + 1);
	ck_assert(!(file_poll(g->file, NULL) & POLLIN));
	ck_assert_int_eq(xfer(c, q, n, &lo, NULL, true), (long)n);
	ck_assert(readable(g));
	ck_assert_int_eq(xfer(g, a, sizeof(a), NULL, NULL, false), (long)n);
	done(g);
	done(g2);
	done(g3);
	done(l);
	done(c);
}
END_TEST

/* Only loopback nameservers but 127.0.0.1 are relayed, once each. */
START_TEST(test_which)
{
	struct rung_error err = {0};
	struct resolv_conf rc = conf("127.0.0.1", "10.0.0.53");
	struct dns_relay *r = (struct dns_relay *)1;

	ck_assert_int_eq(dns_relay_open(&rc, 53, &r, &err), 0);
	ck_assert_ptr_null(r);
	rc = conf("127.0.0.53", "127.0.0.53");
	ck_assert_int_eq(dns_relay_open(&rc, 53, &r, &err), 0);
	ck_assert_ptr_nonnull(r);
	{
		ip_addr_t a;
		IP_ADDR4(&a, 127, 0, 0, 53);
		ck_assert(dns_relay_has(r, &a));
		IP_ADDR4(&a, 127, 0, 0, 1);
		ck_assert(!dns_relay_has(r, &a));
	}
	dns_relay_close(r, false);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dns_relay");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_tcp);
	tcase_add_test(tc, test_bind);
	tcase_add_test(tc, test_which);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
