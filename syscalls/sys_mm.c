/* Memory system calls: thin wrappers over sentry/mm with Linux's argument order. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/devices.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

SYSCALL(brk)
{
	return (long)mm_brk(t->mm, a->a[0]);
}

/* Read file bytes for a private file mapping (short at end of file). */
static long fill_from_file(void *arg, void *dst, size_t len, uint64_t off)
{
	struct file *f = arg;
	size_t done = 0;

	while (done < len) {
		int64_t pos = (int64_t)(off + done);
		long n = f->ops->read(f, (char *)dst + done, len - done, &pos);
		if (n < 0)
			return done ? (long)done : n;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (long)done;
}

/* Linux's checks for mapping file f with prot and flags. */
static long file_map_allowed(struct file *f, int prot, int flags)
{
	int fl = file_getfl(f);
	bool shared = (flags & MAP_TYPE) != MAP_PRIVATE;

	if (!f->inode || S_ISDIR(f->inode->mode) || !S_ISREG(f->inode->mode))
		return -ENODEV;
	if (!flags_readable(fl))
		return -EACCES;
	if (shared && (prot & PROT_WRITE) && (!flags_writable(fl) || (fl & O_APPEND)))
		return -EACCES;
	if ((prot & PROT_EXEC) && f->path.mnt && (f->path.mnt->flags & MNT_NOEXEC))
		return -EPERM;
	return 0;
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
	ret = file_map_allowed(f, req.prot, req.flags);
	if (ret == 0 && req.len && req.off + ALIGN_UP(req.len, PAGE_SIZE) < req.off)
		ret = -EOVERFLOW;
	if (ret == 0) {
		pthread_mutex_t *lock;
		struct pagestore *ps = f->ops->pages ? f->ops->pages(f, &lock) : NULL;
		if ((req.flags & MAP_TYPE) != MAP_PRIVATE && ps) {
			req.ps = ps;
			req.ps_lock = lock;
		} else if ((req.flags & MAP_TYPE) != MAP_PRIVATE && (req.prot & PROT_WRITE)) {
			ret = -ENODEV; /* shared writable mappings of host files: not yet */
		} else {
			/* Private (or read-only shared): a copy of the file's bytes. */
			req.flags = (req.flags & ~MAP_TYPE) | MAP_PRIVATE;
			req.fill = fill_from_file;
			req.fill_arg = f;
		}
	}
	if (ret == 0)
		ret = mm_mmap(t->mm, &req);
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

SYSCALL(madvise)
{
	return mm_madvise(t->mm, a->a[0], a->a[1], (int)a->a[2]);
}
