/*
 * ICMP errors for UDP sockets. lwIP answers a datagram to a closed port
 * with ICMP (or ICMPv6) port unreachable, but does not hand the errors it
 * receives to UDP. Two raw pcbs see every ICMP and ICMPv6 message first
 * (and leave it to lwIP): a destination unreachable (or time exceeded)
 * that quotes a datagram of a connected UDP socket becomes that socket's
 * pending error, as Linux reports it (ECONNREFUSED for a closed port).
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"

#include <lwip/ip.h>
#include <lwip/raw.h>
#include <lwip/udp.h>

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>

static struct list_head udp_socks = LIST_HEAD_INIT(udp_socks);

void ns_icmp_track(struct ns_sock *ns)
{
	list_add_tail(&ns->udp_link, &udp_socks);
}

void ns_icmp_untrack(struct ns_sock *ns)
{
	list_del_init(&ns->udp_link);
}

/* The socket that sent the quoted datagram from sport to dst:dport gets e. */
static void deliver(const ip_addr_t *dst, uint16_t sport, uint16_t dport, int e)
{
	struct ns_sock *ns;

	list_for_each_entry(ns, &udp_socks, udp_link) {
		struct udp_pcb *pcb = ns->pcb.udp;
		if (!pcb || !ns->has_peer || pcb->local_port != sport ||
		    pcb->remote_port != dport || !ip_addr_cmp(&pcb->remote_ip, dst))
			continue;
		ns->err = e;
		ns_wake(ns, POLLERR);
	}
}

static int v4_errno(uint8_t type, uint8_t code)
{
	if (type == 11)
		return EHOSTUNREACH; /* time exceeded */
	switch (code) {
	case 0:
		return ENETUNREACH;
	case 2:
		return ENOPROTOOPT;
	case 3:
		return ECONNREFUSED;
	case 4:
		return EMSGSIZE;
	default:
		return EHOSTUNREACH;
	}
}

static u8_t icmp4_in(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	uint8_t b[20 + 8 + 60 + 8];
	size_t hl = ip_current_header_tot_len(), ihl;
	u16_t n = pbuf_copy_partial(p, b, sizeof(b), (u16_t)hl);
	ip_addr_t dst;
	uint16_t sport, dport;

	if (n < 8 + 20 + 8 || (b[0] != 3 && b[0] != 11))
		return 0;
	ihl = (size_t)(b[8] & 0xf) * 4;
	if ((b[8] >> 4) != 4 || ihl < 20 || 8 + ihl + 8 > n || b[8 + 9] != IPPROTO_UDP)
		return 0;
	ip_addr_set_zero_ip4(&dst);
	memcpy(&ip_2_ip4(&dst)->addr, &b[8 + 16], 4);
	sport = (uint16_t)(b[8 + ihl] << 8 | b[8 + ihl + 1]);
	dport = (uint16_t)(b[8 + ihl + 2] << 8 | b[8 + ihl + 3]);
	deliver(&dst, sport, dport, v4_errno(b[0], b[1]));
	return 0;
}

static int v6_errno(uint8_t type, uint8_t code)
{
	if (type == 3)
		return EHOSTUNREACH; /* time exceeded */
	switch (code) {
	case 0:
		return ENETUNREACH;
	case 1:
		return EACCES;
	case 4:
		return ECONNREFUSED;
	default:
		return EHOSTUNREACH;
	}
}

static u8_t icmp6_in(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *src)
{
	uint8_t b[8 + 40 + 8];
	size_t hl = ip_current_header_tot_len();
	u16_t n = pbuf_copy_partial(p, b, sizeof(b), (u16_t)hl);
	ip_addr_t dst;
	uint16_t sport, dport;

	if (n < sizeof(b) || (b[0] != 1 && b[0] != 3) || (b[8] >> 4) != 6 ||
	    b[8 + 6] != IPPROTO_UDP)
		return 0;
	ip_addr_set_zero_ip6(&dst);
	memcpy(ip_2_ip6(&dst)->addr, &b[8 + 24], 16);
	sport = (uint16_t)(b[48] << 8 | b[49]);
	dport = (uint16_t)(b[50] << 8 | b[51]);
	deliver(&dst, sport, dport, v6_errno(b[0], b[1]));
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
