/*
 * A QMP client (QEMU's JSON monitor protocol) on a socket QEMU was given
 * at start: one JSON object per line; replies carry "return" or "error",
 * asynchronous events ("event") are skipped.
 */
#ifndef RUNG_MICROVM_QMP_H
#define RUNG_MICROVM_QMP_H

#include <stddef.h>

struct rung_error;

struct qmp {
	int fd;
	size_t have;
	char buf[65536];
};

/* Read the greeting and enter command mode. 0, or < 0 with err. */
int qmp_open(struct qmp *q, int fd, int timeout_ms, struct rung_error *err);

/* Run one command (a JSON object as text); passfd >= 0 goes along by
 * SCM_RIGHTS (for getfd). 0 on "return", < 0 with QEMU's error in err. */
int qmp_call(struct qmp *q, const char *cmd, int passfd, int timeout_ms, struct rung_error *err);

#endif
