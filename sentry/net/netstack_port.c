/*
 * Which TCP sockets may share a local port: Linux's rules
 * (inet_csk_bind_conflict), checked before lwIP's own, which are looser
 * in two ways: lwIP lets two sockets with SOF_REUSEADDR share a port even
 * when one listens, and lets a socket with it take a port from any
 * connection in TIME_WAIT. lwIP's check still runs after this one; where
 * Linux allows sharing, it does too (SOF_REUSEADDR stands for either of
 * SO_REUSEADDR and SO_REUSEPORT, netstack_opt.c).
 *
 * Every pcb of lwIP's lists is looked at, also those of closed sockets
 * (closing, or in TIME_WAIT), which still hold their port as on Linux.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"

#include <lwip/tcp.h>
#include <lwip/priv/tcp_priv.h>

#include <sys/socket.h>

#define DNS_PORT 53

/* Which addresses a pcb bound to ip receives on: IPv4 (all of them, or
 * one), IPv6 (all, or one); a dual-stack wildcard takes both. */
static bool takes_v4(const ip_addr_t *ip)
{
	return IP_IS_V4_VAL(*ip) || IP_IS_ANY_TYPE_VAL(*ip);
}

static bool takes_v6(const ip_addr_t *ip)
{
	return IP_IS_V6_VAL(*ip) || IP_IS_ANY_TYPE_VAL(*ip);
}

/* Would sockets bound to a and b receive for one same address (Linux's
 * inet_rcv_saddr_equal, a wildcard matching everything of its family)? */
static bool addrs_overlap(const ip_addr_t *a, const ip_addr_t *b)
{
	if (takes_v4(a) && takes_v4(b)) {
		if (IP_IS_ANY_TYPE_VAL(*a) || IP_IS_ANY_TYPE_VAL(*b) ||
		    ip4_addr_isany(ip_2_ip4(a)) || ip4_addr_isany(ip_2_ip4(b)) ||
		    ip4_addr_cmp(ip_2_ip4(a), ip_2_ip4(b)))
			return true;
	}
	if (takes_v6(a) && takes_v6(b)) {
		if (IP_IS_ANY_TYPE_VAL(*a) || IP_IS_ANY_TYPE_VAL(*b) ||
		    ip6_addr_isany(ip_2_ip6(a)) || ip6_addr_isany(ip_2_ip6(b)) ||
		    ip6_addr_cmp_zoneless(ip_2_ip6(a), ip_2_ip6(b)))
			return true;
	}
	return false;
}

/* The guest's socket that pcb belongs to, or NULL: the socket is closed,
 * or pcb is the DNS relay's. */
static const struct ns_sock *owner_of(const struct tcp_pcb *pcb)
{
	struct ns_sock *o;

	list_for_each_entry(o, &ns_all_socks, all_link) {
		if (o->sock.type == SOCK_STREAM && o->pcb.tcp == pcb)
			return o;
	}
	return NULL;
}

/* Does holder (a pcb on port) keep a socket with reuse/reuseport from
 * binding ip? */
static bool conflicts(const struct tcp_pcb *holder, const ip_addr_t *ip, bool reuse, bool reuseport)
{
	const struct ns_sock *o;
	bool reuse2, reuseport2;

	/* The DNS relay's port 53 is sorted out by ns_bind_locked. */
	if (holder->local_port == DNS_PORT && ns_relay_has(&holder->local_ip))
		return false;
	if (!addrs_overlap(ip, &holder->local_ip))
		return false;
	o = owner_of(holder);
	if (o) {
		reuse2 = o->reuseaddr;
		reuseport2 = o->reuseport;
	} else {
		/* A closed socket's pcb: which of the two it had is not kept. */
		reuse2 = reuseport2 = ip_get_option(holder, SOF_REUSEADDR);
	}
	if (reuse && reuse2 && holder->state != LISTEN)
		return false;
	/* Linux also wants the same owner uid unless holder is in
	 * TIME_WAIT: every guest socket counts as the sandbox's. */
	return !(reuseport && reuseport2);
}

bool ns_tcp_port_conflict(const struct ns_sock *ns, const ip_addr_t *ip, uint16_t port)
{
	if (!port)
		return false;
	for (int i = 0; i < NUM_TCP_PCB_LISTS; i++) {
		for (struct tcp_pcb *p = *tcp_pcb_lists[i]; p; p = p->next) {
			if (p != ns->pcb.tcp && p->local_port == port &&
			    conflicts(p, ip, ns->reuseaddr, ns->reuseport))
				return true;
		}
	}
	return false;
}
