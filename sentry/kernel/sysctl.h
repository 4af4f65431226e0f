/*
 * The sysctls the guest kernel models, set from a container's config
 * (OCI linux.sysctl) before the guest runs, and shown in /proc/sys.
 */
#ifndef RUNG_SYSCTL_H
#define RUNG_SYSCTL_H

#include <stddef.h>
#include <stdint.h>

struct kernel;

/* The network sysctls a sandbox keeps (Linux's defaults until set), shown
 * under /proc/sys: --network=host checks binds of low ports and ICMP
 * sockets against them (sentry/net/inet_host.c). */
struct net_sysctl {
	uint32_t unprivileged_port_start;      /* net.ipv4.ip_unprivileged_port_start */
	uint32_t ping_group_lo, ping_group_hi; /* net.ipv4.ping_group_range */
};

/* Linux's defaults. */
void sysctl_init(struct net_sysctl *n);

/*
 * Set key (dotted, "kernel.hostname", or with slashes as under /proc/sys)
 * to value in the guest kernel k. 0; -ENOENT for a sysctl the guest kernel
 * does not model; -EINVAL for a value it does not take.
 */
int kernel_sysctl_set(struct kernel *k, const char *key, const char *value);

/* The i-th sysctl kernel_sysctl_set knows (dotted), or NULL past the last. */
const char *kernel_sysctl_name(size_t i);

#endif
