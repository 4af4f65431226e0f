/*
 * /proc/<pid>/io and /proc/<pid>/task/<tid>/io: the read and write calls
 * counted by syscalls/sys_rw.c (struct task_io). A process's figures are
 * those of its live threads and of the ones that exited. The storage
 * figures are 0: the sandbox does no block I/O of its own.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "lib/list.h"
#include "lib/strbuf.h"

static void add_io(struct task_io *sum, const struct task_io *io)
{
	sum->rchar += __atomic_load_n(&io->rchar, __ATOMIC_RELAXED);
	sum->wchar += __atomic_load_n(&io->wchar, __ATOMIC_RELAXED);
	sum->syscr += __atomic_load_n(&io->syscr, __ATOMIC_RELAXED);
	sum->syscw += __atomic_load_n(&io->syscw, __ATOMIC_RELAXED);
}

void proc_gen_io(struct proc_ctx *c, struct strbuf *o)
{
	struct task_io sum = {0};

	pthread_mutex_lock(&c->k->lock);
	if (c->thread) {
		add_io(&sum, &c->t->ioac);
	} else {
		struct task *t;
		sum = c->t->tg->dead_io;
		list_for_each_entry(t, &c->t->tg->threads, tg_node)
			add_io(&sum, &t->ioac);
	}
	pthread_mutex_unlock(&c->k->lock);
	strbuf_printf(o,
		      "rchar: %llu\nwchar: %llu\nsyscr: %llu\nsyscw: %llu\nread_bytes: 0\n"
		      "write_bytes: 0\ncancelled_write_bytes: 0\n",
		      (unsigned long long)sum.rchar, (unsigned long long)sum.wchar,
		      (unsigned long long)sum.syscr, (unsigned long long)sum.syscw);
}
