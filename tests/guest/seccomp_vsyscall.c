/*
 * Guest test: the legacy vsyscall page's calls (gettimeofday, time, getcpu
 * at 0xffffffffff600000 + 0x400 * n) pass the filters as the system calls
 * they are, made at the vsyscall entry: ERRNO comes back in rax, a TRAP's
 * SIGSYS names the entry as si_call_addr and returns to the caller. A host
 * whose vsyscall page is off skips the test.
 */
#include "guest.h"
#include "seccompguest.h"

#include <ucontext.h>

#define VSYSCALL_TIME	 0xffffffffff600400ul
#define VSYSCALL_GETTOD	 0xffffffffff600000ul
#define VSYSCALL_GETCPU	 0xffffffffff600800ul

typedef long (*vsys_fn)(void *, void *, void *);

static long vcall(unsigned long entry, void *a, void *b)
{
	return ((vsys_fn)entry)(a, b, NULL);
}

static void plain(void)
{
	long t = vcall(VSYSCALL_TIME, NULL, NULL);

	CHECK(t > 1000000000, "vsyscall time works without a filter");
}

static void errno_action(void)
{
	struct timeval tv;

	sc_no_new_privs();
	CHECK_EQ(sc_on_nr(0, SYS_time, ERRNO(EPERM)), 0, "install ERRNO(EPERM) for time");
	CHECK_EQ(vcall(VSYSCALL_TIME, NULL, NULL), -EPERM, "vsyscall time returns -EPERM");
	CHECK_EQ(vcall(VSYSCALL_GETTOD, &tv, NULL), 0, "vsyscall gettimeofday still works");
}

static volatile int hits;
static siginfo_t seen;

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	hits++;
	seen = *si;
	uc->uc_mcontext.gregs[REG_RAX] = 31;
}

static void trap_action(void)
{
	struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
	unsigned cpu = 0;

	sc_no_new_privs();
	sigaction(SIGSYS, &sa, NULL);
	CHECK_EQ(sc_on_nr(0, SYS_getcpu, SECCOMP_RET_TRAP | 9), 0, "install TRAP for getcpu");
	CHECK_EQ(vcall(VSYSCALL_GETCPU, &cpu, NULL), 31,
		 "vsyscall getcpu returns to its caller with the handler's rax");
	CHECK_EQ(hits, 1, "the handler ran once");
	CHECK_EQ(seen.si_syscall, SYS_getcpu, "si_syscall is getcpu");
	CHECK(seen.si_call_addr == (void *)VSYSCALL_GETCPU, "si_call_addr is the vsyscall entry");
	CHECK_EQ(seen.si_errno, 9, "si_errno is the filter's data");
}

int main(void)
{
	int status;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	status = sc_child(plain);
	if (!WIFEXITED(status)) {
		printf("SKIP: no vsyscall page on this host\n");
		return 77;
	}
	sc_print_status("plain", status);
	sc_print_status("errno", sc_child(errno_action));
	sc_print_status("trap", sc_child(trap_action));
	return GUEST_DONE();
}
