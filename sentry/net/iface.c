/*
 * The network configuration of the current namespace, read over rtnetlink
 * (RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE dumps) before the sentry is
 * confined; and the loopback-only configuration.
 */
#include "config.h"
#include "sentry/net/iface.h"
#include "sentry/net/rtnl.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct net_iface *iface_by_index(struct net_config *c, int index)
{
	for (size_t i = 0; i < c->nifs; i++)
		if (c->ifs[i].index == index)
			return &c->ifs[i];
	return NULL;
}

static void on_link(void *arg, const struct nlmsghdr *h)
{
	struct net_config *c = arg;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	struct net_iface *nif;

	if (h->nlmsg_type != RTM_NEWLINK || len < 0)
		return;
	c->ifs = xrealloc(c->ifs, (c->nifs + 1) * sizeof(*c->ifs));
	nif = &c->ifs[c->nifs++];
	memset(nif, 0, sizeof(*nif));
	nif->index = ifi->ifi_index;
	nif->flags = ifi->ifi_flags;
	nif->loopback = ifi->ifi_type == ARPHRD_LOOPBACK || (ifi->ifi_flags & IFF_LOOPBACK);
	for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t n = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case IFLA_IFNAME:
			memcpy(nif->name, RTA_DATA(a), MIN(n, sizeof(nif->name) - 1));
			break;
		case IFLA_MTU:
			if (n >= 4)
				memcpy(&nif->mtu, RTA_DATA(a), 4);
			break;
		case IFLA_ADDRESS:
			if (n == 6 && !nif->loopback)
				memcpy(nif->mac, RTA_DATA(a), 6);
			break;
		}
	}
}

static void on_addr(void *arg, const struct nlmsghdr *h)
{
	struct net_config *c = arg;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifa));
	const void *local = NULL, *address = NULL;
	size_t alen = ifa->ifa_family == AF_INET ? 4 : 16;
	struct net_iface *nif;
	struct net_iface_addr *a;

	if (h->nlmsg_type != RTM_NEWADDR || len < 0 ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return;
	nif = iface_by_index(c, (int)ifa->ifa_index);
	if (!nif || nif->naddrs == NET_IFACE_MAX_ADDRS)
		return;
	for (const struct rtattr *r = IFA_RTA(ifa); RTA_OK(r, len); r = RTA_NEXT(r, len)) {
		if (RTA_PAYLOAD(r) < alen)
			continue;
		if (r->rta_type == IFA_LOCAL)
			local = RTA_DATA(r);
		else if (r->rta_type == IFA_ADDRESS)
			address = RTA_DATA(r);
	}
	/* IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer's
	 * on point-to-point links). */
	if (!local)
		local = address;
	if (!local)
		return;
	a = &nif->addrs[nif->naddrs++];
	memset(a, 0, sizeof(*a));
	a->family = ifa->ifa_family;
	memcpy(a->addr, local, alen);
	a->prefixlen = ifa->ifa_prefixlen;
}

static void on_route(void *arg, const struct nlmsghdr *h)
{
	struct net_config *c = arg;
	const struct rtmsg *rtm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	size_t alen = rtm->rtm_family == AF_INET ? 4 : 16;
	struct net_route r = {.family = rtm->rtm_family, .dst_len = rtm->rtm_dst_len};
	unsigned table = rtm->rtm_table;

	if (h->nlmsg_type != RTM_NEWROUTE || len < 0 ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST)
		return;
	for (const struct rtattr *a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t n = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case RTA_DST:
			if (n >= alen)
				memcpy(r.dst, RTA_DATA(a), alen);
			break;
		case RTA_GATEWAY:
			if (n >= alen) {
				memcpy(r.gw, RTA_DATA(a), alen);
				r.has_gw = true;
			}
			break;
		case RTA_OIF:
			if (n >= 4)
				memcpy(&r.ifindex, RTA_DATA(a), 4);
			break;
		case RTA_PRIORITY:
			if (n >= 4)
				memcpy(&r.metric, RTA_DATA(a), 4);
			break;
		case RTA_TABLE:
			if (n >= 4)
				memcpy(&table, RTA_DATA(a), 4);
			break;
		}
	}
	if (table != RT_TABLE_MAIN)
		return;
	c->routes = xrealloc(c->routes, (c->nroutes + 1) * sizeof(*c->routes));
	c->routes[c->nroutes++] = r;
}

int net_config_read(struct net_config *out, struct rung_error *err)
{
	int fd = rtnl_open();
	int ret;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return rung_error_make(err, -fd, "open a route netlink socket");
	ret = rtnl_dump(fd, RTM_GETLINK, AF_UNSPEC, on_link, out);
	if (ret == 0)
		ret = rtnl_dump(fd, RTM_GETADDR, AF_UNSPEC, on_addr, out);
	if (ret == 0)
		ret = rtnl_dump(fd, RTM_GETROUTE, AF_UNSPEC, on_route, out);
	close(fd);
	if (ret < 0) {
		net_config_free(out);
		return rung_error_make(err, -ret, "read the network namespace's configuration");
	}
	return 0;
}

void net_config_loopback(struct net_config *out)
{
	struct net_iface *lo = xzalloc(sizeof(*lo));
	static const uint8_t v6_lo[16] = {[15] = 1};

	memset(out, 0, sizeof(*out));
	lo->index = 1;
	strcpy(lo->name, "lo");
	lo->flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP;
	lo->mtu = 65536;
	lo->loopback = true;
	lo->naddrs = 2;
	lo->addrs[0].family = AF_INET;
	lo->addrs[0].addr[0] = 127;
	lo->addrs[0].addr[3] = 1;
	lo->addrs[0].prefixlen = 8;
	lo->addrs[1].family = AF_INET6;
	memcpy(lo->addrs[1].addr, v6_lo, 16);
	lo->addrs[1].prefixlen = 128;
	out->ifs = lo;
	out->nifs = 1;
}

void net_config_free(struct net_config *c)
{
	free(c->ifs);
	free(c->routes);
	memset(c, 0, sizeof(*c));
}

bool net_iface_takeable(const struct net_iface *ifc)
{
	static const uint8_t zero[6];

	return !ifc->loopback && memcmp(ifc->mac, zero, sizeof(zero)) != 0;
}
