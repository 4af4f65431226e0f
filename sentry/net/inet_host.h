/*
 * `--network=host`: guest AF_INET/AF_INET6 sockets are host sockets the
 * sentry makes in the sandbox's network namespace, guest data copied
 * through the sentry (sentry/net/inet_host.c).
 */
#ifndef RUNG_NET_INET_HOST_H
#define RUNG_NET_INET_HOST_H

struct socket;
struct task;

/* A new host-backed socket (type without flags); -errno as Linux. */
int inet_host_create(struct task *t, int family, int type, int protocol, struct socket **out);

#endif
