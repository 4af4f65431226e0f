/*
 * rung's vDSO: the code guests run for clock_gettime, gettimeofday, time
 * and getcpu without a system call. Built freestanding into a small shared
 * object (no libc, no relocations; Makefile.am), embedded in rung and
 * mapped into every guest right above its data page (vdso_data.h).
 *
 * Clocks the page does not describe, and every clock while the TSC is not
 * usable, go to the real system call, which the sentry answers with the
 * same numbers.
 */
#include "sentry/loader/vdso_data.h"

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_SEC 1000000000ll

/* Linux's clock ids, and system call numbers (x86-64). */
#define CLOCK_REALTIME	       0
#define CLOCK_MONOTONIC	       1
#define CLOCK_MONOTONIC_RAW    4
#define CLOCK_REALTIME_COARSE  5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME	       7
#define CLOCK_TAI	       11
#define NR_gettimeofday	       96
#define NR_time		       201
#define NR_clock_gettime       228
#define NR_getcpu	       309

struct kts {
	int64_t tv_sec, tv_nsec;
};

struct ktv {
	int64_t tv_sec, tv_usec;
};

struct ktz {
	int32_t minuteswest, dsttime;
};

/* The image's own ELF header: the data page is the page before it. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));

static inline const volatile struct vdso_data *data(void)
{
	uintptr_t p = (uintptr_t)__ehdr_start;

	/* (The compiler must not reason about the bounds of __ehdr_start.) */
	__asm__("" : "+r"(p));
	return (const volatile struct vdso_data *)(p - VDSO_DATA_SIZE);
}

static inline long sys3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

/* Clock c now, in nanoseconds; -1 if the page says not to. */
static int read_clock(enum vdso_clock c, int64_t *ns)
{
	const volatile struct vdso_data *d = data();
	uint32_t seq;

	do {
		uint64_t delta;
		unsigned __int128 p;
		seq = d->seq;
		__asm__ volatile("" ::: "memory");
		if (!d->ok)
			return -1;
		if (seq & 1)
			continue;
		delta = tsc() - d->tsc0;
		if ((int64_t)delta < 0)
			delta = 0;
		p = (unsigned __int128)delta * d->mult;
		*ns = d->base[c] + (int64_t)(p >> 32);
		__asm__ volatile("" ::: "memory");
	} while ((seq & 1) || d->seq != seq);
	return 0;
}

static int which(long clk)
{
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		return VDSO_REALTIME;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_MONOTONIC_RAW:
		return VDSO_MONOTONIC;
	case CLOCK_BOOTTIME:
		return VDSO_BOOTTIME;
	case CLOCK_TAI:
		return VDSO_TAI;
	default:
		return -1;
	}
}

long __vdso_clock_gettime(long clk, struct kts *ts)
{
	int c = which(clk);
	int64_t ns;

	if (c < 0 || read_clock((enum vdso_clock)c, &ns) < 0)
		return sys3(NR_clock_gettime, clk, (long)ts, 0);
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
	return 0;
}

long __vdso_gettimeofday(struct ktv *tv, struct ktz *tz)
{
	int64_t ns;

	if (read_clock(VDSO_REALTIME, &ns) < 0)
		return sys3(NR_gettimeofday, (long)tv, (long)tz, 0);
	if (tv) {
		tv->tv_sec = ns / NSEC_PER_SEC;
		tv->tv_usec = ns % NSEC_PER_SEC / 1000;
	}
	if (tz) {
		tz->minuteswest = 0;
		tz->dsttime = 0;
	}
	return 0;
}

long __vdso_time(int64_t *t)
{
	int64_t ns;

	if (read_clock(VDSO_REALTIME, &ns) < 0)
		return sys3(NR_time, (long)t, 0, 0);
	if (t)
		*t = ns / NSEC_PER_SEC;
	return ns / NSEC_PER_SEC;
}

long __vdso_getcpu(unsigned *cpu, unsigned *node, void *unused)
{
	const volatile struct vdso_data *d = data();
	uint32_t lo, hi, aux;

	if (!d->getcpu_ok || !d->ncpus)
		return sys3(NR_getcpu, (long)cpu, (long)node, (long)unused);
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	(void)lo;
	(void)hi;
	if (cpu)
		*cpu = (aux & 0xfff) % d->ncpus;
	if (node)
		*node = 0;
	return 0;
}

long clock_gettime(long clk, struct kts *ts) __attribute__((weak, alias("__vdso_clock_gettime")));
long gettimeofday(struct ktv *tv, struct ktz *tz)
	__attribute__((weak, alias("__vdso_gettimeofday")));
long time(int64_t *t) __attribute__((weak, alias("__vdso_time")));
long getcpu(unsigned *cpu, unsigned *node, void *unused)
	__attribute__((weak, alias("__vdso_getcpu")));

/* A signal return through the vDSO, for whoever looks for one. */
__asm__(".text\n"
	".globl __kernel_rt_sigreturn\n"
	".type __kernel_rt_sigreturn, @function\n"
	"__kernel_rt_sigreturn:\n"
	"\tmovl $15, %eax\n"
	"\tsyscall\n"
	".size __kernel_rt_sigreturn, . - __kernel_rt_sigreturn\n");
