/* Small helpers shared by every part of rung. */
#ifndef RUNG_UTIL_H
#define RUNG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)
#define UNUSED	      __attribute__((unused))

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Alignment for power-of-two a. */
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define ALIGN_UP(x, a)	 ALIGN_DOWN((x) + ((__typeof__(x))(a)-1), (a))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)

/* Allocation that aborts on OOM: the runtime cannot continue without memory. */
void *xmalloc(size_t size);
void *xzalloc(size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Free a NULL-terminated array of malloc'd strings and the array (NULL: nothing). */
void strv_free(char **v);

/* Write or read all of buf, retrying on EINTR and short transfers. */
ssize_t write_all(int fd, const void *buf, size_t len);
ssize_t read_all(int fd, void *buf, size_t len);

/* Parse "123", "64k", "512M", "4G" (binary units). Returns < 0 on error. */
int parse_size(const char *s, uint64_t *out);

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t monotonic_ns(void);

/* Start fn(arg) on a detached thread with a stack of stack bytes: 0 or
 * pthread_create's error. */
int thread_start_detached(void *(*fn)(void *), void *arg, size_t stack);

#endif
