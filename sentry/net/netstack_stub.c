/*
 * Until the user-space stack is built (the lwip branch replaces this
 * file): `sandbox` and `none` modes start with no stack, and their guest
 * AF_INET/AF_INET6 sockets get EAFNOSUPPORT (as before networking).
 */
#include "config.h"
#include "sentry/net/netstack.h"
#include "lib/error.h"
#include "lib/log.h"

#include <errno.h>

int netstack_start(struct kernel *k, const struct net_config *cfg, bool attach,
		   struct rung_error *err)
{
	(void)k;
	(void)cfg;
	(void)attach;
	(void)err;
	log_debug("the user-space network stack is not built: no AF_INET/AF_INET6 sockets "
		  "(--network=host has them)");
	return 0;
}

int netstack_socket_create(struct kernel *k, int family, int type, int protocol,
			   struct socket **out)
{
	(void)k;
	(void)family;
	(void)type;
	(void)protocol;
	(void)out;
	return -EAFNOSUPPORT;
}

void netstack_stop(struct kernel *k)
{
	(void)k;
}
