/*
 * Files as mapping backings: a private mapping copies the file's bytes
 * through its read op; a shared one maps the page store the file offers
 * (tmpfs data, a host file's page cache) and writes it back through the
 * file's writeback op.
 */
#include "config.h"
#include "sentry/fs/filemap.h"
#include "sentry/fs/file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* (A host file the loader reads a program from has no inode.) */
static void fm_get(void *obj, uint64_t pgoff)
{
	struct file *f = obj;

	if (f->inode)
		__atomic_add_fetch(&f->inode->mmapped, 1, __ATOMIC_SEQ_CST);
	file_get(f);
}

static void fm_put(void *obj, uint64_t pgoff)
{
	struct file *f = obj;

	if (f->inode)
		__atomic_sub_fetch(&f->inode->mmapped, 1, __ATOMIC_SEQ_CST);
	file_put(f);
}

/* Read file bytes for a private mapping (short at end of file). */
static long fm_read(void *obj, void *dst, size_t len, uint64_t off)
{
	struct file *f = obj;
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

static int fm_pages(void *obj, uint64_t off, uint64_t len, bool writable, struct pagestore **ps,
		    pthread_mutex_t **lock)
{
	struct file *f = obj;

	if (!f->ops->pages)
		return -ENODEV;
	return f->ops->pages(f, off, len, writable, ps, lock);
}

static int fm_writeback(void *obj, uint64_t off, uint64_t len)
{
	struct file *f = obj;

	return f->ops->writeback ? f->ops->writeback(f, off, len) : 0;
}

/* The file's size now: a shared mount's file may have changed behind us. */
static uint64_t fm_size(void *obj)
{
	struct file *f = obj;

	if (!f->inode)
		return INT64_MAX;
	if (f->inode->ops->getattr)
		f->inode->ops->getattr(f->inode);
	return __atomic_load_n(&f->inode->size, __ATOMIC_RELAXED);
}

const struct mm_backing_ops file_backing_ops = {
	.get = fm_get,
	.put = fm_put,
	.read = fm_read,
	.pages = fm_pages,
	.writeback = fm_writeback,
	.size = fm_size,
};

/* A shared mapping through a file open for writing: counted on the inode
 * (Linux's i_mmap_writable), which F_SEAL_WRITE asks about. Each VMA piece
 * counts once; the count is nonzero while any exists. */
static void fm_wr_get(void *obj, uint64_t pgoff)
{
	struct file *f = obj;

	__atomic_add_fetch(&f->inode->mmap_writable, 1, __ATOMIC_SEQ_CST);
	fm_get(f, pgoff);
}

static void fm_wr_put(void *obj, uint64_t pgoff)
{
	struct file *f = obj;

	__atomic_sub_fetch(&f->inode->mmap_writable, 1, __ATOMIC_SEQ_CST);
	fm_put(f, pgoff);
}

const struct mm_backing_ops file_writable_backing_ops = {
	.get = fm_wr_get,
	.put = fm_wr_put,
	.read = fm_read,
	.pages = fm_pages,
	.writeback = fm_writeback,
	.size = fm_size,
};

static bool maps_inode(const void *bobj, const void *inode)
{
	const struct file *f = bobj;

	return f->inode == inode;
}

void file_mappings_shrunk(struct inode *inode, uint64_t size)
{
	if (__atomic_load_n(&inode->mmapped, __ATOMIC_SEQ_CST))
		mm_backing_shrunk(maps_inode, inode, size);
}

long file_mmap_access(struct file *f, int prot, int flags)
{
	int fl = file_getfl(f);

	if (!flags_readable(fl))
		return -EACCES;
	/* (O_APPEND does not matter: only an append-only inode would.) */
	if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE) && !flags_writable(fl))
		return -EACCES;
	return 0;
}

long file_mmap_check(struct file *f, int prot, int flags)
{
	bool shared = (flags & MAP_TYPE) != MAP_PRIVATE;
	long ret;

	if (f->fmode & FMODE_PATH)
		return -EBADF; /* (fd_get does not hand these out; never call their ops) */
	/* The access first, as Linux's do_mmap (a pipe's write end: EACCES). */
	ret = file_mmap_access(f, prot, flags);
	if (ret)
		return ret;
	if (!f->inode || !S_ISREG(f->inode->mode) || !f->ops->read)
		return -ENODEV;
	if ((prot & PROT_EXEC) && f->path.mnt && (f->path.mnt->flags & MNT_NOEXEC))
		return -EPERM;
	if (shared && !f->ops->pages)
		return -ENODEV;
	return 0;
}
