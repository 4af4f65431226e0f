/*
 * Attaching the user-space stack to the sandbox's interfaces (lwip_link.h).
 *
 * Each Ethernet interface of the network namespace gets an AF_PACKET
 * SOCK_RAW socket bound to it (ETH_P_ALL) with a virtio-net header in
 * front of every frame (PACKET_VNET_HDR): frames that a veth peer sent
 * with their checksum left to the hardware say so there, and the reader
 * completes the checksum before lwIP checks it. Frames the stack sends go
 * out with an empty header (no offload asked for).
 *
 * The reader passes only what the host would have accepted for the
 * interface: IPv4 to its address, broadcast or multicast; IPv6 to one of
 * its addresses or multicast; ARP. lwIP's Debian build forwards between
 * its netifs (IP_FORWARD) and lets the loopback's addresses be reached
 * from any netif (LWIP_HAVE_LOOPIF=0): both are closed here.
 *
 * The sentry's seccomp filter needs nothing more for this: the readers
 * use poll and read, the output writev, on descriptors opened here.
 */
#include "config.h"
#include "sentry/net/lwip_link.h"
#include "sentry/net/iface.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/rtnl.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <lwip/etharp.h>
#include <lwip/ethip6.h>
#include <lwip/netif.h>
#include <lwip/tcpip.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif
#define FRAME_MAX (sizeof(struct virtio_net_hdr) + 65535)
#define RCVBUF	  (4 << 20)

struct link {
	struct net_iface iface;
	int fd;
	int stopfd; /* the read end of the readers' stop pipe */
	bool vnet;  /* frames carry a virtio_net_hdr */
	bool has_gw;
	ip4_addr_t gw;
	struct netif netif;
	bool netif_added;
	pthread_t reader;
	bool reader_started;
};

struct lwip_links {
	struct link *links;
	size_t n;
	int stop[2]; /* the readers' stop pipe */
};

/* --- removing the host's addresses ---------------------------------------------- */

/* RTM_DELADDR of one address of an interface. */
static int del_addr(int nl, const struct net_iface *ifc, const struct net_iface_addr *a)
{
	union {
		struct nlmsghdr nh;
		char buf[NLMSG_SPACE(sizeof(struct ifaddrmsg)) + 2 * RTA_SPACE(16)];
	} req;
	struct ifaddrmsg *ifa = NLMSG_DATA(&req.nh);
	size_t alen = a->family == AF_INET ? 4 : 16;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_DELADDR;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(*ifa));
	ifa->ifa_family = (unsigned char)a->family;
	ifa->ifa_prefixlen = (unsigned char)a->prefixlen;
	ifa->ifa_index = (unsigned)ifc->index;
	rtnl_attr(&req.nh, IFA_LOCAL, a->addr, alen);
	rtnl_attr(&req.nh, IFA_ADDRESS, a->addr, alen);
	return rtnl_call(nl, &req.nh, EADDRNOTAVAIL);
}

/* The keeper (keeper.h), started before, gives them back when the
 * sandbox ends: the confined sentry could not (rtnetlink wants
 * CAP_NET_ADMIN of the caller). */
static int del_addrs(int nl, const struct link *l, struct rung_error *err)
{
	for (int i = 0; i < l->iface.naddrs; i++) {
		int ret = del_addr(nl, &l->iface, &l->iface.addrs[i]);
		if (ret < 0)
			return rung_error_make(err, -ret, "remove the host's address %d of %s", i,
					       l->iface.name);
	}
	return 0;
}

/* --- opening ---------------------------------------------------------------------- */

static int open_link(struct link *l, struct rung_error *err)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = l->iface.index,
	};
	int one = 1, rcvbuf = RCVBUF;

	l->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (l->fd < 0)
		return rung_error_make(err, errno, "AF_PACKET socket for %s", l->iface.name);
	l->vnet = setsockopt(l->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) == 0;
	/* Not our own frames back (Linux 4.20). */
	(void)setsockopt(l->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		(void)setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(l->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return rung_error_make(err, errno, "bind an AF_PACKET socket to %s", l->iface.name);
	return 0;
}

int lwip_links_open(const struct net_config *cfg, struct lwip_links **out, struct rung_error *err)
{
	struct lwip_links *ls = xzalloc(sizeof(*ls));
	int nl;

	ls->links = xzalloc((cfg->nifs + 1) * sizeof(*ls->links));
	ls->stop[0] = ls->stop[1] = -1;
	nl = rtnl_open();
	if (nl < 0) {
		rung_error_make(err, -nl, "netlink socket");
		goto fail;
	}
	for (size_t i = 0; i < cfg->nifs; i++) {
		const struct net_iface *ifc = &cfg->ifs[i];
		struct link *l;
		if (!net_iface_takeable(ifc))
			continue; /* the stack's own loopback; no Ethernet, no frames */
		l = &ls->links[ls->n++];
		l->iface = *ifc;
		l->fd = -1;
		for (size_t r = 0; r < cfg->nroutes; r++) {
			const struct net_route *rt = &cfg->routes[r];
			if (rt->ifindex == ifc->index && rt->has_gw && rt->family == AF_INET &&
			    rt->dst_len == 0 && !l->has_gw) {
				l->has_gw = true;
				memcpy(&l->gw.addr, rt->gw, 4);
			}
		}
		if (open_link(l, err) < 0 || del_addrs(nl, l, err) < 0)
			goto fail;
	}
	close(nl);
	nl = -1;
	if (pipe2(ls->stop, O_CLOEXEC) < 0) {
		rung_error_make(err, errno, "pipe");
		goto fail;
	}
	*out = ls;
	return 0;
fail:
	if (nl >= 0)
		close(nl);
	lwip_links_close(ls, false);
	return -1;
}

/* --- frames in and out -------------------------------------------------------------- */

static err_t link_output(struct netif *n, struct pbuf *p)
{
	struct link *l = n->state;
	struct virtio_net_hdr vh = {0};
	struct iovec iov[16];
	void *flat = NULL;
	int cnt = 0;
	ssize_t w;

	if (l->vnet)
		iov[cnt++] = (struct iovec){&vh, sizeof(vh)};
	if (pbuf_clen(p) < ARRAY_SIZE(iov)) {
		for (struct pbuf *q = p; q; q = q->next)
			iov[cnt++] = (struct iovec){q->payload, q->len};
	} else {
		/* A long chain: one piece. */
		flat = xmalloc(p->tot_len);
		pbuf_copy_partial(p, flat, p->tot_len, 0);
		iov[cnt++] = (struct iovec){flat, p->tot_len};
	}
	w = writev(l->fd, iov, cnt);
	free(flat);
	return w < 0 ? ERR_IF : ERR_OK;
}

static err_t link_init(struct netif *n)
{
	struct link *l = n->state;

	n->name[0] = 'e';
	n->name[1] = 'n';
	n->output = etharp_output;
	n->output_ip6 = ethip6_output;
	n->linkoutput = link_output;
	n->mtu = (u16_t)MIN(l->iface.mtu ? l->iface.mtu : 1500, 65535u);
	n->hwaddr_len = 6;
	memcpy(n->hwaddr, l->iface.mac, 6);
	n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET |
		   NETIF_FLAG_IGMP | NETIF_FLAG_MLD6;
	return ERR_OK;
}

/* Complete a checksum the sender left to the hardware (the field holds the
 * pseudo-header's sum): the one's complement of the sum from start on. */
static void finish_csum(uint8_t *pkt, size_t len, size_t start, size_t off)
{
	uint32_t sum = 0;
	uint16_t c;

	if (start >= len || start + off + 2 > len)
		return;
	for (size_t i = start; i + 1 < len; i += 2)
		sum += (uint32_t)(pkt[i] << 8 | pkt[i + 1]);
	if ((len - start) & 1)
		sum += (uint32_t)pkt[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	c = (uint16_t)~sum;
	if (c == 0)
		c = 0xffff;
	pkt[start + off] = (uint8_t)(c >> 8);
	pkt[start + off + 1] = (uint8_t)c;
}

/* Would the host take this frame for the interface? (see the top) */
static bool frame_ok(const struct netif *n, const uint8_t *f, size_t len)
{
	uint16_t type;

	if (len < 14)
		return false;
	type = (uint16_t)(f[12] << 8 | f[13]);
	f += 14;
	len -= 14;
	if (type == ETH_P_ARP)
		return true;
	if (type == ETH_P_IP) {
		ip4_addr_t src, dst;
		if (len < 20)
			return false;
		memcpy(&src.addr, f + 12, 4);
		memcpy(&dst.addr, f + 16, 4);
		if (ip4_addr_isloopback(&src) || ip4_addr_isloopback(&dst))
			return false;
		return ip4_addr_cmp(&dst, netif_ip4_addr(n)) || ip4_addr_ismulticast(&dst) ||
		       ip4_addr_isbroadcast(&dst, n);
	}
	if (type == ETH_P_IPV6) {
		ip6_addr_t src, dst;
		if (len < 40)
			return false;
		ip6_addr_set_zero(&src);
		ip6_addr_set_zero(&dst);
		memcpy(src.addr, f + 8, 16);
		memcpy(dst.addr, f + 24, 16);
		if (ip6_addr_isloopback(&src) || ip6_addr_isloopback(&dst))
			return false;
		if (ip6_addr_ismulticast(&dst))
			return true;
		for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
			if (!ip6_addr_isinvalid(netif_ip6_addr_state(n, i)) &&
			    ip6_addr_cmp_zoneless(&dst, netif_ip6_addr(n, i)))
				return true;
		return false;
	}
	return false;
}

static void *reader_main(void *arg)
{
	struct link *l = arg;
	uint8_t *buf = xmalloc(FRAME_MAX);
	for (;;) {
		struct pollfd pf[2] = {{l->fd, POLLIN, 0}, {l->stopfd, POLLIN, 0}};
		size_t hl = l->vnet ? sizeof(struct virtio_net_hdr) : 0;
		struct virtio_net_hdr vh;
		uint8_t *f = buf + hl;
		struct pbuf *p;
		ssize_t n;
		size_t len;

		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		if (!(pf[0].revents & POLLIN))
			continue;
		n = read(l->fd, buf, FRAME_MAX);
		if (n < 0 || (size_t)n < hl + 14)
			continue;
		len = (size_t)n - hl;
		if (l->vnet) {
			memcpy(&vh, buf, sizeof(vh));
			if (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
				finish_csum(f, len, vh.csum_start, vh.csum_offset);
		}
		ns_lock();
		bool ok = frame_ok(&l->netif, f, len);
		ns_unlock();
		if (!ok || len > 0xffff)
			continue;
		p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM);
		if (!p)
			continue;
		memcpy(p->payload, f, len);
		if (l->netif.input(p, &l->netif) != ERR_OK)
			pbuf_free(p);
	}
	free(buf);
	return NULL;
}

/* --- running and stopping ---------------------------------------------------------- */

static void add_netif(struct link *l)
{
	ip4_addr_t a = {0}, m = {0}, gw = {0};
	bool v4 = false;

	for (int i = 0; i < l->iface.naddrs; i++) {
		const struct net_iface_addr *ad = &l->iface.addrs[i];
		if (ad->family == AF_INET && !v4) {
			memcpy(&a.addr, ad->addr, 4);
			m.addr = ad->prefixlen ? htonl(~0u << (32 - ad->prefixlen)) : 0;
			v4 = true;
		}
	}
	if (l->has_gw)
		gw = l->gw;
	netif_add(&l->netif, &a, &m, &gw, l, link_init, tcpip_input);
	for (int i = 0; i < l->iface.naddrs; i++) {
		const struct net_iface_addr *ad = &l->iface.addrs[i];
		ip6_addr_t a6;
		s8_t idx;
		if (ad->family != AF_INET6)
			continue;
		ip6_addr_set_zero(&a6);
		memcpy(a6.addr, ad->addr, 16);
		if (ip6_addr_islinklocal(&a6))
			ip6_addr_assign_zone(&a6, IP6_UNICAST, &l->netif);
		if (netif_add_ip6_address(&l->netif, &a6, &idx) == ERR_OK)
			netif_ip6_addr_set_state(&l->netif, idx, IP6_ADDR_PREFERRED);
	}
	netif_set_link_up(&l->netif);
	netif_set_up(&l->netif);
	if (l->has_gw)
		netif_set_default(&l->netif);
	l->netif_added = true;
}

void lwip_links_run(struct lwip_links *ls)
{
	for (size_t i = 0; i < ls->n; i++) {
		struct link *l = &ls->links[i];
		pthread_attr_t attr;
		ns_lock();
		add_netif(l);
		ns_unlock();
		l->stopfd = ls->stop[0];
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		l->reader_started = pthread_create(&l->reader, &attr, reader_main, l) == 0;
		pthread_attr_destroy(&attr);
		if (!l->reader_started)
			log_warning("netstack: no reader for %s", l->iface.name);
		log_debug("netstack: %s attached (ifindex %d, mtu %u)", l->iface.name,
			  l->iface.index, l->netif.mtu);
	}
}

void lwip_links_close(struct lwip_links *ls, bool running)
{
	if (!ls)
		return;
	if (ls->stop[1] >= 0 && write(ls->stop[1], "x", 1) < 0)
		log_debug("netstack: stop pipe: %s", strerror(errno));
	for (size_t i = 0; i < ls->n; i++) {
		struct link *l = &ls->links[i];
		if (l->reader_started)
			pthread_join(l->reader, NULL);
		if (running && l->netif_added) {
			ns_lock();
			netif_remove(&l->netif);
			ns_unlock();
		}
		if (l->fd >= 0)
			close(l->fd);
	}
	if (ls->stop[0] >= 0)
		close(ls->stop[0]);
	if (ls->stop[1] >= 0)
		close(ls->stop[1]);
	free(ls->links);
	free(ls);
}

int lwip_link_ifindex(const struct netif *n)
{
	if (n->linkoutput != link_output)
		return 0;
	return ((const struct link *)n->state)->iface.index;
}

const char *lwip_link_name(const struct netif *n)
{
	if (n->linkoutput != link_output)
		return NULL;
	return ((const struct link *)n->state)->iface.name;
}
