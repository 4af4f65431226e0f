/*
 * Pairing a task's sentry thread with its stub thread.
 *
 * Every guest system call is two hand-offs, stub to sentry and back. What
 * they cost on a small VM (docs/systrap.md has the figures): a futex
 * wake-up of a thread on the same CPU is a few microseconds; one that has
 * to wake another, idle vCPU is tens to hundreds; polling for a partner on
 * the same CPU only burns the time the partner needs; polling for a partner
 * that is running on another CPU answers in well under a microsecond.
 *
 * So a pair starts on one CPU (the one with the fewest pairs), both threads
 * pinned there, handing off through the futex alone ("same"). Polling pays
 * only with the two on different CPUs ("split"), and only for a task that
 * makes system calls often, and only while the other CPU has time for it.
 * That is measured, not guessed: a task that traps often enough tries the
 * split for a short trial now and then, and keeps it only if its round
 * trips got clearly shorter (medians: a preemption must not decide); a
 * split pair tries going back the same way.
 * Trials back off while they keep failing. In the split each side polls
 * for a few times what the other side usually takes (bounded), then sleeps.
 *
 * RUNG_SYSTRAP_PAIR=same|split|none fixes the mode (none: no pinning, the
 * scheduler places both); RUNG_SYSTRAP_SPIN=N fixes the polls. Both are for
 * measurements.
 */
#include "config.h"
#include "platform/systrap/pairing.h"
#include "platform/systrap/systrap.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Polling bounds, in nanoseconds. */
#define POLL_MIN_NS 4000ull
#define POLL_MAX_NS 40000ull
/* Only tasks whose round trips are shorter than this try the split. */
#define SPLIT_PERIOD_MAX_NS 100000ull
/* Round trips per trial (the first few, while threads migrate, not counted). */
#define TRIAL_TRAPS  256
#define TRIAL_SETTLE 32
#define EPOCH_MIN    1024
#define EPOCH_MAX    65536
/* The split must make round trips this much shorter to be kept (it costs a
 * second CPU while it polls). */
#define SPLIT_GAIN_NUM 17
#define SPLIT_GAIN_DEN 20

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

	sp->pair_policy = PAIR_AUTO;
	if (pair && strcmp(pair, "same") == 0)
		sp->pair_policy = PAIR_SAME;
	else if (pair && strcmp(pair, "split") == 0)
		sp->pair_policy = PAIR_SPLIT;
	else if (pair && strcmp(pair, "none") == 0)
		sp->pair_policy = PAIR_NONE;
	if (sp->ncpus < 2 && sp->pair_policy != PAIR_NONE)
		sp->pair_policy = PAIR_SAME;
	sp->spin = spin && *spin ? atoi(spin) : -1;
	calibrate();
	log_debug("systrap: pairing %s, polls %s (%.1f ns each)",
		  sp->pair_policy == PAIR_AUTO	  ? "measured (same CPU first)"
		  : sp->pair_policy == PAIR_SAME  ? "on one CPU"
		  : sp->pair_policy == PAIR_SPLIT ? "on two CPUs"
						  : "left to the scheduler",
		  sp->spin >= 0 ? "fixed" : "adaptive", ns_per_poll);
}

static uint32_t polls_for(uint64_t ns)
{
	return (uint32_t)((double)MIN(MAX(ns, POLL_MIN_NS), POLL_MAX_NS) / ns_per_poll);
}

static void pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(tid, sizeof(set), &set);
}

/* The polls for the current mode and what each side usually takes. */
static void set_polls(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (sp->spin >= 0) {
		ctx->spin_sentry = ctx->spin_stub = (uint32_t)sp->spin;
	} else if (ctx->mode == PAIR_SAME) {
		ctx->spin_sentry = ctx->spin_stub = 0;
	} else {
		ctx->spin_sentry = polls_for(ctx->ewma_guest_ns * 3);
		ctx->spin_stub = polls_for(ctx->ewma_sentry_ns * 3);
	}
}

/* Put the stub thread where mode wants it. */
static void enter_mode(struct systrap_ctx *ctx, enum pair_mode mode)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (mode != ctx->mode && ctx->last_trap_ns)
		log_debug("systrap: thread %d: %s%s (round trip %llu ns)", ctx->tid,
			  mode == PAIR_SPLIT ? "split" : "same CPU", ctx->trial ? " (trial)" : "",
			  (unsigned long long)ctx->base_median);
	ctx->mode = mode;
	if (mode == PAIR_SAME) {
		pin(ctx->tid, ctx->cpu);
	} else if (mode == PAIR_SPLIT) {
		if (ctx->stub_cpu < 0)
			ctx->stub_cpu = systrap_pick_cpu(sp, ctx->cpu);
		pin(ctx->tid, ctx->stub_cpu);
	}
	set_polls(ctx);
}

void pairing_join(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (sp->pair_policy == PAIR_NONE) {
		ctx->mode = PAIR_NONE;
		ctx->spin_sentry = ctx->spin_stub = polls_for(sp->spin >= 0 ? 0 : POLL_MAX_NS / 2);
		if (sp->spin >= 0)
			ctx->spin_sentry = ctx->spin_stub = (uint32_t)sp->spin;
		return;
	}
	if (ctx->cpu < 0) {
		ctx->cpu = systrap_pick_cpu(sp, -1);
		pin(0, ctx->cpu);
	}
	/* A new stub thread (the task exec'd or forked): start over. */
	ctx->epoch_len = EPOCH_MIN;
	ctx->epoch_n = 0;
	ctx->trial = false;
	if (!ctx->recent)
		ctx->recent = xzalloc(PAIR_SAMPLES * sizeof(*ctx->recent));
	ctx->last_trap_ns = 0;
	/* The stub thread's id came from the stub, but it was checked to be a
	 * thread of the stub process (systrap_thread_new). */
	enter_mode(ctx, sp->pair_policy == PAIR_SPLIT ? PAIR_SPLIT : PAIR_SAME);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of the last n (<= PAIR_SAMPLES) round trips. */
static uint64_t recent_median(struct systrap_ctx *ctx, uint32_t n)
{
	uint32_t copy[PAIR_SAMPLES];

	n = MIN(n, PAIR_SAMPLES);
	for (uint32_t i = 0; i < n; i++)
		copy[i] = ctx->recent[(ctx->epoch_n - 1 - i) % PAIR_SAMPLES];
	qsort(copy, n, sizeof(copy[0]), cmp_u32);
	return n ? copy[n / 2] : 0;
}

/* An epoch or trial ended with median round trip median: decide the mode. */
static void decide(struct systrap_ctx *ctx, uint64_t median)
{
	enum pair_mode other = ctx->mode == PAIR_SAME ? PAIR_SPLIT : PAIR_SAME;

	if (!ctx->trial) {
		ctx->base_median = median;
		/* Only a task that traps often has anything to gain. */
		if (ctx->mode == PAIR_SAME && median > SPLIT_PERIOD_MAX_NS) {
			ctx->epoch_len = MIN(ctx->epoch_len * 2, EPOCH_MAX);
			return;
		}
		ctx->trial = true;
		enter_mode(ctx, other);
		return;
	}
	ctx->trial = false;
	log_debug("systrap: thread %d: trial on %s: round trip %llu ns (%llu before)", ctx->tid,
		  ctx->mode == PAIR_SPLIT ? "two CPUs" : "one CPU", (unsigned long long)median,
		  (unsigned long long)ctx->base_median);
	/* The trial ran in ctx->mode; base_median was measured in the other. */
	if (ctx->mode == PAIR_SPLIT) {
		if (median * SPLIT_GAIN_DEN < ctx->base_median * SPLIT_GAIN_NUM) {
			ctx->epoch_len = EPOCH_MIN; /* keep it, and look again soon */
			return;
		}
	} else if (ctx->base_median * SPLIT_GAIN_DEN < median * SPLIT_GAIN_NUM) {
		/* The split is still clearly better: back to it. */
	} else {
		ctx->epoch_len = EPOCH_MIN;
		return; /* the same CPU does as well: stay */
	}
	ctx->epoch_len = MIN(ctx->epoch_len * 2, EPOCH_MAX);
	enter_mode(ctx, other);
}

void pairing_account(struct systrap_ctx *ctx, uint64_t resume_ns, uint64_t trap_ns)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);
	uint64_t guest = trap_ns - resume_ns, period;
	uint32_t len;

	ctx->ewma_guest_ns = (ctx->ewma_guest_ns * 7 + guest) / 8;
	if (!ctx->last_trap_ns) {
		ctx->last_trap_ns = trap_ns;
		return;
	}
	ctx->ewma_sentry_ns = (ctx->ewma_sentry_ns * 7 + (resume_ns - ctx->last_trap_ns)) / 8;
	period = trap_ns - ctx->last_trap_ns;
	ctx->last_trap_ns = trap_ns;
	if (ctx->mode == PAIR_SPLIT || ctx->mode == PAIR_NONE) {
		if (sp->spin < 0 && ctx->mode == PAIR_SPLIT)
			set_polls(ctx);
	}
	if (sp->pair_policy != PAIR_AUTO)
		return;
	len = ctx->trial ? TRIAL_TRAPS : ctx->epoch_len;
	ctx->recent[ctx->epoch_n % PAIR_SAMPLES] = (uint32_t)MIN(period, UINT32_MAX);
	if (++ctx->epoch_n < len)
		return;
	{
		/* A trial's first round trips (while the threads migrate) do not count. */
		uint64_t median = recent_median(ctx, ctx->trial ? len - TRIAL_SETTLE : len);
		ctx->epoch_n = 0;
		decide(ctx, median);
	}
}

void pairing_leave(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (ctx->cpu >= 0)
		systrap_unpick_cpu(sp, ctx->cpu);
	if (ctx->stub_cpu >= 0)
		systrap_unpick_cpu(sp, ctx->stub_cpu);
	ctx->cpu = ctx->stub_cpu = -1;
	free(ctx->recent);
	ctx->recent = NULL;
}
