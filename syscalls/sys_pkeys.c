/*
 * pkey_alloc, pkey_free, pkey_mprotect: memory protection keys as Linux 6.1
 * has them on an x86 CPU without OSPKE, which is what the sandbox presents
 * (sentry/kernel/cpuid.c). There arch_max_pkey() is 1 and no key is ever
 * marked allocated, not even key 0: every allocation runs out of keys,
 * every free and every pkey_mprotect with a key fails, and pkey -1 is
 * plain mprotect.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef PKEY_DISABLE_ACCESS
#define PKEY_DISABLE_ACCESS 0x1
#endif
#ifndef PKEY_DISABLE_WRITE
#define PKEY_DISABLE_WRITE 0x2
#endif
#define PKEY_ACCESS_MASK (PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE)

SYSCALL(pkey_alloc)
{
	if (a->a[0] || (a->a[1] & ~(uint64_t)PKEY_ACCESS_MASK))
		return -EINVAL;
	return -ENOSPC; /* mm_pkey_alloc: no keys without OSPKE */
}

SYSCALL(pkey_free)
{
	(void)t;
	(void)a;
	return -EINVAL; /* no key is allocated */
}

SYSCALL(pkey_mprotect)
{
	uint64_t addr = a->a[0], len = a->a[1];
	int prot = (int)a->a[2], pkey = (int)a->a[3];

	if (pkey == -1)
		return mm_mprotect(t->mm, addr, len, prot);
	/* do_mprotect_pkey checks its arguments before it looks at the key:
	 * a zero length succeeds and a wrapping one is ENOMEM. */
	if ((prot & (PROT_GROWSDOWN | PROT_GROWSUP)) == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (!IS_ALIGNED(addr, PAGE_SIZE))
		return -EINVAL;
	if (len == 0)
		return 0;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (len == 0 || addr > UINT64_MAX - len)
		return -ENOMEM;
	return -EINVAL; /* the key was not allocated */
}
