/*
 * /proc/<pid>/cmdline and environ: the bytes of the process's argument and
 * environment areas, as they are now (what the process wrote there since
 * exec shows).
 *
 * cmdline follows Linux's get_mm_cmdline: normally the whole argument area;
 * but when its last byte is no longer a NUL, the process has written a title
 * over it (setproctitle), which may run on into the environment area, so
 * the text is the first string from the start of the arguments, at most a
 * page long.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* The most of an area shown (exec's argument and environment strings are
 * at most a quarter of an 8 MiB stack, 2 MiB together). */
#define AREA_MAX (2u << 20)

/* The bytes of [from, to) that are mapped (a guest may unmap its stack). */
static void guest_range(struct mm *mm, struct strbuf *o, uint64_t from, uint64_t to)
{
	char *buf;
	size_t n;

	if (to <= from || to - from > AREA_MAX)
		return;
	buf = xmalloc(to - from);
	n = mm_copy_in_partial(mm, buf, from, to - from);
	strbuf_append(o, buf, n);
	free(buf);
}

/* The setproctitle case: the string at arg_start, its NUL included, within
 * a page and len bytes. */
static void proctitle(struct mm *mm, struct strbuf *o, uint64_t arg_start, uint64_t len)
{
	char *page = xmalloc(PAGE_SIZE);
	size_t got = mm_copy_in_partial(mm, page, arg_start, MIN(len, (uint64_t)PAGE_SIZE));
	size_t n = strnlen(page, got);

	if (n < got)
		n++;
	strbuf_append(o, page, n);
	free(page);
}

void proc_gen_cmdline(struct proc_ctx *c, struct strbuf *o)
{
	struct mm *mm = c->mm;
	uint64_t arg_start, arg_end, env_start, env_end;
	char last;

	if (!mm)
		return;
	arg_start = mm->arg_start;
	arg_end = mm->arg_end;
	env_start = mm->env_start;
	env_end = mm->env_end;
	if (arg_start >= arg_end)
		return;
	/* A title may overflow into the environment only when that follows. */
	if (env_start != arg_end || env_end < env_start)
		env_start = env_end = arg_end;
	if (mm_copy_in_partial(mm, &last, arg_end - 1, 1) == 1 && last)
		proctitle(mm, o, arg_start, env_end - arg_start);
	else
		guest_range(mm, o, arg_start, arg_end);
}

void proc_gen_environ(struct proc_ctx *c, struct strbuf *o)
{
	struct mm *mm = c->mm;

	if (mm)
		guest_range(mm, o, mm->env_start, mm->env_end);
}
