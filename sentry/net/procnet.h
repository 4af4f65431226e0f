/*
 * /proc/net files generated from the sandbox's network configuration
 * (sentry/net/procnet.c): dev (counters are not kept: zeros), route (IPv4),
 * if_inet6, tcp/udp/tcp6/udp6 (the sockets of host mode or of the
 * user-space stack) and unix (the sandbox's unix sockets).
 */
#ifndef RUNG_NET_PROCNET_H
#define RUNG_NET_PROCNET_H

struct kernel;
struct strbuf;

void procnet_dev(struct kernel *k, struct strbuf *o);
void procnet_route(struct kernel *k, struct strbuf *o);
void procnet_if_inet6(struct kernel *k, struct strbuf *o);
/* family: AF_INET (tcp, udp) or AF_INET6 (tcp6, udp6). */
void procnet_tcp(struct kernel *k, int family, struct strbuf *o);
void procnet_udp(struct kernel *k, int family, struct strbuf *o);
void procnet_unix(struct kernel *k, struct strbuf *o);

#include <stdbool.h>

/* /proc/sys/net files of the user-space stack (read-only: lwIP fixes them
 * when it is built). In host mode the host's stack applies, whose settings
 * the sandbox does not know: the files are not there. */
bool procnet_has_stack_sysctls(struct kernel *k);
/* net/<name> ("ipv4/tcp_sack"): "value\n". */
void procnet_sysctl(struct kernel *k, const char *name, struct strbuf *o);

#endif
