/* The user-space stack's sockets in /proc/net/{tcp,tcp6,udp,udp6} and its
 * settings under /proc/sys/net (sentry/net/netstack_proc.c, for procnet.c). */
#ifndef RUNG_NET_NETSTACK_PROC_H
#define RUNG_NET_NETSTACK_PROC_H

struct kernel;
struct strbuf;

/* The lines of the stack's sockets of family (AF_INET: tcp, udp; AF_INET6:
 * tcp6, udp6) and type (SOCK_STREAM or SOCK_DGRAM), after the header. */
void netstack_proc(struct kernel *k, int family, int type, struct strbuf *o);

#include <stdbool.h>

/* The stack's value of the sysctl net/<name> ("ipv4/tcp_sack"), fixed
 * when lwIP was built: true and *out, or false for one it does not have. */
bool netstack_sysctl(const char *name, long *out);

#endif
