/* OCI hooks (prestart, createRuntime, ..., poststop). */
#ifndef RUNG_HOOKS_H
#define RUNG_HOOKS_H

#include <stddef.h>

struct rung_error;
struct oci_hook;

/* Run hooks in order with the state JSON on their stdin; the first failure
 * (exit status, signal, timeout) stops and is returned, naming stage. */
int hooks_run(const struct oci_hook *hooks, size_t n, const char *state, const char *stage,
	      struct rung_error *err);

#endif
