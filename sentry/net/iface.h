/*
 * The network configuration a sandbox starts with: the interfaces,
 * addresses and routes of the network namespace it was given, read once
 * at start (before the sentry is confined) over rtnetlink. Both network
 * modes serve it to the guest (AF_NETLINK route dumps, SIOCGIF* ioctls,
 * /proc/net); in `sandbox` mode the user-space stack (netstack.h) takes
 * the interfaces over with these addresses, in `none` mode only the
 * loopback is kept.
 */
#ifndef RUNG_NET_IFACE_H
#define RUNG_NET_IFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;

#define NET_IFACE_MAX_ADDRS 8

struct net_iface_addr {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network byte order; 4 bytes used for AF_INET */
	int prefixlen;
};

struct net_iface {
	int index;	/* the host's ifindex (the guest sees the same) */
	char name[16];	/* IFNAMSIZ */
	unsigned flags; /* IFF_* as the host reported them */
	unsigned mtu;
	uint8_t mac[6]; /* zero for the loopback */
	bool loopback;
	int naddrs;
	struct net_iface_addr addrs[NET_IFACE_MAX_ADDRS];
};

struct net_route {
	int family;	 /* AF_INET or AF_INET6 */
	uint8_t dst[16]; /* network byte order */
	int dst_len;	 /* prefix length; 0 with a gateway: the default route */
	bool has_gw;
	uint8_t gw[16];
	int ifindex;
	unsigned metric;
};

struct net_config {
	struct net_iface *ifs;
	size_t nifs;
	struct net_route *routes;
	size_t nroutes;
};

/* Read the current network namespace's links, addresses and routes (main
 * table, unicast). */
int net_config_read(struct net_config *out, struct rung_error *err);
/* The configuration of a namespace with only a loopback (lo, 127.0.0.1/8,
 * ::1/128): `none` mode, and the base of a fresh namespace. */
void net_config_loopback(struct net_config *out);
void net_config_free(struct net_config *c);
/* Does the user-space stack take ifc over in `sandbox` mode (an Ethernet
 * interface: not the loopback, a MAC address)? */
bool net_iface_takeable(const struct net_iface *ifc);

#endif
