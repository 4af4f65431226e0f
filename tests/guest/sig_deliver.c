/*
 * Guest test: signal delivery. Handlers with siginfo and ucontext, masks
 * during handlers, SA_RESETHAND, SA_NODEFER, the alternate stack, the FPU
 * state kept across a handler, sigreturn restoring every register the
 * handler changed, restart of interrupted system calls (SA_RESTART or
 * EINTR), sigsuspend, sigpending, sigtimedwait, rt_sigqueueinfo values,
 * fault signals (SIGSEGV, SIGFPE, SIGILL, SIGTRAP) caught and survived,
 * and job control (SIGSTOP/SIGCONT seen by waitpid).
 */
#include "guest.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <ucontext.h>

static volatile sig_atomic_t hits, last_sig, nested, was_blocked;
static volatile int last_code, last_value;
static volatile uintptr_t last_addr;
static sigjmp_buf jb;
static char altstack[65536];

static void count(int sig)
{
	hits++;
	last_sig = sig;
}

static void info_handler(int sig, siginfo_t *si, void *uc)
{
	sigset_t now;

	hits++;
	last_sig = sig;
	last_code = si->si_code;
	last_value = si->si_value.sival_int;
	sigprocmask(SIG_SETMASK, NULL, &now);
	was_blocked = sigismember(&now, sig) && sigismember(&now, SIGUSR2);
	(void)uc;
}

static void on_stack(int sig)
{
	char here;

	last_addr = (uintptr_t)&here;
}

static void fp_clobber(int sig)
{
	volatile double d = 0;

	for (int i = 0; i < 10; i++)
		d += 1.25 * i;
	hits++;
}

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	last_sig = sig;
	last_code = si->si_code;
	last_addr = (uintptr_t)si->si_addr;
	siglongjmp(jb, 1);
}

static void reenter(int sig)
{
	if (hits++ == 0)
		raise(sig); /* SA_NODEFER: delivered at once, nested */
	else
		nested = 1;
}

static void set(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = {.sa_handler = fn, .sa_flags = flags};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void set_info(int sig, void (*fn)(int, siginfo_t *, void *), int flags, int also_mask)
{
	struct sigaction sa = {.sa_sigaction = fn, .sa_flags = flags | SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	if (also_mask)
		sigaddset(&sa.sa_mask, also_mask);
	sigaction(sig, &sa, NULL);
}

static void handlers(void)
{
	union sigval v = {.sival_int = 1234};

	set_info(SIGUSR1, info_handler, 0, SIGUSR2);
	hits = 0;
	kill(getpid(), SIGUSR1);
	CHECK(hits == 1 && last_sig == SIGUSR1 && last_code == SI_USER, "kill runs the handler with SI_USER");
	CHECK(was_blocked, "the signal and sa_mask are blocked inside the handler");
	sigqueue(getpid(), SIGUSR1, v);
	CHECK(hits == 2 && last_code == SI_QUEUE && last_value == 1234, "sigqueue passes its value");

	set(SIGUSR2, count, SA_RESETHAND);
	hits = 0;
	raise(SIGUSR2);
	CHECK_EQ(hits, 1, "SA_RESETHAND: the handler runs once");
	{
		struct sigaction sa;
		sigaction(SIGUSR2, NULL, &sa);
		CHECK(sa.sa_handler == SIG_DFL, "then the disposition is SIG_DFL");
	}

	set(SIGUSR2, reenter, SA_NODEFER);
	hits = 0;
	nested = 0;
	raise(SIGUSR2);
	CHECK(hits == 2 && nested, "SA_NODEFER lets the handler be re-entered");
	set(SIGUSR2, SIG_DFL, 0);
}

static void altstacks(void)
{
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack)}, old;

	CHECK_EQ(sigaltstack(&ss, &old), 0, "sigaltstack");
	CHECK(old.ss_flags == SS_DISABLE, "there was none before");
	set(SIGUSR1, on_stack, SA_ONSTACK);
	raise(SIGUSR1);
	CHECK(last_addr >= (uintptr_t)altstack && last_addr < (uintptr_t)altstack + sizeof(altstack),
	      "SA_ONSTACK runs the handler on the alternate stack");
	set(SIGUSR1, on_stack, 0);
	raise(SIGUSR1);
	CHECK(!(last_addr >= (uintptr_t)altstack && last_addr < (uintptr_t)altstack + sizeof(altstack)),
	      "without SA_ONSTACK it does not");
	ss.ss_size = 100;
	CHECK_ERRNO(sigaltstack(&ss, NULL), ENOMEM, "an alternate stack smaller than MINSIGSTKSZ");
	ss.ss_flags = 12345;
	ss.ss_size = sizeof(altstack);
	CHECK_ERRNO(sigaltstack(&ss, NULL), EINVAL, "bad flags");
	ss.ss_flags = SS_DISABLE;
	CHECK_EQ(sigaltstack(&ss, NULL), 0, "disable it");
}

static void fpu(void)
{
	volatile double x = 3.0;
	double y;

	set(SIGUSR1, fp_clobber, 0);
	hits = 0;
	y = x * 7.0;
	raise(SIGUSR1);
	y += x;
	CHECK(hits == 1 && y == 24.0, "floating point state survives a handler that uses the FPU");
}

static void restart(void)
{
	int fds[2];
	char c;
	pid_t p;
	ssize_t n;

	pipe(fds);
	/* A child signals us while we block in read; then it writes. */
	set(SIGUSR1, count, SA_RESTART);
	hits = 0;
	p = fork();
	if (p == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		usleep(100000);
		write(fds[1], "r", 1);
		_exit(0);
	}
	n = read(fds[0], &c, 1);
	CHECK(n == 1 && hits == 1, "SA_RESTART: read is restarted after the handler");
	waitpid(p, NULL, 0);

	set(SIGUSR1, count, 0);
	hits = 0;
	p = fork();
	if (p == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	errno = 0;
	n = read(fds[0], &c, 1);
	CHECK(n == -1 && errno == EINTR && hits == 1, "without SA_RESTART read fails with EINTR");
	waitpid(p, NULL, 0);
	close(fds[0]);
	close(fds[1]);
}

static void waiting(void)
{
	sigset_t block, old, pend;
	siginfo_t si;
	struct timespec ts = {0, 10000000};

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	set(SIGUSR1, count, 0);
	hits = 0;
	raise(SIGUSR1);
	CHECK_EQ(hits, 0, "a blocked signal waits");
	sigpending(&pend);
	CHECK(sigismember(&pend, SIGUSR1), "sigpending shows it");
	CHECK_EQ(sigtimedwait(&block, &si, &ts), SIGUSR1, "sigtimedwait takes it");
	CHECK(si.si_signo == SIGUSR1 && (si.si_code == SI_TKILL || si.si_code == SI_USER),
	      "with its siginfo");
	CHECK_EQ(hits, 0, "and the handler did not run");
	CHECK_ERRNO(sigtimedwait(&block, &si, &ts), EAGAIN, "nothing left: EAGAIN after the timeout");
	raise(SIGUSR1);
	sigsuspend(&old);
	CHECK_EQ(hits, 1, "sigsuspend lets it in");
	sigprocmask(SIG_SETMASK, NULL, &pend);
	CHECK(sigismember(&pend, SIGUSR1), "and puts the old mask back");
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void faults(void)
{
	volatile int zero = 0, one = 1, r;

	set_info(SIGSEGV, fault_handler, SA_NODEFER, 0);
	if (sigsetjmp(jb, 1) == 0)
		*(volatile int *)(uintptr_t)(zero + 16) = 1;
	CHECK(last_sig == SIGSEGV && last_code == SEGV_MAPERR && last_addr == 16,
	      "SIGSEGV handler: SEGV_MAPERR at the faulting address");
	set_info(SIGFPE, fault_handler, SA_NODEFER, 0);
	if (sigsetjmp(jb, 1) == 0)
		r = one / zero;
	CHECK(last_sig == SIGFPE && last_code == FPE_INTDIV, "division by zero: SIGFPE FPE_INTDIV");
	set_info(SIGILL, fault_handler, SA_NODEFER, 0);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("ud2");
	CHECK(last_sig == SIGILL && last_code == ILL_ILLOPN, "ud2: SIGILL ILL_ILLOPN");
	set_info(SIGTRAP, fault_handler, SA_NODEFER, 0);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("int3");
	CHECK(last_sig == SIGTRAP && last_code == SI_KERNEL, "int3: SIGTRAP SI_KERNEL");
	(void)r;
}

static void stops(void)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			pause();
	}
	kill(p, SIGSTOP);
	CHECK(waitpid(p, &st, WUNTRACED) == p && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
	      "WUNTRACED reports the stop");
	kill(p, SIGCONT);
	CHECK(waitpid(p, &st, WCONTINUED) == p && WIFCONTINUED(st), "WCONTINUED reports the continue");
	kill(p, SIGKILL);
	CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "SIGKILL ends it");
}

int main(void)
{
	handlers();
	altstacks();
	fpu();
	restart();
	waiting();
	faults();
	stops();
	return GUEST_DONE();
}
