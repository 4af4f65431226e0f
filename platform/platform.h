/*
 * The platform interface: how guest code is run and how its address space
 * is mapped. The platform delivers events (syscall, fault, interrupt); the
 * sentry decides what they mean.
 *
 * Three objects, each an ops table plus the implementation's state:
 *  - struct platform: one per sandbox (ptrace, later systrap and kvm);
 *  - struct address_space: one per guest mm; maps windows of the memory file
 *    at fixed guest addresses;
 *  - struct pcontext: one per guest task; switch() runs the task's guest code.
 *
 * Kernel-path operations return -errno; setup returns < 0 with a rung_error.
 */
#ifndef RUNG_PLATFORM_H
#define RUNG_PLATFORM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct rung_error;
struct memfile;
struct platform;
struct address_space;
struct pcontext;

/*
 * Guest address-space layout. Guests get [GUEST_MIN_ADDR, GUEST_MAX_ADDR);
 * the top of the host's user range above GUEST_MAX_ADDR is the platform's
 * (stub code), exactly as gVisor reserves the top 1/128 of it.
 */
#define GUEST_PAGE_SIZE 4096ul
#define GUEST_MIN_ADDR	0x10000ul
#define GUEST_MAX_ADDR	0x7f0000000000ul
#define HOST_TASK_SIZE	0x7ffffffff000ul

/* Guest register state as the task sees it. */
struct cpu_state {
	struct user_regs_struct regs;
	/* Which parts of regs hold the guest's values (CPU_REGS_*). */
	unsigned valid;
	/* Which parts the sentry changed and the platform must write back. */
	unsigned dirty;
	/* Reset the FPU/SSE/AVX state to its power-on values (execve). */
	bool fpu_reset;
	/* The FPU/SSE/AVX state in XSAVE layout (platform->fpu_size bytes, the
	 * task's buffer): fpu_valid when it holds the guest's current state,
	 * fpu_dirty when the sentry changed it and the platform must load it. */
	uint8_t *fpu;
	bool fpu_valid, fpu_dirty;
};

/*
 * valid: SYSCALL means orig_rax, the six argument registers, rax, rip, rsp,
 * cs and eflags are current; ALL means every field is.
 * dirty: each bit names registers the sentry wrote.
 */
#define CPU_REGS_SYSCALL 0x1u
#define CPU_REGS_ALL	 0x3u
#define CPU_DIRTY_RAX	 0x1u
#define CPU_DIRTY_RIP	 0x2u
#define CPU_DIRTY_FS	 0x4u
#define CPU_DIRTY_ALL	 0xffu

enum pevent_kind {
	PEVENT_SYSCALL,	  /* a 64-bit syscall: nr in regs.orig_rax */
	PEVENT_SYSCALL32, /* int $0x80, sysenter, or syscall from a 32-bit code segment */
	PEVENT_FAULT,	  /* a synchronous fault or trap: see the fault info */
	PEVENT_INTERRUPT, /* interrupt() was called, or an asynchronous host event */
};

/* Access type of a memory fault, as far as the platform can tell. */
#define ACCESS_READ  0x1
#define ACCESS_WRITE 0x2
#define ACCESS_EXEC  0x4

struct pevent {
	enum pevent_kind kind;
	siginfo_t info;	 /* for PEVENT_FAULT: the host's siginfo (signo, code, addr) */
	unsigned access; /* for PEVENT_FAULT on SIGSEGV/SIGBUS: ACCESS_*, 0 if unknown */
};

struct platform_ops {
	const char *name;
	/* Is this platform usable here? Returns < 0 with the reason in err. */
	int (*probe)(struct rung_error *err);
	/* Is it the faster choice here (NULL: yes)? The default platform is the
	 * first usable one that is (docs/systrap.md: when it pays). */
	bool (*preferred)(void);
	/* Set up the platform for a sandbox whose guest memory is mf. */
	int (*create)(struct memfile *mf, struct platform **out, struct rung_error *err);
	void (*destroy)(struct platform *p);
	/* A new, empty guest address space. Returns -errno. */
	int (*as_new)(struct platform *p, struct address_space **out);
	/* A new context for one guest task. Returns -errno. */
	int (*ctx_new)(struct platform *p, struct pcontext **out);
	/* The calling sentry thread is done running tasks: returns once nothing
	 * the platform made on this thread needs it any more. */
	void (*thread_exit)(struct platform *p);
};

struct platform {
	const struct platform_ops *ops;
	struct memfile *mf;
	unsigned fpu_size; /* bytes of the XSAVE state the guest's FPU needs */
	/* Guest CPUID traps (SIGSEGV at a cpuid instruction) for the sentry to
	 * answer (sentry/kernel/cpuid.c); false where the host cannot fault it. */
	bool cpuid_faulting;
};

/* Fill in p's fpu_size (the XSAVE area of the features the host enabled)
 * and cpuid_faulting (tried in a child): the same for every platform. */
void platform_probe_cpu(struct platform *p);

struct as_ops {
	/* Map [addr, addr+len) to the memory file at file_off with prot (PROT_*). */
	int (*map)(struct address_space *as, uint64_t addr, uint64_t len, int prot,
		   uint64_t file_off);
	/* Remove whatever is mapped in [addr, addr+len). */
	int (*unmap)(struct address_space *as, uint64_t addr, uint64_t len);
	/* Change the protection of [addr, addr+len), mapped whole already with
	 * map(), keeping what the host has of it in its page tables. Optional:
	 * where NULL or failing, callers map the window again. */
	int (*protect)(struct address_space *as, uint64_t addr, uint64_t len, int prot);
	/*
	 * Make ctx (a new task's context) able to run in as too (threads,
	 * CLONE_VM children). Called by a task that runs in as, from one of its
	 * system calls; ctx's first switch_to on as completes the join.
	 */
	int (*add_ctx)(struct address_space *as, struct pcontext *ctx);
	/* ctx stops running in as (its task exits or execs) while others go on. */
	void (*remove_ctx)(struct address_space *as, struct pcontext *ctx);
	void (*release)(struct address_space *as);
};

struct address_space {
	const struct as_ops *ops;
	struct platform *plat;
};

struct pcontext_ops {
	/*
	 * Run the guest with cpu's registers in as until an event. On return
	 * cpu->valid says which registers were read back (at least SYSCALL
	 * registers for syscalls, ALL for faults) and cpu->dirty is clear.
	 * Returns 0 with *ev filled, or -errno if the guest can no longer run
	 * (its host process died).
	 */
	int (*switch_to)(struct pcontext *ctx, struct address_space *as, struct cpu_state *cpu,
			 struct pevent *ev);
	/* Read every register into cpu (when cpu->valid is not ALL). */
	int (*fetch_regs)(struct pcontext *ctx, struct cpu_state *cpu);
	/* Read the FPU state into cpu->fpu (when cpu->fpu_valid is false). */
	int (*fetch_fpu)(struct pcontext *ctx, struct cpu_state *cpu);
	/* Make a running or future switch_to() return PEVENT_INTERRUPT soon. Any thread. */
	void (*interrupt)(struct pcontext *ctx);
	/* CPU time the guest thread has used, in nanoseconds. */
	uint64_t (*cpu_time_ns)(struct pcontext *ctx);
	void (*release)(struct pcontext *ctx);
};

struct pcontext {
	const struct pcontext_ops *ops;
	struct platform *plat;
};

/* The platforms compiled in, in order of preference; name NULL: the first
 * usable one. */
const struct platform_ops *platform_lookup(const char *name);
const struct platform_ops *const *platform_list(void);

/* Inline wrappers so that call sites read like the design. */
static inline int as_map(struct address_space *as, uint64_t addr, uint64_t len, int prot,
			 uint64_t off)
{
	return as->ops->map(as, addr, len, prot, off);
}

static inline int as_unmap(struct address_space *as, uint64_t addr, uint64_t len)
{
	return as->ops->unmap(as, addr, len);
}

/* as->ops->protect, or map again (the window maps the memory file from off). */
static inline int as_protect(struct address_space *as, uint64_t addr, uint64_t len, int prot,
			     uint64_t off)
{
	if (as->ops->protect)
		return as->ops->protect(as, addr, len, prot);
	return as->ops->map(as, addr, len, prot, off);
}

#endif
