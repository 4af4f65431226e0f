/*
 * /proc/<pid>/mem: the process's memory at the file offset that is its
 * address (Linux's mem_open, mem_rw, mem_lseek in fs/proc/base.c). Opening
 * needs the right to attach to the process as ptrace would (its own thread
 * group, or creds_may_attach: EACCES otherwise); the file holds the address
 * space it found then, and reads nothing once that has no users left. Reads
 * and writes are forced, as FOLL_FORCE: any mapped byte reads, and a
 * read-only private mapping takes a write (into the process's own copy of
 * the page). A range that starts unmapped is EIO.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

/* Each step is at most this long (Linux copies a page at a time). */
#define MEM_STEP (64u * 1024u)

static long mem_rw(struct file *f, void *buf, size_t len, int64_t *pos, bool write)
{
	struct mm *mm = f->priv;
	uint64_t addr = (uint64_t)*pos;
	size_t done = 0;

	if (!mm || __atomic_load_n(&mm->users, __ATOMIC_SEQ_CST) <= 0)
		return 0;
	while (done < len) {
		size_t step = MIN(len - done, (size_t)MEM_STEP);
		size_t n = mm_access_force(mm, addr + done, (char *)buf + done, step, write);
		done += n;
		if (n < step)
			break;
	}
	if (!done)
		return -EIO;
	*pos = (int64_t)(addr + done);
	return (long)done;
}

static long mem_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	return mem_rw(f, buf, len, pos, false);
}

static long mem_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	return mem_rw(f, (void *)buf, len, pos, true);
}

/* SEEK_SET and SEEK_CUR only: the file has no end. */
static int64_t mem_llseek(struct file *f, int64_t off, int whence)
{
	switch (whence) {
	case SEEK_SET:
		return off < 0 ? -EINVAL : off;
	case SEEK_CUR:
		return f->pos + off < 0 ? -EINVAL : f->pos + off;
	default:
		return -EINVAL;
	}
}

static int mem_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	st->size = 0;
	return 0;
}

static void mem_release(struct file *f)
{
	if (f->priv)
		mm_put(f->priv);
}

static const struct file_ops mem_ops = {
	.read = mem_read,
	.write = mem_write,
	.llseek = mem_llseek,
	.fstat = mem_fstat,
	.release = mem_release,
};

bool proc_may_read_task(struct task *target)
{
	struct task *me = current_task();
	bool ok;

	if (!me)
		return false;
	pthread_mutex_lock(&target->k->lock);
	ok = target->tg == me->tg || creds_may_attach(&me->creds, &target->creds, target->dumpable);
	pthread_mutex_unlock(&target->k->lock);
	return ok;
}

int proc_mem_open(struct task *target, int flags, struct file **out)
{
	struct task *me = current_task();
	struct mm *mm = NULL;
	struct file *f;
	bool ok;

	if (!me)
		return -EACCES;
	pthread_mutex_lock(&target->k->lock);
	ok = target->tg == me->tg || creds_may_attach(&me->creds, &target->creds, target->dumpable);
	if (ok && target->mm)
		mm = mm_get(target->mm);
	pthread_mutex_unlock(&target->k->lock);
	if (!ok)
		return -EACCES;
	f = file_alloc(&mem_ops, flags, mm);
	f->fmode = FMODE_PREAD | FMODE_ATPOS;
	*out = f;
	return 0;
}
