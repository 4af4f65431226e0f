/*
 * A socket filter (sockfilter.h) run on a packet the stack is handing to a
 * socket, from lwIP's input, where the packet's IP header and interface
 * are at hand: what the program's ancillary words say comes from them.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"

#include <lwip/ip.h>
#include <lwip/netif.h>

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

size_t ns_filter_run(const struct ns_sock *ns, const unsigned char *data, size_t len, size_t cap)
{
	const struct netif *n = ip_current_input_netif();
	const ip_addr_t *dst = ip_current_dest_addr();
	struct sockfilter_pkt pkt = {
		.data = data,
		.len = len,
		.net = ip_current_is_v6() ? (const unsigned char *)ip6_current_header()
					  : (const unsigned char *)ip4_current_header(),
		.net_len = ip_current_header_tot_len(), /* the header only is in one piece */
		.protocol = ip_current_is_v6() ? ETH_P_IPV6 : ETH_P_IP,
		.pkttype = PACKET_HOST,
		.ifindex = (uint32_t)ns_ifindex(n),
		.hatype = n && n->name[0] == 'l' && n->name[1] == 'o' ? ARPHRD_LOOPBACK
								      : ARPHRD_ETHER,
		.mark = (uint32_t)ns->mark,
	};

	if (ip_addr_ismulticast(dst))
		pkt.pkttype = PACKET_MULTICAST;
	else if (ns_addr_broadcast(dst))
		pkt.pkttype = PACKET_BROADCAST;
	if (pkt.net == data)
		pkt.net_len = len;
	return sockfilter_run(ns->filter, &pkt, cap);
}
