/*
 * A sandbox's network (k->net): the mode it runs in, the configuration of
 * its network namespace (iface.h), and its egress policy (egress.h).
 *
 *  - sandbox: guest AF_INET/AF_INET6 sockets live in the user-space stack
 *    (netstack.h), which takes the namespace's interfaces over;
 *  - host:    they are host sockets the sentry makes in the sandbox's
 *    network namespace (inet_host.h), the sentry's seccomp filter widened;
 *  - none:    the user-space stack with only its loopback.
 */
#ifndef RUNG_NET_NET_H
#define RUNG_NET_NET_H

#include <pthread.h>
#include <stdbool.h>

#include "sentry/net/iface.h"
#include "lib/list.h"

struct kernel;
struct rung_error;
struct egress_policy;
struct net_keeper;

enum net_mode { NET_MODE_SANDBOX, NET_MODE_HOST, NET_MODE_NONE };

/* The OCI annotations that set a container's mode and egress policy. */
#define NET_MODE_ANNOTATION   "dev.rung.network"
#define NET_EGRESS_ANNOTATION "dev.rung.egress"

struct net_state {
	enum net_mode mode;
	struct net_config cfg;	      /* what the guest is shown (links, addresses, routes) */
	struct egress_policy *egress; /* never NULL once set up */
	bool stack;		      /* netstack_start succeeded (netstack_stop due) */
	struct net_keeper *keeper;    /* gives back what the stack took (keeper.h), or NULL */
	/* host mode: every live host-backed socket, for /proc/net/tcp and udp
	 * (sentry/net/inet_host.c) */
	pthread_mutex_t socks_lock;
	struct list_head socks;
};

/* "sandbox", "host" or "none"; -1 for anything else. */
int net_mode_parse(const char *s, enum net_mode *out);
const char *net_mode_name(enum net_mode m);

struct net_options {
	enum net_mode mode;
	const char *egress; /* the policy (NULL or "": the default, egress.h) */
	/* NULL, or the cgroup.procs files (NULL-terminated) where the keeper
	 * of the namespace's addresses goes, out of the sandbox's cgroup. */
	char *const *keeper_cgroups;
};

/*
 * Give k its network: the egress policy, the configuration of the
 * current network namespace (only the loopback for `none`), and the
 * user-space stack for `sandbox` and `none`; in `sandbox` mode the keeper
 * of the addresses the stack takes (keeper.h) starts first. Called in the
 * sandbox's network namespace, before the sentry is confined.
 */
int net_setup(struct kernel *k, const struct net_options *o, struct rung_error *err);
/*
 * The egress policy's verdict on a guest connect (connect: true) or send
 * to the sockaddr sa (len bytes) from an AF_INET/AF_INET6 socket: 0, or
 * -ECONNREFUSED (connect) / -EACCES (a datagram's destination) when it is
 * denied (logged). Without a network set up (unit tests), everything goes.
 */
int net_egress_check(struct kernel *k, const void *sa, int len, bool connect);
/* Stop the stack, let the keeper give the namespace back what the stack
 * took, free k->net (kernel_destroy). */
void net_teardown(struct kernel *k);
/* The mode of k's network (sandbox when none was set up: unit tests). */
enum net_mode net_mode_of(const struct kernel *k);

#endif
