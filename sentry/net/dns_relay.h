/*
 * The relay to a nameserver on the network namespace's loopback, for the
 * user-space stack (`--network sandbox`), whose loopback is its own.
 *
 * Docker's user-defined networks put `nameserver 127.0.0.11` in a
 * container's resolv.conf: dockerd's resolver listens on the *namespace's*
 * loopback (an iptables rule sends port 53 there). A guest of the
 * user-space stack would reach its own loopback instead, where nothing
 * answers. So, for each IPv4 loopback nameserver of the guest's
 * resolv.conf but 127.0.0.1 (the guest's own: a resolver the guest runs),
 * the sentry opens, before it confines itself, one host UDP socket in the
 * namespace connected to that address's port 53; the stack gets the
 * address on an interface of its own (invisible to the guest) and serves
 * UDP and TCP port 53 there: each DNS message a guest sends there goes out
 * through that socket (its ID replaced by one of the relay's, so that the
 * answer finds its way back), and each answer comes back to the guest as
 * from ADDR:53. A message over TCP is relayed as a datagram (the answer is
 * what the nameserver gives over UDP). Nothing else reaches the host: only
 * that address and port, only DNS-sized messages, at most RELAY_PENDING of
 * them waiting for an answer and RELAY_TCP_CONNS connections at once; the
 * sentry's seccomp filter is unchanged (poll, read, write on a descriptor
 * it opened before confinement).
 *
 * The guest may still bind port 53 on its other addresses (a resolver of
 * its own on 0.0.0.0:53), as on Linux, where dockerd's listener is not on
 * port 53 either.
 */
#ifndef RUNG_NET_DNS_RELAY_H
#define RUNG_NET_DNS_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include <lwip/ip_addr.h>

struct resolv_conf;
struct rung_error;
struct dns_relay;

#define RELAY_PENDING	64
#define RELAY_TCP_CONNS 16

/* Before the sentry is confined: a relay for each loopback nameserver of
 * rc (see above), its host socket connected to the address's port
 * upstream_port (53; tests use another). *out is NULL when rc has none. */
int dns_relay_open(const struct resolv_conf *rc, uint16_t upstream_port, struct dns_relay **out,
		   struct rung_error *err);
/* The stack's thread is up (core lock held): the relay's interfaces and
 * listeners. */
void dns_relay_attach(struct dns_relay *r);
/* After dns_relay_attach, the core lock not held: the answers' reader. */
void dns_relay_run(struct dns_relay *r);
/* Is ip one of r's relayed addresses (core lock held)? */
bool dns_relay_has(const struct dns_relay *r, const ip_addr_t *ip);
/* Stop the reader, remove what the stack holds (running: lwIP's thread is
 * up), close the host sockets, free r. */
void dns_relay_close(struct dns_relay *r, bool running);

#endif
