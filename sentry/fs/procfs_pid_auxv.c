/*
 * /proc/<pid>/auxv: the auxiliary vector exec built for the process, as
 * (type, value) pairs of 64-bit words ending with the AT_NULL pair. It is
 * the copy exec kept (Linux's saved_auxv), so what the process later writes
 * over its stack does not show.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"

void proc_gen_auxv(struct proc_ctx *c, struct strbuf *o)
{
	struct mm *mm = c->mm;

	if (mm)
		strbuf_append(o, mm->saved_auxv, mm->saved_auxv_words * sizeof(uint64_t));
}
