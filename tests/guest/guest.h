/*
 * Helpers for guest test programs. A guest test prints only what is the same
 * natively and in the sandbox (no pids, addresses or times), one fact per
 * line, and exits with a status that says whether its checks passed.
 */
#ifndef RUNG_GUEST_H
#define RUNG_GUEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int guest_failures;

/* Print "ok: what" or "FAIL: what (detail)" and count failures. */
#define CHECK(cond, what)                                                                  \
	do {                                                                               \
		if (cond) {                                                                \
			printf("ok: %s\n", what);                                          \
		} else {                                                                   \
			printf("FAIL: %s (%s:%d, errno %d)\n", what, __FILE__, __LINE__, errno); \
			guest_failures++;                                                  \
		}                                                                          \
		fflush(stdout);                                                            \
	} while (0)

/* The exit status of a test whose checks are done. */
#define GUEST_DONE() (guest_failures ? 1 : 0)

#endif
