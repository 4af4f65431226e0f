/*
 * The keeper of a network namespace's addresses. In `sandbox` mode the
 * user-space stack takes the namespace's Ethernet interfaces over and
 * removes the host kernel's addresses from them (lwip_link.c); routes
 * through them (a default route via a gateway) vanish with the last
 * address. Where the namespace outlives the sandbox (a `rung do --netns`
 * of `ip netns add`, a container's joined path), they must come back when
 * the sandbox ends, however it ends: the confined sentry cannot do it (no
 * CAP_NET_ADMIN, no netlink in its filter), and a SIGKILLed one does
 * nothing at all.
 *
 * So before the sentry removes anything it starts the keeper, `rung
 * netkeep` (a re-exec of this binary, in the same network namespace, with
 * CAP_NET_ADMIN alone): it copies the addresses of those interfaces and
 * the routes through them, says so, then blocks reading a socket whose
 * other end only the sentry holds. End of file there, when the sentry
 * closes it (net_keeper_release) or dies, is its cue: it adds back every
 * address and route still missing, and exits.
 */
#ifndef RUNG_NET_KEEPER_H
#define RUNG_NET_KEEPER_H

#include <stddef.h>
#include <sys/types.h>

struct net_config;
struct net_keeper;
struct rung_error;

/*
 * Start the keeper for the interfaces of cfg (read from the current
 * network namespace) that the stack takes over and that have addresses;
 * none of them: *out is NULL and nothing starts. cgroups: NULL, or the
 * cgroup.procs files (NULL-terminated) the keeper moves itself into
 * first, out of the sandbox's cgroup, whose `kill --all` and `delete
 * --force` must not end it. Returns once the keeper holds its copy.
 */
int net_keeper_start(const struct net_config *cfg, char *const *cgroups, struct net_keeper **out,
		     struct rung_error *err);
/* The sandbox is over (the stack's interfaces are closed): let the
 * keeper give everything back, and wait until it has. NULL: nothing. */
void net_keeper_release(struct net_keeper *k);

/* Start `rung netkeep` for interfaces ifs, sock its end of the socket,
 * as a child of this process, in the current network namespace or (netns
 * >= 0) in netns; log: its stderr. Its pid, or -errno. (The sentry, and
 * rung do's supervisor for a sentry in a PID namespace: outside.h.) */
pid_t net_keeper_spawn(const int *ifs, size_t nifs, char *const *cgroups, int sock, int netns,
		       int log);

/* The keeper process: rung netkeep [--level N] [--cgroup FILE]... IFINDEX...
 * with the socket to the sentry as fd 3 (keeper_main.c). */
int net_keeper_main(int argc, char **argv);

#endif
