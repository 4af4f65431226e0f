/*
 * The egress policy's DNS rule: the nameservers of the guest's
 * resolv.conf, on port 53 only (UDP and TCP), wherever they live (a
 * resolver in a private or link-local range: a cloud's, a cluster's, a
 * Docker network's gateway). Nothing else on those addresses.
 */
#include "config.h"
#include "sentry/net/egress_own.h"
#include "sentry/net/egress.h"
#include "sentry/net/resolvconf.h"
#include "lib/log.h"
#include "lib/strbuf.h"

#include <string.h>
#include <sys/socket.h>

#define DNS_PORT 53

void egress_dns_rules(struct egress_policy *p, const struct resolv_conf *rc)
{
	struct strbuf list;

	if (!p->dns || rc->n == 0)
		return;
	strbuf_init(&list);
	for (int i = 0; i < rc->n; i++) {
		struct egress_rule r = {.allow = true,
					.family = rc->ns[i].family,
					.prefixlen = rc->ns[i].family == AF_INET ? 32 : 128,
					.port = DNS_PORT,
					.origin = EGRESS_DNS};
		char text[64];

		memcpy(r.addr, rc->ns[i].addr, sizeof(r.addr));
		egress_add(p, &r);
		egress_format(r.family, r.addr, r.prefixlen, text, sizeof(text));
		strbuf_printf(&list, "%s%s", i ? ", " : "", text);
	}
	log_info("egress: the nameservers of /etc/resolv.conf are allowed on port 53 (UDP and "
		 "TCP), nothing else of theirs: %s",
		 list.buf);
	strbuf_release(&list);
}
