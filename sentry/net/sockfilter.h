/*
 * Socket filters (SO_ATTACH_FILTER): a guest's classic-BPF program that
 * decides, for each packet a socket receives, how much of it to keep (0:
 * drop it), as Linux's sk_filter_trim_cap runs it. The program sees the
 * packet from the header its socket kind starts at (UDP: the UDP header;
 * raw IPv4: the IP header), the network header at SKF_NET_OFF, and the
 * ancillary words at SKF_AD_OFF (protocol, packet type, interface...).
 */
#ifndef RUNG_SOCKFILTER_H
#define RUNG_SOCKFILTER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

struct task;

struct sockfilter {
	uint16_t len;
	struct sock_filter insns[];
};

/* A packet as a filter sees it. */
struct sockfilter_pkt {
	const unsigned char *data; /* from the socket kind's header */
	size_t len;
	const unsigned char *net; /* from the network header, or NULL */
	size_t net_len;
	const unsigned char *ll; /* from the link header, or NULL */
	size_t ll_len;
	uint16_t protocol; /* ETH_P_IP, ETH_P_IPV6 (host order) */
	uint32_t pkttype, ifindex, hatype, mark;
};

/* SO_ATTACH_FILTER's struct sock_fprog at val (copied in; its program is
 * read from t's memory), checked as Linux's sk_attach_filter: 0 and a new
 * filter in *out, or -errno. */
int sockfilter_new(struct task *t, const void *val, unsigned len, struct sockfilter **out);
void sockfilter_free(struct sockfilter *f);

/* How many bytes of the packet to keep: 0 drops it; never less than cap
 * (the header the socket needs) nor more than the packet. */
size_t sockfilter_run(const struct sockfilter *f, const struct sockfilter_pkt *pkt, size_t cap);

#endif
