/*
 * `--network=host`: guest AF_INET/AF_INET6 sockets are host sockets the
 * sentry makes in the sandbox's network namespace, guest data copied
 * through the sentry (sentry/net/inet_host.c).
 */
#ifndef RUNG_NET_INET_HOST_H
#define RUNG_NET_INET_HOST_H

struct kernel;
struct socket;
struct strbuf;
struct task;

/* A new host-backed socket (type without flags); -errno as Linux. */
int inet_host_create(struct task *t, int family, int type, int protocol, struct socket **out);

/* The lines of /proc/net/tcp (type SOCK_STREAM) or udp (SOCK_DGRAM), and
 * of tcp6/udp6 (family AF_INET6), for k's host-backed sockets (the header
 * is the caller's). */
void inet_host_proc(struct kernel *k, int family, int type, struct strbuf *o);

#endif
