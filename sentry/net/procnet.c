/* /proc/net from the sandbox's network configuration (procnet.h). */
#include "config.h"
#include "sentry/net/procnet.h"
#include "sentry/net/inet_host.h"
#include "sentry/net/netstack_proc.h"
#include "sentry/net/net.h"
#include "sentry/net/unix.h"
#include "sentry/kernel/kernel.h"
#include "lib/strbuf.h"

#include <net/route.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static const struct net_config *config(struct kernel *k)
{
	static const struct net_config none;

	return k->net ? &k->net->cfg : &none;
}

static const char *ifname(const struct net_config *c, int index)
{
	for (size_t i = 0; i < c->nifs; i++)
		if (c->ifs[i].index == index)
			return c->ifs[i].name;
	return "*";
}

void procnet_dev(struct kernel *k, struct strbuf *o)
{
	const struct net_config *c = config(k);

	strbuf_printf(o,
		      "Inter-|   Receive                                                |  "
		      "Transmit\n"
		      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
		      "packets errs drop fifo colls carrier compressed\n");
	for (size_t i = 0; i < c->nifs; i++)
		strbuf_printf(o,
			      "%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d "
			      "%10d\n",
			      c->ifs[i].name, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* Linux pads each line of /proc/net/route to 127 characters. */
static void route_line(struct strbuf *o, const char *line)
{
	strbuf_printf(o, "%-127s\n", line);
}

static uint32_t be32(const uint8_t *a)
{
	uint32_t v;

	memcpy(&v, a, 4);
	return v; /* printed as the raw word, as Linux does */
}

void procnet_route(struct kernel *k, struct strbuf *o)
{
	const struct net_config *c = config(k);
	char line[160];

	route_line(o, "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU"
		      "\tWindow\tIRTT");
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct net_route *r = &c->routes[i];
		uint32_t mask = r->dst_len ? ~0u << (32 - r->dst_len) : 0;
		uint8_t m[4] = {(uint8_t)(mask >> 24), (uint8_t)(mask >> 16), (uint8_t)(mask >> 8),
				(uint8_t)mask};

		if (r->family != AF_INET)
			continue;
		snprintf(line, sizeof(line), "%s\t%08X\t%08X\t%04X\t%d\t%u\t%u\t%08X\t%d\t%u\t%u",
			 ifname(c, r->ifindex), be32(r->dst), r->has_gw ? be32(r->gw) : 0,
			 RTF_UP | (r->has_gw ? RTF_GATEWAY : 0), 0, 0u, r->metric, be32(m), 0, 0u,
			 0u);
		route_line(o, line);
	}
}

void procnet_if_inet6(struct kernel *k, struct strbuf *o)
{
	const struct net_config *c = config(k);

	for (size_t i = 0; i < c->nifs; i++) {
		const struct net_iface *nif = &c->ifs[i];

		for (int j = 0; j < nif->naddrs; j++) {
			const struct net_iface_addr *a = &nif->addrs[j];
			int scope = nif->loopback					  ? 0x10
				    : (a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80) ? 0x20
											  : 0;

			if (a->family != AF_INET6)
				continue;
			for (int b = 0; b < 16; b++)
				strbuf_printf(o, "%02x", a->addr[b]);
			strbuf_printf(o, " %02x %02x %02x %02x %8s\n", nif->index, a->prefixlen,
				      scope, 0x80, nif->name);
		}
	}
}

/* Each line of text padded with spaces to width characters, as Linux's
 * seq_pad does for /proc/net/tcp (149) and udp (127); tcp6 and udp6 are
 * not padded. */
static void pad_lines(struct strbuf *o, const struct strbuf *text, int width)
{
	size_t at = 0;

	while (at < text->len) {
		const char *nl = memchr(text->buf + at, '\n', text->len - at);
		size_t n = nl ? (size_t)(nl - (text->buf + at)) : text->len - at;

		strbuf_printf(o, "%-*.*s\n", width, (int)n, text->buf + at);
		at += n + 1;
	}
}

/* The sockets: host mode's (inet_host.c) or the user-space stack's
 * (netstack_proc.c). */
static void inet_socks(struct kernel *k, int family, int type, const char *header, int width,
		       struct strbuf *o)
{
	struct strbuf text;

	strbuf_init(&text);
	strbuf_printf(&text, "%s\n", header);
	if (net_mode_of(k) == NET_MODE_HOST)
		inet_host_proc(k, family, type, &text);
	else if (k->net)
		netstack_proc(k, family, type, &text);
	if (family == AF_INET)
		pad_lines(o, &text, width);
	else
		strbuf_append(o, text.buf, text.len);
	strbuf_release(&text);
}

void procnet_tcp(struct kernel *k, int family, struct strbuf *o)
{
	inet_socks(
		k, family, SOCK_STREAM,
		family == AF_INET
			? "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
			  "retrnsmt   uid  timeout inode"
			: "  sl  local_address                         remote_address          "
			  "              st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
			  "inode",
		149, o);
}

void procnet_udp(struct kernel *k, int family, struct strbuf *o)
{
	inet_socks(
		k, family, SOCK_DGRAM,
		family == AF_INET
			? "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
			  "retrnsmt   uid  timeout inode ref pointer drops"
			: "  sl  local_address                         remote_address          "
			  "              st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
			  "inode ref pointer drops",
		127, o);
}

/* Linux's socket states (include/uapi/linux/net.h) and __SO_ACCEPTCON. */
enum { SS_UNCONNECTED = 1, SS_CONNECTING, SS_CONNECTED, SS_DISCONNECTING };
#define SO_ACCEPTCON (1 << 16)

static void unix_line(const struct unix_sock_info *u, void *arg)
{
	struct strbuf *o = arg;
	int st = u->has_file ? (u->connected ? SS_CONNECTED : SS_UNCONNECTED)
			     : (u->connected ? SS_CONNECTING : SS_DISCONNECTING);

	/* The kernel address (%pK) is hidden, as for a reader without CAP_SYSLOG. */
	strbuf_printf(o, "0000000000000000: %08X %08X %08X %04X %02X %5llu", (unsigned)u->refs, 0u,
		      u->listening ? SO_ACCEPTCON : 0u, (unsigned)u->type, (unsigned)st,
		      (unsigned long long)u->ino);
	if (u->path_len > 0) {
		strbuf_append(o, " ", 1);
		if (u->path[0]) {
			strbuf_append(o, u->path, strnlen(u->path, (size_t)u->path_len));
		} else {
			/* Abstract: '@' for the leading NUL and for each NUL in the name. */
			for (int i = 0; i < u->path_len; i++)
				strbuf_append(o, u->path[i] ? &u->path[i] : "@", 1);
		}
	}
	strbuf_append(o, "\n", 1);
}

void procnet_unix(struct kernel *k, struct strbuf *o)
{
	strbuf_printf(o, "Num       RefCount Protocol Flags    Type St Inode Path\n");
	unix_for_each_sock(k, unix_line, o);
}

bool procnet_has_stack_sysctls(struct kernel *k)
{
	return net_mode_of(k) != NET_MODE_HOST;
}

void procnet_sysctl(struct kernel *k, const char *name, struct strbuf *o)
{
	long v;

	if (procnet_has_stack_sysctls(k) && netstack_sysctl(name, &v))
		strbuf_printf(o, "%ld\n", v);
}
