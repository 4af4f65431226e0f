/*
 * The user-space TCP/IP stack of `--network=sandbox` (and of `none`, with
 * only its loopback): lwIP inside the sentry. Each non-loopback interface
 * of the sandbox's network namespace is attached through an AF_PACKET
 * socket bound to it; the stack answers for the interface's addresses
 * (the host kernel's copies are removed, so it never answers for them,
 * and given back at the end: keeper.h),
 * and the loopback lives inside the stack. The guest's AF_INET and
 * AF_INET6 sockets are struct socket objects (socket.h) over it.
 */
#ifndef RUNG_NET_NETSTACK_H
#define RUNG_NET_NETSTACK_H

#include <stdbool.h>

struct dns_relay;
struct kernel;
struct net_config;
struct rung_error;
struct socket;

/* Start the stack for k with cfg's interfaces (the loopback always;
 * the others only when attach is set) and the DNS relay (dns_relay.h;
 * NULL: none; the stack owns it from here on, whatever the outcome).
 * Called before the sentry is confined: it opens what it needs on the
 * host. */
int netstack_start(struct kernel *k, const struct net_config *cfg, bool attach,
		   struct dns_relay *relay, struct rung_error *err);
/* A new guest socket (type without SOCK_NONBLOCK/SOCK_CLOEXEC). -errno:
 * EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT as Linux. */
int netstack_socket_create(struct kernel *k, int family, int type, int protocol,
			   struct socket **out);
/* Stop the stack and release everything it holds on the host. */
void netstack_stop(struct kernel *k);

#endif
