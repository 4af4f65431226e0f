/*
 * bench/handoff: the raw costs a systrap platform is built from, measured
 * between two processes that share one page (as a stub thread and its
 * sentry thread do):
 *
 *   handoff futex SAME|CROSS N   ping-pong: FUTEX_WAKE the other, FUTEX_WAIT
 *   handoff yield SAME N         ping-pong: poll the other's word, sched_yield
 *   handoff spin CROSS N         ping-pong: poll the other's word, pause
 *   handoff spinfutex CROSS N    poll up to 2000 times, then FUTEX_WAIT
 *   handoff trap N               the bare trap: a syscall that Syscall User
 *                                Dispatch turns into SIGSYS, answered by the
 *                                handler in the same thread (no hand-off)
 *   handoff trapfutex SAME N     the trap, then a futex hand-off to another
 *                                process on the same CPU and back
 *   handoff trapyield SAME N     the trap, then a yield hand-off
 *   handoff trapspin CROSS N     the trap, then a spinfutex hand-off
 *
 * SAME pins both processes to one CPU (the first allowed), CROSS to two.
 * Prints ns_per_call (one round trip).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF	     0
#define PR_SYS_DISPATCH_ON	     1
#endif

struct shared {
	volatile uint32_t ping __attribute__((aligned(64)));
	volatile uint32_t pong __attribute__((aligned(64)));
	volatile uint32_t stop;
};

static struct shared *sh;
static int mode_yield, mode_spin, mode_spinfutex;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void futex_wait(volatile uint32_t *w, uint32_t v)
{
	syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
}

static void futex_wake(volatile uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Post v in *mine, wait until *theirs becomes v. */
static void post(volatile uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
	if (!mode_yield && !mode_spin)
		futex_wake(w);
}

static void await(volatile uint32_t *w, uint32_t v)
{
	int spins = mode_spinfutex ? 2000 : 0;

	for (;;) {
		uint32_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		if (cur == v)
			return;
		if (mode_yield) {
			sched_yield();
		} else if (mode_spin || spins-- > 0) {
			__builtin_ia32_pause();
		} else {
			futex_wait(w, cur);
		}
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void cpus(int *a, int *b)
{
	cpu_set_t set;
	int n = 0;

	*a = *b = -1;
	sched_getaffinity(0, sizeof(set), &set);
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set)) {
			if (n++ == 0)
				*a = i;
			else if (*b < 0)
				*b = i;
		}
}

/* The partner: answers every ping with a pong until told to stop. */
static void partner(void)
{
	for (uint32_t seq = 1;; seq++) {
		uint32_t stop;
		await(&sh->ping, seq);
		stop = sh->stop;
		post(&sh->pong, seq);
		if (stop)
			_exit(0);
	}
}

static uint32_t seq;

static void handoff_once(void)
{
	seq++;
	post(&sh->ping, seq);
	await(&sh->pong, seq);
}

static int with_handoff;

static void sigsys(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	if (with_handoff)
		handoff_once();
	uc->uc_mcontext.gregs[REG_RAX] = 42;
}

#define TRAP_PAGE 0x7f0000000000ul

static long trap_syscall(void)
{
	long ret;

	__asm__ volatile("call *%1"
			 : "=a"(ret)
			 : "r"(TRAP_PAGE), "a"(SYS_getpid)
			 : "rcx", "r11", "memory");
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *where = argc > 2 ? argv[2] : "SAME";
	long n;
	int a, b, same, trap;
	pid_t pid = 0;
	uint64_t t0, t1;

	if (argc < 3) {
		fprintf(stderr, "usage: handoff futex|yield|spin|spinfutex SAME|CROSS N\n"
				"       handoff trap N | handoff trapfutex|trapyield SAME N\n");
		return 2;
	}
	trap = strncmp(mode, "trap", 4) == 0;
	if (strcmp(mode, "trap") == 0) {
		n = atol(argv[2]);
		where = "SAME";
	} else {
		n = argc > 3 ? atol(argv[3]) : 100000;
	}
	mode_yield = strstr(mode, "yield") != NULL;
	mode_spin = strcmp(mode, "spin") == 0;
	mode_spinfutex = strcmp(mode, "spinfutex") == 0 || strcmp(mode, "trapspin") == 0;
	with_handoff = trap && strcmp(mode, "trap") != 0;
	same = strcmp(where, "SAME") == 0;
	cpus(&a, &b);
	if (!same && b < 0) {
		fprintf(stderr, "handoff: CROSS needs two CPUs\n");
		return 77;
	}
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	if (strcmp(mode, "trap") != 0) {
		pid = fork();
		if (pid == 0) {
			pin(same ? a : b);
			partner();
		}
	}
	pin(a);
	if (trap) {
		/* "syscall; ret" on a page above the program and its libc (static);
		 * Syscall User Dispatch lets every address below it make system
		 * calls and turns those from the page into SIGSYS. */
		static const unsigned char code[] = {0x0f, 0x05, 0xc3};
		struct sigaction sa;
		char *page = mmap((void *)TRAP_PAGE, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (page != (char *)TRAP_PAGE) {
			perror("mmap");
			return 1;
		}
		memcpy(page, code, sizeof(code));
		mprotect(page, 4096, PROT_READ | PROT_EXEC);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSYS, &sa, NULL);
		if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, TRAP_PAGE, NULL) <
		    0) {
			perror("PR_SET_SYSCALL_USER_DISPATCH");
			return 77;
		}
	}
	for (long i = 0; i < n / 10 + 1; i++) {
		if (trap)
			trap_syscall();
		else
			handoff_once();
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (trap)
			trap_syscall();
		else
			handoff_once();
	}
	t1 = now_ns();
	if (pid > 0) {
		sh->stop = 1;
		handoff_once();
		waitpid(pid, NULL, 0);
	}
	printf("ns_per_call=%.1f\n", (double)(t1 - t0) / (double)n);
	return 0;
}
