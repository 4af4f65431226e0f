/* Memory system calls: thin wrappers over sentry/mm with Linux's argument order. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"

#include <errno.h>
#include <sys/mman.h>

SYSCALL(brk)
{
	return (long)mm_brk(t->mm, a->a[0]);
}

SYSCALL(mmap)
{
	struct mmap_req req = {
		.addr = a->a[0],
		.len = a->a[1],
		.prot = (int)a->a[2],
		.flags = (int)a->a[3],
	};

	if (!(req.flags & MAP_ANONYMOUS)) {
		/* File mappings come with the filesystem; no file kind maps yet. */
		struct file *f = fd_get(t->files, (int)a->a[4]);
		if (!f)
			return -EBADF;
		file_put(f);
		return -ENODEV;
	}
	if (a->a[5] & (PAGE_SIZE - 1))
		return -EINVAL;
	return mm_mmap(t->mm, &req);
}

SYSCALL(munmap)
{
	return mm_munmap(t->mm, a->a[0], a->a[1]);
}

SYSCALL(mprotect)
{
	return mm_mprotect(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(mremap)
{
	return mm_mremap(t->mm, a->a[0], a->a[1], a->a[2], (int)a->a[3], a->a[4]);
}

SYSCALL(madvise)
{
	return mm_madvise(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}
