/*
 * The user-space stack's sockets as Linux lists them in /proc/net/tcp and
 * friends (netstat and ss -a read them): addresses as raw 32-bit words in
 * hex, ports in hex, Linux's TCP state numbers, the queues, the owner's
 * uid and the socket's inode. A v4 connection of a dual-stack AF_INET6
 * socket is listed in tcp6 with its v4-mapped addresses, as Linux does.
 */
#include "config.h"
#include "sentry/net/netstack_proc.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/fs/file.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"

#include <lwip/ip6_frag.h>
#include <lwip/opt.h>
#include <lwip/tcp.h>

#include <netinet/in.h>
#include <string.h>

/* Linux's numbers (include/net/tcp_states.h). */
enum {
	L_ESTABLISHED = 1,
	L_SYN_SENT,
	L_SYN_RECV,
	L_FIN_WAIT1,
	L_FIN_WAIT2,
	L_TIME_WAIT,
	L_CLOSE,
	L_CLOSE_WAIT,
	L_LAST_ACK,
	L_LISTEN,
	L_CLOSING
};

int ns_linux_state(const struct ns_sock *ns)
{
	static const int of_lwip[] = {
		[CLOSED] = L_CLOSE,
		[LISTEN] = L_LISTEN,
		[SYN_SENT] = L_SYN_SENT,
		[SYN_RCVD] = L_SYN_RECV,
		[ESTABLISHED] = L_ESTABLISHED,
		[FIN_WAIT_1] = L_FIN_WAIT1,
		[FIN_WAIT_2] = L_FIN_WAIT2,
		[CLOSE_WAIT] = L_CLOSE_WAIT,
		[CLOSING] = L_CLOSING,
		[LAST_ACK] = L_LAST_ACK,
		[TIME_WAIT] = L_TIME_WAIT,
	};

	if (ns->sock.type != SOCK_STREAM)
		return ns->has_peer ? L_ESTABLISHED : L_CLOSE;
	if (ns->state == NS_LISTEN)
		return L_LISTEN;
	if (!ns->pcb.tcp || (unsigned)ns->pcb.tcp->state >= sizeof(of_lwip) / sizeof(of_lwip[0]))
		return L_CLOSE;
	return of_lwip[ns->pcb.tcp->state];
}

/* "ADDR:PORT" of ip in the socket's family's form. */
static void put_addr(struct strbuf *o, int family, const ip_addr_t *ip, uint16_t port)
{
	uint32_t w[4] = {0};

	if (family == AF_INET) {
		if (IP_IS_V4(ip))
			w[0] = ip4_addr_get_u32(ip_2_ip4(ip));
		strbuf_printf(o, "%08X:%04X", w[0], port);
		return;
	}
	if (IP_IS_V6(ip)) {
		memcpy(w, ip_2_ip6(ip)->addr, 16);
	} else if (!ip_addr_isany(ip)) {
		w[2] = htonl(0xffff);
		w[3] = ip4_addr_get_u32(ip_2_ip4(ip));
	}
	strbuf_printf(o, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3], port);
}

void netstack_proc(struct kernel *k, int family, int type, struct strbuf *o)
{
	struct ns_sock *ns;
	int sl = 0;

	if (!ns_running())
		return;
	ns_lock();
	list_for_each_entry(ns, &ns_all_socks, all_link) {
		const struct inode *ino = ns->sock.file ? ns->sock.file->inode : NULL;
		ip_addr_t none;
		unsigned tx = 0;

		if (ns->family != family || ns->sock.type != type || ns->protocol == IPPROTO_ICMP ||
		    ns->protocol == IPPROTO_ICMPV6)
			continue;
		if (type == SOCK_STREAM && ns->pcb.tcp && ns->state != NS_LISTEN)
			tx = TCP_SND_BUF - tcp_sndbuf(ns->pcb.tcp);
		ip_addr_set_any(family == AF_INET6, &none);
		strbuf_printf(o, "%4d: ", sl++);
		put_addr(o, family, ns->bound ? &ns->local_ip : &none, ns->local_port);
		strbuf_printf(o, " ");
		put_addr(o, family, ns->has_peer ? &ns->remote_ip : &none,
			 ns->has_peer ? ns->remote_port : 0);
		strbuf_printf(o,
			      " %02X %08X:%08X 00:00000000 00000000 %5u        0 %lu 1 "
			      "0000000000000000 100 0 0 10 0\n",
			      ns_linux_state(ns), tx, (unsigned)ns->rx_len, ino ? ino->uid : 0,
			      ino ? (unsigned long)ino->ino : 0ul);
	}
	ns_unlock();
}

/* The user-space stack's settings by their Linux sysctl names: what lwIP
 * was built with, or how the stack's sockets behave (bindv6only: AF_INET6
 * sockets are dual-stack until IPV6_V6ONLY; ip_nonlocal_bind: binding a
 * foreign address is EADDRNOTAVAIL); lwIP has no RACK (tcp_recovery) and
 * sets no IPv6 flow labels. */
bool netstack_sysctl(const char *name, long *out)
{
	static const struct {
		const char *name;
		long value;
	} vals[] = {
		{"ipv4/ip_forward", IP_FORWARD},
		{"ipv4/tcp_recovery", 0},
		{"ipv4/tcp_sack", LWIP_TCP_SACK_OUT},
		{"ipv6/auto_flowlabels", 0},
		{"ipv6/bindv6only", 0},
		{"ipv6/ip6frag_time", IPV6_REASS_MAXAGE * IP6_REASS_TMR_INTERVAL / 1000},
		{"ipv6/ip_nonlocal_bind", 0},
	};

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (strcmp(vals[i].name, name) == 0) {
			*out = vals[i].value;
			return true;
		}
	return false;
}
