#include "config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rung_error_makev(struct rung_error *err, int status, const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (err) {
		free(err->msg);
		err->msg = msg;
		err->status = status;
	} else {
		free(msg);
	}
	return -status - 1;
}

int rung_error_make(struct rung_error *err, int status, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rung_error_makev(err, status, fmt, ap);
	va_end(ap);
	return ret;
}

int rung_error_wrap(struct rung_error *err, const char *fmt, ...)
{
	char *ctx = NULL, *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&ctx, fmt, ap) < 0)
		ctx = NULL;
	va_end(ap);
	if (ctx && asprintf(&msg, "%s: %s", ctx, err->msg ? err->msg : "(null)") >= 0) {
		free(err->msg);
		err->msg = msg;
	}
	free(ctx);
	return -err->status - 1;
}

char *rung_error_string(const struct rung_error *err)
{
	char *s = NULL;
	const char *msg = err->msg ? err->msg : "unknown error";

	if (err->status > 0) {
		if (asprintf(&s, "%s: %s", msg, strerror(err->status)) < 0)
			s = NULL;
	} else {
		s = strdup(msg);
	}
	return s;
}

void rung_error_release(struct rung_error *err)
{
	free(err->msg);
	err->msg = NULL;
	err->status = 0;
}

void rung_error_print(struct rung_error *err, const char *prefix)
{
	char *s = rung_error_string(err);
	const char *text = s ? s : "out of memory";

	if (prefix)
		rung_log(LOG_LEVEL_ERROR, "%s: %s", prefix, text);
	else
		rung_log(LOG_LEVEL_ERROR, "%s", text);
	/* The shim reads the log file; a person reads stderr: tell both. */
	if (!rung_log_to_stderr())
		fprintf(stderr, "rung: %s%s%s\n", prefix ? prefix : "", prefix ? ": " : "", text);
	free(s);
	rung_error_release(err);
}
