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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define HOST_ADDRS_MAX 16

/* Denied unless a rule allows them. (The cloud metadata names, such as
 * metadata.google.internal, resolve into these: 169.254.169.254 and
 * fd00:ec2::254.) */
static const char *const builtin_denied[] = {
	"10.0.0.0/8",	  "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
	"169.254.0.0/16", "fc00::/7",	   "fe80::/10",
};

static void add_rule(struct egress_policy *p, const struct egress_rule *r)
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

/* One "allow=X" or "deny=X" (X a CIDR or a host name) into p. */
static int parse_target(struct egress_policy *p, bool allow, const char *x, egress_resolver resolve,
			struct rung_error *err)
{
	struct egress_rule r = {.allow = allow};
	uint8_t addrs[HOST_ADDRS_MAX][16];
	int families[HOST_ADDRS_MAX], n;

	if (parse_cidr(x, &r) == 0) {
		add_rule(p, &r);
		return 0;
	}
	if (strchr(x, '/') || strchr(x, ':') || !valid_host(x))
		return rung_error_make(err, EINVAL,
				       "egress: `%s` is not an address, a CIDR or a "
				       "host name",
				       x);
	n = (resolve ? resolve : getaddrinfo_resolve)(x, addrs, families, HOST_ADDRS_MAX);
	if (n <= 0)
		return rung_error_make(err, n < 0 ? -n : ENOENT, "egress: resolve `%s`", x);
	for (int i = 0; i < n; i++) {
		r.family = families[i];
		memcpy(r.addr, addrs[i], 16);
		r.prefixlen = families[i] == AF_INET ? 32 : 128;
		add_rule(p, &r);
	}
	log_debug("egress: %s %s (%d addresses)", allow ? "allow" : "deny", x, n);
	return 0;
}

int egress_parse(const char *spec, egress_resolver resolve, struct egress_policy **out,
		 struct rung_error *err)
{
	struct egress_policy *p = xzalloc(sizeof(*p));
	char *copy = xstrdup(spec ? spec : ""), *save = NULL;
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(builtin_denied); i++) {
		struct egress_rule r = {.allow = false, .builtin = true};
		parse_cidr(builtin_denied[i], &r);
		add_rule(p, &r);
	}
	for (char *tok = strtok_r(copy, ",", &save); tok && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		for (char *e = tok + strlen(tok); e > tok && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if (!*tok)
			continue;
		if (strcmp(tok, "default=allow") == 0)
			p->default_deny = false;
		else if (strcmp(tok, "default=deny") == 0)
			p->default_deny = true;
		else if (strncmp(tok, "allow=", 6) == 0)
			ret = parse_target(p, true, tok + 6, resolve, err);
		else if (strncmp(tok, "deny=", 5) == 0)
			ret = parse_target(p, false, tok + 5, resolve, err);
		else
			ret = rung_error_make(err, EINVAL,
					      "egress: unknown rule `%s` (allow=, deny=, "
					      "default=allow|deny)",
					      tok);
	}
	free(copy);
	if (ret < 0) {
		egress_free(p);
		return ret;
	}
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

/* The IPv4 address an IPv6 one carries (IPv4-mapped, NAT64), if any. */
static bool embedded_v4(const uint8_t *a6, uint8_t *a4)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};

	if (memcmp(a6, mapped, 12) != 0 && memcmp(a6, nat64, 12) != 0)
		return false;
	memcpy(a4, a6 + 12, 4);
	return true;
}

bool egress_allowed(const struct egress_policy *p, int family, const uint8_t *addr)
{
	static const uint8_t v6_lo[16] = {[15] = 1};
	const struct egress_rule *best = NULL;
	uint8_t v4[4];
	bool loopback;

	if (family == AF_INET6 && embedded_v4(addr, v4)) {
		family = AF_INET;
		addr = v4;
	}
	loopback = (family == AF_INET && addr[0] == 127) ||
		   (family == AF_INET6 && memcmp(addr, v6_lo, 16) == 0);
	if (!p)
		return true;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct egress_rule *r = &p->rules[i];

		if (r->family != family || !prefix_match(r->addr, addr, r->prefixlen))
			continue;
		/* User rules beat the built-in ranges; then the longest prefix;
		 * then deny. */
		if (!best || (best->builtin && !r->builtin) ||
		    (best->builtin == r->builtin &&
		     (r->prefixlen > best->prefixlen ||
		      (r->prefixlen == best->prefixlen && !r->allow))))
			best = r;
	}
	if (best)
		return best->allow;
	/* The loopback goes unless a rule of the user's names it. */
	return loopback || !p->default_deny;
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
	if (egress_allowed(p, s->sa_family, addr))
		return 0;
	inet_ntop(s->sa_family, addr, text, sizeof(text));
	log_warning("egress: denied %s to %s port %u (the sandbox's egress policy)", what, text,
		    port);
	return -1;
}
