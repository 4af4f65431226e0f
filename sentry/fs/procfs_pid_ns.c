/*
 * /proc/<pid>/ns/ and /proc/<pid>/cgroup: the namespaces and the cgroup a
 * process is in. The sandbox's first namespaces are numbered as a Linux
 * kernel numbers its initial ones, those a guest makes after them
 * (sentry/kernel/nsproxy.c). Each link reads "type:[id]" and leads to an
 * nsfs file of the namespace (sentry/fs/nsfs.c), which setns takes. The
 * cgroup is the root of a cgroup v2 hierarchy, as a container with a
 * cgroup namespace sees it.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/kernel/nsproxy.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define NS(name, type)                                        \
	{                                                     \
		name, S_IFLNK | 0777, PK_NS, NULL, NULL, type \
	}

const struct proc_node proc_ns_nodes[] = {
	NS("cgroup", "cgroup"),
	NS("ipc", "ipc"),
	NS("mnt", "mnt"),
	NS("net", "net"),
	NS("pid", "pid"),
	NS("pid_for_children", "pid"),
	NS("time", "time"),
	NS("time_for_children", "time"),
	NS("user", "user"),
	NS("uts", "uts"),
	{NULL},
};

long proc_ns_link(struct task *t, const struct proc_node *n, char *buf, size_t size)
{
	uint64_t ino = task_ns_ino(t, n->name);
	char text[48];
	int len;

	if (!ino)
		return -ENOENT;
	len = snprintf(text, sizeof(text), "%s:[%llu]", n->target, (unsigned long long)ino);
	memcpy(buf, text, MIN((size_t)len, size));
	return (long)MIN((size_t)len, size);
}

void proc_gen_cgroup(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "0::/\n");
}
