/*
 * The egress rules a sandbox adds for its own network when it starts
 * (egress.h has their origins and ranks): the nameservers of its
 * resolv.conf on port 53 (egress_dns.c), the subnets of its interfaces and
 * their gateways (egress_local.c). Each logs one info line naming what it
 * allowed.
 */
#ifndef RUNG_NET_EGRESS_OWN_H
#define RUNG_NET_EGRESS_OWN_H

#include <stdbool.h>

struct egress_policy;
struct net_config;
struct resolv_conf;

/* The nameservers of rc, on port 53, unless the policy says dns=deny. */
void egress_dns_rules(struct egress_policy *p, const struct resolv_conf *rc);
/* The subnets of cfg's interfaces (not link-local ones) and their gateways,
 * when the policy wants them (local=); none in the host's own namespace
 * (hosts_netns). */
void egress_local_rules(struct egress_policy *p, const struct net_config *cfg, bool hosts_netns);

#endif
