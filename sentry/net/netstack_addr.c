/*
 * Guest addresses of the user-space stack: sockaddr_in and sockaddr_in6
 * (with v4-mapped addresses on dual-stack sockets) to and from lwIP's
 * ip_addr_t, which addresses are the stack's own, and binding.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "lib/util.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"

#include <lwip/ip.h>
#include <lwip/ip6.h>
#include <lwip/netif.h>
#include <lwip/tcp.h>
#include <lwip/udp.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define SIN6_LEN_RFC2133      24 /* sockaddr_in6 without sin6_scope_id */
#define KCAP_NET_BIND_SERVICE 10

static bool v4mapped(const struct in6_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(a);
}

int ns_addr_in(const struct ns_sock *ns, const void *addr, int len, ip_addr_t *ip, uint16_t *port,
	       bool *unspec)
{
	sa_family_t fam;

	*unspec = false;
	if (len < (int)sizeof(sa_family_t))
		return -EINVAL;
	memcpy(&fam, addr, sizeof(fam));
	if (fam == AF_UNSPEC) {
		*unspec = true;
		/* bind() takes AF_UNSPEC with INADDR_ANY as AF_INET. */
		if (ns->family == AF_INET && len >= (int)sizeof(struct sockaddr_in)) {
			struct sockaddr_in sin;
			memcpy(&sin, addr, sizeof(sin));
			if (sin.sin_addr.s_addr == htonl(INADDR_ANY)) {
				ip_addr_set_any(false, ip);
				*port = ntohs(sin.sin_port);
				return 0;
			}
		}
		return -EAFNOSUPPORT;
	}
	if (ns->family == AF_INET) {
		struct sockaddr_in sin;
		if (len < (int)sizeof(sin))
			return -EINVAL;
		if (fam != AF_INET)
			return -EAFNOSUPPORT;
		memcpy(&sin, addr, sizeof(sin));
		ip_addr_set_ip4_u32_val(*ip, sin.sin_addr.s_addr);
		*port = ntohs(sin.sin_port);
		return 0;
	}
	{
		struct sockaddr_in6 sin6 = {0};
		if (len < SIN6_LEN_RFC2133)
			return -EINVAL;
		if (fam != AF_INET6)
			return -EAFNOSUPPORT;
		memcpy(&sin6, addr, (size_t)MIN(len, (int)sizeof(sin6)));
		*port = ntohs(sin6.sin6_port);
		if (v4mapped(&sin6.sin6_addr)) {
			uint32_t v4;
			if (ns->v6only)
				return -ENETUNREACH;
			memcpy(&v4, &sin6.sin6_addr.s6_addr[12], 4);
			ip_addr_set_ip4_u32_val(*ip, v4);
			return 0;
		}
		if (IN6_IS_ADDR_UNSPECIFIED(&sin6.sin6_addr)) {
			if (ns->v6only)
				ip_addr_set_any(true, ip);
			else
				ip_addr_copy(*ip, *IP_ANY_TYPE);
			return 0;
		}
		IP_ADDR6(ip, 0, 0, 0, 0);
		memcpy(ip_2_ip6(ip)->addr, sin6.sin6_addr.s6_addr, 16);
		ip6_addr_clear_zone(ip_2_ip6(ip));
		if (ip6_addr_islinklocal(ip_2_ip6(ip)) && sin6.sin6_scope_id)
			ip6_addr_set_zone(ip_2_ip6(ip), (u8_t)sin6.sin6_scope_id);
		return 0;
	}
}

int ns_addr_dest(const struct ns_sock *ns, const void *addr, int len, ip_addr_t *ip, uint16_t *port,
		 bool *unspec)
{
	int ret = ns_addr_in(ns, addr, len, ip, port, unspec);

	if (ret == 0 && !*unspec && ip_addr_isany(ip))
		ip_addr_set_loopback(!IP_IS_V4(ip), ip);
	return ret;
}

int ns_msg_dest(const struct ns_sock *ns, const struct sock_msg *m, ip_addr_t *ip, uint16_t *port,
		bool *to_addr)
{
	bool unspec;
	int ret;

	*to_addr = false;
	if (m->namelen <= 0)
		return 0;
	ret = ns_addr_dest(ns, m->name, m->namelen, ip, port, &unspec);
	if (unspec)
		return 0;
	if (ret < 0)
		return ret;
	*to_addr = true;
	return 0;
}

bool ns_route_source(const struct ns_sock *ns, const ip_addr_t *dst, ip_addr_t *src,
		     struct netif **out)
{
	struct netif *n = ip_route(&ns->local_ip, dst);
	const ip_addr_t *s;

	*out = n;
	if (!n)
		return false;
	if (IP_IS_V4(dst)) {
		ip_addr_copy_from_ip4(*src, *netif_ip4_addr(n));
		return true;
	}
	s = ip6_select_source_address(n, ip_2_ip6(dst));
	if (!s)
		return false;
	ip_addr_copy(*src, *s);
	return true;
}

int ns_addr_out(const struct ns_sock *ns, const ip_addr_t *ip, uint16_t port, void *out)
{
	if (ns->family == AF_INET) {
		struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
		if (IP_IS_V4(ip))
			sin.sin_addr.s_addr = ip4_addr_get_u32(ip_2_ip4(ip));
		memcpy(out, &sin, sizeof(sin));
		return (int)sizeof(sin);
	}
	{
		struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
		if (IP_IS_V4(ip) && !ip_addr_isany(ip)) {
			uint32_t v4 = ip4_addr_get_u32(ip_2_ip4(ip));
			sin6.sin6_addr.s6_addr[10] = 0xff;
			sin6.sin6_addr.s6_addr[11] = 0xff;
			memcpy(&sin6.sin6_addr.s6_addr[12], &v4, 4);
		} else if (IP_IS_V6(ip)) {
			memcpy(sin6.sin6_addr.s6_addr, ip_2_ip6(ip)->addr, 16);
			if (ip6_addr_islinklocal(ip_2_ip6(ip)) && ip6_addr_has_zone(ip_2_ip6(ip)))
				sin6.sin6_scope_id = ip6_addr_zone(ip_2_ip6(ip));
		}
		memcpy(out, &sin6, sizeof(sin6));
		return (int)sizeof(sin6);
	}
}

bool ns_addr_local(const ip_addr_t *ip)
{
	struct netif *n;

	if (ip_addr_isany(ip))
		return true;
	if (IP_IS_V4(ip)) {
		if (ip4_addr_isloopback(ip_2_ip4(ip)))
			return true;
		NETIF_FOREACH(n)
		{
			if (ip4_addr_cmp(ip_2_ip4(ip), netif_ip4_addr(n)))
				return true;
		}
		return false;
	}
	NETIF_FOREACH(n)
	{
		for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
			if (ip6_addr_isvalid(netif_ip6_addr_state(n, i)) &&
			    ip6_addr_cmp_zoneless(ip_2_ip6(ip), netif_ip6_addr(n, i)))
				return true;
	}
	return false;
}

uint8_t ns_ip_type(const struct ns_sock *ns)
{
	if (ns->family == AF_INET)
		return IPADDR_TYPE_V4;
	return ns->v6only ? IPADDR_TYPE_V6 : IPADDR_TYPE_ANY;
}

bool ns_port_allowed(uint16_t port)
{
	struct task *t = current_task();
	uint32_t start = t ? t->k->net_sysctl.unprivileged_port_start : 1024;

	return port >= start || ns_capable(KCAP_NET_BIND_SERVICE);
}

/*
 * lwIP refused port on ip only because of the DNS relay's listeners (port
 * 53 of a nameserver's address, with SOF_REUSEADDR, dns_relay.h)? So when
 * no socket of the guest's of the same kind holds the port: the guest may
 * have port 53 on its other addresses, as on Linux, where dockerd's
 * resolver is not on port 53 (the relay's specific address still gets
 * what is sent to it: lwIP prefers a specific local address).
 */
static bool relay_only_conflict(const struct ns_sock *ns, const ip_addr_t *ip, uint16_t port)
{
	struct ns_sock *o;

	if (port != 53 || !ns_relay_active() || ns_relay_has(ip))
		return false;
	list_for_each_entry(o, &ns_all_socks, all_link) {
		if (o != ns && o->bound && o->local_port == port && o->sock.type == ns->sock.type &&
		    o->protocol == ns->protocol)
			return false;
	}
	return true;
}

int ns_bind_locked(struct ns_sock *ns, const ip_addr_t *ip, uint16_t port)
{
	err_t e;

	if (ns->bound)
		return -EINVAL;
	if (!ns_addr_local(ip) && !(ns->sock.type == SOCK_DGRAM && IP_IS_V4(ip) &&
				    (ip4_addr_ismulticast(ip_2_ip4(ip)) || ns_addr_broadcast(ip))))
		return -EADDRNOTAVAIL;
	if (port && !ns_port_allowed(port))
		return -EACCES;
	if (ns->sock.type == SOCK_STREAM) {
		int ret = ns->pcb.tcp ? 0 : ns_tcp_new_pcb(ns);
		if (ret < 0)
			return ret;
		if (ns_tcp_port_conflict(ns, ip, port))
			return -EADDRINUSE;
		e = tcp_bind(ns->pcb.tcp, ip, port);
		if (e == ERR_USE && relay_only_conflict(ns, ip, port)) {
			ip_set_option(ns->pcb.tcp, SOF_REUSEADDR);
			e = tcp_bind(ns->pcb.tcp, ip, port);
			if (!ns->reuseaddr && !ns->reuseport)
				ip_reset_option(ns->pcb.tcp, SOF_REUSEADDR);
		}
		if (e == ERR_OK) {
			ip_addr_copy(ns->local_ip, ns->pcb.tcp->local_ip);
			ns->local_port = ns->pcb.tcp->local_port;
		}
	} else {
		int ret = ns->pcb.udp ? 0 : ns_udp_new_pcb(ns);
		if (ret < 0)
			return ret;
		e = udp_bind(ns->pcb.udp, ip, port);
		if (e == ERR_USE && relay_only_conflict(ns, ip, port)) {
			ip_set_option(ns->pcb.udp, SOF_REUSEADDR);
			e = udp_bind(ns->pcb.udp, ip, port);
			if (!ns->reuseaddr && !ns->reuseport)
				ip_reset_option(ns->pcb.udp, SOF_REUSEADDR);
		}
		if (e == ERR_OK) {
			ip_addr_copy(ns->local_ip, ns->pcb.udp->local_ip);
			ns->local_port = ns->pcb.udp->local_port;
		}
	}
	if (e == ERR_BUF)
		return -EADDRINUSE; /* no free port */
	if (e != ERR_OK)
		return ns_errno(e);
	ns->bound = true;
	return 0;
}

int ns_bind_op(struct socket *s, const void *addr, int len)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t port;
	bool unspec;
	int ret = ns_addr_in(ns, addr, len, &ip, &port, &unspec);

	if (ret == -ENETUNREACH)
		ret = -EINVAL; /* a v4-mapped address on a v6-only socket */
	if (ret < 0)
		return ret;
	ns_lock();
	ret = ns_bind_locked(ns, &ip, port);
	if (ret == 0) { /* inet_bind's SOCK_BINDADDR_LOCK, SOCK_BINDPORT_LOCK */
		ns->bind_addr_lock = !ip_addr_isany(&ip);
		ns->bind_port_lock = port != 0;
	}
	ns_unlock();
	return ret;
}

int ns_getname(struct socket *s, void *addr, bool peer)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t port;

	ns_lock();
	if (peer) {
		/* inet_getname: a peer of port 0 (a datagram socket connected to
		 * port 0, or to the wildcard) is none */
		if (!ns->has_peer || ns->remote_port == 0 ||
		    (ns->sock.type == SOCK_STREAM && ns->state != NS_CONNECTED)) {
			ns_unlock();
			return -ENOTCONN;
		}
		ip_addr_copy(ip, ns->remote_ip);
		port = ns->remote_port;
	} else {
		ip_addr_copy(ip, ns->local_ip);
		port = ns->local_port;
		if (!ns->bound && !ns->bind_addr_lock)
			ip_addr_set_any(ns->family == AF_INET6, &ip);
	}
	ns_unlock();
	return ns_addr_out(ns, &ip, port, addr);
}
