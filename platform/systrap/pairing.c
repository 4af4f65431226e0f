/*
 * Pairing a task's sentry thread with its stub thread.
 *
 * Every guest system call is two hand-offs, stub to sentry and back. What
 * they cost on a small VM (docs/systrap.md has the figures): a futex
 * wake-up of a thread on the same CPU is a few microseconds; one that has
 * to wake another, idle vCPU is tens to hundreds; polling with pause for a
 * partner on the same CPU only burns the time the partner needs; polling
 * with sched_yield for one on the same CPU hands it the CPU at once, about
 * twice as fast as the futex, but only while no other process wants that
 * CPU; polling for a partner running on another CPU answers in well under
 * a microsecond.
 *
 * So a pair starts on one CPU (the one with the fewest pairs), both threads
 * pinned there, handing off through the futex alone ("same"). The other
 * ways pay only for a task that makes system calls often, and only while
 * the machine has room for them: on one CPU, polling with sched_yield
 * ("yield"); on two CPUs, polling with pause ("split"). That is measured,
 * not guessed: a task that traps often enough tries one of the others for
 * a short trial now and then and keeps it only if its round trips got
 * clearly shorter (medians: a preemption must not decide); trials back off
 * while they keep failing. Polling is bounded by a few times what the other
 * side usually takes; after that the waiter sleeps on the futex.
 *
 * RUNG_SYSTRAP_PAIR=same|yield|split|none fixes the mode (none: no pinning,
 * the scheduler places both); RUNG_SYSTRAP_SPIN=N fixes the polls. Both are
 * for measurements.
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
/* Only tasks whose round trips are shorter than this poll at all. */
#define BUSY_PERIOD_MAX_NS 100000ull
/* Round trips per trial (the first few, while threads migrate, not counted). */
#define TRIAL_TRAPS  256
#define TRIAL_SETTLE 32
#define EPOCH_MIN    1024
#define EPOCH_MAX    65536
/* A trial must make round trips this much shorter to be kept (polling
 * costs CPU time that others might have used). */
#define GAIN_NUM 17
#define GAIN_DEN 20

static double ns_per_pause = 10.0, ns_per_yield = 300.0;

/* How long one iteration of each poll loop takes here. */
static void calibrate(void)
{
	volatile uint32_t word = 0;
	uint64_t t0, t1;
	const unsigned n = 20000, m = 500;

	t0 = monotonic_ns();
	for (unsigned i = 0; i < n; i++) {
		if (word)
			break;
		__builtin_ia32_pause();
	}
	t1 = monotonic_ns();
	if (t1 > t0)
		ns_per_pause = MAX((double)(t1 - t0) / n, 1.0);
	t0 = monotonic_ns();
	for (unsigned i = 0; i < m; i++)
		sched_yield();
	t1 = monotonic_ns();
	if (t1 > t0)
		ns_per_yield = MAX((double)(t1 - t0) / m, 50.0);
}

static const char *mode_name(enum pair_mode m)
{
	switch (m) {
	case PAIR_SAME:
		return "one CPU, futex";
	case PAIR_YIELD:
		return "one CPU, yielding";
	case PAIR_SPLIT:
		return "two CPUs, polling";
	case PAIR_NONE:
		return "unpinned";
	default:
		return "measured";
	}
}

void pairing_init(struct systrap_platform *sp)
{
	static const char *const names[] = {"auto", "same", "yield", "split", "none"};
	const char *pair = getenv("RUNG_SYSTRAP_PAIR"), *spin = getenv("RUNG_SYSTRAP_SPIN");

	sp->pair_policy = PAIR_AUTO;
	for (unsigned i = 0; pair && i < ARRAY_SIZE(names); i++)
		if (strcmp(pair, names[i]) == 0)
			sp->pair_policy = (enum pair_mode)i;
	if (sp->ncpus < 2 && sp->pair_policy == PAIR_SPLIT)
		sp->pair_policy = PAIR_SAME;
	sp->spin = spin && *spin ? atoi(spin) : -1;
	calibrate();
	log_debug("systrap: pairs: %s, polls %s (pause %.0f ns, sched_yield %.0f ns)",
		  mode_name(sp->pair_policy), sp->spin >= 0 ? "fixed" : "adaptive", ns_per_pause,
		  ns_per_yield);
}

static uint32_t polls_for(uint64_t ns, double each)
{
	return (uint32_t)((double)MIN(MAX(ns, POLL_MIN_NS), POLL_MAX_NS) / each);
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
	double each = ctx->mode == PAIR_YIELD ? ns_per_yield : ns_per_pause;

	ctx->yield = ctx->mode == PAIR_YIELD;
	if (sp->spin >= 0) {
		ctx->spin_sentry = ctx->spin_stub = (uint32_t)sp->spin;
	} else if (ctx->mode == PAIR_SAME) {
		ctx->spin_sentry = ctx->spin_stub = 0;
	} else {
		ctx->spin_sentry = polls_for(ctx->ewma_guest_ns * 3, each);
		ctx->spin_stub = polls_for(ctx->ewma_sentry_ns * 3, each);
	}
}

/* Put the stub thread where mode wants it. */
static void enter_mode(struct systrap_ctx *ctx, enum pair_mode mode)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	if (mode != ctx->mode && ctx->last_trap_ns)
		log_debug("systrap: thread %d: %s%s", ctx->tid, mode_name(mode),
			  ctx->trial ? " (trial)" : "");
	ctx->mode = mode;
	if (mode == PAIR_SPLIT) {
		if (ctx->stub_cpu < 0)
			ctx->stub_cpu = systrap_pick_cpu(sp, ctx->cpu);
		pin(ctx->tid, ctx->stub_cpu);
	} else if (mode != PAIR_NONE) {
		pin(ctx->tid, ctx->cpu);
	}
	set_polls(ctx);
}

void pairing_join(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);

	ctx->last_trap_ns = 0;
	if (sp->pair_policy == PAIR_NONE) {
		ctx->mode = PAIR_NONE;
		ctx->spin_sentry = ctx->spin_stub =
			sp->spin >= 0 ? (uint32_t)sp->spin
				      : polls_for(POLL_MAX_NS / 2, ns_per_pause);
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
	/* The stub thread's id came from the stub, but it was checked to be a
	 * thread of the stub process (systrap_thread_new). */
	enter_mode(ctx, sp->pair_policy == PAIR_AUTO ? PAIR_SAME : sp->pair_policy);
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

/* The next way to try after the last one tried, other than the current. */
static enum pair_mode next_trial(struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);
	enum pair_mode m = ctx->tried;

	for (int i = 0; i < 3; i++) {
		m = m == PAIR_SAME ? PAIR_YIELD : m == PAIR_YIELD ? PAIR_SPLIT : PAIR_SAME;
		if (m != ctx->mode && !(m == PAIR_SPLIT && sp->ncpus < 2))
			break;
	}
	ctx->tried = m;
	return m;
}

/* An epoch or trial ended with round trips of this median: decide the mode. */
static void decide(struct systrap_ctx *ctx, uint64_t median)
{
	if (!ctx->trial) {
		ctx->base_median = median;
		ctx->base_mode = ctx->mode;
		/* Only a task that traps often has anything to gain from polling. */
		if (median > BUSY_PERIOD_MAX_NS) {
			ctx->epoch_len = MIN(ctx->epoch_len * 2, EPOCH_MAX);
			if (ctx->mode != PAIR_SAME)
				enter_mode(ctx, PAIR_SAME);
			return;
		}
		ctx->trial = true;
		enter_mode(ctx, next_trial(ctx));
		return;
	}
	ctx->trial = false;
	log_debug("systrap: thread %d: trial of %s: round trip %llu ns, %llu ns with %s", ctx->tid,
		  mode_name(ctx->mode), (unsigned long long)median,
		  (unsigned long long)ctx->base_median, mode_name(ctx->base_mode));
	if (median * GAIN_DEN < ctx->base_median * GAIN_NUM) {
		ctx->epoch_len = EPOCH_MIN; /* keep it, and look again soon */
		return;
	}
	ctx->epoch_len = MIN(ctx->epoch_len * 2, EPOCH_MAX);
	enter_mode(ctx, ctx->base_mode);
}

void pairing_account(struct systrap_ctx *ctx, uint64_t resume_ns, uint64_t trap_ns)
{
	struct systrap_platform *sp = to_splat(ctx->base.plat);
	uint64_t period;
	uint32_t len;

	ctx->ewma_guest_ns = (ctx->ewma_guest_ns * 7 + (trap_ns - resume_ns)) / 8;
	if (!ctx->last_trap_ns) {
		ctx->last_trap_ns = trap_ns;
		return;
	}
	ctx->ewma_sentry_ns = (ctx->ewma_sentry_ns * 7 + (resume_ns - ctx->last_trap_ns)) / 8;
	period = trap_ns - ctx->last_trap_ns;
	ctx->last_trap_ns = trap_ns;
	if (ctx->mode == PAIR_YIELD || ctx->mode == PAIR_SPLIT)
		set_polls(ctx);
	if (sp->pair_policy != PAIR_AUTO)
		return;
	len = ctx->trial ? TRIAL_TRAPS : ctx->epoch_len;
	ctx->recent[ctx->epoch_n % PAIR_SAMPLES] = (uint32_t)MIN(period, UINT32_MAX);
	if (++ctx->epoch_n < len)
		return;
	/* A trial's first round trips (while the threads migrate) do not count. */
	period = recent_median(ctx, ctx->trial ? len - TRIAL_SETTLE : len);
	ctx->epoch_n = 0;
	decide(ctx, period);
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
