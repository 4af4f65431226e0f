/*
 * Where a task's sentry thread and its stub thread run, and how long each
 * polls for the other before it sleeps on a futex (see pairing.c).
 */
#ifndef RUNG_SYSTRAP_PAIRING_H
#define RUNG_SYSTRAP_PAIRING_H

#include <stdint.h>

struct systrap_ctx;
struct systrap_platform;

/* Read the knobs (RUNG_SYSTRAP_PAIR, RUNG_SYSTRAP_SPIN), calibrate polling. */
void pairing_init(struct systrap_platform *sp);
/* ctx's stub thread is about to run for the first time (the calling thread
 * is ctx's sentry thread). */
void pairing_join(struct systrap_ctx *ctx);
/* One round trip: the sentry answered at resume_ns, the next trap came at
 * trap_ns. Adapts the polls. */
void pairing_account(struct systrap_ctx *ctx, uint64_t resume_ns, uint64_t trap_ns);
/* ctx is gone. */
void pairing_leave(struct systrap_ctx *ctx);

#endif
