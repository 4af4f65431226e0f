/*
 * Multicast group membership of the stack's sockets: IP_ADD_MEMBERSHIP
 * and IP_DROP_MEMBERSHIP (struct ip_mreq or ip_mreqn), IPV6_ADD_MEMBERSHIP
 * and IPV6_DROP_MEMBERSHIP (struct ipv6_mreq), with Linux's checks
 * (__ip_mc_join_group, ip_mc_leave_group, ipv6_sock_mc_join): a multicast
 * group or EINVAL, an interface that exists or ENODEV, EADDRINUSE for a
 * group joined twice on one interface, EADDRNOTAVAIL for leaving one not
 * joined, at most 20 groups a socket (igmp_max_memberships: ENOBUFS). The
 * socket keeps its groups and has lwIP join them (IGMP, MLD) on the
 * interface, where that interface does multicast; they are left when the
 * socket closes.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "lib/util.h"

#include <lwip/igmp.h>
#include <lwip/ip.h>
#include <lwip/mld6.h>
#include <lwip/netif.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEMBERSHIPS 20 /* net.ipv4.igmp_max_memberships */

struct mcast_group {
	struct list_head link;
	ip_addr_t group;
	int ifindex;
	bool joined; /* lwIP joined it on the interface */
};

/* The interface a membership names: its index, else (IPv4) the one with
 * the address, else the one the group routes to. */
static struct netif *find_netif(int ifindex, const ip_addr_t *addr, const ip_addr_t *group)
{
	struct netif *n;

	if (ifindex > 0)
		return netif_get_by_index((u8_t)MIN(ifindex, 255));
	if (addr && !ip_addr_isany(addr)) {
		NETIF_FOREACH(n)
		{
			if (ip4_addr_cmp(ip_2_ip4(addr), netif_ip4_addr(n)))
				return n;
		}
		return NULL;
	}
	return ip_route(IP_ADDR_ANY, group);
}

static struct mcast_group *find_group(struct ns_sock *ns, const ip_addr_t *group, int ifindex)
{
	struct mcast_group *g;

	list_for_each_entry(g, &ns->mcast, link) {
		if (ip_addr_cmp(&g->group, group) && (ifindex == 0 || g->ifindex == ifindex))
			return g;
	}
	return NULL;
}

static bool lwip_join(struct netif *n, const ip_addr_t *group, bool join)
{
	if (IP_IS_V4(group))
		return (join ? igmp_joingroup_netif(n, ip_2_ip4(group))
			     : igmp_leavegroup_netif(n, ip_2_ip4(group))) == ERR_OK;
	return (join ? mld6_joingroup_netif(n, ip_2_ip6(group))
		     : mld6_leavegroup_netif(n, ip_2_ip6(group))) == ERR_OK;
}

static void leave(struct ns_sock *ns, struct mcast_group *g)
{
	struct netif *n = g->joined ? netif_get_by_index((u8_t)g->ifindex) : NULL;

	if (n)
		lwip_join(n, &g->group, false);
	list_del(&g->link);
	ns->mcast_count--;
	free(g);
}

/* The option's group, interface index and (IPv4) interface address. */
static int parse(struct ns_sock *ns, int level, const void *val, unsigned len, ip_addr_t *group,
		 int *ifindex, ip_addr_t *addr)
{
	ip_addr_set_zero(addr);
	if (level == IPPROTO_IP) {
		struct ip_mreqn m = {0};
		if (len < sizeof(struct ip_mreq))
			return -EINVAL;
		memcpy(&m, val, MIN(len, (unsigned)sizeof(m))); /* an ip_mreq: index 0 */
		ip_addr_set_ip4_u32_val(*group, m.imr_multiaddr.s_addr);
		ip_addr_set_ip4_u32_val(*addr, m.imr_address.s_addr);
		*ifindex = m.imr_ifindex;
		return 0;
	}
	{
		struct ipv6_mreq m;
		if (ns->family != AF_INET6)
			return -ENOPROTOOPT;
		if (len < sizeof(m))
			return -EINVAL;
		memcpy(&m, val, sizeof(m));
		ip_addr_set_zero_ip6(group);
		memcpy(ip_2_ip6(group)->addr, m.ipv6mr_multiaddr.s6_addr, 16);
		*ifindex = (int)m.ipv6mr_interface;
		return 0;
	}
}

int ns_mcast_membership(struct ns_sock *ns, int level, int name, const void *val, unsigned len)
{
	bool join = name == IP_ADD_MEMBERSHIP || name == IPV6_ADD_MEMBERSHIP;
	ip_addr_t group, addr;
	struct mcast_group *g;
	struct netif *n;
	int ifindex, ret;

	if (ns->sock.type == SOCK_STREAM)
		return level == IPPROTO_IP ? -EPROTO : -EINVAL; /* is_icsk */
	ret = parse(ns, level, val, len, &group, &ifindex, &addr);
	if (ret < 0)
		return ret;
	if (!ip_addr_ismulticast(&group))
		return -EINVAL;
	ns_lock();
	n = find_netif(ifindex, level == IPPROTO_IP ? &addr : NULL, &group);
	if (!join) {
		g = find_group(ns, &group, n ? netif_get_index(n) : ifindex);
		if (g)
			leave(ns, g);
		ret = g ? 0 : -EADDRNOTAVAIL;
	} else if (!n) {
		ret = -ENODEV;
	} else if (find_group(ns, &group, netif_get_index(n))) {
		ret = -EADDRINUSE;
	} else if (ns->mcast_count >= MAX_MEMBERSHIPS) {
		ret = -ENOBUFS;
	} else {
		g = xzalloc(sizeof(*g));
		ip_addr_copy(g->group, group);
		g->ifindex = netif_get_index(n);
		g->joined = lwip_join(n, &group, true);
		list_add_tail(&g->link, &ns->mcast);
		ns->mcast_count++;
	}
	ns_unlock();
	return ret;
}

void ns_mcast_release(struct ns_sock *ns)
{
	while (!list_empty(&ns->mcast))
		leave(ns, list_first_entry(&ns->mcast, struct mcast_group, link));
}
