/*
 * /proc/<pid>/coredump_filter: the process's MMF_DUMP_* bits, "%08x" as
 * Linux prints them; a write of a number (decimal, 0x hex or 0 octal, as
 * kstrtouint) sets the bits coredump_filter has, copied by fork.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void proc_gen_coredump_filter(struct proc_ctx *c, struct strbuf *o)
{
	unsigned v;

	pthread_mutex_lock(&c->k->lock);
	v = c->t->tg->coredump_filter;
	pthread_mutex_unlock(&c->k->lock);
	strbuf_printf(o, "%08x\n", v);
}

long proc_write_coredump_filter(struct proc_ctx *c, const char *buf, size_t len)
{
	char text[65], *s = text, *end; /* kstrtouint_from_user's buffer: the rest is cut */
	size_t n = len < sizeof(text) - 1 ? len : sizeof(text) - 1;
	unsigned long v;

	memcpy(text, buf, n);
	text[n] = '\0'; /* a NUL in what was written ends the number there */
	if (*s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (*end == '\n')
		end++;
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	pthread_mutex_lock(&c->k->lock);
	c->t->tg->coredump_filter = (c->t->tg->coredump_filter & ~COREDUMP_FILTER_MASK) |
				    ((unsigned)v & COREDUMP_FILTER_MASK);
	pthread_mutex_unlock(&c->k->lock);
	return (long)len;
}
