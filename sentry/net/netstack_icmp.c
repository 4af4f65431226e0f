/*
 * ICMP errors for UDP sockets. lwIP answers a datagram to a closed port
 * with ICMP (or ICMPv6) port unreachable, but does not hand the errors it
 * receives to UDP. Two raw pcbs see every ICMP and ICMPv6 message first
 * (and leave it to lwIP): a destination unreachable (or time exceeded)
 * that quotes a datagram of a UDP socket becomes that socket's pending
 * error and enters its error queue, as Linux reports them (ECONNREFUSED
 * for a closed port; netstack_errq.c).
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "lib/util.h"

#include <lwip/ip.h>
#include <lwip/raw.h>
#include <lwip/udp.h>

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>

#define QUOTE_MAX 1232 /* of the datagram's payload, at most (an IPv6 minimum MTU) */

static struct list_head udp_socks = LIST_HEAD_INIT(udp_socks);

void ns_icmp_track(struct ns_sock *ns)
{
	list_add_tail(&ns->udp_link, &udp_socks);
}

void ns_icmp_untrack(struct ns_sock *ns)
{
	list_del_init(&ns->udp_link);
}

/*
 * The sockets the quoted datagram came from, as __udp4_lib_err finds them
 * (bound to its source port and address, connected to its destination if
 * connected at all). With IP_RECVERR (IPV6_RECVERR for an ICMPv6 one) the
 * error is queued and becomes the pending one; without, only a hard error
 * does, and only on a connected socket.
 */
static void deliver(const struct ns_icmp_err *e)
{
	bool v4 = IP_IS_V4(&e->dst);
	struct ns_sock *ns;

	list_for_each_entry(ns, &udp_socks, udp_link) {
		struct udp_pcb *pcb = ns->pcb.udp;
		bool recverr = v4 ? ns->recverr : ns->recverr6;
		if (!pcb || pcb->local_port != e->sport ||
		    (!ip_addr_isany(&pcb->local_ip) && !ip_addr_cmp(&pcb->local_ip, &e->src)))
			continue;
		if (ns->has_peer &&
		    (pcb->remote_port != e->dport || !ip_addr_cmp(&pcb->remote_ip, &e->dst)))
			continue;
		if (recverr)
			ns_errq_queue(ns, e);
		else if (!e->hard || !ns->has_peer)
			continue;
		ns->err = e->err;
		ns_wake(ns, POLLERR);
	}
}

/* icmp_err_convert (and udp_err's fragmentation case, time exceeded). */
static int v4_errno(uint8_t type, uint8_t code, bool *hard)
{
	static const struct {
		int err;
		bool hard;
	} unreach[] = {
		{ENETUNREACH, 0},  {EHOSTUNREACH, 0}, {ENOPROTOOPT, 1},	 {ECONNREFUSED, 1},
		{EMSGSIZE, 1},	   {EOPNOTSUPP, 0},   {ENETUNREACH, 1},	 {EHOSTDOWN, 1},
		{ENONET, 1},	   {ENETUNREACH, 1},  {EHOSTUNREACH, 1}, {ENETUNREACH, 0},
		{EHOSTUNREACH, 0}, {EHOSTUNREACH, 1}, {EHOSTUNREACH, 1}, {EHOSTUNREACH, 1},
	};

	*hard = type == 12;
	if (type == 12)
		return EPROTO; /* parameter problem */
	if (type == 11 || code >= ARRAY_SIZE(unreach))
		return EHOSTUNREACH; /* time exceeded */
	*hard = unreach[code].hard;
	return unreach[code].err;
}

static u8_t icmp4_in(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	uint8_t b[8 + 60 + 8 + QUOTE_MAX];
	size_t hl = ip_current_header_tot_len(), ihl;
	u16_t n = pbuf_copy_partial(p, b, sizeof(b), (u16_t)hl);
	struct ns_icmp_err e = {.type = b[0], .code = b[1]};

	if (n < 8 + 20 + 8 || (b[0] != 3 && b[0] != 11 && b[0] != 12))
		return 0;
	ihl = (size_t)(b[8] & 0xf) * 4;
	if ((b[8] >> 4) != 4 || ihl < 20 || 8 + ihl + 8 > n || b[8 + 9] != IPPROTO_UDP)
		return 0;
	e.err = v4_errno(b[0], b[1], &e.hard);
	if (b[0] == 3 && b[1] == 4) /* fragmentation needed: the next hop's MTU */
		e.info = (uint32_t)(b[6] << 8 | b[7]);
	ip_addr_copy(e.offender, *src);
	ip_addr_set_zero_ip4(&e.src);
	memcpy(&ip_2_ip4(&e.src)->addr, &b[8 + 12], 4);
	ip_addr_set_zero_ip4(&e.dst);
	memcpy(&ip_2_ip4(&e.dst)->addr, &b[8 + 16], 4);
	e.sport = (uint16_t)(b[8 + ihl] << 8 | b[8 + ihl + 1]);
	e.dport = (uint16_t)(b[8 + ihl + 2] << 8 | b[8 + ihl + 3]);
	e.udp_len = (uint16_t)(b[8 + ihl + 4] << 8 | b[8 + ihl + 5]);
	e.data = b + 8 + ihl + 8;
	e.len = n - (8 + ihl + 8);
	deliver(&e);
	return 0;
}

/* icmpv6_err_convert. */
static int v6_errno(uint8_t type, uint8_t code, bool *hard)
{
	static const struct {
		int err;
		bool hard;
	} unreach[] = {
		{ENETUNREACH, 0},  {EACCES, 1}, {EHOSTUNREACH, 0}, {EHOSTUNREACH, 0},
		{ECONNREFUSED, 1}, {EACCES, 1}, {EACCES, 1},
	};

	*hard = true;
	switch (type) {
	case 1:
		if (code < ARRAY_SIZE(unreach)) {
			*hard = unreach[code].hard;
			return unreach[code].err;
		}
		return EHOSTUNREACH;
	case 2:
		return EMSGSIZE; /* packet too big */
	case 4:
		return EPROTO; /* parameter problem */
	default:
		*hard = false;
		return EHOSTUNREACH; /* time exceeded */
	}
}

static u8_t icmp6_in(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	uint8_t b[8 + 40 + 8 + QUOTE_MAX];
	size_t hl = ip_current_header_tot_len();
	u16_t n = pbuf_copy_partial(p, b, sizeof(b), (u16_t)hl);
	struct ns_icmp_err e = {.type = b[0], .code = b[1]};

	if (n < 8 + 40 + 8 || b[0] < 1 || b[0] > 4 || (b[8] >> 4) != 6 || b[8 + 6] != IPPROTO_UDP)
		return 0;
	e.err = v6_errno(b[0], b[1], &e.hard);
	if (b[0] == 2 || b[0] == 4) /* the MTU, the pointer */
		e.info = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
	ip_addr_copy(e.offender, *src);
	ip_addr_set_zero_ip6(&e.src);
	memcpy(ip_2_ip6(&e.src)->addr, &b[8 + 8], 16);
	ip_addr_set_zero_ip6(&e.dst);
	memcpy(ip_2_ip6(&e.dst)->addr, &b[8 + 24], 16);
	e.sport = (uint16_t)(b[48] << 8 | b[49]);
	e.dport = (uint16_t)(b[50] << 8 | b[51]);
	e.udp_len = (uint16_t)(b[52] << 8 | b[53]);
	e.data = b + 56;
	e.len = n - 56;
	deliver(&e);
	return 0;
}

void ns_icmp_init(void)
{
	struct raw_pcb *r4 = raw_new_ip_type(IPADDR_TYPE_V4, IP_PROTO_ICMP);
	struct raw_pcb *r6 = raw_new_ip_type(IPADDR_TYPE_V6, IP6_NEXTH_ICMP6);

	if (r4)
		raw_recv(r4, icmp4_in, NULL);
	if (r6)
		raw_recv(r6, icmp6_in, NULL);
}
