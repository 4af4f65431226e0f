/*
 * The ptrace platform: each guest address space is a stub process, each
 * guest task runs in a stub thread traced by that task's sentry thread, and
 * PTRACE_SYSEMU turns every guest system call into a stop without running it.
 *
 * The hot path per guest system call is four host calls: PTRACE_SYSEMU,
 * waitpid, PTRACE_GET_SYSCALL_INFO (number, arguments, ip, sp and the ABI in
 * one call) and a POKEUSER of rax. Full registers are read only when the
 * sentry asks for them (signals, clone, faults) and written back only when
 * it changed more than rax, rip or fs_base.
 */
#include "config.h"
#include "platform/platform.h"
#include "platform/ptrace/stub.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/util.h"

#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The host signal that interrupts a running stub thread. Its default action
 * is to be ignored, so a stray one harms nothing; a traced thread still stops. */
#define INTERRUPT_SIGNAL SIGCHLD

extern const struct platform_ops ptrace_platform_ops;

struct ptrace_platform {
	struct platform base;
};

struct ptrace_as {
	struct address_space base;
	pid_t pid;    /* the stub process (and its first thread) */
	pid_t tracer; /* host tid of the sentry thread tracing it */
};

struct ptrace_ctx {
	struct pcontext base;
	pid_t tid;     /* stub thread this context runs in, 0 before the first switch */
	int running;   /* inside switch_to (atomic) */
	int interrupt; /* interrupt requested (atomic) */
};

#define to_pas(a)  container_of(a, struct ptrace_as, base)
#define to_pctx(c) container_of(c, struct ptrace_ctx, base)

static pid_t gettid_cached(void)
{
	static __thread pid_t tid;

	if (!tid)
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

/* --- address space --------------------------------------------------------- */

/* Injected calls need a stopped stub thread traced by the calling thread. */
static long as_inject(struct ptrace_as *as, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		      uint64_t a3, uint64_t a4, uint64_t a5)
{
	if (as->tracer != gettid_cached())
		return -EPERM; /* another sentry thread's stub: not ours to drive */
	return stub_inject(as->pid, nr, a0, a1, a2, a3, a4, a5);
}

static int pas_map(struct address_space *a, uint64_t addr, uint64_t len, int prot, uint64_t off)
{
	struct ptrace_as *as = to_pas(a);
	long r = as_inject(as, SYS_mmap, addr, len, (uint64_t)prot, MAP_SHARED | MAP_FIXED,
			   (uint64_t)a->plat->mf->fd, off);

	if (r < 0)
		return (int)r;
	return r == (long)addr ? 0 : -EFAULT;
}

static int pas_unmap(struct address_space *a, uint64_t addr, uint64_t len)
{
	return (int)as_inject(to_pas(a), SYS_munmap, addr, len, 0, 0, 0, 0);
}

static void pas_release(struct address_space *a)
{
	struct ptrace_as *as = to_pas(a);
	int status;

	kill(as->pid, SIGKILL);
	while (waitpid(as->pid, &status, __WALL) < 0 && errno == EINTR)
		;
	free(as);
}

static const struct as_ops ptrace_as_ops = {
	.map = pas_map,
	.unmap = pas_unmap,
	.release = pas_release,
};

static int ptrace_as_new(struct platform *p, struct address_space **out)
{
	struct ptrace_as *as;
	pid_t pid = stub_spawn(p->mf->fd);

	if (pid < 0)
		return pid;
	as = xzalloc(sizeof(*as));
	as->base.ops = &ptrace_as_ops;
	as->base.plat = p;
	as->pid = pid;
	as->tracer = gettid_cached();
	*out = &as->base;
	return 0;
}

/* --- context --------------------------------------------------------------- */

/* Write back what the sentry changed. */
static int push_regs(pid_t tid, struct cpu_state *cpu)
{
	if (!cpu->dirty)
		return 0;
	if (cpu->dirty & ~(CPU_DIRTY_RAX | CPU_DIRTY_RIP | CPU_DIRTY_FS)) {
		if (ptrace(PTRACE_SETREGS, tid, 0, &cpu->regs) < 0)
			return -ESRCH;
	} else {
		if ((cpu->dirty & CPU_DIRTY_RAX) &&
		    ptrace(PTRACE_POKEUSER, tid, offsetof(struct user_regs_struct, rax),
			   cpu->regs.rax) < 0)
			return -ESRCH;
		if ((cpu->dirty & CPU_DIRTY_RIP) &&
		    ptrace(PTRACE_POKEUSER, tid, offsetof(struct user_regs_struct, rip),
			   cpu->regs.rip) < 0)
			return -ESRCH;
		if ((cpu->dirty & CPU_DIRTY_FS) &&
		    ptrace(PTRACE_POKEUSER, tid, offsetof(struct user_regs_struct, fs_base),
			   cpu->regs.fs_base) < 0)
			return -ESRCH;
	}
	cpu->dirty = 0;
	return 0;
}

/* Put the x87/SSE/AVX state in its initial configuration, as execve does. */
static int reset_fpu(pid_t tid)
{
	static __thread uint8_t xsave[16384] __attribute__((aligned(64)));
	struct iovec iov = {.iov_base = xsave, .iov_len = sizeof(xsave)};

	if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &iov) < 0) {
		struct user_fpregs_struct fp = {.cwd = 0x37f, .mxcsr = 0x1f80};
		return ptrace(PTRACE_SETFPREGS, tid, 0, &fp) < 0 ? -ESRCH : 0;
	}
	/* Legacy area: FCW and MXCSR at their reset values, everything else zero;
	 * XSAVE header: XSTATE_BV = 0 marks every component as in its init state. */
	{
		uint32_t mxcsr_mask;
		memcpy(&mxcsr_mask, xsave + 28, 4);
		memset(xsave, 0, iov.iov_len);
		xsave[0] = 0x7f;
		xsave[1] = 0x03;
		memcpy(xsave + 28, &mxcsr_mask, 4);
		xsave[24] = 0x80;
		xsave[25] = 0x1f;
	}
	return ptrace(PTRACE_SETREGSET, tid, NT_X86_XSTATE, &iov) < 0 ? -ESRCH : 0;
}

static int read_syscall(pid_t tid, struct cpu_state *cpu, struct pevent *ev)
{
	struct __ptrace_syscall_info si;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) < 0)
		return -ESRCH;
	cpu->regs.orig_rax = si.entry.nr;
	cpu->regs.rdi = si.entry.args[0];
	cpu->regs.rsi = si.entry.args[1];
	cpu->regs.rdx = si.entry.args[2];
	cpu->regs.r10 = si.entry.args[3];
	cpu->regs.r8 = si.entry.args[4];
	cpu->regs.r9 = si.entry.args[5];
	cpu->regs.rip = si.instruction_pointer;
	cpu->regs.rsp = si.stack_pointer;
	cpu->regs.rax = (uint64_t)-ENOSYS;
	cpu->valid = CPU_REGS_SYSCALL;
	/* The kernel knows the entry path: int $0x80, sysenter and compat-mode
	 * syscall report the i386 ABI; x32 numbers carry __X32_SYSCALL_BIT. */
	if (si.arch != AUDIT_ARCH_X86_64 || (si.entry.nr & 0x40000000u))
		ev->kind = PEVENT_SYSCALL32;
	else
		ev->kind = PEVENT_SYSCALL;
	return 0;
}

static int pctx_fetch_regs(struct pcontext *c, struct cpu_state *cpu)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct user_regs_struct r;

	if (cpu->valid == CPU_REGS_ALL)
		return 0;
	if (ptrace(PTRACE_GETREGS, ctx->tid, 0, &r) < 0)
		return -ESRCH;
	/* Keep what the sentry already changed. */
	if (cpu->dirty & CPU_DIRTY_RAX)
		r.rax = cpu->regs.rax;
	if (cpu->dirty & CPU_DIRTY_RIP)
		r.rip = cpu->regs.rip;
	if (cpu->dirty & CPU_DIRTY_FS)
		r.fs_base = cpu->regs.fs_base;
	cpu->regs = r;
	cpu->valid = CPU_REGS_ALL;
	return 0;
}

static int pctx_switch(struct pcontext *c, struct address_space *a, struct cpu_state *cpu,
		       struct pevent *ev)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct ptrace_as *as = to_pas(a);
	int status, sig, ret;

	if (as->tracer != gettid_cached())
		return -EPERM;
	ctx->tid = as->pid;
	if (cpu->fpu_reset) {
		ret = reset_fpu(ctx->tid);
		if (ret < 0)
			return ret;
		cpu->fpu_reset = false;
	}
	ret = push_regs(ctx->tid, cpu);
	if (ret < 0)
		return ret;

	__atomic_store_n(&ctx->running, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&ctx->interrupt, 0, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
		ev->kind = PEVENT_INTERRUPT;
		return 0;
	}
	if (ptrace(PTRACE_SYSEMU, ctx->tid, 0, 0) < 0) {
		__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
		return -ESRCH;
	}
	for (;;) {
		pid_t r = waitpid(ctx->tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
	if (!WIFSTOPPED(status))
		return -ESRCH; /* killed behind our back */
	sig = WSTOPSIG(status);
	if (sig == (SIGTRAP | 0x80))
		return read_syscall(ctx->tid, cpu, ev);

	cpu->valid = 0;
	ret = pctx_fetch_regs(c, cpu);
	if (ret < 0)
		return ret;
	memset(&ev->info, 0, sizeof(ev->info));
	ev->access = 0;
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
	case SIGFPE:
	case SIGILL:
	case SIGTRAP:
	case SIGSYS:
		if (ptrace(PTRACE_GETSIGINFO, ctx->tid, 0, &ev->info) < 0)
			return -ESRCH;
		/* Only faults the CPU or kernel raised count; a signal some host
		 * process sent to the stub (si_code <= 0) is just an interruption. */
		if (ev->info.si_code > 0) {
			ev->kind = PEVENT_FAULT;
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

static void pctx_interrupt(struct pcontext *c)
{
	struct ptrace_ctx *ctx = to_pctx(c);

	__atomic_store_n(&ctx->interrupt, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ctx->running, __ATOMIC_SEQ_CST) && ctx->tid)
		syscall(SYS_tgkill, ctx->tid, ctx->tid, INTERRUPT_SIGNAL);
}

static uint64_t pctx_cpu_time_ns(struct pcontext *c)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct timespec ts;
	/* The kernel's CPU clock id of a thread: ~tid << 3 | CPUCLOCK_SCHED | PERTHREAD. */
	clockid_t clk = (clockid_t)((~(unsigned)ctx->tid << 3) | 2 | 4);

	if (!ctx->tid || clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pctx_release(struct pcontext *c)
{
	free(to_pctx(c));
}

static const struct pcontext_ops ptrace_ctx_ops = {
	.switch_to = pctx_switch,
	.fetch_regs = pctx_fetch_regs,
	.interrupt = pctx_interrupt,
	.cpu_time_ns = pctx_cpu_time_ns,
	.release = pctx_release,
};

static int ptrace_ctx_new(struct platform *p, struct pcontext **out)
{
	struct ptrace_ctx *ctx = xzalloc(sizeof(*ctx));

	ctx->base.ops = &ptrace_ctx_ops;
	ctx->base.plat = p;
	*out = &ctx->base;
	return 0;
}

/* --- platform -------------------------------------------------------------- */

static int ptrace_probe(struct rung_error *err)
{
	pid_t pid;
	int status;

	/* Can we trace a child of ours at all (Yama, seccomp of our own, gVisor)? */
	pid = fork();
	if (pid < 0)
		return rung_error_make(err, errno, "fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &status, __WALL) < 0 || !WIFSTOPPED(status)) {
		waitpid(pid, &status, 0);
		return rung_error_make(err, EPERM,
				       "ptrace: this host does not let rung trace its children");
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, __WALL);
	return 0;
}

static int ptrace_create(struct memfile *mf, struct platform **out, struct rung_error *err)
{
	struct ptrace_platform *p;
	int ret = stub_code_init(err);

	if (ret < 0)
		return ret;
	p = xzalloc(sizeof(*p));
	p->base.ops = &ptrace_platform_ops;
	p->base.mf = mf;
	*out = &p->base;
	return 0;
}

static void ptrace_destroy(struct platform *p)
{
	free(container_of(p, struct ptrace_platform, base));
}

const struct platform_ops ptrace_platform_ops = {
	.name = "ptrace",
	.probe = ptrace_probe,
	.create = ptrace_create,
	.destroy = ptrace_destroy,
	.as_new = ptrace_as_new,
	.ctx_new = ptrace_ctx_new,
};
