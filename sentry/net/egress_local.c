/*
 * The egress policy's rules for the sandbox's own network: the subnets of
 * its namespace's interfaces are allowed (containers on one Docker
 * network reach each other, as under runc), their gateways are not (the
 * host's side of a Docker bridge, a router), nor the metadata addresses
 * (egress.c guards them above these rules). Link-local subnets are never
 * opened (the cloud's services live there), and none in the host's own
 * network namespace, whose subnets are the host's LAN.
 */
#include "config.h"
#include "sentry/net/egress_own.h"
#include "sentry/net/egress.h"
#include "sentry/net/iface.h"
#include "lib/log.h"
#include "lib/strbuf.h"

#include <string.h>
#include <sys/socket.h>

static bool link_local(int family, const uint8_t *a)
{
	if (family == AF_INET)
		return a[0] == 169 && a[1] == 254;
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* The address with the bits after its prefix cleared. */
static void mask(uint8_t *a, int prefixlen, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		int keep = prefixlen - i * 8;
		a[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
}

static void add_subnets(struct egress_policy *p, const struct net_config *cfg, struct strbuf *log)
{
	for (size_t i = 0; i < cfg->nifs; i++) {
		const struct net_iface *ifc = &cfg->ifs[i];

		if (ifc->loopback)
			continue;
		for (int j = 0; j < ifc->naddrs; j++) {
			const struct net_iface_addr *a = &ifc->addrs[j];
			struct egress_rule r = {.allow = true,
						.family = a->family,
						.prefixlen = a->prefixlen,
						.origin = EGRESS_LOCAL};
			char text[64];

			if (link_local(a->family, a->addr) || a->prefixlen <= 0)
				continue;
			memcpy(r.addr, a->addr, sizeof(r.addr));
			mask(r.addr, r.prefixlen, a->family == AF_INET ? 4 : 16);
			egress_add(p, &r);
			egress_format(r.family, r.addr, r.prefixlen, text, sizeof(text));
			strbuf_printf(log, "%s%s", log->len ? ", " : "", text);
		}
	}
}

static void add_gateways(struct egress_policy *p, const struct net_config *cfg, struct strbuf *log)
{
	for (size_t i = 0; i < cfg->nroutes; i++) {
		const struct net_route *rt = &cfg->routes[i];
		struct egress_rule r = {.allow = false,
					.family = rt->family,
					.prefixlen = rt->family == AF_INET ? 32 : 128,
					.origin = EGRESS_GUARD};
		char text[64];

		if (!rt->has_gw)
			continue;
		memcpy(r.addr, rt->gw, sizeof(r.addr));
		egress_add(p, &r);
		egress_format(r.family, r.addr, r.prefixlen, text, sizeof(text));
		strbuf_printf(log, "%s%s", log->len ? ", " : "", text);
	}
}

void egress_local_rules(struct egress_policy *p, const struct net_config *cfg, bool hosts_netns)
{
	struct strbuf subnets, gateways;

	if (!p->local)
		return;
	if (hosts_netns) {
		log_debug("egress: the host's network namespace: its subnets stay denied");
		return;
	}
	strbuf_init(&subnets);
	strbuf_init(&gateways);
	add_subnets(p, cfg, &subnets);
	if (subnets.len) {
		add_gateways(p, cfg, &gateways);
		log_info("egress: the sandbox's subnets are allowed: %s (not their gateways%s%s, "
			 "nor the metadata addresses)",
			 subnets.buf, gateways.len ? " " : "", gateways.len ? gateways.buf : "");
	}
	strbuf_release(&subnets);
	strbuf_release(&gateways);
}
