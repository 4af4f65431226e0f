/*
 * The systrap platform's objects, shared by its files:
 *  - systrap.c: the platform (probe, the stub region, the slot file);
 *  - stubproc.c: stub processes (address spaces), their injector, threads;
 *  - context.c: running a guest thread (switch_to) and the hand-off.
 */
#ifndef RUNG_SYSTRAP_H
#define RUNG_SYSTRAP_H

#include "platform/platform.h"
#include "platform/systrap/layout.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Slots of the slot file: the injectors' and guest threads' of all stubs. */
#define SYSTRAP_CHUNKS 16384

/* Where a task's sentry thread and its stub thread run (pairing.c). */
enum pair_mode {
	PAIR_AUTO,  /* policy: measured */
	PAIR_SAME,  /* both on one CPU, futex hand-offs */
	PAIR_YIELD, /* both on one CPU, polling with sched_yield before sleeping */
	PAIR_SPLIT, /* on two CPUs, polling with pause before sleeping */
	PAIR_NONE,  /* not pinned (measurements) */
};

struct systrap_platform {
	struct platform base;
	int slotfd;	/* the slot file (a memfd) */
	uint8_t *slots; /* all of it, mapped in the sentry */
	uint64_t text;	/* the stub region's code, at the same address in every stub */
	uint64_t data;	/* its slots */
	bool fsgsbase;	/* the stub reads and writes fs/gs bases without system calls */
	pthread_mutex_t lock;
	uint64_t chunk_used[SYSTRAP_CHUNKS / 64];
	uint64_t next_as_id;
	/* CPUs a task's sentry thread and its stub thread are paired on. */
	unsigned ncpus;
	int *cpus;		    /* the CPUs the sentry may use */
	unsigned *load;		    /* pairs on each */
	enum pair_mode pair_policy; /* RUNG_SYSTRAP_PAIR, default PAIR_AUTO */
	int spin;		    /* fixed polls (RUNG_SYSTRAP_SPIN), -1: adaptive */
};

struct spawner; /* platform/spawner.h */

enum slot_state {
	SLOT_FREE,
	SLOT_USED,
	SLOT_EXITING, /* told to exit; free once its thread is gone */
};

struct slot {
	enum slot_state state;
	int chunk; /* in the slot file, -1 before first use */
	pid_t tid;
};

/* One stub process: a guest address space. */
struct systrap_as {
	struct address_space base;
	uint64_t id; /* never reused: contexts remember which stub they are in */
	pid_t pid;
	int report_fd; /* read end of the injector's pipe */
	struct spawner *spawner;
	pthread_mutex_t lock; /* the injector and the slots */
	uint32_t cmd_seq;
	int injector_cpu;
	bool dead; /* a command found it gone */
	struct slot *slots;
	unsigned nslots;
};

/* One guest task: its thread in the stub it currently runs in. */
struct systrap_ctx {
	struct pcontext base;
	uint64_t as_id; /* the stub process of the thread; 0: none yet */
	pid_t pid, tid;
	unsigned index;		/* the thread's slot in that process */
	uint8_t *sp;		/* the slot's sentry page, in the sentry */
	uint8_t *st;		/* its stub page */
	uint8_t *slot;		/* the whole slot */
	uint64_t stub_slot;	/* the slot's address in the stub */
	uint32_t seq;		/* the last trap seen */
	bool started;		/* its boot trap was answered */
	uint32_t pending_flags; /* RESUME_* written but not sent yet */
	uint64_t uc;		/* the last trap's ucontext (a checked stub address) */
	uint64_t fpstate;	/* its XSAVE area, 0 if it has none */
	unsigned fpsize;
	int running;   /* waiting for the guest (atomic) */
	int interrupt; /* interrupt requested (atomic) */
	/* Guest time (context.c): the time it ran before, and since when it runs
	 * now (0: it does not), under a sequence count. */
	uint32_t acct_seq;
	uint64_t guest_ns, resumed_ns;
	/* The pairing of the task's sentry thread and its stub thread (pairing.c). */
	enum pair_mode mode;
	int cpu;	      /* the sentry thread's CPU, -1 before the first switch */
	int stub_cpu;	      /* the stub thread's when split, -1 before */
	uint32_t spin_sentry; /* polls of the trap number before the sentry sleeps */
	uint32_t spin_stub;   /* polls of the answer before the stub sleeps */
	bool yield;	      /* poll with sched_yield, not pause */
	uint64_t last_trap_ns;
	uint64_t ewma_guest_ns, ewma_sentry_ns;
	/* Measuring the mode: round trips counted in this epoch or trial, the
	 * last ones of them, the median of the last epoch before a trial. */
	bool trial;
	uint32_t epoch_len, epoch_n;
	uint32_t *recent; /* PAIR_SAMPLES round trips, in ns (a ring) */
	uint64_t base_median;
	enum pair_mode base_mode, tried;
};

/* Round trips a decision looks at (their median, robust to preemptions). */
#define PAIR_SAMPLES 256

extern const struct platform_ops systrap_platform_ops;

static inline struct systrap_platform *to_splat(struct platform *p)
{
	return (struct systrap_platform *)p;
}

/* The sentry's view of chunk c of the slot file. */
static inline uint8_t *chunk_ptr(struct systrap_platform *sp, int c)
{
	return sp->slots + (uint64_t)c * SLOT_SIZE;
}

/* systrap.c */
int systrap_chunk_alloc(struct systrap_platform *sp);
void systrap_chunk_free(struct systrap_platform *sp, int c);
/* The CPU with the fewest pairs, not exclude; counted until unpicked. */
int systrap_pick_cpu(struct systrap_platform *sp, int exclude);
void systrap_unpick_cpu(struct systrap_platform *sp, int cpu);

/* stubproc.c */
int systrap_as_new(struct platform *p, struct address_space **out);
void systrap_thread_exit(struct platform *p);
/* Give ctx a thread in as (when it has none there yet). */
int systrap_thread_new(struct systrap_as *as, struct systrap_ctx *ctx);
/* Is the stub thread tid of process pid still there? */
bool systrap_thread_alive(pid_t pid, pid_t tid);

/* context.c */
int systrap_ctx_new(struct platform *p, struct pcontext **out);

#endif
