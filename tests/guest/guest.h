/*
 * Helpers for guest test programs. A guest test prints only what is the same
 * natively and in the sandbox (no pids, addresses or times), one fact per
 * line, and exits with a status that says whether its checks passed.
 */
#ifndef RUNG_GUEST_H
#define RUNG_GUEST_H

/* Guest programs use GNU extensions (strerrorname_np, MAP_FIXED_NOREPLACE, ...):
 * include this header first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int guest_failures __attribute__((unused));

#define PAGE 4096ul

/* Print "ok: what" or "FAIL: what (detail)" and count failures. */
#define CHECK(cond, what)                                                                        \
	do {                                                                                     \
		if (cond) {                                                                      \
			printf("ok: %s\n", what);                                                \
		} else {                                                                         \
			printf("FAIL: %s (%s:%d, errno %d)\n", what, __FILE__, __LINE__, errno); \
			guest_failures++;                                                        \
		}                                                                                \
		fflush(stdout);                                                                  \
	} while (0)

/* EXPR (a system call or libc wrapper) must fail: return -1 (or MAP_FAILED)
 * and set errno to ERR. */
#define CHECK_ERRNO(expr, err, what)                                                               \
	do {                                                                                       \
		long r_;                                                                           \
		int e_;                                                                            \
		errno = 0;                                                                         \
		r_ = (long)(expr);                                                                 \
		e_ = errno;                                                                        \
		if (r_ == -1 && e_ == (err)) {                                                     \
			printf("ok: %s fails with %s\n", what, strerrorname_np(err));              \
		} else {                                                                           \
			printf("FAIL: %s (%s:%d): want -1 %s, got %ld errno %s\n", what, __FILE__, \
			       __LINE__, strerrorname_np(err), r_,                                 \
			       e_ ? strerrorname_np(e_) : "0");                                    \
			guest_failures++;                                                          \
		}                                                                                  \
		fflush(stdout);                                                                    \
	} while (0)

/* EXPR must return exactly WANT (printed on failure). */
#define CHECK_EQ(expr, want, what)                                                         \
	do {                                                                               \
		long long g_, w_;                                                          \
		errno = 0;                                                                 \
		g_ = (long long)(expr);                                                    \
		w_ = (long long)(want);                                                    \
		if (g_ == w_) {                                                            \
			printf("ok: %s\n", what);                                          \
		} else {                                                                   \
			printf("FAIL: %s (%s:%d): want %lld, got %lld (errno %d)\n", what, \
			       __FILE__, __LINE__, w_, g_, errno);                         \
			guest_failures++;                                                  \
		}                                                                          \
		fflush(stdout);                                                            \
	} while (0)

/* The exit status of a test whose checks are done. */
#define GUEST_DONE() (guest_failures ? 1 : 0)

/* Is the page at P mapped? Linux's madvise fails with ENOMEM on a hole. */
static inline int guest_mapped(const void *p)
{
	uintptr_t a = (uintptr_t)p & ~(PAGE - 1);

	return madvise((void *)a, PAGE, MADV_NORMAL) == 0;
}

/* A raw system call that touches neither errno nor anything else through
 * %fs: returns the kernel's value (-errno on failure). */
static inline long guest_raw_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
