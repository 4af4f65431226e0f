/*
 * Unit tests: the poll op of unix sockets (sentry/net/unix.c) and the
 * events its wake-ups carry, which poll, select and epoll build on: data
 * (POLLIN), room (POLLOUT, also for a datagram socket whose peer's queue
 * was full), shutdown and close (POLLRDHUP, POLLHUP), a pending connection
 * on a listener. The sockets are driven through their file and socket ops,
 * outside any guest.
 */
#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/net/socket.h"
#include "sentry/net/unix.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

static struct kernel *k;
static struct task *t;

static void setup(void)
{
	k = calloc(1, sizeof(*k));
	t = calloc(1, sizeof(*t));
	t->k = k;
	t->tgid = t->tid = 1;
}

static void teardown(void)
{
	unix_net_free(k->unix_net);
	free(t);
	free(k);
}

/* A poll table that queues one waiter whose callback records the events. */
struct recorder {
	struct poll_table pt;
	struct waiter w;
	struct waitq *wq;
	unsigned events;
	int wakes;
};

static bool record(struct waiter *w, unsigned events)
{
	struct recorder *r = container_of(w, struct recorder, w);

	r->events |= events;
	r->wakes++;
	return true;
}

static void queue(struct poll_table *pt, struct waitq *wq)
{
	struct recorder *r = container_of(pt, struct recorder, pt);

	r->wq = wq;
	r->w.func = record;
	waiter_prepare(wq, &r->w, t);
}

static unsigned poll_rec(struct file *f, struct recorder *r)
{
	memset(r, 0, sizeof(*r));
	r->pt.queue = queue;
	return file_poll(f, &r->pt);
}

static void rec_done(struct recorder *r)
{
	if (r->wq)
		waiter_finish(r->wq, &r->w);
}

static void pair(int type, struct file **a, struct file **b)
{
	struct socket *sa, *sb;

	ck_assert_int_eq(socket_create_pair(t, AF_UNIX, type, 0, &sa, &sb), 0);
	*a = socket_file_new(sa, O_NONBLOCK);
	*b = socket_file_new(sb, O_NONBLOCK);
}

#define OUT (POLLOUT | POLLWRNORM | POLLWRBAND)

START_TEST(test_stream_poll)
{
	struct file *a, *b;
	struct recorder r;
	char buf[8];

	pair(SOCK_STREAM, &a, &b);
	ck_assert_uint_eq(file_poll(a, NULL), OUT);
	ck_assert_uint_eq(poll_rec(b, &r), OUT);
	ck_assert_int_eq(a->ops->write(a, "abc", 3, NULL), 3);
	ck_assert(r.wakes > 0 && (r.events & POLLIN));
	ck_assert_uint_eq(file_poll(b, NULL), POLLIN | POLLRDNORM | OUT);
	rec_done(&r);
	ck_assert_int_eq(b->ops->read(b, buf, sizeof(buf), NULL), 3);
	ck_assert_uint_eq(file_poll(b, NULL), OUT);

	/* The peer shuts its writing side: b reads EOF, POLLRDHUP. */
	poll_rec(b, &r);
	ck_assert_int_eq(socket_from_file(a)->ops->shutdown(socket_from_file(a), SHUT_WR), 0);
	ck_assert(r.events & POLLRDHUP);
	rec_done(&r);
	ck_assert_uint_eq(file_poll(b, NULL), POLLIN | POLLRDNORM | POLLRDHUP | OUT);
	/* The peer closes: POLLHUP too. */
	poll_rec(b, &r);
	file_put(a);
	ck_assert(r.events & POLLHUP);
	rec_done(&r);
	ck_assert(file_poll(b, NULL) & POLLHUP);
	ck_assert_int_eq(b->ops->read(b, buf, sizeof(buf), NULL), 0);
	file_put(b);
}
END_TEST

/* A full send buffer takes POLLOUT away until the reader makes room. */
START_TEST(test_stream_full)
{
	static char big[65536];
	struct file *a, *b;
	struct recorder r;
	long n;

	pair(SOCK_STREAM, &a, &b);
	while ((n = a->ops->write(a, big, sizeof(big), NULL)) > 0)
		;
	ck_assert_int_eq(n, -EAGAIN);
	ck_assert_uint_eq(poll_rec(a, &r) & POLLOUT, 0);
	while (b->ops->read(b, big, sizeof(big), NULL) > 0)
		;
	ck_assert(r.events & POLLOUT);
	rec_done(&r);
	ck_assert(file_poll(a, NULL) & POLLOUT);
	file_put(a);
	file_put(b);
}
END_TEST

static int abstract_addr(struct sockaddr_un *sun, const char *name)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path + 1, name, strlen(name));
	return (int)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

START_TEST(test_listener_poll)
{
	struct socket *ls, *cs, *as;
	struct file *lf, *cf, *af;
	struct sockaddr_un sun;
	struct recorder r;
	int len = abstract_addr(&sun, "listener");

	ck_assert_int_eq(socket_create(t, AF_UNIX, SOCK_STREAM, 0, &ls), 0);
	lf = socket_file_new(ls, 0);
	ck_assert_int_eq(ls->ops->bind(ls, &sun, len), 0);
	ck_assert_int_eq(ls->ops->listen(ls, 4), 0);
	ck_assert_uint_eq(poll_rec(lf, &r), 0); /* a listener is never writable */
	ck_assert_int_eq(socket_create(t, AF_UNIX, SOCK_STREAM, 0, &cs), 0);
	cf = socket_file_new(cs, 0);
	ck_assert_int_eq(cs->ops->connect(cs, &sun, len, true), 0);
	ck_assert(r.events & POLLIN);
	rec_done(&r);
	ck_assert_uint_eq(file_poll(lf, NULL), POLLIN | POLLRDNORM);
	ck_assert_int_eq(ls->ops->accept(ls, true, &as), 0);
	af = socket_file_new(as, 0);
	ck_assert_uint_eq(file_poll(lf, NULL), 0);
	ck_assert_uint_eq(file_poll(af, NULL), OUT);
	file_put(af);
	file_put(cf);
	file_put(lf);
}
END_TEST

/* A datagram socket connected to a receiver that is not connected back
 * loses POLLOUT while the receiver's queue is full, and is told (through
 * its own wait queue) when a read makes room. */
START_TEST(test_dgram_relay)
{
	struct socket *rs, *ss;
	struct file *rf, *sf;
	struct sockaddr_un sun;
	struct recorder r;
	int len = abstract_addr(&sun, "receiver"), sent = 0;
	char buf[4];

	ck_assert_int_eq(socket_create(t, AF_UNIX, SOCK_DGRAM, 0, &rs), 0);
	rf = socket_file_new(rs, O_NONBLOCK);
	ck_assert_int_eq(rs->ops->bind(rs, &sun, len), 0);
	ck_assert_int_eq(socket_create(t, AF_UNIX, SOCK_DGRAM, 0, &ss), 0);
	sf = socket_file_new(ss, O_NONBLOCK);
	ck_assert_int_eq(ss->ops->connect(ss, &sun, len, true), 0);
	while (sf->ops->write(sf, "x", 1, NULL) == 1)
		sent++;
	ck_assert_int_eq(sent, 11);
	ck_assert_uint_eq(poll_rec(sf, &r) & POLLOUT, 0);
	ck_assert_int_eq(rf->ops->read(rf, buf, sizeof(buf), NULL), 1);
	ck_assert(r.events & POLLOUT);
	rec_done(&r);
	ck_assert(file_poll(sf, NULL) & POLLOUT);
	file_put(sf);
	ck_assert_uint_eq(file_poll(rf, NULL), POLLIN | POLLRDNORM | OUT);
	file_put(rf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unix");
	TCase *tc = tcase_create("poll");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_stream_poll);
	tcase_add_test(tc, test_stream_full);
	tcase_add_test(tc, test_listener_poll);
	tcase_add_test(tc, test_dgram_relay);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
