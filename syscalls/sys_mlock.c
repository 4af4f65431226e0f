/* mlock, mlock2, munlock, mlockall, munlockall, mincore (sentry/mm/mlock.c). */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

long mlock_limit_check(struct task *t, bool can_lock, uint64_t more, long over)
{
	rlim_t lim = t->tg->rlim[RLIMIT_MEMLOCK].rlim_cur;

	if (creds_capable(&t->creds, KCAP_IPC_LOCK))
		return 0;
	if (can_lock && lim == 0)
		return -EPERM;
	if (lim != RLIM_INFINITY && mm_locked_bytes(t->mm) + more > lim)
		return over;
	return 0;
}

static long do_mlock(struct task *t, uint64_t addr, uint64_t len, bool populate)
{
	uint64_t start = ALIGN_DOWN(addr, PAGE_SIZE);
	/* (a wrapping length is mm_set_locked's EINVAL) */
	uint64_t bytes =
		len > UINT64_MAX - PAGE_SIZE ? len : ALIGN_UP(addr + len, PAGE_SIZE) - start;
	long ret = mlock_limit_check(t, true, bytes, -ENOMEM);

	return ret ? ret : mm_set_locked(t->mm, addr, len, true, populate);
}

SYSCALL(mlock)
{
	return do_mlock(t, a->a[0], a->a[1], true);
}

SYSCALL(mlock2)
{
	if (a->a[2] & ~(uint64_t)MLOCK_ONFAULT)
		return -EINVAL;
	return do_mlock(t, a->a[0], a->a[1], !(a->a[2] & MLOCK_ONFAULT));
}

SYSCALL(munlock)
{
	return mm_set_locked(t->mm, a->a[0], a->a[1], false, false);
}

SYSCALL(mlockall)
{
	unsigned flags = (unsigned)a->a[0];
	long ret;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	/* MCL_CURRENT: everything mapped must fit under the limit; otherwise
	 * only whether the caller may lock at all. */
	if (flags & MCL_CURRENT)
		ret = mlock_limit_check(t, true, mm_mapped_bytes(t->mm) - mm_locked_bytes(t->mm),
					-ENOMEM);
	else
		ret = mlock_limit_check(t, true, 0, 0);
	if (ret)
		return ret;
	mm_lock_all(t->mm, flags & MCL_CURRENT, flags & MCL_FUTURE);
	return 0;
}

SYSCALL(munlockall)
{
	mm_unlock_all(t->mm);
	return 0;
}

SYSCALL(mincore)
{
	uint64_t addr = a->a[0], len = a->a[1], pages;
	unsigned char *vec;
	long ret;

	if (!IS_ALIGNED(addr, PAGE_SIZE))
		return -EINVAL;
	if (len > GUEST_MAX_ADDR || addr + len > GUEST_MAX_ADDR)
		return -ENOMEM;
	pages = ALIGN_UP(len, PAGE_SIZE) / PAGE_SIZE;
	if (!pages)
		return 0;
	/* One page of answers at a time, as Linux does. */
	vec = xmalloc(MIN(pages, (uint64_t)PAGE_SIZE));
	ret = 0;
	for (uint64_t done = 0; done < pages && ret == 0;) {
		uint64_t n = MIN(pages - done, (uint64_t)PAGE_SIZE);
		ret = mm_mincore(t->mm, addr + done * PAGE_SIZE, n, vec);
		if (ret == 0 && mm_copy_out(t->mm, a->a[2] + done, vec, n))
			ret = -EFAULT;
		done += n;
	}
	free(vec);
	return ret;
}
