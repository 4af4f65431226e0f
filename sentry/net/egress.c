/* The egress policy: parsing, and the check of a destination (egress.h). */
#include "config.h"
#include "sentry/net/egress.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define HOST_ADDRS_MAX 16

/* Denied unless a rule allows them. (The cloud metadata names, such as
 * metadata.google.internal, resolve into these: 169.254.169.254 and
 * fd00:ec2::254.) 64:ff9b:1::/48 is local-use NAT64 (RFC 8215): where the
 * IPv4 address sits in it depends on the prefix length the network chose,
 * so the policy cannot see through it. */
static const char *const builtin_denied[] = {
	"10.0.0.0/8",	  "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
	"169.254.0.0/16", "fc00::/7",	   "fe80::/10",	     "64:ff9b:1::/48",
};

/* Denied above the sandbox's own subnets (a subnet of theirs may hold one):
 * the cloud metadata and credential services. */
static const char *const guarded[] = {
	"169.254.169.254", /* AWS, GCP, Azure, OpenStack, ... */
	"169.254.170.2",   /* AWS ECS task credentials */
	"169.254.170.23",  /* AWS EKS Pod Identity */
	"100.100.100.200", /* Alibaba Cloud */
	"fd00:ec2::254",   /* AWS, over IPv6 */
	"fd00:ec2::23",	   /* AWS EKS Pod Identity, over IPv6 */
};

void egress_add(struct egress_policy *p, const struct egress_rule *r)
{
	p->rules = xrealloc(p->rules, (p->nrules + 1) * sizeof(*p->rules));
	p->rules[p->nrules++] = *r;
}

/* "a.b.c.d[/n]" or "x::y[/n]" into r; -1 when it is not one. */
static int parse_cidr(const char *s, struct egress_rule *r)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	long len;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(r->addr, 0, sizeof(r->addr));
	if (inet_pton(AF_INET, buf, r->addr) == 1)
		r->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, r->addr) == 1)
		r->family = AF_INET6;
	else
		return -1;
	len = r->family == AF_INET ? 32 : 128;
	if (slash) {
		if (!isdigit((unsigned char)*slash))
			return -1;
		errno = 0;
		long n = strtol(slash, &end, 10);
		if (errno || *end || n < 0 || n > len)
			return -1;
		len = n;
	}
	r->prefixlen = (int)len;
	return 0;
}

static bool valid_host(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static int getaddrinfo_resolve(const char *host, uint8_t (*addrs)[16], int *families, int max)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	int n = 0, r = getaddrinfo(host, NULL, &hints, &res);

	if (r != 0)
		return r == EAI_SYSTEM ? -errno : -ENOENT;
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		memset(addrs[n], 0, 16);
		if (ai->ai_family == AF_INET)
			memcpy(addrs[n], &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		else if (ai->ai_family == AF_INET6)
			memcpy(addrs[n], &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
		else
			continue;
		families[n++] = ai->ai_family;
	}
	freeaddrinfo(res);
	return n;
}

/* ":PORT" at s (a decimal 1..65535) into *port; -1 when it is not one. */
static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long n;

	if (*s++ != ':' || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 1 || n > 65535)
		return -1;
	*port = (uint16_t)n;
	return 0;
}

/* Split "TARGET[:PORT]" (IPv6 as "[TARGET]:PORT" when a port follows) into
 * target (size bytes) and *port (0 without one); -1 when malformed. */
static int split_port(const char *x, char *target, size_t size, uint16_t *port)
{
	const char *colon = strchr(x, ':'), *end = NULL;

	*port = 0;
	if (x[0] == '[') {
		end = strchr(x, ']');
		if (!end || (end[1] && parse_port(end + 1, port) < 0))
			return -1;
		x++;
	} else if (colon && !strchr(colon + 1, ':')) {
		/* One colon: an IPv4 address or a host name, and a port. */
		if (parse_port(colon, port) < 0)
			return -1;
		end = colon;
	}
	if (!end)
		end = x + strlen(x);
	if ((size_t)(end - x) >= size)
		return -1;
	memcpy(target, x, (size_t)(end - x));
	target[end - x] = '\0';
	return 0;
}

/* One "allow=X" or "deny=X" (X a CIDR or a host name, and maybe a port)
 * into p. */
static int parse_target(struct egress_policy *p, bool allow, const char *x, egress_resolver resolve,
			struct rung_error *err)
{
	struct egress_rule r = {.allow = allow, .origin = EGRESS_USER};
	uint8_t addrs[HOST_ADDRS_MAX][16];
	int families[HOST_ADDRS_MAX], n;
	char target[256];

	if (split_port(x, target, sizeof(target), &r.port) < 0)
		goto bad;
	if (parse_cidr(target, &r) == 0) {
		egress_add(p, &r);
		return 0;
	}
	if (x[0] == '[' || strchr(target, '/') || strchr(target, ':') || !valid_host(target))
		goto bad;
	n = (resolve ? resolve : getaddrinfo_resolve)(target, addrs, families, HOST_ADDRS_MAX);
	if (n <= 0)
		return rung_error_make(err, n < 0 ? -n : ENOENT, "egress: resolve `%s`", target);
	for (int i = 0; i < n; i++) {
		r.family = families[i];
		memcpy(r.addr, addrs[i], 16);
		r.prefixlen = families[i] == AF_INET ? 32 : 128;
		egress_add(p, &r);
	}
	log_debug("egress: %s %s (%d addresses)", allow ? "allow" : "deny", x, n);
	return 0;
bad:
	return rung_error_make(err, EINVAL,
			       "egress: `%s` is not an address, a CIDR or a host name (a :PORT "
			       "may follow, after an IPv6 one in brackets)",
			       x);
}

/* The built-in rules every policy starts with. */
static void add_builtin(struct egress_policy *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin_denied); i++) {
		struct egress_rule r = {.allow = false, .origin = EGRESS_BUILTIN};
		parse_cidr(builtin_denied[i], &r);
		egress_add(p, &r);
	}
	for (size_t i = 0; i < ARRAY_SIZE(guarded); i++) {
		struct egress_rule r = {.allow = false, .origin = EGRESS_GUARD};
		parse_cidr(guarded[i], &r);
		egress_add(p, &r);
	}
}

/* The switches of a policy, as parsed. */
struct switches {
	bool deny_default, dns, local, local_set;
};

/* "NAME=allow" or "NAME=deny" at tok: 1 (and *allow), 0 for another rule,
 * -1 for another value. */
static int switch_rule(const char *tok, const char *name, bool *allow)
{
	size_t n = strlen(name);

	if (strncmp(tok, name, n) != 0 || tok[n] != '=')
		return 0;
	if (strcmp(tok + n + 1, "allow") == 0)
		*allow = true;
	else if (strcmp(tok + n + 1, "deny") == 0)
		*allow = false;
	else
		return -1;
	return 1;
}

/* One rule of a policy (trimmed, not empty). */
static int parse_rule(struct egress_policy *p, const char *tok, struct switches *sw,
		      egress_resolver resolve, struct rung_error *err)
{
	bool allow;
	int r;

	if ((r = switch_rule(tok, "default", &allow)) != 0) {
		if (r < 0)
			goto bad;
		sw->deny_default = !allow;
		return 0;
	}
	if ((r = switch_rule(tok, "dns", &allow)) != 0) {
		if (r < 0)
			goto bad;
		sw->dns = allow;
		return 0;
	}
	if ((r = switch_rule(tok, "local", &allow)) != 0) {
		if (r < 0)
			goto bad;
		sw->local = allow;
		sw->local_set = true;
		return 0;
	}
	if (strncmp(tok, "allow=", 6) == 0)
		return parse_target(p, true, tok + 6, resolve, err);
	if (strncmp(tok, "deny=", 5) == 0)
		return parse_target(p, false, tok + 5, resolve, err);
bad:
	return rung_error_make(err, EINVAL,
			       "egress: unknown rule `%s` (allow=, deny=, default=allow|deny, "
			       "dns=allow|deny, local=allow|deny)",
			       tok);
}

int egress_parse(const char *spec, egress_resolver resolve, struct egress_policy **out,
		 struct rung_error *err)
{
	struct egress_policy *p = xzalloc(sizeof(*p));
	char *copy = xstrdup(spec ? spec : ""), *save = NULL;
	struct switches sw = {.dns = true, .local = true};
	int ret = 0;

	add_builtin(p);
	for (char *tok = strtok_r(copy, ",", &save); tok && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		for (char *e = tok + strlen(tok); e > tok && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if (*tok)
			ret = parse_rule(p, tok, &sw, resolve, err);
	}
	free(copy);
	if (ret < 0) {
		egress_free(p);
		return ret;
	}
	p->default_deny = sw.deny_default;
	p->dns = sw.dns;
	/* An allow-list lists what it allows: the subnets only when asked. */
	p->local = sw.local_set ? sw.local : !sw.deny_default;
	*out = p;
	return 0;
}

void egress_free(struct egress_policy *p)
{
	if (!p)
		return;
	free(p->rules);
	free(p);
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, int len)
{
	int bytes = len / 8, bits = len % 8;

	if (memcmp(a, b, (size_t)bytes) != 0)
		return false;
	return bits == 0 || ((a[bytes] ^ b[bytes]) & (0xff << (8 - bits))) == 0;
}

/*
 * The IPv4 addresses an IPv6 address carries, into v4: IPv4-mapped and
 * IPv4-compatible (RFC 4291), SIIT's IPv4-translated (RFC 7915), NAT64's
 * well-known prefix (RFC 6052), 6to4 (RFC 3056), Teredo (RFC 4380: the
 * server's, and the client's, stored inverted). Returns how many (0: the
 * address carries none).
 */
static int embedded_v4(const uint8_t *a6, uint8_t v4[2][4])
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	static const uint8_t siit[12] = {[8] = 0xff, [9] = 0xff};
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
	static const uint8_t compat[12];
	static const uint8_t teredo[4] = {0x20, 0x01, 0, 0};

	if (memcmp(a6, mapped, 12) == 0 || memcmp(a6, siit, 12) == 0 ||
	    memcmp(a6, nat64, 12) == 0) {
		memcpy(v4[0], a6 + 12, 4);
		return 1;
	}
	if (memcmp(a6, compat, 12) == 0) {
		/* :: and ::1 are IPv6's own. */
		if (a6[12] == 0 && a6[13] == 0 && a6[14] == 0 && a6[15] <= 1)
			return 0;
		memcpy(v4[0], a6 + 12, 4);
		return 1;
	}
	if (a6[0] == 0x20 && a6[1] == 0x02) {
		memcpy(v4[0], a6 + 2, 4);
		return 1;
	}
	if (memcmp(a6, teredo, 4) == 0) {
		memcpy(v4[0], a6 + 4, 4);
		for (int i = 0; i < 4; i++)
			v4[1][i] = (uint8_t)~a6[12 + i];
		return 2;
	}
	return 0;
}

/* Does rule a decide over rule b, both matching? The stronger origin, the
 * longer prefix, a port over every port, then deny. */
static bool beats(const struct egress_rule *a, const struct egress_rule *b)
{
	if (a->origin != b->origin)
		return a->origin < b->origin;
	if (a->prefixlen != b->prefixlen)
		return a->prefixlen > b->prefixlen;
	if ((a->port != 0) != (b->port != 0))
		return a->port != 0;
	return !a->allow && b->allow;
}

/* The rule of p that decides for family/addr/port, or NULL. */
static const struct egress_rule *deciding(const struct egress_policy *p, int family,
					  const uint8_t *addr, unsigned port)
{
	const struct egress_rule *best = NULL;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct egress_rule *r = &p->rules[i];

		if (r->family != family || (r->port && r->port != port) ||
		    !prefix_match(r->addr, addr, r->prefixlen))
			continue;
		if (!best || beats(r, best))
			best = r;
	}
	return best;
}

/* The verdict on an address of its own family. */
static bool verdict(const struct egress_policy *p, int family, const uint8_t *addr, unsigned port)
{
	static const uint8_t v6_lo[16] = {[15] = 1};
	const struct egress_rule *r = deciding(p, family, addr, port);

	if (r)
		return r->allow;
	/* The loopback goes unless a rule names it. */
	if ((family == AF_INET && addr[0] == 127) ||
	    (family == AF_INET6 && memcmp(addr, v6_lo, 16) == 0))
		return true;
	return !p->default_deny;
}

bool egress_allowed(const struct egress_policy *p, int family, const uint8_t *addr, unsigned port)
{
	uint8_t v4[2][4];
	int n;

	if (!p)
		return true;
	if (family != AF_INET6 || (n = embedded_v4(addr, v4)) == 0)
		return verdict(p, family, addr, port);
	{
		const struct egress_rule *r = deciding(p, AF_INET6, addr, port);

		if (r && r->origin == EGRESS_USER && !r->allow)
			return false;
	}
	for (int i = 0; i < n; i++)
		if (!verdict(p, AF_INET, v4[i], port))
			return false;
	return true;
}

void egress_format(int family, const uint8_t *addr, int prefixlen, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, text, sizeof(text));
	if (prefixlen == (family == AF_INET ? 32 : 128))
		snprintf(buf, size, "%s", text);
	else
		snprintf(buf, size, "%s/%d", text, prefixlen);
}

int egress_check(const struct egress_policy *p, const void *sa, int len, const char *what)
{
	const struct sockaddr *s = sa;
	char text[INET6_ADDRSTRLEN] = "?";
	const uint8_t *addr;
	unsigned port;

	if (len < (int)sizeof(s->sa_family))
		return 0;
	if (s->sa_family == AF_INET && len >= (int)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sa;
		addr = (const uint8_t *)&in->sin_addr;
		port = ntohs(in->sin_port);
	} else if (s->sa_family == AF_INET6 && len >= (int)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sa;
		addr = (const uint8_t *)&in6->sin6_addr;
		port = ntohs(in6->sin6_port);
	} else {
		return 0;
	}
	if (egress_allowed(p, s->sa_family, addr, port))
		return 0;
	inet_ntop(s->sa_family, addr, text, sizeof(text));
	log_warning("egress: denied %s to %s port %u (the sandbox's egress policy)", what, text,
		    port);
	return -1;
}
