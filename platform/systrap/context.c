/*
 * systrap contexts: running one guest task's thread until its next trap.
 *
 * The stub thread sits in its signal handler between traps, the kernel's
 * signal frame on the slot's stack. switch_to writes the task's registers
 * (and FPU state, when changed) into that frame, answers the trap (the
 * sentry page's resume number) and waits for the next one (the stub page's
 * trap number); then it reads the new frame. Both sides wait on a futex
 * after polling a bounded, adaptive time (pairing.c decides how long, how,
 * and on which CPUs the two threads run).
 *
 * Everything read from the slot was written by the stub, that is by the
 * guest: pointers are checked against the slot, values are copied once.
 */
#include "config.h"
#include "platform/systrap/systrap.h"
#include "platform/systrap/pairing.h"
#include "lib/util.h"

#include <errno.h>
#include <sched.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define to_sctx(c) ((struct systrap_ctx *)(c))
#define to_sas(a)  container_of(a, struct systrap_as, base)

#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif
#define X32_SYSCALL_BIT 0x40000000u
#ifndef FP_XSTATE_MAGIC1
#define FP_XSTATE_MAGIC1 0x46505853u
#endif
#define FXSAVE_SIZE    512
#define XSAVE_HDR_OFF  512
#define XSAVE_HDR_SIZE 64
#define SW_BYTES_OFF   464

/* The host signal that interrupts a running guest thread (the stub has no
 * children, so the kernel never sends it one). */
#define INTERRUPT_SIGNAL SIGCHLD

/* An interrupt the guest thread does not take within this long (it blocked
 * the signal in its stub, with a forged rt_sigreturn) ends its stub. */
#define INTERRUPT_DEADLINE_NS (5ull * 1000000000ull)
/* How long a sentry thread sleeps before it checks that its stub thread
 * still exists. */
#define LIVENESS_NS (100ull * 1000000ull)

/* The kernel's struct ucontext on x86-64 (sigmask last, 8 bytes). */
struct kucontext {
	uint64_t flags;
	uint64_t link;
	uint64_t ss_sp;
	uint64_t ss_flags;
	uint64_t ss_size;
	uint64_t gregs[23];
	uint64_t fpstate;
	uint64_t reserved[8];
	uint64_t sigmask;
};

enum {
	G_R8,
	G_R9,
	G_R10,
	G_R11,
	G_R12,
	G_R13,
	G_R14,
	G_R15,
	G_RDI,
	G_RSI,
	G_RBP,
	G_RBX,
	G_RDX,
	G_RAX,
	G_RCX,
	G_RSP,
	G_RIP,
	G_EFL,
	G_CSGSFS,
	G_ERR,
	G_TRAPNO,
	G_OLDMASK,
	G_CR2,
};

static inline uint32_t ld32(const uint8_t *p)
{
	return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

static inline void st32(uint8_t *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)p, v, __ATOMIC_SEQ_CST);
}

/* The host signal mask of a guest thread: only the signals the stub takes. */
static uint64_t guest_host_mask(void)
{
	static const int sigs[] = {SIGSYS, SIGSEGV, SIGBUS,	     SIGFPE,
				   SIGILL, SIGTRAP, INTERRUPT_SIGNAL};
	uint64_t m = ~0ull;

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		m &= ~(1ull << (sigs[i] - 1));
	return m;
}

/* The sentry's pointer to [addr, addr+len) of the stub's slot, or NULL when
 * that is not inside the slot's signal stack. */
static uint8_t *in_stack(struct systrap_ctx *ctx, uint64_t addr, uint64_t len)
{
	uint64_t lo = ctx->stub_slot + SLOT_STACK_OFF, hi = ctx->stub_slot + SLOT_SIZE;

	if (addr < lo || addr > hi || len > hi - addr)
		return NULL;
	return ctx->slot + (addr - ctx->stub_slot);
}

/* --- waiting for the stub ------------------------------------------------------ */

static int futex_wait(uint8_t *word, uint32_t val, uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull)};

	if (syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0) < 0)
		return -errno;
	return 0;
}

/*
 * Wait until the stub reports a trap after ctx->seq. Polls first (as the
 * pairing allows), then sleeps; while sleeping it checks that the thread
 * still exists, and ends a stub that ignores an interrupt for too long.
 */
static int await_trap(struct systrap_ctx *ctx, uint32_t polls, bool yield)
{
	uint8_t *trap = ctx->st + ST_TRAP_SEQ;
	uint64_t interrupted = 0;

	for (uint32_t i = 0; i < polls; i++) {
		if (ld32(trap) != ctx->seq)
			return 0;
		if (yield)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
	for (;;) {
		int r;
		st32(ctx->sp + SP_SENTRY_SLEEPS, 1);
		if (ld32(trap) != ctx->seq)
			break;
		r = futex_wait(trap, ctx->seq, LIVENESS_NS);
		if (ld32(trap) != ctx->seq)
			break;
		if (r != -ETIMEDOUT)
			continue;
		if (!systrap_thread_alive(ctx->pid, ctx->tid)) {
			st32(ctx->sp + SP_SENTRY_SLEEPS, 0);
			return -ESRCH;
		}
		if (__atomic_load_n(&ctx->interrupt, __ATOMIC_SEQ_CST)) {
			uint64_t now = monotonic_ns();
			if (!interrupted)
				interrupted = now;
			else if (now - interrupted > INTERRUPT_DEADLINE_NS)
				kill(ctx->pid, SIGKILL);
			syscall(SYS_tgkill, ctx->pid, ctx->tid, INTERRUPT_SIGNAL);
		}
	}
	st32(ctx->sp + SP_SENTRY_SLEEPS, 0);
	return 0;
}

/* --- reading a trap ------------------------------------------------------------- */

static void regs_from_frame(const uint64_t *g, struct user_regs_struct *r)
{
	r->r8 = g[G_R8];
	r->r9 = g[G_R9];
	r->r10 = g[G_R10];
	r->r11 = g[G_R11];
	r->r12 = g[G_R12];
	r->r13 = g[G_R13];
	r->r14 = g[G_R14];
	r->r15 = g[G_R15];
	r->rdi = g[G_RDI];
	r->rsi = g[G_RSI];
	r->rbp = g[G_RBP];
	r->rbx = g[G_RBX];
	r->rdx = g[G_RDX];
	r->rax = g[G_RAX];
	r->rcx = g[G_RCX];
	r->rsp = g[G_RSP];
	r->rip = g[G_RIP];
	r->eflags = g[G_EFL];
	r->cs = g[G_CSGSFS] & 0xffff;
	r->gs = (g[G_CSGSFS] >> 16) & 0xffff;
	r->fs = (g[G_CSGSFS] >> 32) & 0xffff;
	r->ss = (g[G_CSGSFS] >> 48) & 0xffff;
	r->ds = r->es = 0;
	r->orig_rax = (uint64_t)-1;
}

static void regs_to_frame(const struct user_regs_struct *r, uint64_t *g)
{
	g[G_R8] = r->r8;
	g[G_R9] = r->r9;
	g[G_R10] = r->r10;
	g[G_R11] = r->r11;
	g[G_R12] = r->r12;
	g[G_R13] = r->r13;
	g[G_R14] = r->r14;
	g[G_R15] = r->r15;
	g[G_RDI] = r->rdi;
	g[G_RSI] = r->rsi;
	g[G_RBP] = r->rbp;
	g[G_RBX] = r->rbx;
	g[G_RDX] = r->rdx;
	g[G_RAX] = r->rax;
	g[G_RCX] = r->rcx;
	g[G_RSP] = r->rsp;
	g[G_RIP] = r->rip;
	g[G_EFL] = r->eflags;
	g[G_CSGSFS] = (r->cs & 0xffff) | (r->gs & 0xffff) << 16 | (r->fs & 0xffff) << 32 |
		      (r->ss & 0xffff) << 48;
}

/* The page fault's access, from the error code the CPU pushed. */
static unsigned fault_access(const uint64_t *g)
{
	if (g[G_TRAPNO] != 14)
		return 0;
	if (g[G_ERR] & 0x10)
		return ACCESS_EXEC;
	return g[G_ERR] & 0x2 ? ACCESS_WRITE : ACCESS_READ;
}

/*
 * Take the trap the stub reported: check its frame, read the registers into
 * cpu and say what happened in ev. -EFAULT when the stub's report makes no
 * sense (its frame is not on its stack).
 */
static int take_trap(struct systrap_ctx *ctx, struct cpu_state *cpu, struct pevent *ev)
{
	uint64_t uc = __atomic_load_n((uint64_t *)(ctx->st + ST_UC), __ATOMIC_ACQUIRE), fp;
	uint32_t signo = ld32(ctx->st + ST_SIGNO);
	uint8_t *ucp = in_stack(ctx, uc, sizeof(struct kucontext)), *fpp;
	uint64_t g[23];
	siginfo_t *info = &ev->info;

	ctx->seq = ld32(ctx->st + ST_TRAP_SEQ);
	if (!ucp || uc % 8)
		return -EFAULT;
	ctx->uc = uc;
	memcpy(g, ucp + offsetof(struct kucontext, gregs), sizeof(g));
	memcpy(&fp, ucp + offsetof(struct kucontext, fpstate), sizeof(fp));
	/* The XSAVE area, as big as its software bytes say (within reason). */
	ctx->fpstate = 0;
	fpp = fp % 64 == 0 ? in_stack(ctx, fp, FXSAVE_SIZE) : NULL;
	if (fpp) {
		uint32_t magic, size;
		memcpy(&magic, fpp + SW_BYTES_OFF, 4);
		memcpy(&size, fpp + SW_BYTES_OFF + 12, 4);
		if (magic != FP_XSTATE_MAGIC1 || size < FXSAVE_SIZE + XSAVE_HDR_SIZE ||
		    size > ctx->base.plat->fpu_size || !in_stack(ctx, fp, size))
			size = FXSAVE_SIZE;
		ctx->fpstate = fp;
		ctx->fpsize = size;
	}
	memcpy(info, ctx->st + ST_SIGINFO, sizeof(*info));
	info->si_signo = (int)signo;

	regs_from_frame(g, &cpu->regs);
	cpu->regs.fs_base = __atomic_load_n((uint64_t *)(ctx->st + ST_FS_BASE), __ATOMIC_RELAXED);
	cpu->regs.gs_base = __atomic_load_n((uint64_t *)(ctx->st + ST_GS_BASE), __ATOMIC_RELAXED);
	cpu->valid = CPU_REGS_ALL;
	cpu->dirty = 0;
	cpu->fpu_valid = false;
	ev->access = 0;

	if (signo == SIGSYS && info->si_code == SYS_USER_DISPATCH) {
		uint64_t nr = g[G_RAX];
		cpu->regs.orig_rax = nr;
		cpu->regs.rax = (uint64_t)-ENOSYS;
		ev->kind = (uint32_t)info->si_arch != AUDIT_ARCH_X86_64 || (nr & X32_SYSCALL_BIT)
				   ? PEVENT_SYSCALL32
				   : PEVENT_SYSCALL;
		return 0;
	}
	switch (signo) {
	case SIGSEGV:
	case SIGBUS:
	case SIGFPE:
	case SIGILL:
	case SIGTRAP:
	case SIGSYS:
		/* Only what the CPU or kernel raised; a signal some host process
		 * sent the stub (si_code <= 0) is just an interruption. */
		if (info->si_code > 0) {
			ev->kind = PEVENT_FAULT;
			ev->access = fault_access(g);
			return 0;
		}
		break;
	default:
		break;
	}
	__atomic_store_n(&ctx->interrupt, 0, __ATOMIC_SEQ_CST);
	ev->kind = PEVENT_INTERRUPT;
	return 0;
}

/* --- writing the answer --------------------------------------------------------- */

/* Put an FPU image (the sentry's XSAVE layout) into the frame, keeping the
 * kernel's software bytes and MXCSR mask and asking only for features the
 * frame declares, so that the kernel's XRSTOR accepts it. */
static void fpu_to_frame(struct systrap_ctx *ctx, const uint8_t *img)
{
	uint8_t *dst = ctx->slot + (ctx->fpstate - ctx->stub_slot);
	unsigned size = ctx->fpsize;
	uint32_t mask, mxcsr;
	uint64_t xfeatures = 3, bv;

	memcpy(&mask, dst + 28, 4);
	if (size > FXSAVE_SIZE)
		memcpy(&xfeatures, dst + SW_BYTES_OFF + 8, 8);
	memcpy(dst, img, SW_BYTES_OFF);
	memcpy(dst + 28, &mask, 4);
	memcpy(&mxcsr, dst + 24, 4);
	mxcsr &= mask ? mask : 0xffbf;
	memcpy(dst + 24, &mxcsr, 4);
	if (size > FXSAVE_SIZE) {
		memcpy(dst + XSAVE_HDR_OFF, img + XSAVE_HDR_OFF, size - XSAVE_HDR_OFF);
		memcpy(&bv, dst + XSAVE_HDR_OFF, 8);
		bv &= xfeatures;
		memset(dst + XSAVE_HDR_OFF, 0, XSAVE_HDR_SIZE);
		memcpy(dst + XSAVE_HDR_OFF, &bv, 8);
	}
}

/* The state execve leaves: x87 and SSE reset, everything else in its init state. */
static void fpu_reset_frame(struct systrap_ctx *ctx)
{
	uint8_t img[FXSAVE_SIZE + XSAVE_HDR_SIZE] = {0};
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;
	unsigned size = ctx->fpsize;

	memcpy(img, &fcw, 2);
	memcpy(img + 24, &mxcsr, 4);
	ctx->fpsize = MIN(size, (unsigned)sizeof(img));
	fpu_to_frame(ctx, img);
	ctx->fpsize = size;
}

/* Write what the sentry changed into the frame; returns the RESUME_* flags. */
static uint32_t write_back(struct systrap_ctx *ctx, struct cpu_state *cpu)
{
	uint8_t *ucp = ctx->slot + (ctx->uc - ctx->stub_slot);
	uint64_t *g = (uint64_t *)(ucp + offsetof(struct kucontext, gregs));
	unsigned dirty = ctx->started ? cpu->dirty : CPU_DIRTY_ALL;
	uint32_t flags = 0;

	if (dirty & ~(CPU_DIRTY_RAX | CPU_DIRTY_RIP | CPU_DIRTY_FS)) {
		regs_to_frame(&cpu->regs, g);
		*(uint64_t *)(ctx->sp + SP_GS_BASE) = cpu->regs.gs_base;
		flags |= RESUME_SET_GS;
	} else {
		if (dirty & CPU_DIRTY_RAX)
			g[G_RAX] = cpu->regs.rax;
		if (dirty & CPU_DIRTY_RIP)
			g[G_RIP] = cpu->regs.rip;
	}
	if (dirty & CPU_DIRTY_FS) {
		*(uint64_t *)(ctx->sp + SP_FS_BASE) = cpu->regs.fs_base;
		flags |= RESUME_SET_FS;
	}
	if (!ctx->started)
		*(uint64_t *)(ucp + offsetof(struct kucontext, sigmask)) = guest_host_mask();
	if (ctx->fpstate) {
		if (cpu->fpu_reset || (!ctx->started && !cpu->fpu_dirty))
			fpu_reset_frame(ctx);
		else if (cpu->fpu_dirty)
			fpu_to_frame(ctx, cpu->fpu);
	}
	cpu->fpu_reset = cpu->fpu_dirty = cpu->fpu_valid = false;
	cpu->dirty = 0;
	return flags;
}

/* --- the context operations ------------------------------------------------------ */

/* Account the guest time (written by the context's own sentry thread only). */
static void acct_set(struct systrap_ctx *ctx, uint64_t guest, uint64_t since)
{
	uint32_t seq = ctx->acct_seq;

	__atomic_store_n(&ctx->acct_seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&ctx->guest_ns, guest, __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->resumed_ns, since, __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->acct_seq, seq + 2, __ATOMIC_RELEASE);
}

static int sctx_switch(struct pcontext *c, struct address_space *a, struct cpu_state *cpu,
		       struct pevent *ev)
{
	struct systrap_ctx *ctx = to_sctx(c);
	struct systrap_as *as = to_sas(a);
	uint64_t t0, t1;
	uint32_t flags;
	int ret;

	if (ctx->as_id != as->id) {
		ret = systrap_thread_new(as, ctx);
		if (ret < 0)
			return ret;
	}
	if (!ctx->started) {
		/* Its first report is the boot trap: the frame to start it from. */
		struct pevent boot;
		ret = await_trap(ctx, 0, false);
		if (ret == 0)
			ret = take_trap(ctx, &(struct cpu_state){.fpu = NULL}, &boot);
		if (ret < 0)
			return ret;
		pairing_join(ctx);
	}
	flags = write_back(ctx, cpu);
	ctx->started = true;

	__atomic_store_n(&ctx->running, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&ctx->interrupt, 0, __ATOMIC_SEQ_CST)) {
		/* The answer stays written; the next switch sends it. */
		__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
		ctx->pending_flags |= flags;
		ev->kind = PEVENT_INTERRUPT;
		return 0;
	}
	flags |= ctx->pending_flags;
	ctx->pending_flags = 0;
	st32(ctx->sp + SP_FLAGS, flags);
	*(uint32_t *)(ctx->sp + SP_SPIN) = ctx->spin_stub;
	*(uint32_t *)(ctx->sp + SP_YIELD) = ctx->yield;
	t0 = monotonic_ns();
	acct_set(ctx, ctx->guest_ns, t0);
	st32(ctx->sp + SP_RESUME_SEQ, ctx->seq);
	if (ld32(ctx->st + ST_STUB_SLEEPS))
		syscall(SYS_futex, ctx->sp + SP_RESUME_SEQ, FUTEX_WAKE, 1, NULL, NULL, 0);
	ret = await_trap(ctx, ctx->spin_sentry, ctx->yield);
	__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
	t1 = monotonic_ns();
	acct_set(ctx, ctx->guest_ns + (t1 - t0), 0);
	if (ret < 0)
		return ret;
	ret = take_trap(ctx, cpu, ev);
	pairing_account(ctx, t0, t1);
	return ret;
}

static int sctx_fetch_regs(struct pcontext *c, struct cpu_state *cpu)
{
	return 0; /* every trap reads them all */
}

static int sctx_fetch_fpu(struct pcontext *c, struct cpu_state *cpu)
{
	struct systrap_ctx *ctx = to_sctx(c);
	unsigned size = c->plat->fpu_size;

	if (cpu->fpu_valid || cpu->fpu_dirty)
		return 0;
	if (!ctx->started || !ctx->fpstate)
		return -ESRCH;
	memset(cpu->fpu, 0, size);
	memcpy(cpu->fpu, ctx->slot + (ctx->fpstate - ctx->stub_slot), MIN(size, ctx->fpsize));
	cpu->fpu_valid = true;
	return 0;
}

static void sctx_interrupt(struct pcontext *c)
{
	struct systrap_ctx *ctx = to_sctx(c);

	__atomic_store_n(&ctx->interrupt, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ctx->running, __ATOMIC_SEQ_CST) && ctx->tid)
		syscall(SYS_tgkill, ctx->pid, ctx->tid, INTERRUPT_SIGNAL);
}

/*
 * The guest time of the context: the time its thread spent between an
 * answer and the next trap (running, or runnable: the sentry cannot read a
 * stub thread's CPU clock), up to now while it runs. Read by any thread
 * (CPU-time timers poll it).
 */
static uint64_t sctx_cpu_time_ns(struct pcontext *c)
{
	struct systrap_ctx *ctx = to_sctx(c);
	uint64_t guest, since;
	uint32_t seq;

	do {
		seq = __atomic_load_n(&ctx->acct_seq, __ATOMIC_ACQUIRE);
		guest = __atomic_load_n(&ctx->guest_ns, __ATOMIC_RELAXED);
		since = __atomic_load_n(&ctx->resumed_ns, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(&ctx->acct_seq, __ATOMIC_RELAXED) != seq);
	if (since) {
		uint64_t now = monotonic_ns();
		guest += now > since ? now - since : 0;
	}
	return guest;
}

static void sctx_release(struct pcontext *c)
{
	pairing_leave(to_sctx(c));
	free(c);
}

static const struct pcontext_ops systrap_ctx_ops = {
	.switch_to = sctx_switch,
	.fetch_regs = sctx_fetch_regs,
	.fetch_fpu = sctx_fetch_fpu,
	.interrupt = sctx_interrupt,
	.cpu_time_ns = sctx_cpu_time_ns,
	.release = sctx_release,
};

int systrap_ctx_new(struct platform *p, struct pcontext **out)
{
	struct systrap_ctx *ctx = xzalloc(sizeof(*ctx));

	ctx->base.ops = &systrap_ctx_ops;
	ctx->base.plat = p;
	ctx->cpu = ctx->stub_cpu = -1;
	*out = &ctx->base;
	return 0;
}
