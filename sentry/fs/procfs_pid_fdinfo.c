/*
 * /proc/<pid>/fdinfo/<n>: what Linux's seq_show (fs/proc/fd.c) prints for
 * descriptor n: its position, its status flags in octal with O_CLOEXEC
 * added when the descriptor has it, the id of the mount it was opened on
 * and its inode number; then what the file's own show_fdinfo op adds
 * (eventfd's count, epoll's targets, inotify's watches, signalfd's mask,
 * timerfd's settings).
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"

#include <fcntl.h>

void proc_gen_fdinfo(struct proc_ctx *c, struct strbuf *o)
{
	struct file *f = c->t->files ? fd_get_raw(c->t->files, c->fd) : NULL;
	struct kstat st = {0};
	int flags, cloexec;

	if (!f)
		return;
	cloexec = fd_get_cloexec(c->t->files, c->fd);
	flags = (f->fmode & FMODE_PATH) ? f->flags : file_getfl(f);
	if (flags < 0)
		flags = f->flags;
	if (cloexec > 0)
		flags |= O_CLOEXEC;
	if (!(f->fmode & FMODE_PATH) && f->ops->fstat && f->ops->fstat(f, &st) == 0)
		;
	else if (f->inode)
		st.ino = f->inode->ino;
	strbuf_printf(o, "pos:\t%lld\nflags:\t0%o\nmnt_id:\t%u\nino:\t%llu\n", (long long)f->pos,
		      (unsigned)flags, f->path.mnt ? f->path.mnt->id : 0,
		      (unsigned long long)st.ino);
	if (!(f->fmode & FMODE_PATH) && f->ops->show_fdinfo)
		f->ops->show_fdinfo(f, o);
	file_put(f);
}
