/*
 * forkbig: the cost of fork in a process with a large touched heap.
 *
 *   forkbig [N [MIB]]
 *
 * Allocates MIB MiB (default 200) and writes every page of it, then N times
 * (default 50): fork; the child writes one byte to one page of the heap
 * (a different page each time, so a copy-on-write fork copies one page)
 * and _exits; the parent waits for it. Prints the time per fork + write +
 * exit + wait, measured around the loop with clock_gettime(CLOCK_MONOTONIC):
 *
 *   forkbig n=50 mib=200 ns_per_op=123456.7
 *
 * A kernel that copies the whole heap on fork pays for 200 MiB each time;
 * one that shares it copy-on-write pays for the page tables and one page.
 * The parent checks that the child's write did not reach its own copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 50;
	long mib = argc > 2 ? strtol(argv[2], NULL, 0) : 200;
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (size_t)mib << 20;
	long npages = (long)(size / (size_t)page);
	double t0, t1;
	char *heap;

	if (n <= 0 || mib <= 0) {
		fprintf(stderr, "usage: forkbig [N > 0 [MIB > 0]]\n");
		return 2;
	}
	heap = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED) {
		perror("forkbig: mmap");
		return 1;
	}
	for (long p = 0; p < npages; p++)
		heap[p * page] = 1;
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		long p = (i * 7919) % npages;
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("forkbig: fork");
			return 1;
		}
		if (pid == 0) {
			heap[p * page] = 2;
			_exit(heap[p * page] == 2 ? 0 : 1);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkbig: child %ld failed (status %#x)\n", i, status);
			return 1;
		}
		if (heap[p * page] != 1) {
			fprintf(stderr, "forkbig: the child's write reached the parent\n");
			return 1;
		}
	}
	t1 = now_ns();
	printf("forkbig n=%ld mib=%ld ns_per_op=%.1f\n", n, mib, (t1 - t0) / (double)n);
	return 0;
}
