/*
 * The error object of the runtime/CLI layer (crun style).
 *
 * A function that can fail returns < 0 and fills *err; the caller either
 * propagates the return value unchanged or wraps the error with context.
 * The top level prints it once. Kernel (sentry syscall) paths never use this:
 * they return -errno.
 */
#ifndef RUNG_ERROR_H
#define RUNG_ERROR_H

#include <stdarg.h>

struct rung_error {
	int status; /* errno value, 0 if none applies */
	char *msg;  /* heap-allocated, owned by the error */
};

/* Fill *err (freeing any previous message) and return -status - 1 (< 0). */
int rung_error_make(struct rung_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rung_error_makev(struct rung_error *err, int status, const char *fmt, va_list ap);

/* Prepend context: "ctx: old message". Returns the same negative value as make. */
int rung_error_wrap(struct rung_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The message including strerror(status) when status != 0. Caller frees. */
char *rung_error_string(const struct rung_error *err);

void rung_error_release(struct rung_error *err);

/* Log the error once at level error and release it. */
void rung_error_print(struct rung_error *err, const char *prefix);

#endif
