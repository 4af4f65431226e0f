/* A sandbox's network: its mode, configuration and egress policy (net.h). */
#include "config.h"
#include "sentry/net/net.h"
#include "sentry/net/egress.h"
#include "sentry/net/keeper.h"
#include "sentry/net/netstack.h"
#include "sentry/kernel/kernel.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[NET_MODE_SANDBOX] = "sandbox", [NET_MODE_HOST] = "host", [NET_MODE_NONE] = "none"};

int net_mode_parse(const char *s, enum net_mode *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (s && strcmp(s, names[i]) == 0) {
			*out = (enum net_mode)i;
			return 0;
		}
	return -1;
}

const char *net_mode_name(enum net_mode m)
{
	return (size_t)m < ARRAY_SIZE(names) ? names[m] : "?";
}

enum net_mode net_mode_of(const struct kernel *k)
{
	return k->net ? k->net->mode : NET_MODE_SANDBOX;
}

/* The user-space stack's loopback is always up with 127.0.0.1/8 and ::1,
 * whatever the host's lo of a fresh namespace looks like (down, no
 * addresses): the guest is shown that one. */
static void stack_loopback(struct net_config *c)
{
	struct net_config lo;

	net_config_loopback(&lo);
	for (size_t i = 0; i < c->nifs; i++)
		if (c->ifs[i].loopback) {
			lo.ifs[0].index = c->ifs[i].index;
			c->ifs[i] = lo.ifs[0];
			net_config_free(&lo);
			return;
		}
	c->ifs = xrealloc(c->ifs, (c->nifs + 1) * sizeof(*c->ifs));
	memmove(c->ifs + 1, c->ifs, c->nifs * sizeof(*c->ifs));
	c->ifs[0] = lo.ifs[0];
	c->nifs++;
	net_config_free(&lo);
}

int net_setup(struct kernel *k, const struct net_options *o, struct rung_error *err)
{
	struct net_state *n = xzalloc(sizeof(*n));
	enum net_mode mode = o->mode;
	int ret = 0;

	n->mode = mode;
	pthread_mutex_init(&n->socks_lock, NULL);
	list_init(&n->socks);
	k->net = n;
	ret = egress_parse(o->egress, NULL, &n->egress, err);
	if (ret < 0)
		return ret;
	if (mode == NET_MODE_NONE) {
		net_config_loopback(&n->cfg);
	} else {
		ret = net_config_read(&n->cfg, err);
		if (ret == 0 && mode == NET_MODE_SANDBOX)
			stack_loopback(&n->cfg);
		/* Before the stack removes anything. */
		if (ret == 0 && mode == NET_MODE_SANDBOX)
			ret = net_keeper_start(&n->cfg, o->keeper_cgroups, &n->keeper, err);
	}
	if (ret == 0 && mode != NET_MODE_HOST) {
		ret = netstack_start(k, &n->cfg, mode == NET_MODE_SANDBOX, err);
		n->stack = ret == 0;
	}
	if (ret < 0)
		return rung_error_wrap(err, "--network=%s", net_mode_name(mode));
	log_debug("network: %s, %zu interfaces, %zu routes", net_mode_name(mode), n->cfg.nifs,
		  n->cfg.nroutes);
	return 0;
}

void net_teardown(struct kernel *k)
{
	struct net_state *n = k->net;

	if (!n)
		return;
	if (n->stack)
		netstack_stop(k);
	net_keeper_release(n->keeper);
	net_config_free(&n->cfg);
	egress_free(n->egress);
	pthread_mutex_destroy(&n->socks_lock);
	free(n);
	k->net = NULL;
}

int net_egress_check(struct kernel *k, const void *sa, int len, bool connect)
{
	if (!k->net)
		return 0;
	if (egress_check(k->net->egress, sa, len, connect ? "a connection" : "a datagram") == 0)
		return 0;
	return connect ? -ECONNREFUSED : -EACCES;
}
