/* The sentry's seccomp allowlist (sentry/kernel/filter.c). */
#ifndef RUNG_FILTER_H
#define RUNG_FILTER_H

#include <seccomp.h>
#include <stdbool.h>

struct rung_error;

/* The filter for a sentry whose memory file is memfd (for tests to
 * inspect); host_network: widened for --network=host's host sockets. The
 * signals it may send itself name the calling process's pid. */
scmp_filter_ctx sentry_filter_build(int memfd, bool host_network);
/* Install it on the calling process (all threads that follow inherit it). */
int sentry_filter_install(int memfd, bool host_network, struct rung_error *err);

#endif
