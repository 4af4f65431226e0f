/*
 * systrap stub processes: one per guest address space, forked from the
 * sentry thread that needs it (fork and exec each get a fresh one, with the
 * stub region at the same address). Its first thread is the injector, which
 * runs the memory operations the sentry writes into slot 0 and clones the
 * guest threads; each guest task gets one thread, in a slot of its own.
 */
#include "config.h"
#include "platform/systrap/systrap.h"
#include "platform/systrap/filter.h"
#include "platform/spawner.h"
#include "sentry/mm/memfile.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define to_sas(a) container_of(a, struct systrap_as, base)

/* The stub code's entry points (stub.S), as offsets into the region. */
extern const char systrap_stub_start[], systrap_stub_entry[], systrap_stub_handler[],
	systrap_stub_restorer[];
#define STUB_OFF(sym) ((uint64_t)((sym)-systrap_stub_start))

/* The signals guest threads take in the stub's handler. */
static const int stub_signals[] = {SIGSYS, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGCHLD};

/* The kernel's struct sigaction (rt_sigaction). */
struct ksigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

void systrap_thread_exit(struct platform *p)
{
	spawner_thread_exit();
}

bool systrap_thread_alive(pid_t pid, pid_t tid)
{
	return syscall(SYS_tgkill, pid, tid, 0) == 0;
}

/* --- spawning ---------------------------------------------------------------- */

struct spawn_args {
	pid_t parent;
	uint64_t text, data;
	int memfd, slotfd, report_fd, report_rd;
	off_t slot0; /* slot 0's offset in the slot file */
	bool cpuid_faulting;
	struct sock_fprog prog; /* the stub filter */
};

/* Close every descriptor but the three the stub keeps. */
static void close_all_but(int a, int b, int c)
{
	int keep[3] = {a, b, c}, lo = 0;

	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	for (int i = 0; i < 3; i++) {
		if (keep[i] > lo)
			syscall(SYS_close_range, lo, keep[i] - 1, 0);
		lo = keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0u, 0);
}

/*
 * The child side of a spawn: raw system calls only (the parent has other
 * threads), and never returns. It arranges to die with its sentry thread,
 * leaves the sentry's session, keeps only the guest memory file, the slot
 * file and its report pipe, installs the handler for guest traps, maps its
 * slot 0, turns on the stub filter and jumps into the stub code, which
 * unmaps everything else and becomes the injector.
 */
static void __attribute__((noreturn)) stub_child(const struct spawn_args *a)
{
	/* Faults (SIGSYS included) may never be blocked: the kernel kills a
	 * thread that takes one blocked. Everything else is, in the injector
	 * and, until their first answer, in new guest threads. */
	uint64_t mask = ~0ull;
	struct ksigaction act = {
		.handler = a->text + STUB_OFF(systrap_stub_handler),
		.flags = SA_SIGINFO | SA_ONSTACK | SA_RESTORER,
		.restorer = a->text + STUB_OFF(systrap_stub_restorer),
		.mask = ~0ull,
	};

	for (size_t i = 0; i < ARRAY_SIZE(stub_signals); i++)
		if (stub_signals[i] != SIGCHLD)
			mask &= ~(1ull << (stub_signals[i] - 1));
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, sizeof(mask));
	/* The rseq area registered for the sentry thread goes with its TLS. */
	if (__rseq_size > 0 && syscall(SYS_rseq, (char *)__builtin_thread_pointer() + __rseq_offset,
				       sizeof(struct rseq), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) < 0)
		syscall(SYS_exit_group, 4);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (syscall(SYS_getppid) != a->parent)
		syscall(SYS_exit_group, 1);
	syscall(SYS_setsid);
	syscall(SYS_prctl, PR_SET_NAME, "rung-stub", 0, 0, 0);
	if (a->cpuid_faulting && syscall(SYS_arch_prctl, 0x1012 /* ARCH_SET_CPUID */, 0) < 0)
		syscall(SYS_exit_group, 5);
	syscall(SYS_close, a->report_rd);
	close_all_but(a->memfd, a->slotfd, a->report_fd);
	for (size_t i = 0; i < ARRAY_SIZE(stub_signals); i++)
		if (syscall(SYS_rt_sigaction, stub_signals[i], &act, NULL, sizeof(uint64_t)) < 0)
			syscall(SYS_exit_group, 6);
	if (syscall(SYS_mmap, a->data, STUB_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, a->slotfd,
		    a->slot0) != (long)a->data ||
	    syscall(SYS_mmap, a->data + STUB_PAGE, SLOT_SIZE - STUB_PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED, a->slotfd,
		    a->slot0 + STUB_PAGE) != (long)(a->data + STUB_PAGE))
		syscall(SYS_exit_group, 7);
	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &a->prog) < 0)
		syscall(SYS_exit_group, 3);
	/* Only the stub's code may make system calls from here on. */
	((void (*)(void))(a->text + STUB_OFF(systrap_stub_entry)))();
	__builtin_unreachable();
}

/* Read one 8-byte report of the injector. -ESRCH once the stub is gone. */
static long read_report(int fd)
{
	uint64_t v;

	for (;;) {
		ssize_t n = read(fd, &v, sizeof(v));
		if (n == (ssize_t)sizeof(v))
			return (long)v;
		if (n < 0 && errno == EINTR)
			continue;
		return -ESRCH;
	}
}

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
}

static const struct as_ops systrap_as_ops;

int systrap_as_new(struct platform *p, struct address_space **out)
{
	struct systrap_platform *sp = to_splat(p);
	struct sock_filter insn[SYSTRAP_FILTER_MAX];
	struct spawn_args a = {
		.parent = getpid(),
		.text = sp->text,
		.data = sp->data,
		.memfd = p->mf->fd,
		.slotfd = sp->slotfd,
		.cpuid_faulting = p->cpuid_faulting,
	};
	struct systrap_filter_params fp;
	struct systrap_as *as;
	int fds[2], chunk;
	uint8_t *slot0;
	long r;
	pid_t pid;

	chunk = systrap_chunk_alloc(sp);
	if (chunk < 0)
		return chunk;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		systrap_chunk_free(sp, chunk);
		return -errno;
	}
	slot0 = chunk_ptr(sp, chunk);
	memset(slot0, 0, 2 * STUB_PAGE);
	*(uint32_t *)(slot0 + SP_REPORT_FD) = (uint32_t)fds[1];
	a.report_fd = fds[1];
	a.report_rd = fds[0];
	a.slot0 = (off_t)chunk * SLOT_SIZE;
	fp = (struct systrap_filter_params){.text = sp->text,
					    .data = sp->data,
					    .memfd = a.memfd,
					    .slotfd = a.slotfd,
					    .report_fd = a.report_fd};
	a.prog.len = systrap_stub_filter(&fp, insn);
	a.prog.filter = insn;
	if (a.prog.len == 0) {
		r = -EINVAL;
		goto fail_fds;
	}

	/* A plain clone: no fork handlers run, the child touches no libc state. */
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0) {
		r = -errno;
		goto fail_fds;
	}
	if (pid == 0)
		stub_child(&a);
	close(fds[1]);
	r = read_report(fds[0]);
	if (r != STUB_READY) {
		int status = 0;
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
			;
		log_warning("systrap: a new stub failed to start (status %#x)", status);
		close(fds[0]);
		systrap_chunk_free(sp, chunk);
		return -ECHILD;
	}

	as = xzalloc(sizeof(*as));
	as->base.ops = &systrap_as_ops;
	as->base.plat = p;
	as->pid = pid;
	as->report_fd = fds[0];
	as->injector_cpu = -1;
	pthread_mutex_init(&as->lock, NULL);
	as->nslots = 8;
	as->slots = xzalloc(sizeof(*as->slots) * as->nslots);
	for (unsigned i = 0; i < as->nslots; i++)
		as->slots[i].chunk = -1;
	as->slots[0] = (struct slot){.state = SLOT_USED, .chunk = chunk, .tid = pid};
	pthread_mutex_lock(&sp->lock);
	as->id = sp->next_as_id++;
	pthread_mutex_unlock(&sp->lock);
	/* The stub dies with this thread (PR_SET_PDEATHSIG). */
	as->spawner = spawner_hold();
	*out = &as->base;
	return 0;

fail_fds:
	close(fds[0]);
	close(fds[1]);
	systrap_chunk_free(sp, chunk);
	return (int)r;
}

/* --- the injector ------------------------------------------------------------- */

/* Keep the injector on the caller's CPU: its wake-ups stay there. */
static void injector_follow(struct systrap_as *as)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0 || cpu == as->injector_cpu)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(as->pid, sizeof(set), &set) == 0)
		as->injector_cpu = cpu;
}

/* Run a system call in the stub (as->lock held). Returns its result as the
 * stub reported it (a guest may have changed it), -ESRCH if the stub is gone. */
static long inject(struct systrap_as *as, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		   uint64_t a3, uint64_t a4, uint64_t a5)
{
	uint8_t *sp = chunk_ptr(to_splat(as->base.plat), as->slots[0].chunk);
	uint64_t *args = (uint64_t *)(sp + SP_CMD_ARGS);
	long r;

	if (as->dead)
		return -ESRCH;
	injector_follow(as);
	*(uint64_t *)(sp + SP_CMD_NR) = (uint64_t)nr;
	args[0] = a0;
	args[1] = a1;
	args[2] = a2;
	args[3] = a3;
	args[4] = a4;
	args[5] = a5;
	__atomic_store_n((uint32_t *)(sp + SP_CMD_SEQ), ++as->cmd_seq, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, sp + SP_CMD_SEQ, FUTEX_WAKE, 1, NULL, NULL, 0);
	r = read_report(as->report_fd);
	if (r == -ESRCH && !systrap_thread_alive(as->pid, as->pid))
		as->dead = true;
	return r;
}

/* The stub is in a state the sentry cannot trust: it goes (its guest with it). */
static void kill_stub(struct systrap_as *as)
{
	as->dead = true;
	kill(as->pid, SIGKILL);
}

static int sas_map(struct address_space *a, uint64_t addr, uint64_t len, int prot, uint64_t off)
{
	struct systrap_as *as = to_sas(a);
	long r;

	pthread_mutex_lock(&as->lock);
	r = inject(as, SYS_mmap, addr, len, (uint64_t)prot, MAP_SHARED | MAP_FIXED,
		   (uint64_t)a->plat->mf->fd, off);
	if (r != (long)addr && r != -ESRCH) {
		/* Whatever is there now, nothing of it may stay. */
		if (inject(as, SYS_munmap, addr, len, 0, 0, 0, 0) != 0)
			kill_stub(as);
		r = r < 0 && r >= -4095 ? r : -EFAULT;
	}
	pthread_mutex_unlock(&as->lock);
	return r == (long)addr ? 0 : (int)r;
}

static int sas_protect(struct address_space *a, uint64_t addr, uint64_t len, int prot)
{
	struct systrap_as *as = to_sas(a);
	long r;

	/* The sentry's own filter, which stubs inherit, allows no executable
	 * mprotect: the caller maps the window again instead. */
	if (prot & PROT_EXEC)
		return -EPERM;
	pthread_mutex_lock(&as->lock);
	r = inject(as, SYS_mprotect, addr, len, (uint64_t)prot, 0, 0, 0);
	pthread_mutex_unlock(&as->lock);
	/* On failure the caller maps the window again (sas_map), which leaves
	 * nothing of the old one or kills the stub. */
	return r == 0 ? 0 : r < 0 && r >= -4095 ? (int)r : -EFAULT;
}

static int sas_unmap(struct address_space *a, uint64_t addr, uint64_t len)
{
	struct systrap_as *as = to_sas(a);
	long r;

	pthread_mutex_lock(&as->lock);
	r = inject(as, SYS_munmap, addr, len, 0, 0, 0, 0);
	/* A window the stub may still have must not outlive the sentry's
	 * mapping of it (its pages may go to another guest next). */
	if (r != 0 && r != -ESRCH)
		kill_stub(as);
	pthread_mutex_unlock(&as->lock);
	return r == 0 ? 0 : -ESRCH;
}

/* --- threads -------------------------------------------------------------------- */

/* A free slot index (as->lock held), growing the table; 0 if none. */
static unsigned slot_find(struct systrap_as *as)
{
	for (unsigned i = 1; i < as->nslots; i++) {
		struct slot *s = &as->slots[i];
		if (s->state == SLOT_EXITING && !systrap_thread_alive(as->pid, s->tid))
			s->state = SLOT_FREE;
		if (s->state == SLOT_FREE)
			return i;
	}
	if (as->nslots == STUB_MAX_SLOTS)
		return 0;
	{
		unsigned old = as->nslots, n = MIN(old * 2, STUB_MAX_SLOTS);
		as->slots = xrealloc(as->slots, sizeof(*as->slots) * n);
		for (unsigned i = old; i < n; i++)
			as->slots[i] = (struct slot){.state = SLOT_FREE, .chunk = -1};
		as->nslots = n;
		return old;
	}
}

int systrap_thread_new(struct systrap_as *as, struct systrap_ctx *ctx)
{
	struct systrap_platform *sp = to_splat(as->base.plat);
	uint64_t stub_slot;
	struct slot *s;
	uint8_t *slot;
	stack_t ss;
	unsigned i;
	long r;

	pthread_mutex_lock(&as->lock);
	i = slot_find(as);
	if (i == 0) {
		pthread_mutex_unlock(&as->lock);
		return -EAGAIN;
	}
	s = &as->slots[i];
	stub_slot = sp->data + (uint64_t)i * SLOT_SIZE;
	if (s->chunk < 0) {
		int c = systrap_chunk_alloc(sp);
		uint64_t off = (uint64_t)c * SLOT_SIZE;
		if (c < 0) {
			pthread_mutex_unlock(&as->lock);
			return c;
		}
		/* Mapped into this stub from now on, whatever happens: the chunk
		 * stays the slot's until the process is gone. */
		s->chunk = c;
		if (inject(as, SYS_mmap, stub_slot, STUB_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
			   (uint64_t)sp->slotfd, off) != (long)stub_slot ||
		    inject(as, SYS_mmap, stub_slot + STUB_PAGE, SLOT_SIZE - STUB_PAGE,
			   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, (uint64_t)sp->slotfd,
			   off + STUB_PAGE) != (long)(stub_slot + STUB_PAGE)) {
			kill_stub(as);
			pthread_mutex_unlock(&as->lock);
			return -ENOMEM;
		}
	}
	slot = chunk_ptr(sp, s->chunk);
	memset(slot, 0, 2 * STUB_PAGE);
	ss = (stack_t){.ss_sp = (void *)(stub_slot + SLOT_STACK_OFF),
		       .ss_size = SLOT_SIZE - SLOT_STACK_OFF};
	memcpy(slot + SP_ALTSTACK, &ss, sizeof(ss));
	r = inject(as, SYS_clone, SYSTRAP_CLONE_FLAGS, stub_slot + SLOT_SIZE, 0, 0, 0, stub_slot);
	/* The tid is the stub's word: believe it only for a thread of the stub. */
	if (r <= 0 || r > INT32_MAX || !systrap_thread_alive(as->pid, (pid_t)r)) {
		pthread_mutex_unlock(&as->lock);
		return r < 0 && r >= -4095 ? (int)r : -EAGAIN;
	}
	s->state = SLOT_USED;
	s->tid = (pid_t)r;
	pthread_mutex_unlock(&as->lock);

	ctx->as_id = as->id;
	ctx->pid = as->pid;
	ctx->tid = (pid_t)r;
	ctx->index = i;
	ctx->slot = slot;
	ctx->sp = slot;
	ctx->st = slot + STUB_PAGE;
	ctx->stub_slot = stub_slot;
	ctx->seq = 0;
	ctx->started = false;
	ctx->uc = ctx->fpstate = 0;
	return 0;
}

static int sas_add_ctx(struct address_space *a, struct pcontext *c)
{
	return systrap_thread_new(to_sas(a), (struct systrap_ctx *)c);
}

/* The context's thread ends (its task exits or execs); the process goes on. */
static void sas_remove_ctx(struct address_space *a, struct pcontext *c)
{
	struct systrap_as *as = to_sas(a);
	struct systrap_ctx *ctx = (struct systrap_ctx *)c;

	if (ctx->as_id != as->id)
		return;
	/* It waits for an answer (or will, at its first trap): the answer is
	 * to exit. */
	__atomic_store_n((uint32_t *)(ctx->sp + SP_FLAGS), RESUME_EXIT, __ATOMIC_SEQ_CST);
	__atomic_store_n((uint32_t *)(ctx->sp + SP_RESUME_SEQ), ctx->started ? ctx->seq : 1,
			 __ATOMIC_SEQ_CST);
	syscall(SYS_futex, ctx->sp + SP_RESUME_SEQ, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_mutex_lock(&as->lock);
	as->slots[ctx->index].state = SLOT_EXITING;
	pthread_mutex_unlock(&as->lock);
	ctx->as_id = 0;
}

static void sas_release(struct address_space *a)
{
	struct systrap_as *as = to_sas(a);
	struct systrap_platform *sp = to_splat(a->plat);
	struct spawner *spw = as->spawner;

	reap(as->pid);
	close(as->report_fd);
	for (unsigned i = 0; i < as->nslots; i++)
		if (as->slots[i].chunk >= 0)
			systrap_chunk_free(sp, as->slots[i].chunk);
	pthread_mutex_destroy(&as->lock);
	free(as->slots);
	free(as);
	spawner_release(spw);
}

static const struct as_ops systrap_as_ops = {
	.map = sas_map,
	.unmap = sas_unmap,
	.protect = sas_protect,
	.add_ctx = sas_add_ctx,
	.remove_ctx = sas_remove_ctx,
	.release = sas_release,
};
