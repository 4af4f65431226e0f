/*
 * futex2: futex_waitv (Linux 5.16) and futex_wait, futex_wake, futex_requeue
 * (Linux 6.7). Their arguments are checked here in Linux's order
 * (kernel/futex/syscalls.c); the waiting is sentry/kernel/futex.c's.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define FUTEX2_SIZE_U32	 0x02
#define FUTEX2_SIZE_MASK 0x03
#define FUTEX2_PRIVATE	 0x80
/* FUTEX2_NUMA and FUTEX2_MPOL (Linux 6.16) are not offered: EINVAL, as 6.7. */
#define FUTEX2_VALID_MASK (FUTEX2_SIZE_MASK | FUTEX2_PRIVATE)
#define FUTEX_WAITV_MAX	  128

struct guest_futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

/* futex2 flags: only 32-bit futexes, and a value that fits one. */
static int flags_valid(uint64_t flags)
{
	if (flags & ~(uint64_t)FUTEX2_VALID_MASK)
		return -EINVAL;
	return (flags & FUTEX2_SIZE_MASK) == FUTEX2_SIZE_U32 ? 0 : -EINVAL;
}

static bool fits_u32(uint64_t v)
{
	return (v >> 32) == 0;
}

/* Linux's futex2_setup_timeout: an absolute time on clockid. */
static int timeout_in(struct task *t, uint64_t utime, int clockid, uint64_t *deadline)
{
	*deadline = 0;
	if (!utime)
		return 0;
	if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
		return -EINVAL;
	return futex_deadline(t, utime, true, clockid == CLOCK_REALTIME, deadline);
}

/* Linux's futex_parse_waitv: n entries of a guest struct futex_waitv array. */
static int waitv_in(struct task *t, uint64_t uwaiters, unsigned n, struct futex_vec *v)
{
	for (unsigned i = 0; i < n; i++) {
		struct guest_futex_waitv w;

		if (mm_copy_in(t->mm, &w, uwaiters + (uint64_t)i * sizeof(w), sizeof(w)) < 0)
			return -EFAULT;
		if ((w.flags & ~FUTEX2_VALID_MASK) || w.reserved)
			return -EINVAL;
		if (flags_valid(w.flags) || !fits_u32(w.val))
			return -EINVAL;
		v[i] = (struct futex_vec){
			.uaddr = w.uaddr,
			.val = (uint32_t)w.val,
			.private = w.flags & FUTEX2_PRIVATE,
		};
	}
	return 0;
}

/* futex_waitv(waiters, nr_futexes, flags, timeout, clockid) */
SYSCALL(futex_waitv)
{
	unsigned n = (unsigned)a->a[1];
	struct futex_vec *v;
	uint64_t deadline;
	long ret;

	if ((unsigned)a->a[2])
		return -EINVAL;
	if (!n || n > FUTEX_WAITV_MAX || !a->a[0])
		return -EINVAL;
	ret = timeout_in(t, a->a[3], (int)a->a[4], &deadline);
	if (ret)
		return ret;
	v = xmalloc(n * sizeof(*v));
	ret = waitv_in(t, a->a[0], n, v);
	if (!ret)
		ret = futex2_wait_multiple(t, v, n, deadline);
	free(v);
	return ret;
}

/* futex_wake(uaddr, mask, nr, flags) */
SYSCALL(futex_wake)
{
	unsigned flags = (unsigned)a->a[3];

	if (flags_valid(flags) || !fits_u32(a->a[1]))
		return -EINVAL;
	return futex2_wake(t, a->a[0], flags & FUTEX2_PRIVATE, (int)a->a[2], (uint32_t)a->a[1]);
}

/* futex_wait(uaddr, val, mask, flags, timeout, clockid) */
SYSCALL(futex_wait)
{
	unsigned flags = (unsigned)a->a[3];
	uint64_t deadline;
	long ret;

	if (flags_valid(flags) || !fits_u32(a->a[1]) || !fits_u32(a->a[2]))
		return -EINVAL;
	ret = timeout_in(t, a->a[4], (int)a->a[5], &deadline);
	if (ret)
		return ret;
	if (!(uint32_t)a->a[2])
		return -EINVAL;
	return futex2_wait(t, a->a[0], flags & FUTEX2_PRIVATE, (uint32_t)a->a[1], (uint32_t)a->a[2],
			   deadline);
}

/* futex_requeue(waiters[2], flags, nr_wake, nr_requeue) */
SYSCALL(futex_requeue)
{
	struct futex_vec v[2];
	int ret;

	if ((unsigned)a->a[1])
		return -EINVAL;
	if (!a->a[0])
		return -EINVAL;
	ret = waitv_in(t, a->a[0], 2, v);
	if (ret)
		return ret;
	return futex2_requeue(t, v, (int)a->a[2], (int)a->a[3]);
}
