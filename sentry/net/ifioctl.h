/*
 * The interface ioctls of any socket (SIOCGIFCONF, SIOCGIFADDR,
 * SIOCGIFFLAGS, SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFMTU, SIOCGIFHWADDR,
 * SIOCGIFNETMASK, SIOCGIFBRDADDR, SIOCGIFTXQLEN), answered from the sandbox's network
 * configuration (sentry/net/ifioctl.c). Setting anything is not supported.
 */
#ifndef RUNG_NET_IFIOCTL_H
#define RUNG_NET_IFIOCTL_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* Is cmd one of them? */
bool ifioctl_is(unsigned long cmd);
/* Answer cmd with its argument at the guest address arg; 0 or -errno. */
long ifioctl(struct task *t, unsigned long cmd, uint64_t arg);

#endif
