/*
 * The nameservers of the guest's /etc/resolv.conf, read once at start
 * through the sandbox's own view of its tree (never a host path: the
 * rootfs may be hostile), for the egress policy's DNS rule (egress_dns.c)
 * and the relay to a nameserver on the namespace's loopback (dns_relay.h).
 */
#ifndef RUNG_NET_RESOLVCONF_H
#define RUNG_NET_RESOLVCONF_H

#include <stddef.h>
#include <stdint.h>

struct kernel;

/* The nameservers a resolver uses (glibc's and musl's MAXNS). */
#define RESOLV_MAXNS 3
/* How much of the file is read: the rest is ignored. */
#define RESOLV_CONF_MAX 65536

struct resolv_nameserver {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
};

struct resolv_conf {
	int n;
	struct resolv_nameserver ns[RESOLV_MAXNS];
};

/* The first RESOLV_MAXNS valid `nameserver ADDR` lines of text (len
 * bytes, any content), as glibc reads them: a line that starts with the
 * keyword, then blanks, then an address (an IPv6 one may carry a %scope,
 * dropped). Unspecified addresses (0.0.0.0, ::) are left out. */
void resolv_conf_parse(const char *text, size_t len, struct resolv_conf *out);
/* The guest's /etc/resolv.conf (none: no nameservers). */
void resolv_conf_read(struct kernel *k, struct resolv_conf *out);

#endif
