/*
 * The egress policy of a sandbox: which destinations a guest may connect
 * or send to over AF_INET/AF_INET6, checked in the syscall layer at
 * connect, sendto, sendmsg and sendmmsg in every network mode, before the
 * socket's family sees the call (docs/network.md).
 *
 * A policy is a comma-separated list of rules:
 *   allow=CIDR|HOST   destinations the guest may reach, even in the ranges
 *                     denied by default
 *   deny=CIDR|HOST    destinations it may not
 *   default=allow     (the default) anything no rule names is allowed,
 *                     except the built-in private and special ranges
 *   default=deny      anything no allow rule names is denied (an allow-list)
 * A bare address is a /32 (/128). A HOST is resolved when the policy is
 * loaded (before the sandbox confines itself). Among the rules that match
 * a destination, the longest prefix decides (deny wins a tie); without one,
 * the built-in ranges deny: 10/8, 172.16/12, 192.168/16, 100.64/10,
 * 169.254/16 (the cloud metadata address 169.254.169.254), fc00::/7 (incl.
 * fd00::/8), fe80::/10, and the metadata host names. The loopback
 * (127/8, ::1) is allowed unless a deny rule names it. IPv4-mapped (::ffff:a.b.c.d) and NAT64
 * (64:ff9b::/96) addresses are checked as the IPv4 address they carry.
 */
#ifndef RUNG_NET_EGRESS_H
#define RUNG_NET_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;

struct egress_rule {
	bool allow;
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	int prefixlen;
	bool builtin; /* one of the default ranges */
};

struct egress_policy {
	bool default_deny;
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

/* May the guest reach family/addr (network byte order; 4 or 16 bytes)? */
bool egress_allowed(const struct egress_policy *p, int family, const uint8_t *addr);

/* Check a guest sockaddr (len bytes) about to be connected or sent to:
 * 0, or -1 when the policy denies it (logged, naming what). Addresses that
 * are not AF_INET/AF_INET6, or too short, are left to the family. */
int egress_check(const struct egress_policy *p, const void *sa, int len, const char *what);

#endif
