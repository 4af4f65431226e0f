/*
 * Guest test: SECCOMP_RET_TRAP. The call does not run; SIGSYS arrives with
 * si_code SYS_SECCOMP, si_errno the filter's data, si_call_addr the
 * address after the syscall instruction, si_syscall and si_arch; the
 * handler sees the call's registers (rax its number again) and may set
 * the result. With SIGSYS blocked or ignored the process dies of it, and
 * a TRAP beats an ERRNO of another filter.
 */
#include "guest.h"
#include "seccompguest.h"

#include <fcntl.h>
#include <ucontext.h>

/* A system call whose return address the test knows: trap_site. */
extern char trap_site[];
__attribute__((noinline)) static long trap_call(long nr, long a0)
{
	long ret;

	__asm__ volatile("syscall\n"
			 ".globl trap_site\n"
			 "trap_site:\n"
			 : "=a"(ret)
			 : "0"(nr), "D"(a0)
			 : "rcx", "r11", "memory");
	return ret;
}

static volatile int hits;
static siginfo_t seen;
static greg_t seen_rip, seen_rax, seen_rdi;

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	hits++;
	seen = *si;
	seen_rip = uc->uc_mcontext.gregs[REG_RIP];
	seen_rax = uc->uc_mcontext.gregs[REG_RAX];
	seen_rdi = uc->uc_mcontext.gregs[REG_RDI];
	uc->uc_mcontext.gregs[REG_RAX] = 4242; /* what the call returns */
}

static void trap_handled(void)
{
	struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
	int next = dup(0);

	close(next);
	sc_no_new_privs();
	CHECK_EQ(sigaction(SIGSYS, &sa, NULL), 0, "SIGSYS handler");
	CHECK_EQ(sc_on_nr(0, SYS_dup, SECCOMP_RET_TRAP | 0x1234), 0, "install TRAP(0x1234) for dup");
	CHECK_EQ(trap_call(SYS_dup, 1), 4242, "dup returns what the handler put in rax");
	CHECK_EQ(hits, 1, "the handler ran once");
	CHECK_EQ(seen.si_signo, SIGSYS, "si_signo is SIGSYS");
	CHECK_EQ(seen.si_code, 1, "si_code is SYS_SECCOMP");
	CHECK_EQ(seen.si_errno, 0x1234, "si_errno is the filter's data");
	CHECK(seen.si_call_addr == (void *)trap_site, "si_call_addr is after the syscall instruction");
	CHECK_EQ(seen.si_syscall, SYS_dup, "si_syscall is dup");
	CHECK_EQ(seen.si_arch, AUDIT_ARCH_X86_64, "si_arch is AUDIT_ARCH_X86_64");
	CHECK(seen_rip == (greg_t)trap_site, "the frame's rip is after the syscall instruction");
	CHECK_EQ(seen_rax, SYS_dup, "the frame's rax is the system call number");
	CHECK_EQ(seen_rdi, 1, "the frame's rdi is the first argument");
	CHECK_ERRNO(fcntl(next, F_GETFD), EBADF, "dup did not run");

	/* Another filter's ERRNO loses to the TRAP. */
	CHECK_EQ(sc_on_nr(0, SYS_dup, ERRNO(EPERM)), 0, "install ERRNO for dup on top");
	CHECK_EQ(trap_call(SYS_dup, 2), 4242, "TRAP still wins");
	CHECK_EQ(hits, 2, "the handler ran again");
	CHECK_EQ(seen_rdi, 2, "with this call's argument");
}

static void trap_blocked(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_TRAP), 0, "install TRAP for getppid");
	syscall(SYS_getppid);
	printf("FAIL: survived a TRAP with SIGSYS blocked\n");
}

static void trap_ignored(void)
{
	signal(SIGSYS, SIG_IGN);
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_TRAP), 0, "install TRAP for getppid");
	syscall(SYS_getppid);
	printf("FAIL: survived a TRAP with SIGSYS ignored\n");
}

static void trap_default(void)
{
	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_getppid, SECCOMP_RET_TRAP), 0, "install TRAP for getppid");
	syscall(SYS_getppid);
	printf("FAIL: survived a TRAP with SIGSYS's default action\n");
}

int main(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	sc_print_status("trap with a handler", sc_child(trap_handled));
	sc_print_status("trap with SIGSYS blocked", sc_child(trap_blocked));
	sc_print_status("trap with SIGSYS ignored", sc_child(trap_ignored));
	sc_print_status("trap with SIGSYS's default action", sc_child(trap_default));
	return GUEST_DONE();
}
