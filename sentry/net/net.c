/* A sandbox's network: its mode, configuration and egress policy (net.h). */
#include "config.h"
#include "sentry/net/net.h"
#include "sentry/net/dns_relay.h"
#include "sentry/net/egress.h"
#include "sentry/net/egress_own.h"
#include "sentry/net/keeper.h"
#include "sentry/net/netstack.h"
#include "sentry/net/resolvconf.h"
#include "sentry/kernel/kernel.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Is path the kernel thread kthreadd (pid 2 where rung sees the host's
 * pids)? Kernel threads live in the host's first network namespace. */
static bool kthreadd(const char *comm_path)
{
	char comm[32] = "";
	FILE *f = fopen(comm_path, "re");

	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strcmp(comm, "kthreadd\n") == 0;
}

/* Is the current network namespace the host's own: pid 1's, or the
 * kernel's (where pid 1's cannot be read)? When neither can be told, it
 * counts as the host's. */
static bool hosts_netns(void)
{
	struct stat self, other;
	bool known = false;

	if (stat("/proc/self/ns/net", &self) < 0)
		return true;
	if (stat("/proc/1/ns/net", &other) == 0) {
		if (self.st_dev == other.st_dev && self.st_ino == other.st_ino)
			return true;
		known = true;
	}
	if (kthreadd("/proc/2/comm") && stat("/proc/2/ns/net", &other) == 0) {
		if (self.st_dev == other.st_dev && self.st_ino == other.st_ino)
			return true;
		known = true;
	}
	return !known;
}

/* The policy's rules for the sandbox's own network (egress_own.h): its
 * nameservers, read from the guest's resolv.conf into rc, its subnets. */
static void own_rules(struct kernel *k, struct net_state *n, struct resolv_conf *rc)
{
	resolv_conf_read(k, rc);
	egress_dns_rules(n->egress, rc);
	egress_local_rules(n->egress, &n->cfg, hosts_netns());
}

int net_setup(struct kernel *k, const struct net_options *o, struct rung_error *err)
{
	struct resolv_conf rc = {0};
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
		if (ret == 0)
			own_rules(k, n, &rc);
		if (ret == 0 && mode == NET_MODE_SANDBOX)
			stack_loopback(&n->cfg);
		/* Before the stack removes anything. */
		if (ret == 0 && mode == NET_MODE_SANDBOX)
			ret = net_keeper_start(&n->cfg, o->keeper_cgroups, &n->keeper, err);
	}
	if (ret == 0 && mode != NET_MODE_HOST) {
		struct dns_relay *relay = NULL;

		/* The stack's loopback is its own: a nameserver on the
		 * namespace's (Docker's 127.0.0.11) is relayed. */
		if (mode == NET_MODE_SANDBOX)
			ret = dns_relay_open(&rc, 53, &relay, err);
		if (ret == 0)
			ret = netstack_start(k, &n->cfg, mode == NET_MODE_SANDBOX, relay, err);
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
