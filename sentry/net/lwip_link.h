/*
 * The interfaces the user-space stack takes over (netstack.h's attach):
 * one AF_PACKET socket per interface, bound to it, opened before the
 * sentry is confined; the host kernel's addresses on it are removed then,
 * so that it never answers (RST, ICMP) for what the stack owns (the
 * keeper, keeper.h, gives them back at the end). Once lwIP runs, each gets
 * an lwIP netif and a reader thread.
 */
#ifndef RUNG_NET_LWIP_LINK_H
#define RUNG_NET_LWIP_LINK_H

#include <stdbool.h>

struct lwip_links;
struct net_config;
struct rung_error;

struct netif;

int lwip_links_open(const struct net_config *cfg, struct lwip_links **out, struct rung_error *err);
/* The netifs and the readers (lwIP's thread runs; core lock not held). */
void lwip_links_run(struct lwip_links *l);
/* Stop the readers, take the netifs down (running: lwIP runs), close. */
void lwip_links_close(struct lwip_links *l, bool running);
/* The host's ifindex of an attached interface's netif; 0 for another netif. */
int lwip_link_ifindex(const struct netif *n);
/* Its name as the guest knows it, or NULL for a netif not ours. */
const char *lwip_link_name(const struct netif *n);

#endif
