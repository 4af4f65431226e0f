/*
 * Guest faults: stack growth, vsyscall emulation, and otherwise the signal
 * the guest earned. When that signal kills the guest, the sandbox reports
 * it in one line: the signal, the address and access, the instruction.
 */
#include "config.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/cpuid.h"
#include "sentry/kernel/disasm.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/mm.h"
#include "syscalls/syscall.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#define VSYSCALL_PAGE 0xffffffffff600000ull

/* Decode the instruction at rip. Fills text (may be "?") and returns the
 * access its memory operands make (ACCESS_*), 0 if unknown. */
static unsigned decode_insn(struct task *t, uint64_t rip, char *text, int size)
{
	uint8_t code[16];
	size_t n = 0;

	while (n < sizeof(code) && mm_peek(t->mm, code + n, rip + n, 1) == 0)
		n++;
	if (n == 0) {
		snprintf(text, (size_t)size, "(no code there)");
		return 0;
	}
	return disasm_one(code, n, rip, text, size);
}

static const char *access_name(unsigned access)
{
	if (access & ACCESS_EXEC)
		return "execute";
	if (access & ACCESS_WRITE)
		return "write";
	if (access & ACCESS_READ)
		return "read";
	return "access";
}

static const char *segv_code_name(int code)
{
	switch (code) {
	case SEGV_MAPERR:
		return "address not mapped";
	case SEGV_ACCERR:
		return "permission denied";
	default:
		return "fault";
	}
}

/* Will sig kill the process (no handler to take it)? */
static bool fault_is_fatal(struct task *t, int sig)
{
	uint64_t h = t->sighand->action[sig - 1].handler;

	return h == (uint64_t)(uintptr_t)SIG_DFL || h == (uint64_t)(uintptr_t)SIG_IGN ||
	       (t->sigmask & (1ull << (sig - 1)));
}

/*
 * The guest gets the fault's signal (info as the host kernel gave it: the
 * guest's addresses are the stub's), delivered even if blocked or ignored,
 * as Linux's force_sig does. When it will kill, say why once.
 */
static void fault_signal(struct task *t, const siginfo_t *hinfo, int sig, int code, uint64_t addr,
			 unsigned access)
{
	struct user_regs_struct *r = task_regs(t);
	const char *abbrev = sigabbrev_np(sig);
	siginfo_t info;
	char insn[96];

	if (hinfo) {
		info = *hinfo;
	} else {
		memset(&info, 0, sizeof(info));
		info.si_signo = sig;
		info.si_code = code;
		info.si_addr = (void *)(uintptr_t)addr;
	}
	info.si_signo = sig;
	info.si_code = code;
	/* The sigcontext's trap fields, as the CPU would have left them. */
	if (sig == SIGSEGV && code > 0 && code != SI_KERNEL) {
		t->fault_trapno = 14; /* page fault */
		t->fault_err = 4 | ((access & ACCESS_WRITE) ? 2 : 0) |
			       ((access & ACCESS_EXEC) ? 16 : 0) | (code == SEGV_ACCERR ? 1 : 0);
		t->fault_cr2 = addr;
	} else {
		t->fault_trapno = sig == SIGFPE ? 0 : sig == SIGILL ? 6 : sig == SIGTRAP ? 3 : 13;
		t->fault_err = 0;
		t->fault_cr2 = 0;
	}
	if (fault_is_fatal(t, sig) && !t->pt.tracer) { /* a tracer may take it */
		decode_insn(t, r->rip, insn, (int)sizeof(insn));
		if (sig == SIGSEGV || sig == SIGBUS)
			log_error("pid %d (%s) killed by SIG%s: %s at 0x%llx (%s), at 0x%llx: %s",
				  t->tgid, t->comm, abbrev ? abbrev : "?", access_name(access),
				  (unsigned long long)addr,
				  sig == SIGSEGV ? segv_code_name(code) : "bus error",
				  (unsigned long long)r->rip, insn);
		else
			log_error("pid %d (%s) killed by SIG%s at 0x%llx: %s", t->tgid, t->comm,
				  abbrev ? abbrev : "?", (unsigned long long)r->rip, insn);
	}
	signal_force(t, &info);
}

static void fatal_fault(struct task *t, int sig, int code, uint64_t addr, unsigned access)
{
	fault_signal(t, NULL, sig, code, addr, access);
}

/*
 * A call into the legacy vsyscall page (gettimeofday, time, getcpu at
 * 0x...600000 + 0x400 * n). Without a host vsyscall page it arrives as an
 * execute fault there; with one, the stub's filter traps the kernel's
 * emulation and the return has already been done (ret_done).
 */
static void emulate_vsyscall(struct task *t, uint64_t addr, bool ret_done)
{
	struct user_regs_struct *r = task_regs(t);
	struct syscall_args a = {0};
	static const uint64_t nrs[] = {SYS_gettimeofday, SYS_time, SYS_getcpu};
	unsigned idx = (unsigned)((addr - VSYSCALL_PAGE) / 0x400);
	const struct syscall_desc *d;
	long ret;

	if ((addr - VSYSCALL_PAGE) % 0x400 || idx >= ARRAY_SIZE(nrs)) {
		fatal_fault(t, SIGSEGV, SEGV_MAPERR, addr, ACCESS_EXEC);
		return;
	}
	if (!ret_done) {
		uint64_t ret_addr;
		if (mm_copy_in(t->mm, &ret_addr, r->rsp, sizeof(ret_addr)) < 0) {
			fatal_fault(t, SIGSEGV, SEGV_MAPERR, r->rsp, ACCESS_READ);
			return;
		}
		r->rip = ret_addr;
		r->rsp += 8;
	}
	a.nr = nrs[idx];
	a.a[0] = r->rdi;
	a.a[1] = r->rsi;
	a.a[2] = r->rdx;
	a.a[3] = r->r10;
	a.a[4] = r->r8;
	a.a[5] = r->r9;
	/* The guest's seccomp filters see an emulated vsyscall as Linux shows
	 * it: its number, made at the vsyscall entry's address. */
	if (seccomp_syscall_at(t, SECCOMP_ARCH_X86_64, &a, addr, &ret)) {
		r->rax = (uint64_t)ret;
		task_regs_dirty(t, CPU_DIRTY_ALL);
		return;
	}
	d = syscall_lookup(a.nr);
	ret = d && d->fn ? d->fn(t, &a) : -ENOSYS;
	if (ret == -EFAULT) {
		/* A real vsyscall faults on a bad pointer. */
		fatal_fault(t, SIGSEGV, SEGV_MAPERR, r->rdi, ACCESS_WRITE);
		return;
	}
	r->rax = (uint64_t)ret;
	task_regs_dirty(t, CPU_DIRTY_ALL);
}

/* Is the instruction at rip CPUID (0f a2)? */
static bool is_cpuid_at(struct task *t, uint64_t rip)
{
	uint8_t insn[2];

	return mm_copy_in(t->mm, insn, rip, sizeof(insn)) == 0 && insn[0] == 0x0f &&
	       insn[1] == 0xa2;
}

void task_handle_fault(struct task *t, const struct pevent *ev)
{
	const siginfo_t *si = &ev->info;
	uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
	struct user_regs_struct *r = task_regs(t);
	unsigned access = ev->access;
	char insn[96];
	int code;

	switch (si->si_signo) {
	case SIGSEGV:
		/* CPUID faulting: the sentry answers (unless the guest itself asked
		 * for CPUID to fault). */
		if (si->si_code == SI_KERNEL && t->k->plat->cpuid_faulting && !t->cpuid_fault &&
		    is_cpuid_at(t, r->rip)) {
			cpuid_emulate(t);
			return;
		}
		if (addr >= VSYSCALL_PAGE && addr < VSYSCALL_PAGE + PAGE_SIZE && addr == r->rip) {
			emulate_vsyscall(t, addr, false);
			return;
		}
		if (addr == r->rip)
			access = ACCESS_EXEC;
		else if (!access)
			access = decode_insn(t, r->rip, insn, (int)sizeof(insn));
		code = mm_handle_fault(t->mm, addr, access, t->tg->rlim[RLIMIT_STACK].rlim_cur);
		if (code == 0)
			return;		     /* the stack grew (or a mapping was restored): retry */
		if (code == MM_FAULT_SIGBUS) /* past the end of a mapped file */
			fault_signal(t, NULL, SIGBUS, BUS_ADRERR, addr, access);
		else
			fault_signal(t, si, SIGSEGV, code, addr, access);
		return;
	case SIGSYS:
		if (si->si_code == 1 /* SYS_SECCOMP */) {
			uint64_t call = (uint64_t)(uintptr_t)si->si_call_addr;
			if (call >= VSYSCALL_PAGE && call < VSYSCALL_PAGE + PAGE_SIZE) {
				emulate_vsyscall(t, call, true);
				return;
			}
		}
		fatal_fault(t, SIGSYS, si->si_code, addr, 0);
		return;
	default:
		fault_signal(t, si, si->si_signo, si->si_code, addr, access);
		return;
	}
}
