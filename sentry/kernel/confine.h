/* Confining the sandbox process itself (sentry/kernel/confine.c). */
#ifndef RUNG_CONFINE_H
#define RUNG_CONFINE_H

#include <stdbool.h>

struct rung_error;

struct confine_opts {
	bool empty_root;   /* give up the host filesystem */
	bool seccomp;	   /* install the allowlist */
	int memfd;	   /* the memory file (the filter lets stubs map it) */
	bool host_network; /* --network=host: host AF_INET/AF_INET6 sockets */
};

int sentry_confine(const struct confine_opts *o, struct rung_error *err);

#endif
