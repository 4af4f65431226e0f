/*
 * AF_NETLINK sockets of the guest: NETLINK_ROUTE only, served by the
 * sentry from the sandbox's network configuration (sentry/net/netlink.c).
 */
#ifndef RUNG_NET_NETLINK_H
#define RUNG_NET_NETLINK_H

struct socket;
struct task;

/* type: SOCK_RAW or SOCK_DGRAM; protocol: NETLINK_ROUTE (else
 * EPROTONOSUPPORT). */
int netlink_create(struct task *t, int type, int protocol, struct socket **out);

#endif
