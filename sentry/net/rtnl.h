/*
 * Route netlink (rtnetlink) on the current network namespace: dumps and
 * acknowledged requests, for the code that reads a namespace's
 * configuration (iface.c), removes the addresses the stack takes over
 * (lwip_link.c) and gives them back (keeper_main.c). The sentry uses it
 * only before it is confined (its filter has no netlink socket).
 */
#ifndef RUNG_NET_RTNL_H
#define RUNG_NET_RTNL_H

#include <stddef.h>

struct nlmsghdr;

/* A NETLINK_ROUTE socket (close-on-exec), or -errno. */
int rtnl_open(void);
/* One message of a dump, with the caller's argument. */
typedef void (*rtnl_msg_fn)(void *arg, const struct nlmsghdr *h);
/* Send a dump request of type (RTM_GETLINK, ...) for family and give every
 * answer to fn: 0, or -errno (the kernel's error, -EIO on a short read). */
int rtnl_dump(int fd, int type, int family, rtnl_msg_fn fn, void *arg);
/* Send req (NLM_F_REQUEST and NLM_F_ACK added) and read its
 * acknowledgement: 0, or the kernel's -errno (-ignore counts as 0). */
int rtnl_call(int fd, struct nlmsghdr *req, int ignore);
/* Append attribute type with len bytes of data to h (the caller's buffer
 * has room). */
void rtnl_attr(struct nlmsghdr *h, int type, const void *data, size_t len);

#endif
