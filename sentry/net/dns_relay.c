/* The relay to a nameserver on the namespace's loopback (dns_relay.h). */
#include "config.h"
#include "sentry/net/dns_relay.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/resolvconf.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <lwip/ip.h>
#include <lwip/netif.h>
#include <lwip/tcp.h>
#include <lwip/udp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define DNS_PORT    53
#define DNS_HEADER  12
#define DNS_MSG_MAX 65535
#define DNS_UDP_MAX (65535 - 20 - 8)  /* what one IPv4 datagram holds */
#define CONN_BUF    (2 + DNS_MSG_MAX) /* one message over TCP, its length first */
#define TCP_BACKLOG 8

struct dns_relay;

/* One relayed nameserver address. */
struct relay_addr {
	struct dns_relay *relay;
	ip4_addr_t addr;
	int fd; /* the host socket, connected to addr's port 53 */
	struct netif netif;
	bool netif_added;
	struct udp_pcb *udp;
	struct tcp_pcb *listener;
};

/* A guest's TCP connection to a relayed address. */
struct relay_conn {
	bool used;
	struct relay_addr *ra;
	struct tcp_pcb *pcb;
	uint8_t *buf; /* what came in and is not yet a whole message */
	size_t len;
};

/* A message sent on, waiting for its answer. */
struct pending {
	bool used;
	uint16_t id, orig; /* the relay's ID, the guest's */
	struct relay_addr *ra;
	struct relay_conn *conn; /* TCP; NULL: UDP, from client:port */
	ip_addr_t client;
	uint16_t port;
};

struct dns_relay {
	struct relay_addr addrs[RESOLV_MAXNS];
	int n;
	int stop[2];
	pthread_t reader;
	bool reader_started;
	struct pending pending[RELAY_PENDING];
	unsigned next_slot;
	uint16_t next_id;
	struct relay_conn conns[RELAY_TCP_CONNS];
};

/* --- opening ----------------------------------------------------------------------- */

static bool relayed(const struct resolv_nameserver *ns)
{
	return ns->family == AF_INET && ns->addr[0] == 127 &&
	       !(ns->addr[1] == 0 && ns->addr[2] == 0 && ns->addr[3] == 1);
}

static int open_upstream(struct relay_addr *ra, uint16_t port, struct rung_error *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	char text[INET_ADDRSTRLEN];

	memcpy(&sa.sin_addr, &ra->addr.addr, 4);
	inet_ntop(AF_INET, &sa.sin_addr, text, sizeof(text));
	ra->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ra->fd < 0)
		return rung_error_make(err, errno, "the DNS relay's socket");
	if (connect(ra->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return rung_error_make(err, errno, "connect the DNS relay to %s port %u", text,
				       port);
	return 0;
}

int dns_relay_open(const struct resolv_conf *rc, uint16_t upstream_port, struct dns_relay **out,
		   struct rung_error *err)
{
	struct dns_relay *r = NULL;
	struct strbuf names;

	*out = NULL;
	strbuf_init(&names);
	for (int i = 0; i < rc->n; i++) {
		struct relay_addr *ra;
		char text[INET_ADDRSTRLEN];
		bool dup = false;

		if (!relayed(&rc->ns[i]))
			continue;
		if (!r) {
			r = xzalloc(sizeof(*r));
			r->stop[0] = r->stop[1] = -1;
			for (int j = 0; j < RESOLV_MAXNS; j++)
				r->addrs[j].fd = -1;
			if (getrandom(&r->next_id, sizeof(r->next_id), 0) < 0)
				r->next_id = (uint16_t)getpid();
		}
		for (int j = 0; j < r->n; j++)
			dup |= memcmp(&r->addrs[j].addr.addr, rc->ns[i].addr, 4) == 0;
		if (dup)
			continue;
		ra = &r->addrs[r->n++];
		ra->relay = r;
		memcpy(&ra->addr.addr, rc->ns[i].addr, 4);
		if (open_upstream(ra, upstream_port, err) < 0)
			goto fail;
		inet_ntop(AF_INET, rc->ns[i].addr, text, sizeof(text));
		strbuf_printf(&names, "%s%s", names.len ? ", " : "", text);
	}
	if (!r)
		return 0;
	if (pipe2(r->stop, O_CLOEXEC) < 0) {
		rung_error_make(err, errno, "pipe");
		goto fail;
	}
	log_info("network: DNS to %s (port 53, UDP and TCP) is relayed to the network namespace's "
		 "loopback",
		 names.buf);
	strbuf_release(&names);
	*out = r;
	return 0;
fail:
	strbuf_release(&names);
	dns_relay_close(r, false);
	return -1;
}

/* --- relaying (core lock held) ---------------------------------------------------- */

/* Send msg (len bytes, the guest's) on to ra's nameserver under an ID of
 * the relay's; the answer goes to conn, or to client:port over UDP. */
static void forward(struct relay_addr *ra, uint8_t *msg, size_t len, const ip_addr_t *client,
		    uint16_t port, struct relay_conn *conn)
{
	struct dns_relay *r = ra->relay;
	struct pending *pd = &r->pending[r->next_slot++ % RELAY_PENDING];

	if (len < DNS_HEADER || len > DNS_MSG_MAX)
		return;
	/* The oldest message still waiting is forgotten (its answer dropped). */
	memset(pd, 0, sizeof(*pd));
	pd->used = true;
	pd->id = r->next_id++;
	pd->orig = (uint16_t)(msg[0] << 8 | msg[1]);
	pd->ra = ra;
	pd->conn = conn;
	if (client)
		ip_addr_copy(pd->client, *client);
	pd->port = port;
	msg[0] = (uint8_t)(pd->id >> 8);
	msg[1] = (uint8_t)pd->id;
	/* Full, or nothing listens there (ECONNREFUSED): the guest times out
	 * and tries again, as it would natively. */
	if (write(ra->fd, msg, len) < 0)
		pd->used = false;
}

static void on_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
		   u16_t port)
{
	struct relay_addr *ra = arg;

	(void)pcb;
	if (p->tot_len >= DNS_HEADER) {
		uint8_t *msg = xmalloc(p->tot_len);

		pbuf_copy_partial(p, msg, p->tot_len, 0);
		forward(ra, msg, p->tot_len, addr, port, NULL);
		free(msg);
	}
	pbuf_free(p);
}

/* conn is over: no answer goes to it any more. */
static void conn_free(struct relay_conn *c)
{
	struct dns_relay *r = c->ra->relay;

	for (int i = 0; i < RELAY_PENDING; i++)
		if (r->pending[i].conn == c)
			r->pending[i].used = false;
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* Detach conn from its pcb and free it; the pcb is the caller's to end. */
static struct tcp_pcb *conn_detach(struct relay_conn *c)
{
	struct tcp_pcb *pcb = c->pcb;

	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_err(pcb, NULL);
	conn_free(c);
	return pcb;
}

static err_t on_tcp_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct relay_conn *c = arg;

	if (!c) {
		if (p)
			pbuf_free(p);
		return ERR_OK;
	}
	if (!p || err != ERR_OK) {
		/* The guest closed its side: so do we. */
		if (p)
			pbuf_free(p);
		conn_detach(c);
		if (tcp_close(pcb) != ERR_OK) {
			tcp_abort(pcb);
			return ERR_ABRT;
		}
		return ERR_OK;
	}
	if (c->len + p->tot_len > CONN_BUF) {
		pbuf_free(p);
		tcp_abort(conn_detach(c));
		return ERR_ABRT;
	}
	pbuf_copy_partial(p, c->buf + c->len, p->tot_len, 0);
	c->len += p->tot_len;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	while (c->len >= 2) {
		size_t m = (size_t)(c->buf[0] << 8 | c->buf[1]);

		if (c->len < 2 + m)
			break;
		forward(c->ra, c->buf + 2, m, NULL, 0, c);
		memmove(c->buf, c->buf + 2 + m, c->len - 2 - m);
		c->len -= 2 + m;
	}
	return ERR_OK;
}

static void on_tcp_err(void *arg, err_t err)
{
	struct relay_conn *c = arg;

	(void)err;
	if (c)
		conn_free(c); /* lwIP freed the pcb */
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct relay_addr *ra = arg;
	struct relay_conn *c = NULL;

	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	for (int i = 0; i < RELAY_TCP_CONNS && !c; i++)
		if (!ra->relay->conns[i].used)
			c = &ra->relay->conns[i];
	if (!c) {
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	c->used = true;
	c->ra = ra;
	c->pcb = pcb;
	c->buf = xmalloc(CONN_BUF);
	c->len = 0;
	tcp_arg(pcb, c);
	tcp_recv(pcb, on_tcp_recv);
	tcp_err(pcb, on_tcp_err);
	return ERR_OK;
}

/* An answer (len bytes) from ra's nameserver to whoever asked. */
static void deliver(struct relay_addr *ra, uint8_t *msg, size_t len)
{
	struct dns_relay *r = ra->relay;
	uint16_t id = (uint16_t)(msg[0] << 8 | msg[1]);
	struct pending *pd = NULL;

	for (int i = 0; i < RELAY_PENDING && !pd; i++)
		if (r->pending[i].used && r->pending[i].ra == ra && r->pending[i].id == id)
			pd = &r->pending[i];
	if (!pd)
		return;
	pd->used = false;
	msg[0] = (uint8_t)(pd->orig >> 8);
	msg[1] = (uint8_t)pd->orig;
	if (pd->conn) {
		struct tcp_pcb *pcb = pd->conn->pcb;
		uint8_t hdr[2] = {(uint8_t)(len >> 8), (uint8_t)len};

		if (pcb && tcp_sndbuf(pcb) >= len + 2 &&
		    tcp_write(pcb, hdr, 2, TCP_WRITE_FLAG_COPY | TCP_WRITE_FLAG_MORE) == ERR_OK &&
		    tcp_write(pcb, msg, (u16_t)len, TCP_WRITE_FLAG_COPY) == ERR_OK)
			tcp_output(pcb);
	} else {
		struct pbuf *q = len <= DNS_UDP_MAX
					 ? pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM)
					 : NULL;

		if (!q)
			return;
		pbuf_take(q, msg, (u16_t)len);
		udp_sendto(ra->udp, q, &pd->client, pd->port);
		pbuf_free(q);
	}
}

/* --- the stack's side -------------------------------------------------------------- */

static err_t relay_output(struct netif *n, struct pbuf *p, const ip4_addr_t *dst)
{
	(void)dst;
	return netif_loop_output(n, p);
}

static err_t relay_netif_init(struct netif *n)
{
	n->name[0] = 'd';
	n->name[1] = 'n';
	n->output = relay_output;
	n->mtu = 65535;
	n->flags = 0;
	return ERR_OK;
}

/* The address on an interface of the stack's own (lwIP takes in only what
 * is addressed to one of its interfaces), UDP and TCP port 53 on it. Both
 * with SOF_REUSEADDR: a guest's bind of port 53 elsewhere
 * (netstack_addr.c) need not fail. */
static void attach_one(struct relay_addr *ra)
{
	ip4_addr_t mask, gw;
	struct tcp_pcb *pcb;

	IP4_ADDR(&mask, 255, 255, 255, 255);
	ip4_addr_set_zero(&gw);
	if (!netif_add(&ra->netif, &ra->addr, &mask, &gw, ra, relay_netif_init, ip_input))
		return;
	ra->netif_added = true;
	netif_set_link_up(&ra->netif);
	netif_set_up(&ra->netif);
	ra->udp = udp_new_ip_type(IPADDR_TYPE_V4);
	if (ra->udp) {
		ip_addr_t a;

		ip_addr_copy_from_ip4(a, ra->addr);
		ip_set_option(ra->udp, SOF_REUSEADDR);
		if (udp_bind(ra->udp, &a, DNS_PORT) == ERR_OK) {
			udp_recv(ra->udp, on_udp, ra);
		} else {
			udp_remove(ra->udp);
			ra->udp = NULL;
		}
	}
	pcb = tcp_new_ip_type(IPADDR_TYPE_V4);
	if (pcb) {
		ip_addr_t a;

		ip_addr_copy_from_ip4(a, ra->addr);
		ip_set_option(pcb, SOF_REUSEADDR);
		if (tcp_bind(pcb, &a, DNS_PORT) == ERR_OK)
			ra->listener = tcp_listen_with_backlog(pcb, TCP_BACKLOG);
		if (!ra->listener) {
			tcp_close(pcb);
		} else {
			tcp_arg(ra->listener, ra);
			tcp_accept(ra->listener, on_accept);
		}
	}
	if (!ra->udp || !ra->listener)
		log_warning("network: the DNS relay could not listen on the stack's loopback");
}

void dns_relay_attach(struct dns_relay *r)
{
	for (int i = 0; i < r->n; i++)
		attach_one(&r->addrs[i]);
}

bool dns_relay_has(const struct dns_relay *r, const ip_addr_t *ip)
{
	if (!r || !IP_IS_V4(ip))
		return false;
	for (int i = 0; i < r->n; i++)
		if (ip4_addr_cmp(ip_2_ip4(ip), &r->addrs[i].addr))
			return true;
	return false;
}

static void *reader_main(void *arg)
{
	struct dns_relay *r = arg;
	uint8_t *buf = xmalloc(DNS_MSG_MAX + 1);

	for (;;) {
		struct pollfd pf[RESOLV_MAXNS + 1];

		for (int i = 0; i < r->n; i++)
			pf[i] = (struct pollfd){r->addrs[i].fd, POLLIN, 0};
		pf[r->n] = (struct pollfd){r->stop[0], POLLIN, 0};
		if (poll(pf, (nfds_t)r->n + 1, -1) < 0 && errno != EINTR)
			break;
		if (pf[r->n].revents)
			break;
		for (int i = 0; i < r->n; i++) {
			ssize_t n;

			if (!(pf[i].revents & (POLLIN | POLLERR)))
				continue;
			/* (An error read here is an ICMP one: nothing listens.) */
			n = read(r->addrs[i].fd, buf, DNS_MSG_MAX + 1);
			if (n < DNS_HEADER || n > DNS_MSG_MAX)
				continue;
			ns_lock();
			deliver(&r->addrs[i], buf, (size_t)n);
			ns_unlock();
		}
	}
	free(buf);
	return NULL;
}

void dns_relay_run(struct dns_relay *r)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	r->reader_started = pthread_create(&r->reader, &attr, reader_main, r) == 0;
	pthread_attr_destroy(&attr);
	if (!r->reader_started)
		log_warning("network: no reader for the DNS relay");
}

/* --- closing ------------------------------------------------------------------------ */

static void detach_one(struct relay_addr *ra)
{
	if (ra->udp)
		udp_remove(ra->udp);
	if (ra->listener)
		tcp_close(ra->listener);
	if (ra->netif_added)
		netif_remove(&ra->netif);
	ra->udp = NULL;
	ra->listener = NULL;
	ra->netif_added = false;
}

void dns_relay_close(struct dns_relay *r, bool running)
{
	if (!r)
		return;
	if (r->stop[1] >= 0 && write(r->stop[1], "x", 1) < 0)
		log_debug("network: the DNS relay's stop pipe: %s", strerror(errno));
	if (r->reader_started)
		pthread_join(r->reader, NULL);
	if (running) {
		ns_lock();
		for (int i = 0; i < RELAY_TCP_CONNS; i++)
			if (r->conns[i].used)
				tcp_abort(conn_detach(&r->conns[i]));
		for (int i = 0; i < r->n; i++)
			detach_one(&r->addrs[i]);
		ns_unlock();
	}
	for (int i = 0; i < RESOLV_MAXNS; i++)
		if (r->addrs[i].fd >= 0)
			close(r->addrs[i].fd);
	if (r->stop[0] >= 0)
		close(r->stop[0]);
	if (r->stop[1] >= 0)
		close(r->stop[1]);
	free(r);
}
