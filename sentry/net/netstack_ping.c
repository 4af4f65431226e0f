/*
 * ICMP echo sockets ("ping sockets": SOCK_DGRAM with IPPROTO_ICMP, or
 * IPPROTO_ICMPV6 on AF_INET6), as Linux's net/ipv4/ping.c: for callers
 * whose group is in net.ipv4.ping_group_range. The guest sends an echo
 * request (an ICMP header and data; the socket's identifier and the
 * checksum are filled in) and receives the echo replies that carry its
 * identifier, ICMP header first, without the IP header. The identifier
 * is the socket's port (bind, or chosen at the first send).
 *
 * Each socket is an lwIP raw pcb of the protocol: it sees every ICMP
 * message and copies the replies that are its own (leaving them to the
 * other pcbs, raw sockets among them); lwIP answers requests.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <lwip/inet_chksum.h>
#include <lwip/ip.h>
#include <lwip/raw.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define ICMP_ECHO_REQ  8
#define ICMP_ECHO_REP  0
#define ICMP6_ECHO_REQ 128
#define ICMP6_ECHO_REP 129
#define ICMP_HDR       8
#define PING_MAX_DATA  65507

static struct list_head ping_socks = LIST_HEAD_INIT(ping_socks);
static uint16_t next_id = 1;

/* May the caller make ping sockets? (its groups against ping_group_range) */
int ns_ping_allowed(void)
{
	struct task *t = current_task();
	uint32_t lo, hi;

	if (!t)
		return 0;
	lo = t->k->net_sysctl.ping_group_lo;
	hi = t->k->net_sysctl.ping_group_hi;
	if (t->creds.egid >= lo && t->creds.egid <= hi)
		return 0;
	for (uint32_t i = 0; i < t->creds.ngroups; i++)
		if (t->creds.groups[i] >= lo && t->creds.groups[i] <= hi)
			return 0;
	return -EACCES;
}

static bool id_used(int family, uint16_t id)
{
	struct ns_sock *o;

	list_for_each_entry(o, &ping_socks, udp_link) {
		if (o->family == family && o->bound && o->local_port == id)
			return true;
	}
	return false;
}

static u8_t on_recv(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	struct ns_sock *ns = arg;
	size_t hl = ip_current_header_tot_len();
	uint8_t h[ICMP_HDR];
	struct pbuf *q;

	if (!ns || p->tot_len < hl + ICMP_HDR ||
	    pbuf_copy_partial(p, h, ICMP_HDR, (u16_t)hl) != ICMP_HDR)
		return 0;
	if (h[0] != (ns->family == AF_INET ? ICMP_ECHO_REP : ICMP6_ECHO_REP) || h[1] != 0 ||
	    (uint16_t)(h[4] << 8 | h[5]) != ns->local_port)
		return 0;
	if (ns->has_peer && !ip_addr_cmp(src, &ns->remote_ip))
		return 0;
	q = pbuf_alloc(PBUF_RAW, (u16_t)(p->tot_len - hl), PBUF_RAM);
	if (q) {
		pbuf_copy_partial(p, q->payload, q->len, (u16_t)hl);
		ns_dgram_queue(ns, q, src, 0);
	}
	return 0; /* not eaten: raw ICMP sockets see the reply too */
}

/* The pcb, and an identifier once needed (core lock held). */
static int ping_pcb(struct ns_sock *ns)
{
	if (ns->pcb.raw)
		return 0;
	ns->pcb.raw = raw_new_ip_type(ns->family == AF_INET ? IPADDR_TYPE_V4 : IPADDR_TYPE_V6,
				      ns->family == AF_INET ? IP_PROTO_ICMP : IP6_NEXTH_ICMP6);
	if (!ns->pcb.raw)
		return -ENOBUFS;
	if (ns->family == AF_INET6) {
		ns->pcb.raw->chksum_reqd = 1; /* lwIP sums ICMPv6 with its pseudo-header */
		ns->pcb.raw->chksum_offset = 2;
	}
	raw_recv(ns->pcb.raw, on_recv, ns);
	ns_apply_opts(ns);
	return 0;
}

static int autobind(struct ns_sock *ns, uint16_t id)
{
	if (ns->bound)
		return 0;
	if (id == 0) {
		for (int i = 0; i < 65535 && (id == 0 || id_used(ns->family, id)); i++)
			id = next_id++;
		if (id_used(ns->family, id))
			return -EAGAIN;
	} else if (id_used(ns->family, id)) {
		return -EADDRINUSE;
	}
	ns->local_port = id;
	ns->bound = true;
	return 0;
}

static int ping_bind(struct socket *s, const void *addr, int len)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t id;
	bool unspec;
	int ret = ns_addr_in(ns, addr, len, &ip, &id, &unspec);

	if (ret < 0)
		return ret == -ENETUNREACH ? -EINVAL : ret;
	ns_lock();
	if (ns->bound)
		ret = -EINVAL;
	else if (!ns_addr_local(&ip))
		ret = -EADDRNOTAVAIL;
	else
		ret = ping_pcb(ns);
	if (ret == 0)
		ret = ns_errno(raw_bind(ns->pcb.raw, &ip));
	if (ret == 0)
		ret = autobind(ns, id);
	if (ret == 0)
		ip_addr_copy(ns->local_ip, ip);
	ns_unlock();
	return ret;
}

static int ping_connect(struct socket *s, const void *addr, int len, bool nonblock)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t port;
	bool unspec;
	int ret = ns_addr_dest(ns, addr, len, &ip, &port, &unspec);

	if (ret < 0 && !unspec)
		return ret;
	ns_lock();
	if (unspec) {
		ns->has_peer = false;
		if (ns->pcb.raw)
			raw_disconnect(ns->pcb.raw);
		ret = 0;
		goto out;
	}
	ret = ping_pcb(ns);
	if (ret == 0)
		ret = autobind(ns, 0);
	if (ret == 0)
		ret = ns_errno(raw_connect(ns->pcb.raw, &ip));
	if (ret == 0) {
		ip_addr_copy(ns->remote_ip, ip);
		ns->remote_port = 0;
		ns->has_peer = true;
	}
out:
	ns_unlock();
	return ret;
}

static long ping_sendmsg(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	size_t len = m->iter.count;
	ip_addr_t ip;
	uint16_t port;
	struct pbuf *p;
	uint8_t *b;
	bool fault = false, to_addr;
	long ret;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	ret = ns_msg_dest(ns, m, &ip, &port, &to_addr);
	if (ret < 0)
		return ret;
	if (len > PING_MAX_DATA)
		return -EMSGSIZE;
	if (len < ICMP_HDR)
		return -EINVAL;
	p = pbuf_alloc(PBUF_IP, (u16_t)len, PBUF_RAM);
	if (!p)
		return -ENOBUFS;
	b = p->payload;
	if (msg_iter_copy_in(&m->iter, b, len, &fault) != len) {
		pbuf_free(p);
		return -EFAULT;
	}
	if (b[0] != (ns->family == AF_INET ? ICMP_ECHO_REQ : ICMP6_ECHO_REQ) || b[1] != 0) {
		pbuf_free(p);
		return -EINVAL;
	}
	ns_lock();
	if (!to_addr && !ns->has_peer) {
		ret = -EDESTADDRREQ;
		goto out;
	}
	ret = ping_pcb(ns);
	if (ret == 0)
		ret = autobind(ns, 0);
	if (ret < 0)
		goto out;
	b[4] = (uint8_t)(ns->local_port >> 8);
	b[5] = (uint8_t)ns->local_port;
	b[2] = b[3] = 0;
	if (ns->family == AF_INET) {
		u16_t c = inet_chksum(b, (u16_t)len);
		memcpy(&b[2], &c, 2);
	}
	ret = ns_errno(raw_sendto(ns->pcb.raw, p, to_addr ? &ip : &ns->remote_ip));
	if (ret == 0)
		ret = (long)len;
out:
	ns_unlock();
	pbuf_free(p);
	return ret;
}

static void ping_release(struct socket *s)
{
	struct ns_sock *ns = NS(s);

	ns_lock();
	if (ns->pcb.raw)
		raw_remove(ns->pcb.raw);
	ns->pcb.raw = NULL;
	list_del_init(&ns->udp_link);
	ns_dgram_flush(ns);
	ns_sock_free(ns);
	ns_unlock();
}

void ns_ping_track(struct ns_sock *ns)
{
	list_add_tail(&ns->udp_link, &ping_socks);
}

#define PING_OPS(fam)                                                                        \
	{                                                                                    \
		.family = fam, .bind = ping_bind, .connect = ping_connect,                   \
		.listen = ns_dgram_listen, .accept = ns_dgram_accept, .getname = ns_getname, \
		.sendmsg = ping_sendmsg, .recvmsg = ns_dgram_recvmsg,                        \
		.shutdown = ns_dgram_shutdown, .setsockopt = ns_setsockopt,                  \
		.getsockopt = ns_getsockopt, .poll = ns_dgram_poll, .inq = ns_dgram_inq,     \
		.ioctl = ns_ioctl, .release = ping_release,                                  \
	}

const struct sock_ops ns_ping_ops[2] = {PING_OPS(AF_INET), PING_OPS(AF_INET6)};
