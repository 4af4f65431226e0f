/* Memory system calls: thin wrappers over sentry/mm with Linux's argument order. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/filemap.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

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
		.off = a->a[5],
	};
	struct file *f;
	long ret;

	if (req.off & (PAGE_SIZE - 1))
		return -EINVAL;
	if (req.flags & MAP_ANONYMOUS)
		return mm_mmap(t->mm, &req);

	f = fd_get(t->files, (int)a->a[4]);
	if (!f)
		return -EBADF;
	if (file_is_dev_zero(f)) {
		/* /dev/zero: anonymous memory (shared when asked). */
		req.off = 0;
		ret = mm_mmap(t->mm, &req);
		file_put(f);
		return ret;
	}
	ret = file_mmap_check(f, req.prot, req.flags);
	if (ret == 0 && req.len && req.off + ALIGN_UP(req.len, PAGE_SIZE) < req.off)
		ret = -EOVERFLOW;
	if (ret == 0) {
		req.bops = &file_backing_ops;
		req.bobj = f;
		if ((req.flags & MAP_TYPE) != MAP_PRIVATE && !flags_writable(file_getfl(f)))
			req.vma_flags |= VMA_NOWRITE;
		ret = mm_mmap(t->mm, &req);
	}
	file_put(f);
	return ret;
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

SYSCALL(msync)
{
	return mm_msync(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(madvise)
{
	return mm_madvise(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}
