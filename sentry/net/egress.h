/*
 * The egress policy of a sandbox: which destinations a guest may connect
 * or send to over AF_INET/AF_INET6, checked in the syscall layer at
 * connect, sendto, sendmsg and sendmmsg in every network mode, before the
 * socket's family sees the call (docs/network.md).
 *
 * A policy is a comma-separated list of rules:
 *   allow=TARGET[:PORT]  destinations the guest may reach, even in the
 *                        ranges denied by default
 *   deny=TARGET[:PORT]   destinations it may not
 *   default=allow        (the default) anything no rule names is allowed,
 *                        except the built-in private and special ranges
 *   default=deny         anything no allow rule names is denied (an allow-list)
 *   dns=allow|deny       the nameservers of the guest's resolv.conf on port
 *                        53 (default: allow)
 *   local=allow|deny     the subnets of the sandbox's own interfaces
 *                        (default: allow, deny under default=deny)
 * TARGET is an address, a CIDR or a host name (IPv6 in brackets when a
 * port follows: [2001:db8::/32]:443); a bare address is a /32 (/128); a
 * HOST is resolved when the policy is loaded (before the sandbox confines
 * itself); without a PORT, a rule holds for every port.
 *
 * Each rule has an origin, and among the rules that match a destination
 * the strongest origin decides: the user's rules, then the nameservers
 * (port 53), then the guard (the cloud metadata addresses and the
 * gateways of the sandbox's subnets: denied), then the sandbox's subnets
 * (allowed), then the built-in ranges (denied: 10/8, 172.16/12,
 * 192.168/16, 100.64/10, 169.254/16, fc00::/7, fe80::/10, 64:ff9b:1::/48).
 * Within an origin the longest prefix wins, then a rule with a port over
 * one without, then deny. Without a rule, default= decides; the loopback
 * (127/8, ::1) is allowed unless a rule names it.
 *
 * An IPv6 address that carries an IPv4 address is judged as that address:
 * IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96 but :: and ::1),
 * SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16), and
 * Teredo (2001::/32, both its server's and its client's address must be
 * allowed); a deny rule of the user's that names the IPv6 form holds too.
 */
#ifndef RUNG_NET_EGRESS_H
#define RUNG_NET_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;

/* Where a rule comes from, the strongest first. */
enum egress_origin {
	EGRESS_USER,	/* --egress, dev.rung.egress */
	EGRESS_DNS,	/* a nameserver of resolv.conf, port 53 (egress_dns.c) */
	EGRESS_GUARD,	/* metadata addresses, the subnets' gateways: denied */
	EGRESS_LOCAL,	/* a subnet of the sandbox's own interfaces (egress_local.c) */
	EGRESS_BUILTIN, /* the ranges denied by default */
};

struct egress_rule {
	bool allow;
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	int prefixlen;
	uint16_t port; /* 0: every port */
	enum egress_origin origin;
};

struct egress_policy {
	bool default_deny;
	bool dns;   /* the nameservers' rules are wanted (dns=) */
	bool local; /* the subnets' rules are wanted (local=, default=) */
	struct egress_rule *rules;
	size_t nrules;
};

/* Resolve a host name of a rule into its addresses (AF_INET/AF_INET6, up
 * to max of them, into addrs/families); returns how many or -errno. Tests
 * replace it; NULL: getaddrinfo. */
typedef int (*egress_resolver)(const char *host, uint8_t (*addrs)[16], int *families, int max);

/* Parse spec (NULL or "": the default policy). */
int egress_parse(const char *spec, egress_resolver resolve, struct egress_policy **out,
		 struct rung_error *err);
void egress_free(struct egress_policy *p);
/* Add a rule (the sandbox's own: nameservers, subnets, gateways). */
void egress_add(struct egress_policy *p, const struct egress_rule *r);

/* May the guest reach family/addr (network byte order; 4 or 16 bytes) on
 * port? */
bool egress_allowed(const struct egress_policy *p, int family, const uint8_t *addr, unsigned port);

/* Check a guest sockaddr (len bytes) about to be connected or sent to:
 * 0, or -1 when the policy denies it (logged, naming what). Addresses that
 * are not AF_INET/AF_INET6, or too short, are left to the family. */
int egress_check(const struct egress_policy *p, const void *sa, int len, const char *what);

/* "a.b.c.d/n" or "x::y/n" (without /n for a whole address) into buf. */
void egress_format(int family, const uint8_t *addr, int prefixlen, char *buf, size_t size);

#endif
