/*
 * Creating stubs and running injected system calls in them.
 *
 * A stub is forked from the thread that will trace it. In the child only raw
 * system calls run (the parent is multi-threaded): it arranges to die with
 * its tracer, leaves the sentry's session, closes every descriptor but the
 * memory file, asks to be traced, installs the stub seccomp filter and stops
 * on an int3 in the stub page. The tracer then unmaps everything else.
 */
#include "config.h"
#include "platform/ptrace/stub.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t stub_base;
static bool stub_cpuid_faulting;

void stub_set_cpuid_faulting(bool on)
{
	stub_cpuid_faulting = on;
}

static const uint8_t stub_code[] = {
	/* 0: injected calls */
	0x0f, 0x05,	  /* syscall */
	0xcc,		  /* int3 */
	0x0f, 0x0b,	  /* ud2 */
	0x90, 0x90, 0x90, /* pad */
	/* 8: a new stub stops here for its tracer */
	0xcc,			      /* int3 */
	0x0f, 0x0b,		      /* ud2 */
	0x90, 0x90, 0x90, 0x90, 0x90, /* pad */
	/* 16: an injected clone; the new thread parks, the caller traps */
	0x0f, 0x05,			   /* syscall */
	0x48, 0x85, 0xc0,		   /* test %rax, %rax */
	0x75, 0x09,			   /* jne 32 */
	0xb8, SYS_pause, 0x00, 0x00, 0x00, /* 23: mov $SYS_pause, %eax */
	0x0f, 0x05,			   /* syscall */
	0xeb, 0xf7,			   /* jmp 23 */
	0xcc,				   /* 32: int3 */
	0x0f, 0x0b,			   /* ud2 */
};

int stub_code_init(struct rung_error *err)
{
	const uint64_t lo = GUEST_MAX_ADDR, span = HOST_TASK_SIZE - GUEST_MAX_ADDR - (1ul << 32);

	if (stub_base)
		return 0;
	/* A random page in the platform's part of the address space that the
	 * sentry itself does not use; stubs inherit it at the same address. */
	for (int i = 0; i < 64; i++) {
		uint64_t r = 0, addr;
		void *p;
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)monotonic_ns() * 0x9e3779b97f4a7c15ull;
		addr = lo + ALIGN_DOWN(r % span, GUEST_PAGE_SIZE);
		/* The filter compares the low half of the IP against [page, page+4096). */
		if ((uint32_t)addr >= 0xfffff000u)
			continue;
		p = mmap((void *)addr, GUEST_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if ((uint64_t)p != addr) {
			munmap(p, GUEST_PAGE_SIZE);
			continue;
		}
		memset(p, 0xcc, GUEST_PAGE_SIZE);
		memcpy(p, stub_code, sizeof(stub_code));
		if (mprotect(p, GUEST_PAGE_SIZE, PROT_READ | PROT_EXEC) < 0) {
			munmap(p, GUEST_PAGE_SIZE);
			return rung_error_make(err, errno, "protect the stub code page");
		}
		stub_base = addr;
		return 0;
	}
	return rung_error_make(err, ENOMEM, "no free address for the stub code page");
}

uint64_t stub_code_base(void)
{
	return stub_base;
}

/* The child side of stub_spawn(): raw system calls only, never returns. */
static void __attribute__((noreturn))
stub_child(int memfd, pid_t parent, const struct sock_fprog *prog)
{
	uint64_t empty = 0;

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, sizeof(empty));
	/* The thread we were forked from registered an rseq area in its TLS; the
	 * registration is inherited, and once the TLS is unmapped the kernel's
	 * rseq updates would fault (SIGSEGV on return to user). Drop it. */
	if (__rseq_size > 0 && syscall(SYS_rseq, (char *)__builtin_thread_pointer() + __rseq_offset,
				       sizeof(struct rseq), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) < 0)
		syscall(SYS_exit_group, 4);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (syscall(SYS_getppid) != parent)
		syscall(SYS_exit_group, 1);
	/* Its own session: a terminal's SIGINT or SIGHUP never reaches guest code. */
	syscall(SYS_setsid);
	syscall(SYS_prctl, PR_SET_NAME, "rung-stub", 0, 0, 0);
	/* Guest CPUID faults to the sentry (threads cloned later inherit it). */
	if (stub_cpuid_faulting && syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) < 0)
		syscall(SYS_exit_group, 5);
	if (memfd > 0)
		syscall(SYS_close_range, 0, memfd - 1, 0);
	syscall(SYS_close_range, memfd + 1, ~0u, 0);
	if (syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0) < 0)
		syscall(SYS_exit_group, 2);
	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
		syscall(SYS_exit_group, 3);
	/* From here on only the stub page may make system calls. */
	((void (*)(void))(stub_base + STUB_ENTRY_OFF))();
	__builtin_unreachable();
}

/* Wait for tid to stop; returns the stop signal, or -ESRCH if it is gone. */
static int wait_stop(pid_t tid, int *status)
{
	for (;;) {
		pid_t r = waitpid(tid, status, __WALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -ESRCH;
		}
		if (WIFSTOPPED(*status))
			return WSTOPSIG(*status);
		return -ESRCH;
	}
}

/* Run syscall nr at code offset at in the stopped thread tid, until the int3
 * that leaves rip at trap_after. */
static long inject_at(pid_t tid, uint64_t at, uint64_t trap_after, long nr, uint64_t a0,
		      uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct user_regs_struct saved, r;
	int status, sig;

	if (ptrace(PTRACE_GETREGS, tid, 0, &saved) < 0)
		return -ESRCH;
	r = saved;
	r.rip = stub_base + at;
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1;
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.r10 = a3;
	r.r8 = a4;
	r.r9 = a5;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_CONT, tid, 0, 0) < 0)
		return -ESRCH;
	for (;;) {
		sig = wait_stop(tid, &status);
		if (sig < 0)
			return sig;
		if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
			return -ESRCH;
		if (sig == SIGTRAP && r.rip == stub_base + trap_after)
			break;
		/* Anything else (an interrupt signal) is dropped here; the context
		 * keeps its own note that an interrupt is pending. */
		if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
			return -ESRCH;
	}
	if (ptrace(PTRACE_SETREGS, tid, 0, &saved) < 0)
		return -ESRCH;
	return (long)r.rax;
}

long stub_inject(pid_t tid, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		 uint64_t a4, uint64_t a5)
{
	return inject_at(tid, STUB_SYSCALL_OFF, STUB_TRAP_AFTER, nr, a0, a1, a2, a3, a4, a5);
}

pid_t stub_clone_thread(pid_t tid)
{
	/* No new stack: the parked thread never touches memory. */
	return (pid_t)inject_at(tid, STUB_CLONE_OFF, STUB_CLONE_AFTER, SYS_clone, STUB_CLONE_FLAGS,
				0, 0, 0, 0, 0);
}

int stub_exit_thread(pid_t tid)
{
	struct user_regs_struct r;
	int status;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return -ESRCH;
	r.rip = stub_base + STUB_SYSCALL_OFF;
	r.rax = SYS_exit;
	r.orig_rax = (uint64_t)-1;
	r.rdi = 0;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_CONT, tid, 0, 0) < 0)
		return -ESRCH;
	/* Stray stops (an interrupt signal) are passed over until it is gone. */
	for (;;) {
		pid_t w = waitpid(tid, &status, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || !WIFSTOPPED(status))
			return 0;
		if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
			return 0;
	}
}

pid_t stub_spawn(int memfd)
{
	struct sock_filter filter[STUB_FILTER_MAX];
	struct sock_fprog prog = {.len = stub_filter(stub_base, memfd, filter), .filter = filter};
	pid_t parent = getpid(), pid;
	int status, sig;
	long ret;

	/* A plain clone: no fork handlers run, the child touches no libc state. */
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		return -errno;
	if (pid == 0)
		stub_child(memfd, parent, &prog);

	sig = wait_stop(pid, &status);
	if (sig != SIGTRAP) {
		if (sig > 0)
			kill(pid, SIGKILL);
		waitpid(pid, &status, __WALL);
		return -ECHILD;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD) < 0)
		goto fail;
	/* Leave only the stub page: the sentry's code, heap, stacks, vDSO and vvar go. */
	ret = stub_inject(pid, SYS_munmap, 0, stub_base, 0, 0, 0, 0);
	if (ret == 0)
		ret = stub_inject(pid, SYS_munmap, stub_base + GUEST_PAGE_SIZE,
				  HOST_TASK_SIZE - stub_base - GUEST_PAGE_SIZE, 0, 0, 0, 0);
	if (ret < 0)
		goto fail;
	return pid;
fail:
	kill(pid, SIGKILL);
	waitpid(pid, &status, __WALL);
	return -ECHILD;
}
