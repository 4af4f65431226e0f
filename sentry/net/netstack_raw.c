/*
 * Raw IP sockets (SOCK_RAW of AF_INET and AF_INET6), as Linux's
 * net/ipv4/raw.c and net/ipv6/raw.c, for callers with CAP_NET_RAW.
 *
 * Each socket is an lwIP raw pcb of its protocol. Receiving: lwIP offers
 * the pcb every packet of that protocol for the stack (on the loopback or
 * an attached interface, after reassembly) to its bound address; the
 * socket takes a copy of those from its peer (when connected) that its
 * ICMP filter lets through: an AF_INET socket the whole packet, IP header
 * first; an AF_INET6 socket what follows the IPv6 header, checked against
 * IPV6_CHECKSUM's offset when one is set (always 2 for ICMPv6). lwIP then
 * handles the packet as ever (an echo request is answered). lwIP matches
 * an IPv6 packet by its first next-header: one with extension headers
 * reaches no raw socket of the final protocol. A packet to an address not
 * the stack's is not delivered, even on the loopback (Linux delivers an
 * IP_HDRINCL packet sent over the loopback, whatever its destination).
 *
 * Sending: the pcb writes the IP header (and, for AF_INET6, the checksum
 * at IPV6_CHECKSUM's offset). With IP_HDRINCL (always for IPPROTO_RAW)
 * the guest writes the IPv4 header; as Linux, the stack fills in the total
 * length, the checksum, an identification and a source address left 0,
 * and routes by the address the packet is sent to. Unlike Linux, on a
 * packet that leaves through an attached interface the sandbox refuses a
 * source address not its own (EPERM) and checks the header's destination
 * against the egress policy, as the syscall layer checks sendto's.
 * AF_INET6 sockets of IPPROTO_RAW (the guest writing the IPv6 header) can
 * be made but not written to (EINVAL), as in gVisor.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/net.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <lwip/inet_chksum.h>
#include <lwip/ip.h>
#include <lwip/ip4.h>
#include <lwip/ip6.h>
#include <lwip/netif.h>
#include <lwip/raw.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define IPV4_HDR	 20
#define IPV6_HDR	 40
#define IP_MAXPACKET	 65535
#define ICMP_FILTER	 1 /* SOL_RAW (linux/icmp.h) */
#define ICMP6_FILTER	 1 /* SOL_ICMPV6 (netinet/icmp6.h) */
#define ICMP6_CSUM_AT	 2
#define ICMP6_FILTER_LEN 32

static uint16_t next_ident = 1;

/* --- receiving ------------------------------------------------------------------------- */

static bool addr_eq(const ip_addr_t *a, const ip_addr_t *b)
{
	if (IP_IS_V4(a) != IP_IS_V4(b))
		return false;
	if (IP_IS_V4(a))
		return ip4_addr_cmp(ip_2_ip4(a), ip_2_ip4(b));
	return ip6_addr_cmp_zoneless(ip_2_ip6(a), ip_2_ip6(b));
}

/* Does ns's ICMP or ICMPv6 filter block a message of this type? (raw.c's
 * icmp_filter: unknown types pass) */
static bool filtered(const struct ns_sock *ns, int type)
{
	if (ns->family == AF_INET)
		return ns->protocol == IPPROTO_ICMP && type < 32 &&
		       (ns->icmp_filter & (1u << type));
	return ns->protocol == IPPROTO_ICMPV6 &&
	       (ns->icmp6_filter[type >> 5] & (1u << (type & 31)));
}

/* A packet of the socket's protocol for the stack, IP header first (lwIP's
 * raw_input, from ip_input, which has checked the header, reassembled
 * fragments and matched the pcb's address). ns takes a copy; p goes on to
 * lwIP's own handling. */
static u8_t on_recv(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	struct ns_sock *ns = arg;
	bool v6 = ns->family == AF_INET6;
	u16_t hl = (u16_t)ip_current_header_tot_len();
	struct ns_dgram meta = {.v4 = !v6};
	u16_t at = v6 ? hl : 0;
	uint8_t type;
	struct pbuf *q;

	(void)pcb;
	if (p->tot_len < hl || v6 != (ip_current_is_v6() != 0))
		return 0;
	if (ns->has_peer && !addr_eq(&ns->remote_ip, src))
		return 0;
	if ((ns->protocol == IPPROTO_ICMP || ns->protocol == IPPROTO_ICMPV6) &&
	    (pbuf_copy_partial(p, &type, 1, hl) != 1 || filtered(ns, type)))
		return 0;
	/* raw_rcv: past the receive buffer, dropped (one datagram always fits) */
	if (ns->rx_len >= (size_t)ns->rcvbuf)
		return 0;
	q = pbuf_alloc(PBUF_RAW, (u16_t)(p->tot_len - at), PBUF_RAM);
	if (!q)
		return 0;
	pbuf_copy_partial(p, q->payload, q->tot_len, at);
	if (v6 && ns->csum_off >= 0 &&
	    ((size_t)ns->csum_off + 2 > q->tot_len ||
	     ip6_chksum_pseudo(q, (u8_t)ns->protocol, q->tot_len, ip6_current_src_addr(),
			       ip6_current_dest_addr()) != 0)) {
		pbuf_free(q);
		return 0;
	}
	if (ns->filter) { /* sk_filter_trim_cap(.., 1) */
		size_t keep = ns_filter_run(ns, q->payload, q->tot_len, 1);
		if (keep == 0) {
			pbuf_free(q);
			return 0;
		}
		pbuf_realloc(q, (u16_t)keep);
	}
	ip_addr_copy(meta.addr, *src);
	ip_addr_copy(meta.dst, *ip_current_dest_addr());
	if (v6) {
		meta.tos = (uint8_t)IP6H_TC(ip6_current_header());
		meta.ttl = (uint8_t)IP6H_HOPLIM(ip6_current_header());
	} else {
		meta.tos = (uint8_t)IPH_TOS(ip4_current_header());
		meta.ttl = (uint8_t)IPH_TTL(ip4_current_header());
	}
	meta.ifindex = ns_ifindex(ip_current_input_netif());
	ns_dgram_add(ns, q, &meta);
	return 0;
}

int ns_raw_init(struct ns_sock *ns)
{
	bool v6 = ns->family == AF_INET6;

	/* A protocol past 255 (Linux takes up to IPPROTO_MPTCP) names none on
	 * the wire: such a socket receives nothing and cannot send. */
	ns->pcb.raw = raw_new_ip_type(v6 ? IPADDR_TYPE_V6 : IPADDR_TYPE_V4,
				      (u8_t)MIN(ns->protocol, IPPROTO_RAW));
	if (!ns->pcb.raw)
		return -ENOBUFS;
	ns->local_port = (uint16_t)ns->protocol; /* getsockname's "port" */
	ns->csum_off = v6 && ns->protocol == IPPROTO_ICMPV6 ? ICMP6_CSUM_AT : -1;
	ns->hdrincl = !v6 && ns->protocol == IPPROTO_RAW;
	if (ns->protocol <= IPPROTO_RAW)
		raw_recv(ns->pcb.raw, on_recv, ns);
	ns_apply_opts(ns);
	return 0;
}

/* --- addresses ------------------------------------------------------------------------- */

static int raw_bind_op(struct socket *s, const void *addr, int len)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t port;
	bool unspec;
	int ret = ns_addr_in(ns, addr, len, &ip, &port, &unspec);

	if (ret < 0)
		return ns->family == AF_INET6 ? -EINVAL : ret;
	if (ns->family == AF_INET6 && IP_IS_V4(&ip))
		return -EADDRNOTAVAIL; /* a v4-mapped address */
	ns_lock();
	if (!ip_addr_isany(&ip) && !ns_addr_local(&ip) && !ns_addr_broadcast(&ip) &&
	    !ip_addr_ismulticast(&ip)) {
		ret = -EADDRNOTAVAIL;
	} else {
		ip_addr_copy(ns->local_ip, ip);
		ns->bound = !ip_addr_isany(&ip);
		ns->addr_bound = ns->bound;
		ret = ns_errno(raw_bind(ns->pcb.raw, &ip));
	}
	ns_unlock();
	return ret;
}

/* ip4_datagram_connect, ip6_datagram_connect: the peer, and the source
 * address when none was bound. */
static int raw_connect_op(struct socket *s, const void *addr, int len, bool nonblock)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip, src;
	struct netif *n;
	uint16_t port;
	bool unspec;
	int ret = ns_addr_dest(ns, addr, len, &ip, &port, &unspec);

	(void)nonblock;
	if (ret < 0 && !unspec)
		return ret;
	ns_lock();
	if (unspec) {
		ns->has_peer = false;
		ns->state = NS_CLOSED;
		if (!ns->addr_bound) {
			ip_addr_set_any(ns->family == AF_INET6, &ns->local_ip);
			ns->bound = false;
			raw_bind(ns->pcb.raw, &ns->local_ip);
		}
		ret = 0;
	} else if (ns->family == AF_INET6 && IP_IS_V4(&ip)) {
		ret = -EAFNOSUPPORT;
	} else if (!ns_route_source(ns, &ip, &src, &n)) {
		ret = -ENETUNREACH;
	} else {
		if (!ns->bound) {
			ip_addr_copy(ns->local_ip, src);
			ns->bound = true;
		}
		ip_addr_copy(ns->remote_ip, ip);
		ns->remote_port = 0;
		ns->has_peer = true;
		ns->state = NS_CONNECTED;
		ret = 0;
	}
	ns_unlock();
	return ret;
}

/* A raw socket has no peer port: getpeername is ENOTCONN, connected or not. */
static int raw_getname_op(struct socket *s, void *addr, bool peer)
{
	return peer ? -ENOTCONN : ns_getname(s, addr, false);
}

/* --- sending --------------------------------------------------------------------------- */

/* raw_send_hdrinc's fix-ups of the guest's IPv4 header in p (one piece),
 * and the sandbox's checks of a packet leaving through n (core lock held). */
static int hdrincl_fix(struct ns_sock *ns, struct pbuf *p, const ip_addr_t *dst)
{
	uint8_t *h = p->payload;
	size_t hl = (size_t)(h[0] & 15) * 4;
	ip_addr_t src, a;
	struct netif *n;
	uint32_t saddr, daddr;
	u16_t sum;

	if (hl > p->tot_len)
		return -EINVAL;
	if (!ns_route_source(ns, dst, &src, &n))
		return -ENETUNREACH;
	memcpy(&saddr, h + 12, 4); /* (the caller made sure of 20 bytes) */
	memcpy(&daddr, h + 16, 4);
	if (ns_ifindex(n) != 1) {
		struct task *t = ns_current();
		ip_addr_set_ip4_u32_val(a, saddr);
		if (saddr && (!ns_addr_local(&a) || ip4_addr_isloopback(ip_2_ip4(&a))))
			return -EPERM;
		if (t && daddr != ip4_addr_get_u32(ip_2_ip4(dst))) {
			struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = daddr};
			int ret = net_egress_check(t->k, &sin, sizeof(sin), false);
			if (ret)
				return ret;
		}
	}
	if (hl < IPV4_HDR)
		return 0; /* a short header is sent as it is, as Linux does */
	if (!saddr) {
		saddr = ip4_addr_get_u32(ip_2_ip4(ns->bound ? &ns->local_ip : &src));
		memcpy(h + 12, &saddr, 4);
	}
	h[2] = (uint8_t)(p->tot_len >> 8);
	h[3] = (uint8_t)p->tot_len;
	if (!h[4] && !h[5]) {
		uint16_t id = next_ident++;
		h[4] = (uint8_t)(id >> 8);
		h[5] = (uint8_t)id;
	}
	h[10] = h[11] = 0;
	sum = inet_chksum(h, (u16_t)hl);
	memcpy(h + 10, &sum, 2);
	return 0;
}

static long raw_sendmsg_op(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	bool v6 = ns->family == AF_INET6, fault = false, to_addr;
	size_t len = m->iter.count;
	ip_addr_t ip;
	uint16_t port;
	struct pbuf *p;
	long ret;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	ret = ns_msg_dest(ns, m, &ip, &port, &to_addr);
	if (ret < 0)
		return ret;
	if (to_addr && v6 && IP_IS_V4(&ip))
		return -EINVAL;
	if ((v6 && ns->protocol == IPPROTO_RAW) || ns->protocol > IPPROTO_RAW)
		return -EINVAL;
	if (len > IP_MAXPACKET - (v6 || ns->hdrincl ? 0 : IPV4_HDR))
		return -EMSGSIZE;
	if (ns->hdrincl && len < IPV4_HDR)
		return -EINVAL;
	p = pbuf_alloc(ns->hdrincl ? PBUF_LINK : PBUF_IP, (u16_t)len, PBUF_RAM);
	if (!p)
		return -ENOBUFS;
	/* A PBUF_RAM pbuf is one piece. */
	if (len && msg_iter_copy_in(&m->iter, p->payload, len, &fault) != len) {
		pbuf_free(p);
		return -EFAULT;
	}
	ns_lock();
	if (!to_addr && !ns->has_peer) {
		ret = -EDESTADDRREQ;
		goto out;
	}
	if (!to_addr)
		ip_addr_copy(ip, ns->remote_ip);
	if (!v6 && ns_addr_broadcast(&ip) && !ns->broadcast) {
		ret = -EACCES;
		goto out;
	}
	if (v6 && ns->csum_off >= 0) {
		/* rawv6_push_pending_frames: the field's old value does not count */
		if ((size_t)ns->csum_off + 2 > len) {
			ret = -EINVAL;
			goto out;
		}
		memset((uint8_t *)p->payload + ns->csum_off, 0, 2);
	}
	if (ns->hdrincl) {
		ret = hdrincl_fix(ns, p, &ip);
		if (ret < 0)
			goto out;
		ns->pcb.raw->flags |= RAW_FLAGS_HDRINCL;
	} else {
		ns->pcb.raw->flags &= (u8_t)~RAW_FLAGS_HDRINCL;
	}
	ns->pcb.raw->chksum_reqd = v6 && ns->csum_off >= 0;
	ns->pcb.raw->chksum_offset = (u16_t)(ns->csum_off >= 0 ? ns->csum_off : 0);
	ns_apply_msg_opts(ns, &m->scm);
	ret = ns_errno(raw_sendto(ns->pcb.raw, p, &ip));
	ns_apply_opts(ns);
	if (ret == 0)
		ret = (long)len;
out:
	ns_unlock();
	pbuf_free(p);
	return ret;
}

/* --- options --------------------------------------------------------------------------- */

/* The levels a raw socket adds (raw_setsockopt, rawv6_setsockopt); 1 when
 * the option is none of them. */
static int set_raw(struct ns_sock *ns, int level, int name, const void *val, unsigned len)
{
	bool v6 = ns->family == AF_INET6;
	int v = 0;

	memcpy(&v, val, MIN(len, sizeof(v)));
	if (!v6 && level == SOL_RAW) {
		if (name != ICMP_FILTER)
			return -ENOPROTOOPT;
		if (ns->protocol != IPPROTO_ICMP)
			return -EOPNOTSUPP;
		memcpy(&ns->icmp_filter, val, MIN(len, sizeof(ns->icmp_filter)));
		return 0;
	}
	if (!v6 && level == IPPROTO_IP && name == IP_HDRINCL) {
		if (!len)
			return -EINVAL;
		ns->hdrincl = v != 0 || ns->protocol == IPPROTO_RAW;
		return 0;
	}
	if (!v6)
		return level == IPPROTO_IP || level == SOL_SOCKET ? 1 : -ENOPROTOOPT;
	if (level == SOL_ICMPV6) {
		if (ns->protocol != IPPROTO_ICMPV6)
			return -EOPNOTSUPP;
		if (name != ICMP6_FILTER)
			return -ENOPROTOOPT;
		memcpy(ns->icmp6_filter, val, MIN(len, sizeof(ns->icmp6_filter)));
		return 0;
	}
	if ((level == IPPROTO_IPV6 || level == SOL_RAW) && name == IPV6_CHECKSUM) {
		if (ns->protocol == IPPROTO_ICMPV6 && level == IPPROTO_IPV6)
			return -EINVAL; /* RFC 3542: the kernel always sums ICMPv6 */
		if (v > 0 && (v & 1))
			return -EINVAL;
		ns->csum_off = v < 0 ? -1 : v;
		return 0;
	}
	if (level == SOL_RAW)
		return -ENOPROTOOPT;
	return level == IPPROTO_IPV6 || level == SOL_SOCKET ? 1 : -ENOPROTOOPT;
}

static int raw_setsockopt_op(struct socket *s, int level, int name, const void *val, unsigned len)
{
	struct ns_sock *ns = NS(s);
	int ret;

	ns_lock();
	ret = set_raw(ns, level, name, val, len);
	ns_unlock();
	return ret == 1 ? ns_setsockopt(s, level, name, val, len) : ret;
}

static int get_raw(struct ns_sock *ns, int level, int name, void *val, unsigned *len)
{
	bool v6 = ns->family == AF_INET6;
	int v;

	if (!v6 && level == SOL_RAW) {
		if (name != ICMP_FILTER)
			return -ENOPROTOOPT;
		if (ns->protocol != IPPROTO_ICMP)
			return -EOPNOTSUPP;
		*len = MIN(*len, sizeof(ns->icmp_filter));
		memcpy(val, &ns->icmp_filter, *len);
		return 0;
	}
	if (!v6 && level == IPPROTO_IP && name == IP_HDRINCL) {
		v = ns->hdrincl;
		goto out_int;
	}
	if (!v6)
		return level == IPPROTO_IP || level == SOL_SOCKET ? 1 : -EOPNOTSUPP;
	if (level == SOL_ICMPV6) {
		if (ns->protocol != IPPROTO_ICMPV6)
			return -EOPNOTSUPP;
		if (name != ICMP6_FILTER)
			return -ENOPROTOOPT;
		*len = MIN(*len, ICMP6_FILTER_LEN);
		memcpy(val, ns->icmp6_filter, *len);
		return 0;
	}
	if ((level == IPPROTO_IPV6 || level == SOL_RAW) && name == IPV6_CHECKSUM) {
		v = ns->csum_off;
		goto out_int;
	}
	if (level == SOL_RAW)
		return -ENOPROTOOPT;
	return level == IPPROTO_IPV6 || level == SOL_SOCKET ? 1 : -ENOPROTOOPT;
out_int:
	*len = MIN(*len, sizeof(v));
	memcpy(val, &v, *len);
	return 0;
}

static int raw_getsockopt_op(struct socket *s, int level, int name, void *val, unsigned *len)
{
	struct ns_sock *ns = NS(s);
	int ret;

	ns_lock();
	ret = get_raw(ns, level, name, val, len);
	ns_unlock();
	return ret == 1 ? ns_getsockopt(s, level, name, val, len) : ret;
}

/* --- the rest -------------------------------------------------------------------------- */

static void raw_release_op(struct socket *s)
{
	struct ns_sock *ns = NS(s);

	ns_lock();
	if (ns->pcb.raw)
		raw_remove(ns->pcb.raw);
	ns->pcb.raw = NULL;
	ns_dgram_flush(ns);
	ns_sock_free(ns);
	ns_unlock();
}

#define RAW_OPS(fam)                                                                             \
	{                                                                                        \
		.family = fam, .bind = raw_bind_op, .connect = raw_connect_op,                   \
		.listen = ns_dgram_listen, .accept = ns_dgram_accept, .getname = raw_getname_op, \
		.sendmsg = raw_sendmsg_op, .recvmsg = ns_dgram_recvmsg,                          \
		.shutdown = ns_dgram_shutdown, .setsockopt = raw_setsockopt_op,                  \
		.getsockopt = raw_getsockopt_op, .poll = ns_dgram_poll, .inq = ns_dgram_inq,     \
		.ioctl = ns_ioctl, .release = raw_release_op,                                    \
	}

const struct sock_ops ns_raw_ops[2] = {RAW_OPS(AF_INET), RAW_OPS(AF_INET6)};
