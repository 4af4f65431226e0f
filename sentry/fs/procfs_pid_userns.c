/*
 * /proc/<pid>/uid_map, gid_map and setgroups: a user namespace's id maps
 * and its setgroups switch, shown and written through the namespace code
 * (sentry/kernel/nsproxy.c), which applies Linux's rules: one write per
 * map, by a writer with the right capabilities, setgroups "deny" before an
 * unprivileged gid_map.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "lib/strbuf.h"

void proc_gen_uid_map(struct proc_ctx *c, struct strbuf *o)
{
	userns_show_map(current_task(), c->t, false, o);
}

void proc_gen_gid_map(struct proc_ctx *c, struct strbuf *o)
{
	userns_show_map(current_task(), c->t, true, o);
}

void proc_gen_setgroups(struct proc_ctx *c, struct strbuf *o)
{
	userns_show_setgroups(c->t, o);
}

long proc_write_uid_map(struct proc_ctx *c, const char *buf, size_t len)
{
	return userns_write_map(current_task(), c->t, false, buf, len);
}

long proc_write_gid_map(struct proc_ctx *c, const char *buf, size_t len)
{
	return userns_write_map(current_task(), c->t, true, buf, len);
}

long proc_write_setgroups(struct proc_ctx *c, const char *buf, size_t len)
{
	return userns_write_setgroups(current_task(), c->t, buf, len);
}
