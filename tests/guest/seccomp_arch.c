/*
 * Guest test: filters see a 32-bit system call (int $0x80) as
 * AUDIT_ARCH_I386 with its i386 number, as Linux shows it, and what they
 * decide for it happens: ERRNO, TRAP (si_arch and si_syscall of the i386
 * call), KILL_PROCESS for a foreign architecture. Only decided calls are
 * made (a 32-bit call that a filter lets through is ENOSYS in rung). A
 * host without 32-bit emulation skips the test.
 */
#include "guest.h"
#include "seccompguest.h"

#include <ucontext.h>

#define I386_GETPID 20

/* A filter: x86-64 calls pass, others get ret. */
static long on_foreign(uint32_t ret)
{
	struct sock_filter f[] = {
		LD_ABS(SD_ARCH),
		JEQ(AUDIT_ARCH_X86_64, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(ret),
	};

	return sc_install(0, f, ARRAY_LEN(f));
}

extern char int80_site[];
__attribute__((noinline)) static long int80(long nr, long a0)
{
	long ret;

	__asm__ volatile("int $0x80\n"
			 ".globl int80_site\n"
			 "int80_site:\n"
			 : "=a"(ret)
			 : "0"(nr), "b"(a0)
			 : "memory");
	return ret;
}

static void foreign_errno(void)
{
	sc_no_new_privs();
	CHECK_EQ(on_foreign(ERRNO(77)), 0, "install ERRNO(77) for other architectures");
	CHECK_EQ(int80(I386_GETPID, 0), -77, "int $0x80 getpid gets -77");
	CHECK(syscall(SYS_getpid) > 0, "the 64-bit getpid passes");
}

static volatile int hits;
static siginfo_t seen;
static greg_t seen_rax, seen_rbx;

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	hits++;
	seen = *si;
	seen_rax = uc->uc_mcontext.gregs[REG_RAX];
	seen_rbx = uc->uc_mcontext.gregs[REG_RBX];
	uc->uc_mcontext.gregs[REG_RAX] = 99;
}

static void foreign_trap(void)
{
	struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};

	sc_no_new_privs();
	sigaction(SIGSYS, &sa, NULL);
	CHECK_EQ(on_foreign(SECCOMP_RET_TRAP | 5), 0, "install TRAP for other architectures");
	CHECK_EQ(int80(I386_GETPID, 1234), 99, "int $0x80 returns what the handler set");
	CHECK_EQ(hits, 1, "the handler ran once");
	CHECK_EQ(seen.si_arch, AUDIT_ARCH_I386, "si_arch is AUDIT_ARCH_I386");
	CHECK_EQ(seen.si_syscall, I386_GETPID, "si_syscall is the i386 number");
	CHECK_EQ(seen.si_errno, 5, "si_errno is the filter's data");
	CHECK(seen.si_call_addr == (void *)int80_site, "si_call_addr is after int $0x80");
	CHECK_EQ(seen_rax, I386_GETPID, "the frame's rax is the i386 number");
	CHECK_EQ(seen_rbx, 1234, "the frame's rbx is the first argument");
}

static void foreign_kill(void)
{
	sc_no_new_privs();
	CHECK_EQ(on_foreign(SECCOMP_RET_KILL_PROCESS), 0,
		 "install KILL_PROCESS for other architectures");
	int80(I386_GETPID, 0);
	printf("FAIL: survived a 32-bit call\n");
}

int main(void)
{
	int status;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	status = sc_child(foreign_errno);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		printf("SKIP: no 32-bit system calls on this host\n");
		return 77;
	}
	sc_print_status("errno", status);
	sc_print_status("trap", sc_child(foreign_trap));
	sc_print_status("kill", sc_child(foreign_kill));
	return GUEST_DONE();
}
