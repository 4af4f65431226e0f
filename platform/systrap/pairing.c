/*
 * Pairing a task's sentry thread with its stub thread.
 *
 * Every guest system call is two hand-offs, stub to sentry and back. What
 * they cost on this kind of machine (docs/systrap.md has the figures): a
 * futex wake-up of a thread on the same CPU is a few microseconds, one that
 * wakes another (idle) vCPU is tens to hundreds, and polling for a partner
 * that runs on the same CPU only burns the time the partner needs. So by
 * default both threads of a pair are pinned to one CPU (the one with the
 * fewest pairs) and hand off through the futex alone: the waker makes the
 * other runnable right there, and the switch is all the cost.
 *
 * Polling pays only when the two run on different CPUs; then each side
 * polls for about twice the time the other side usually takes (measured
 * per task, bounded), and sleeps after that. That is the unpinned mode
 * (RUNG_SYSTRAP_PAIR=0). RUNG_SYSTRAP_SPIN=N fixes the polls instead (for
 * measurements).
 */
#include "config.h"
#include "platform/systrap/pairing.h"
#include "platform/systrap/systrap.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

/* The longest a side polls, in nanoseconds. */
#define POLL_MAX_NS 50000ull

static double ns_per_poll = 10.0;

/* How long one iteration of a poll loop (a load and a pause) takes here. */
static void calibrate(void)
{
	volatile uint32_t word = 0;
	uint64_t t0, t1;
	const unsigned n = 20000;

	t0 = monotonic_ns();
	for (unsigned i = 0; i < n; i++) {
		if (word)
			break;
		__builtin_ia32_pause();
	}
	t1 = monotonic_ns();
	if (t1 > t0)
		ns_per_poll = MAX((double)(t1 - t0) / n, 1.0);
}

void pairing_init(struct systrap_platform *sp)
{
	const char *pair = getenv("RUNG_SYSTRAP_PAIR"), *spin = getenv("RUNG_SYSTRAP_SPIN");

	sp->pair = !(pair && *pair == '0');
	sp->spin = spin && *spin ? atoi(spin) : -1;
	calibrate();
	log_debug("systrap: pairs %s, polls %s (%.1f ns each)",
		  sp->pair ? "pinned to one CPU" : "left to the scheduler",
		  sp->spin >= 0 ? "fixed" : "adaptive", ns_per_poll);
}

static uint32_t polls_for(uint64_t ns)
{
	return (uint32_t)((double)MIN(ns, POLL_MAX_NS) / ns_per_poll);
}

static void pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(tid, sizeof(set), &set);
}

void pairing_join(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (sp->spin >= 0) {
		ctx->spin_sentry = ctx->spin_stub = (uint32_t)sp->spin;
	} else if (!sp->pair) {
		ctx->spin_sentry = ctx->spin_stub = polls_for(POLL_MAX_NS / 4);
	}
	if (!sp->pair)
		return;
	if (ctx->cpu < 0) {
		ctx->cpu = systrap_pick_cpu(sp);
		if (ctx->cpu < 0)
			return;
		pin(0, ctx->cpu);
	}
	/* The stub thread's id came from the stub, but it was checked to be a
	 * thread of the stub process (systrap_thread_new). */
	pin(ctx->tid, ctx->cpu);
}

void pairing_account(struct systrap_ctx *ctx, uint64_t resume_ns, uint64_t trap_ns)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);
	uint64_t guest = trap_ns - resume_ns;

	if (ctx->last_trap_ns) {
		uint64_t sentry = resume_ns - ctx->last_trap_ns;
		ctx->ewma_sentry_ns = (ctx->ewma_sentry_ns * 7 + sentry) / 8;
	}
	ctx->ewma_guest_ns = (ctx->ewma_guest_ns * 7 + guest) / 8;
	ctx->last_trap_ns = trap_ns;
	if (sp->pair || sp->spin >= 0)
		return;
	/* Poll for twice what the other side usually takes; not at all when
	 * that is longer than polling may last. */
	ctx->spin_sentry =
		ctx->ewma_guest_ns * 2 > POLL_MAX_NS ? 0 : polls_for(ctx->ewma_guest_ns * 2);
	ctx->spin_stub =
		ctx->ewma_sentry_ns * 2 > POLL_MAX_NS ? 0 : polls_for(ctx->ewma_sentry_ns * 2);
}

void pairing_leave(struct systrap_ctx *ctx)
{
	if (ctx->cpu >= 0)
		systrap_unpick_cpu(to_splat(ctx->base.plat), ctx->cpu);
	ctx->cpu = -1;
}
