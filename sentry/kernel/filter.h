/* The sentry's seccomp allowlist (sentry/kernel/filter.c). */
#ifndef RUNG_FILTER_H
#define RUNG_FILTER_H

#include <seccomp.h>

struct rung_error;

/* The filter for a sentry whose memory file is memfd (for tests to inspect). */
scmp_filter_ctx sentry_filter_build(int memfd);
/* Install it on the calling process (all threads that follow inherit it). */
int sentry_filter_install(int memfd, struct rung_error *err);

#endif
