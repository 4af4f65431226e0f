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
 *
 * CPU time: Linux lets no other process read a stub thread's CPU clock, but
 * it does let the sentry read a stub process's. Each sample of that clock is
 * shared among the contexts that ran in the stub since the previous one, in
 * proportion to their time in the guest; a sample is taken when someone
 * asks, or when a context starts running after another one ran. A stub with
 * one running thread at a time (every single-threaded process) thus has
 * exact times and pays no extra host call per switch; threads running at
 * the same time share the (exact) total by their time in the guest.
 */
#include "config.h"
#include "platform/platform.h"
#include "platform/spawner.h"
#include "platform/ptrace/stub.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <asm/prctl.h>
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
#include <pthread.h>
#include <time.h>
#include <unistd.h>

/* The host signal that interrupts a running stub thread. Its default action
 * is to be ignored, so a stray one harms nothing; a traced thread still stops. */
#define INTERRUPT_SIGNAL SIGCHLD

extern const struct platform_ops ptrace_platform_ops;

struct ptrace_platform {
	struct platform base;
	/* Which address space each context is accounted in (ctx->acct_as);
	 * taken before an address space's lock. */
	pthread_mutex_t acct_lock;
};

/* One stub thread and the sentry thread that traces it. */
struct stub_thread {
	pid_t tracer; /* host tid of the sentry thread, 0 once it stopped using it */
	pid_t tid;
};

struct ptrace_as {
	struct address_space base;
	pid_t pid; /* the stub process (and its first thread) */
	struct spawner *spawner;
	pthread_mutex_t lock;
	struct stub_thread *threads; /* every live thread of the stub process */
	unsigned nthreads, cap;
	/* CPU accounting, under lock: the stub process's CPU clock at the last
	 * sample, the contexts that share it, and which of them ran since the
	 * sample (NULL: none, ACCT_MANY: more than one). */
	uint64_t cpu_sample;
	bool acct_started;
	struct ptrace_ctx **acct;
	unsigned nacct, acct_cap;
	struct ptrace_ctx *sole, *last;
};

#define ACCT_MANY ((struct ptrace_ctx *)1)

struct ptrace_ctx {
	struct pcontext base;
	pid_t tid;     /* stub thread this context runs in, 0 before the first switch */
	pid_t tgid;    /* the stub process that thread belongs to (tgkill's first argument) */
	pid_t joining; /* a parked stub thread to seize on the first switch (add_ctx) */
	int running;   /* inside switch_to (atomic) */
	int interrupt; /* interrupt requested (atomic) */
	/* CPU accounting: the address space it is accounted in (changed under
	 * acct_lock and that space's lock), the guest CPU time it was given
	 * (under the space's lock while it has one), its time in the guest
	 * since the space's last sample, and when it last entered the guest. */
	struct ptrace_as *acct_as;
	uint64_t cpu_ns;
	uint64_t run_ns;
	uint64_t run_start; /* CLOCK_MONOTONIC; 0 outside the guest */
};

#define to_pas(a)  container_of(a, struct ptrace_as, base)
#define to_pctx(c) container_of(c, struct ptrace_ctx, base)
#define to_pp(p)   container_of(p, struct ptrace_platform, base)

static pid_t gettid_cached(void)
{
	static __thread pid_t tid;

	if (!tid)
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

/* --- CPU accounting ------------------------------------------------------------ */

/* The stub process's CPU clock (MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)); 0 if gone. */
static uint64_t stub_cpu_ns(pid_t pid)
{
	clockid_t clk = (clockid_t)((~(unsigned)pid << 3) | 2);
	struct timespec ts;

	if (clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Share what the stub used since the last sample among the contexts that
 * ran meanwhile, by their time in the guest. as->lock held. */
static void acct_sample(struct ptrace_as *as)
{
	uint64_t now = stub_cpu_ns(as->pid), mono = monotonic_ns(), total = 0, used = 0;
	struct ptrace_ctx *one = NULL;
	unsigned running = 0;

	if (now > as->cpu_sample) {
		used = now - as->cpu_sample;
		as->cpu_sample = now;
	}
	for (unsigned i = 0; i < as->nacct; i++) {
		struct ptrace_ctx *c = as->acct[i];
		if (c->run_start) {
			c->run_ns += mono - c->run_start;
			c->run_start = mono;
		}
		total += c->run_ns;
	}
	for (unsigned i = 0; i < as->nacct; i++) {
		struct ptrace_ctx *c = as->acct[i];
		if (total)
			c->cpu_ns += (uint64_t)((unsigned __int128)used * c->run_ns / total);
		c->run_ns = 0;
		if (c->run_start) {
			running++;
			one = c;
		}
	}
	/* Nobody was in the guest: the stub ran injected calls for the last one. */
	if (!total && as->last)
		as->last->cpu_ns += used;
	as->sole = running == 0 ? NULL : running == 1 ? one : ACCT_MANY;
}

/* ctx stops being accounted in its address space. acct_lock held. */
static void acct_detach_locked(struct ptrace_ctx *ctx)
{
	struct ptrace_as *as = ctx->acct_as;

	pthread_mutex_lock(&as->lock);
	acct_sample(as);
	for (unsigned i = 0; i < as->nacct; i++)
		if (as->acct[i] == ctx) {
			as->acct[i] = as->acct[--as->nacct];
			break;
		}
	if (as->sole == ctx)
		as->sole = NULL;
	if (as->last == ctx)
		as->last = NULL;
	ctx->acct_as = NULL;
	ctx->run_ns = ctx->run_start = 0;
	pthread_mutex_unlock(&as->lock);
}

static void acct_attach(struct ptrace_as *as, struct ptrace_ctx *ctx)
{
	struct ptrace_platform *pp = to_pp(as->base.plat);

	pthread_mutex_lock(&pp->acct_lock);
	if (ctx->acct_as)
		acct_detach_locked(ctx);
	pthread_mutex_lock(&as->lock);
	if (!as->acct_started) {
		as->cpu_sample = stub_cpu_ns(as->pid); /* the stub's own start is not the guest's */
		as->acct_started = true;
	}
	if (as->nacct == as->acct_cap) {
		as->acct_cap = as->acct_cap ? as->acct_cap * 2 : 4;
		as->acct = xrealloc(as->acct, as->acct_cap * sizeof(*as->acct));
	}
	as->acct[as->nacct++] = ctx;
	ctx->acct_as = as;
	pthread_mutex_unlock(&as->lock);
	pthread_mutex_unlock(&pp->acct_lock);
}

/* ctx enters the guest: a sample first if another context ran since the last. */
static void acct_resume(struct ptrace_as *as, struct ptrace_ctx *ctx)
{
	if (ctx->acct_as != as)
		acct_attach(as, ctx);
	pthread_mutex_lock(&as->lock);
	if (as->sole && as->sole != ctx)
		acct_sample(as);
	as->sole = !as->sole ? ctx : as->sole == ctx ? ctx : ACCT_MANY;
	ctx->run_start = monotonic_ns() | 1;
	as->last = ctx;
	pthread_mutex_unlock(&as->lock);
}

static void acct_stop(struct ptrace_as *as, struct ptrace_ctx *ctx)
{
	pthread_mutex_lock(&as->lock);
	if (ctx->run_start) {
		ctx->run_ns += monotonic_ns() - ctx->run_start;
		ctx->run_start = 0;
	}
	pthread_mutex_unlock(&as->lock);
}

/* Every context accounted in as (going away) takes its last share. */
static void acct_release(struct ptrace_as *as)
{
	struct ptrace_platform *pp = to_pp(as->base.plat);

	pthread_mutex_lock(&pp->acct_lock);
	while (as->nacct)
		acct_detach_locked(as->acct[0]);
	pthread_mutex_unlock(&pp->acct_lock);
	free(as->acct);
}

/* --- address space --------------------------------------------------------- */

static void add_thread(struct ptrace_as *as, pid_t tracer, pid_t tid)
{
	pthread_mutex_lock(&as->lock);
	if (as->nthreads == as->cap) {
		as->cap = as->cap ? as->cap * 2 : 4;
		as->threads = xrealloc(as->threads, as->cap * sizeof(*as->threads));
	}
	as->threads[as->nthreads++] = (struct stub_thread){.tracer = tracer, .tid = tid};
	pthread_mutex_unlock(&as->lock);
}

/* A stub thread was reaped (it died): its id may be reused from now on. */
static void forget_thread(struct ptrace_as *as, pid_t tid)
{
	pthread_mutex_lock(&as->lock);
	for (unsigned i = 0; i < as->nthreads; i++)
		if (as->threads[i].tid == tid) {
			as->threads[i] = as->threads[--as->nthreads];
			break;
		}
	pthread_mutex_unlock(&as->lock);
}

/* The stub thread the calling sentry thread traces in as, or 0. */
static pid_t my_thread(struct ptrace_as *as)
{
	pid_t me = gettid_cached(), tid = 0;

	pthread_mutex_lock(&as->lock);
	for (unsigned i = 0; i < as->nthreads; i++)
		if (as->threads[i].tracer == me) {
			tid = as->threads[i].tid;
			break;
		}
	pthread_mutex_unlock(&as->lock);
	return tid;
}

/* Injected calls need a stopped stub thread traced by the calling thread. */
static long as_inject(struct ptrace_as *as, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		      uint64_t a3, uint64_t a4, uint64_t a5)
{
	pid_t tid = my_thread(as);

	if (!tid)
		return -EPERM; /* no stub thread of ours in there to drive */
	return stub_inject(tid, nr, a0, a1, a2, a3, a4, a5);
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

static int pas_protect(struct address_space *a, uint64_t addr, uint64_t len, int prot)
{
	/* The sentry's own filter, which stubs inherit, allows no executable
	 * mprotect: the caller maps the window again instead. */
	if (prot & PROT_EXEC)
		return -EPERM;
	return (int)as_inject(to_pas(a), SYS_mprotect, addr, len, (uint64_t)prot, 0, 0, 0);
}

static int pas_add_ctx(struct address_space *a, struct pcontext *c)
{
	struct ptrace_as *as = to_pas(a);
	pid_t tid = my_thread(as), child;

	if (!tid)
		return -EPERM;
	child = stub_clone_thread(tid);
	if (child < 0)
		return child;
	add_thread(as, 0, child);
	to_pctx(c)->joining = child;
	return 0;
}

static void pas_remove_ctx(struct address_space *a, struct pcontext *c)
{
	struct ptrace_as *as = to_pas(a);
	struct ptrace_ctx *ctx = to_pctx(c);
	struct ptrace_platform *pp = to_pp(a->plat);
	pid_t me = gettid_cached();

	pthread_mutex_lock(&pp->acct_lock);
	if (ctx->acct_as == as)
		acct_detach_locked(ctx);
	pthread_mutex_unlock(&pp->acct_lock);
	pthread_mutex_lock(&as->lock);
	for (unsigned i = 0; i < as->nthreads; i++) {
		if (as->threads[i].tid != ctx->tid || as->threads[i].tracer != me)
			continue;
		/* The first thread stays, stopped: ending it would look like the
		 * process's end to the host (and its tracer outlives it anyway). */
		if (ctx->tid == as->pid) {
			as->threads[i].tracer = 0;
		} else {
			as->threads[i] = as->threads[--as->nthreads];
			pthread_mutex_unlock(&as->lock);
			stub_exit_thread(ctx->tid);
			ctx->tid = 0;
			return;
		}
		break;
	}
	pthread_mutex_unlock(&as->lock);
	ctx->tid = 0;
}

/* Reap a killed stub thread that may be traced by another sentry thread (or
 * be nobody's any more): wait a bounded time, never forever. */
static void reap_thread(pid_t tid)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(tid, &status, __WALL | WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == tid && !WIFSTOPPED(status)))
			return;
		usleep(1000);
	}
}

static void pas_release(struct address_space *a)
{
	struct ptrace_as *as = to_pas(a);
	struct spawner *sp = as->spawner;
	int status;

	acct_release(as);
	kill(as->pid, SIGKILL);
	/* Traced threads are reaped one by one (by any thread of the sentry);
	 * the first thread goes last, once its process is empty. The list
	 * holds only threads not reaped yet, so no id here can have been
	 * reused by another process. */
	for (unsigned i = 0; i < as->nthreads; i++)
		if (as->threads[i].tid != as->pid)
			reap_thread(as->threads[i].tid);
	while (waitpid(as->pid, &status, __WALL) < 0 && errno == EINTR)
		;
	pthread_mutex_destroy(&as->lock);
	free(as->threads);
	free(as);
	spawner_release(sp);
}

static const struct as_ops ptrace_as_ops = {
	.map = pas_map,
	.unmap = pas_unmap,
	.protect = pas_protect,
	.add_ctx = pas_add_ctx,
	.remove_ctx = pas_remove_ctx,
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
	/* Its first thread is traced by (and dies with) this thread. */
	as->spawner = spawner_hold();
	pthread_mutex_init(&as->lock, NULL);
	add_thread(as, gettid_cached(), pid);
	*out = &as->base;
	return 0;
}

static void ptrace_thread_exit(struct platform *p)
{
	spawner_thread_exit();
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

/*
 * Take over the parked thread add_ctx made for ctx: seize it (it is nobody's
 * tracee yet) and interrupt its pause() so that it is stopped for us.
 */
static int join_thread(struct ptrace_as *as, struct ptrace_ctx *ctx)
{
	pid_t tid = ctx->joining;
	int status;

	if (ptrace(PTRACE_SEIZE, tid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD) < 0 ||
	    ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0)
		return -ESRCH;
	for (;;) {
		pid_t r = waitpid(tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || !WIFSTOPPED(status)) {
			forget_thread(as, tid);
			ctx->joining = 0;
			return -ESRCH;
		}
		if ((status >> 16) == PTRACE_EVENT_STOP)
			break;
		/* A signal stop first (an interrupt meant for nobody): go on to the
		 * interrupt stop. */
		if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
			return -ESRCH;
	}
	pthread_mutex_lock(&as->lock);
	for (unsigned i = 0; i < as->nthreads; i++)
		if (as->threads[i].tid == tid)
			as->threads[i].tracer = gettid_cached();
	pthread_mutex_unlock(&as->lock);
	ctx->joining = 0;
	ctx->tid = tid;
	return 0;
}

static int pctx_fetch_fpu(struct pcontext *c, struct cpu_state *cpu)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct iovec iov = {.iov_base = cpu->fpu, .iov_len = c->plat->fpu_size};

	if (cpu->fpu_valid || cpu->fpu_dirty)
		return 0;
	if (!ctx->tid || ptrace(PTRACE_GETREGSET, ctx->tid, NT_X86_XSTATE, &iov) < 0)
		return -ESRCH;
	if (iov.iov_len < c->plat->fpu_size)
		memset(cpu->fpu + iov.iov_len, 0, c->plat->fpu_size - iov.iov_len);
	cpu->fpu_valid = true;
	return 0;
}

static int pctx_switch(struct pcontext *c, struct address_space *a, struct cpu_state *cpu,
		       struct pevent *ev)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct ptrace_as *as = to_pas(a);
	int status, sig, ret;

	ctx->tgid = as->pid;
	ctx->tid = my_thread(as);
	if (!ctx->tid) {
		ret = ctx->joining ? join_thread(as, ctx) : -EPERM;
		if (ret < 0)
			return ret;
	}
	if (cpu->fpu_reset) {
		ret = reset_fpu(ctx->tid);
		if (ret < 0)
			return ret;
		cpu->fpu_reset = false;
	}
	if (cpu->fpu_dirty) {
		struct iovec iov = {.iov_base = cpu->fpu, .iov_len = c->plat->fpu_size};
		if (ptrace(PTRACE_SETREGSET, ctx->tid, NT_X86_XSTATE, &iov) < 0)
			return errno == ESRCH ? -ESRCH : -EINVAL;
		cpu->fpu_dirty = false;
	}
	cpu->fpu_valid = false;
	ret = push_regs(ctx->tid, cpu);
	if (ret < 0)
		return ret;

	__atomic_store_n(&ctx->running, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&ctx->interrupt, 0, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
		ev->kind = PEVENT_INTERRUPT;
		return 0;
	}
	acct_resume(as, ctx);
	if (ptrace(PTRACE_SYSEMU, ctx->tid, 0, 0) < 0) {
		acct_stop(as, ctx);
		__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
		return -ESRCH;
	}
	for (;;) {
		pid_t r = waitpid(ctx->tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	acct_stop(as, ctx);
	__atomic_store_n(&ctx->running, 0, __ATOMIC_SEQ_CST);
	if (!WIFSTOPPED(status)) {
		/* Killed behind our back, and reaped just now. */
		if (ctx->tid != as->pid)
			forget_thread(as, ctx->tid);
		ctx->tid = 0;
		return -ESRCH;
	}
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
		syscall(SYS_tgkill, ctx->tgid, ctx->tid, INTERRUPT_SIGNAL);
}

/* The guest CPU time of the context: its share of the stub's clock (see the top). */
static uint64_t pctx_cpu_time_ns(struct pcontext *c)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct ptrace_platform *pp = to_pp(c->plat);
	uint64_t ns;

	pthread_mutex_lock(&pp->acct_lock);
	if (ctx->acct_as) {
		pthread_mutex_lock(&ctx->acct_as->lock);
		acct_sample(ctx->acct_as);
		ns = ctx->cpu_ns;
		pthread_mutex_unlock(&ctx->acct_as->lock);
	} else {
		ns = ctx->cpu_ns;
	}
	pthread_mutex_unlock(&pp->acct_lock);
	return ns;
}

static void pctx_release(struct pcontext *c)
{
	struct ptrace_ctx *ctx = to_pctx(c);
	struct ptrace_platform *pp = to_pp(c->plat);

	pthread_mutex_lock(&pp->acct_lock);
	if (ctx->acct_as)
		acct_detach_locked(ctx);
	pthread_mutex_unlock(&pp->acct_lock);
	free(ctx);
}

static const struct pcontext_ops ptrace_ctx_ops = {
	.switch_to = pctx_switch,
	.fetch_regs = pctx_fetch_regs,
	.fetch_fpu = pctx_fetch_fpu,
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
	platform_probe_cpu(&p->base);
	pthread_mutex_init(&p->acct_lock, NULL);
	log_debug("ptrace: CPUID faulting %s",
		  p->base.cpuid_faulting ? "on (docs/cpuid.md feature set)"
					 : "unavailable (guests see the host's CPUID)");
	stub_set_cpuid_faulting(p->base.cpuid_faulting);
	*out = &p->base;
	return 0;
}

static void ptrace_destroy(struct platform *p)
{
	pthread_mutex_destroy(&to_pp(p)->acct_lock);
	free(to_pp(p));
}

const struct platform_ops ptrace_platform_ops = {
	.name = "ptrace",
	.probe = ptrace_probe,
	.create = ptrace_create,
	.destroy = ptrace_destroy,
	.as_new = ptrace_as_new,
	.ctx_new = ptrace_ctx_new,
	.thread_exit = ptrace_thread_exit,
};
