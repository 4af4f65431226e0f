/*
 * Guest test: who may bind a TCP port that other sockets hold, as Linux's
 * inet_csk_bind_conflict decides. A new listener with SO_REUSEADDR may
 * bind the port of a closed listener while connections accepted from it
 * are open or in TIME_WAIT, if that listener had SO_REUSEADDR too (its
 * connections inherit it; redis's CONFIG SET bind does this); without
 * SO_REUSEADDR, or against a listener, it is EADDRINUSE, also between
 * two listeners that both set it; of two sockets bound with SO_REUSEADDR,
 * only the first may listen. A dual-stack IPv6 wildcard holds the IPv4
 * port too.
 */
#include "netguest.h"

static int so_reuseaddr(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &v, &l) < 0 ? -2 : v;
}

/* A TCP socket of family with SO_REUSEADDR set or not. */
static int tcp_socket(int family, int reuse)
{
	int fd = socket(family, SOCK_STREAM, 0);

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* bind(fd, addr): 0, or -1 with errno; fd is kept open in *out. */
static int bind_new(int family, int reuse, const struct sockaddr_storage *addr, socklen_t len,
		    int *out)
{
	*out = tcp_socket(family, reuse);
	if (*out < 0)
		return -2;
	return bind(*out, (const struct sockaddr *)addr, len);
}

/* A loopback listener on a port the kernel picks: its address in addr. */
static int listener(int family, int reuse, struct sockaddr_storage *addr, socklen_t *len)
{
	int fd = tcp_socket(family, reuse);

	*len = net_loopback(family, addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, *len) < 0 ||
	    getsockname(fd, (struct sockaddr *)addr, len) < 0 || listen(fd, 16) < 0)
		return -1;
	return fd;
}

/* A connection to addr and its accepted end (*srv). */
static int connected(int l, const struct sockaddr_storage *addr, socklen_t len, int *srv)
{
	int c = socket(addr->ss_family, SOCK_STREAM, 0);

	*srv = -1;
	if (c < 0 || connect(c, (const struct sockaddr *)addr, len) < 0)
		return -1;
	*srv = accept(l, NULL, NULL);
	return c;
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The wildcard address of addr's family with addr's port. */
static void wildcard(const struct sockaddr_storage *addr, struct sockaddr_storage *out)
{
	*out = *addr;
	if (addr->ss_family == AF_INET6)
		((struct sockaddr_in6 *)out)->sin6_addr = in6addr_any;
	else
		((struct sockaddr_in *)out)->sin_addr.s_addr = htonl(INADDR_ANY);
}

/* The listener goes away while its connection stays: redis's rebind. */
static void rebind_with_open_connection(int family)
{
	struct sockaddr_storage addr, any;
	socklen_t len;
	int l, c, s, c2, s2, n, n0, n2, n3;
	char buf[8] = "";

	printf("-- a connection stays open, %s\n", family == AF_INET ? "IPv4" : "IPv6");
	l = listener(family, 1, &addr, &len);
	CHECK(l >= 0, "a listener with SO_REUSEADDR");
	c = connected(l, &addr, len, &s);
	CHECK(c >= 0 && s >= 0, "a connection accepted");
	CHECK_EQ(so_reuseaddr(s), 1, "the accepted socket inherits SO_REUSEADDR");
	CHECK_EQ(close(l), 0, "the listener closed");

	CHECK_ERRNO(bind_new(family, 0, &addr, len, &n0), EADDRINUSE,
		    "bind without SO_REUSEADDR while the connection is open");
	CHECK_EQ(bind_new(family, 1, &addr, len, &n), 0,
		 "bind with SO_REUSEADDR while the connection is open");
	CHECK_EQ(listen(n, 16), 0, "the new listener listens");
	CHECK_ERRNO(bind_new(family, 1, &addr, len, &n2), EADDRINUSE,
		    "a second listener's bind, both with SO_REUSEADDR");
	wildcard(&addr, &any);
	CHECK_ERRNO(bind_new(family, 1, &any, len, &n3), EADDRINUSE,
		    "the wildcard address with the port of a listener");

	c2 = connected(n, &addr, len, &s2);
	CHECK(c2 >= 0 && s2 >= 0, "the new listener accepts a connection");
	CHECK_EQ(write(s, "old", 3), 3, "the old connection still sends");
	CHECK_EQ(net_read_all(c, buf, 3), 3, "... and its peer reads it");
	CHECK(memcmp(buf, "old", 3) == 0, "... the same bytes");
	CHECK_EQ(write(c2, "new", 3), 3, "the new connection sends");
	CHECK_EQ(net_read_all(s2, buf, 3), 3, "... and the new listener's end reads it");
	close_all((int[]){c, s, c2, s2, n, n0, n2, n3}, 8);
}

/* The connections of a listener without SO_REUSEADDR keep the port. */
static void old_listener_without_reuse(void)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int l, c, s, n;

	printf("-- the old listener had no SO_REUSEADDR\n");
	l = listener(AF_INET, 0, &addr, &len);
	c = connected(l, &addr, len, &s);
	CHECK(l >= 0 && c >= 0 && s >= 0, "a connection accepted");
	CHECK_EQ(so_reuseaddr(s), 0, "the accepted socket has no SO_REUSEADDR");
	close(l);
	CHECK_ERRNO(bind_new(AF_INET, 1, &addr, len, &n), EADDRINUSE,
		    "bind with SO_REUSEADDR while its connection is open");
	close_all((int[]){c, s, n}, 3);
}

/*
 * The server's end closes first and so stays in TIME_WAIT (or is on its
 * way there): only a socket with SO_REUSEADDR may take the port, and only
 * if the closed one had it too.
 */
static void after_server_close(int reuse_old)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int l, c, s, n0, n;
	char b;

	printf("-- the server closed first, old listener %s SO_REUSEADDR\n",
	       reuse_old ? "with" : "without");
	l = listener(AF_INET, reuse_old, &addr, &len);
	c = connected(l, &addr, len, &s);
	CHECK(l >= 0 && c >= 0 && s >= 0, "a connection accepted");
	close(s);
	CHECK_EQ(read(c, &b, 1), 0, "the client reads EOF");
	close(c);
	close(l);
	CHECK_ERRNO(bind_new(AF_INET, 0, &addr, len, &n0), EADDRINUSE,
		    "bind without SO_REUSEADDR");
	if (reuse_old) {
		CHECK_EQ(bind_new(AF_INET, 1, &addr, len, &n), 0, "bind with SO_REUSEADDR");
		CHECK_EQ(listen(n, 16), 0, "... and listen");
	} else {
		CHECK_ERRNO(bind_new(AF_INET, 1, &addr, len, &n), EADDRINUSE,
			    "bind with SO_REUSEADDR");
	}
	close_all((int[]){n0, n}, 2);
}

/* Two sockets bound to one port with SO_REUSEADDR: the first to listen has it. */
static void two_bound_then_listen(void)
{
	struct sockaddr_storage addr;
	socklen_t len = net_loopback(AF_INET, &addr);
	int a = tcp_socket(AF_INET, 1), b;

	printf("-- two bound sockets with SO_REUSEADDR\n");
	CHECK(a >= 0 && bind(a, (struct sockaddr *)&addr, len) == 0 &&
		      getsockname(a, (struct sockaddr *)&addr, &len) == 0,
	      "the first bound");
	CHECK_EQ(bind_new(AF_INET, 1, &addr, len, &b), 0, "the second binds the same port");
	CHECK_EQ(listen(a, 16), 0, "the first listens");
	CHECK_ERRNO(listen(b, 16), EADDRINUSE, "the second's listen");
	close_all((int[]){a, b}, 2);
}

/* An IPv6 wildcard takes the IPv4 port too, unless IPV6_V6ONLY. */
static void dual_stack(int family)
{
	struct sockaddr_storage addr, any6;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&any6;
	socklen_t len;
	int l = listener(AF_INET, 1, &addr, &len), d, v, one = 1;

	(void)family;
	memset(&any6, 0, sizeof(any6));
	a6->sin6_family = AF_INET6;
	a6->sin6_addr = in6addr_any;
	a6->sin6_port = ((struct sockaddr_in *)&addr)->sin_port;
	CHECK(l >= 0, "an IPv4 listener");
	CHECK_ERRNO(bind_new(AF_INET6, 1, &any6, sizeof(*a6), &d), EADDRINUSE,
		    "a dual-stack [::] bind of its port");
	v = tcp_socket(AF_INET6, 1);
	CHECK_EQ(setsockopt(v, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)), 0, "IPV6_V6ONLY");
	CHECK_EQ(bind(v, (struct sockaddr *)&any6, sizeof(*a6)), 0, "a v6-only [::] bind of it");
	close_all((int[]){l, d, v}, 3);
}

int main(void)
{
	rebind_with_open_connection(AF_INET);
	net_ipv6_quietly(rebind_with_open_connection);
	old_listener_without_reuse();
	after_server_close(1);
	after_server_close(0);
	two_bound_then_listen();
	net_ipv6_quietly(dual_stack);
	return GUEST_DONE();
}
