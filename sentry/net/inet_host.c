/* `--network=host` sockets (inet_host.h). */
#include "config.h"
#include "sentry/net/inet_host.h"

#include <errno.h>

int inet_host_create(struct task *t, int family, int type, int protocol, struct socket **out)
{
	(void)t;
	(void)family;
	(void)type;
	(void)protocol;
	(void)out;
	return -EAFNOSUPPORT;
}
