/*
 * getpid: the system call round trip workload.
 *
 *   getpid [N]
 *
 * Calls getpid N times (default 200000) after a warm-up of N/10 calls, and
 * prints the time per call measured around the loop with
 * clock_gettime(CLOCK_MONOTONIC):
 *
 *   getpid n=200000 ns_per_call=312.4
 *
 * The same static binary runs natively, under `rung do` and under
 * bench/floor, so every configuration is timed by the same code at the same
 * place. Each call is one `syscall` instruction (inline, no libc wrapper).
 * clock_gettime goes through the vDSO (natively the host's, in rung rung's
 * own; with RUNG_VDSO=0 two system calls per run, noise next to N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

static inline long raw_getpid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getpid) : "rcx", "r11", "memory");
	return ret;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 200000;
	long warm = n / 10 < 1000 ? 1000 : n / 10;
	long first, bad = 0;
	double t0, t1;

	if (n <= 0) {
		fprintf(stderr, "usage: getpid [N > 0]\n");
		return 2;
	}
	first = raw_getpid();
	for (long i = 0; i < warm; i++)
		bad += raw_getpid() != first;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		bad += raw_getpid() != first;
	t1 = now_ns();
	/* Every call must have been answered, and answered the same. */
	if (first <= 0 || bad) {
		fprintf(stderr, "getpid: bad answers (first %ld, %ld differ)\n", first, bad);
		return 1;
	}
	printf("getpid n=%ld ns_per_call=%.1f\n", n, (t1 - t0) / (double)n);
	return 0;
}
