/*
 * /proc/<pid>/oom_score and oom_score_adj: how the sandbox's out-of-memory
 * monitor (sentry/kernel/oom.h) weighs the process, as Linux's OOM killer.
 *
 * oom_score_adj (-1000..1000) is the process's, shared by its threads,
 * inherited by fork and kept across exec. Lowering it below the least a
 * privileged writer set (oom_score_adj_min, 0 at first) takes
 * CAP_SYS_RESOURCE: EACCES otherwise; a writer that has it also moves that
 * least. oom_score is Linux's figure: 0 for -1000, else the badness scaled
 * into 0..1333, 666 for a process holding nothing with adj 0.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/oom.h"
#include "sentry/kernel/sysinfo.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>

void proc_gen_oom_score_adj(struct proc_ctx *c, struct strbuf *o)
{
	int adj;

	pthread_mutex_lock(&c->k->lock);
	adj = (c->t ? c->t->tg : c->zombie)->oom.adj;
	pthread_mutex_unlock(&c->k->lock);
	strbuf_printf(o, "%d\n", adj);
}

void proc_gen_oom_score(struct proc_ctx *c, struct strbuf *o)
{
	struct sandbox_mem m;
	uint64_t rss = c->mm ? mm_resident(c->mm) : 0, pages;
	int64_t badness;
	int adj;

	sandbox_mem(c->k, &m);
	pages = m.total / PAGE_SIZE;
	pthread_mutex_lock(&c->k->lock);
	adj = (c->t ? c->t->tg : c->zombie)->oom.adj;
	pthread_mutex_unlock(&c->k->lock);
	badness = oom_badness(rss, adj, m.total);
	if (badness == INT64_MIN || !pages)
		strbuf_printf(o, "0\n");
	else
		strbuf_printf(o, "%lld\n",
			      (long long)((1000 + badness * 1000 / (int64_t)pages) * 2 / 3));
}

/* kstrtoint(s, 0): an optional sign, then decimal, 0x hex or 0 octal, the
 * whole string (surrounding blanks already stripped). */
static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < INT32_MIN || v > INT32_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

long proc_write_oom_score_adj(struct proc_ctx *c, const char *buf, size_t len)
{
	struct task *writer = current_task();
	char text[13]; /* Linux's PROC_NUMBUF: longer writes are cut */
	size_t n = len < sizeof(text) - 1 ? len : sizeof(text) - 1;
	char *s = text;
	bool privileged;
	int adj, ret;

	memcpy(text, buf, n);
	text[n] = '\0';
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	for (size_t e = strlen(s); e && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n');)
		s[--e] = '\0';
	ret = parse_int(s, &adj);
	if (ret < 0)
		return ret;
	if (adj < OOM_SCORE_ADJ_MIN || adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	privileged = writer && creds_capable(&writer->creds, CAP_SYS_RESOURCE);
	pthread_mutex_lock(&c->k->lock);
	if (adj < c->t->tg->oom.adj_min && !privileged) {
		ret = -EACCES;
	} else {
		c->t->tg->oom.adj = (short)adj;
		if (privileged)
			c->t->tg->oom.adj_min = (short)adj;
	}
	pthread_mutex_unlock(&c->k->lock);
	return ret < 0 ? ret : (long)n;
}
