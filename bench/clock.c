/*
 * clock: clock_gettime(CLOCK_MONOTONIC) through the vDSO.
 *
 *   clock [N]
 *
 * Calls libc's clock_gettime N times (default 2000000) after a warm-up of
 * N/10, checks that the clock never went back, and prints the time per call:
 *
 *   clock n=2000000 ns_per_call=31.7
 *
 * libc takes the vDSO that AT_SYSINFO_EHDR names (natively the host's, in
 * rung rung's own); without one every call is a system call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ns(const struct timespec *ts)
{
	return (double)ts->tv_sec * 1e9 + (double)ts->tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 2000000;
	struct timespec t0, t1, t, last = {0, 0};
	long back = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: clock [N > 0]\n");
		return 2;
	}
	for (long i = 0; i < n / 10; i++)
		clock_gettime(CLOCK_MONOTONIC, &t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		back += ns(&t) < ns(&last);
		last = t;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (back) {
		fprintf(stderr, "clock: CLOCK_MONOTONIC went back %ld times\n", back);
		return 1;
	}
	printf("clock n=%ld ns_per_call=%.1f\n", n, (ns(&t1) - ns(&t0)) / (double)n);
	return 0;
}
