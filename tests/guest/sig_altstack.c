/*
 * Guest test: sigaltstack(2). The kernel's minimum size is MINSIGSTKSZ
 * (2048 on x86-64), not glibc's run-time figure; SS_ONSTACK as a mode is
 * taken as 0; unknown flags are EINVAL; changing the stack while running
 * on it is EPERM. A handler with SA_ONSTACK runs on the stack, which then
 * reports SS_ONSTACK. SS_AUTODISARM disarms the stack while a handler
 * runs on it (the handler may set another) and sigreturn restores it. A
 * signal whose frame does not fit on the stack kills with SIGSEGV.
 */
#include "guest.h"

#include <signal.h>
#include <sys/wait.h>

#define KERNEL_MINSIGSTKSZ 2048
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)
#endif

static char big[65536] __attribute__((aligned(16)));
static char other[65536] __attribute__((aligned(16)));
static volatile int on_big, flags_in, eperm_in, set_in;

static int within(const void *p, const char *base, size_t size)
{
	return (const char *)p >= base && (const char *)p < base + size;
}

static void on_usr1(int sig)
{
	stack_t ss = {.ss_sp = other, .ss_size = sizeof(other)}, old;
	int local;

	on_big = within(&local, big, sizeof(big));
	sigaltstack(NULL, &old);
	flags_in = old.ss_flags;
	errno = 0;
	/* With SS_AUTODISARM the stack is disarmed here: another may be set. */
	set_in = sigaltstack(&ss, NULL) == 0;
	eperm_in = !set_in && errno == EPERM;
}

static int set_stack(void *sp, size_t size, int flags)
{
	stack_t ss = {.ss_sp = sp, .ss_size = size, .ss_flags = flags};

	return sigaltstack(&ss, NULL);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa = {.sa_handler = fn, .sa_flags = SA_ONSTACK};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* A signal delivered onto a stack its frame overflows: SIGSEGV. */
static void too_small(void)
{
	static char tiny[KERNEL_MINSIGSTKSZ] __attribute__((aligned(16)));
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		set_stack(tiny, sizeof(tiny), 0);
		handle(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	      "a frame that does not fit on the stack: SIGSEGV");
}

int main(void)
{
	stack_t old;

	CHECK_ERRNO(set_stack(big, KERNEL_MINSIGSTKSZ - 1, 0), ENOMEM,
		    "a stack under the kernel's MINSIGSTKSZ");
	CHECK_EQ(set_stack(big, KERNEL_MINSIGSTKSZ, 0), 0, "a stack of the kernel's MINSIGSTKSZ");
	CHECK_ERRNO(set_stack(big, sizeof(big), 4), EINVAL, "an unknown flag");
	CHECK_EQ(set_stack(big, sizeof(big), SS_ONSTACK), 0, "SS_ONSTACK as a mode");
	CHECK_EQ(sigaltstack(NULL, &old), 0, "sigaltstack reads the stack");
	CHECK(old.ss_sp == big && old.ss_size == sizeof(big) && old.ss_flags == 0,
	      "the stack set, not running on it");
	CHECK_EQ(set_stack(NULL, 0, SS_DISABLE), 0, "SS_DISABLE");
	CHECK_EQ(sigaltstack(NULL, &old), 0, "sigaltstack reads it again");
	CHECK(old.ss_size == 0 && old.ss_flags == SS_DISABLE, "disabled");

	/* A handler on the stack. */
	set_stack(big, sizeof(big), 0);
	handle(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	CHECK(on_big, "the handler ran on the alternate stack");
	CHECK_EQ(flags_in, SS_ONSTACK, "in the handler: SS_ONSTACK");
	CHECK(eperm_in, "changing the stack while on it: EPERM");
	CHECK(!set_in, "nor may another be set");

	/* SS_AUTODISARM: disarmed in the handler, restored by sigreturn. */
	set_stack(big, sizeof(big), SS_AUTODISARM);
	sigaltstack(NULL, &old);
	CHECK_EQ(old.ss_flags, (int)SS_AUTODISARM, "SS_AUTODISARM reported");
	on_big = 0;
	raise(SIGUSR1);
	CHECK(on_big, "an SS_AUTODISARM handler ran on the stack");
	CHECK_EQ(flags_in, SS_DISABLE, "in it the stack is disarmed");
	CHECK(set_in, "and another may be set");
	sigaltstack(NULL, &old);
	CHECK(old.ss_sp == big && old.ss_size == sizeof(big) &&
		      old.ss_flags == (int)SS_AUTODISARM,
	      "sigreturn restored the stack");

	too_small();
	return GUEST_DONE();
}
