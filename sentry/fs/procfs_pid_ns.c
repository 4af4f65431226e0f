/*
 * /proc/<pid>/ns/ and /proc/<pid>/cgroup: the namespaces and the cgroup a
 * process is in. A sandbox is one set of namespaces, so every process shows
 * the same ones, numbered as a Linux kernel numbers its initial namespaces
 * (a sandbox is that kernel's first and only instance). The cgroup is the
 * root of a cgroup v2 hierarchy, as a container with a cgroup namespace
 * sees it.
 *
 * The links can be read, not followed: the sandbox has no nsfs to open
 * (setns is not supported).
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The inode numbers of Linux's initial namespaces (PROC_*_INIT_INO; the
 * mount and network ones as its first allocations give them). */
static const struct {
	const char *type;
	unsigned long long ino;
} ns_inodes[] = {
	{"cgroup", 4026531835ull}, {"ipc", 4026531839ull}, {"mnt", 4026531841ull},
	{"net", 4026531840ull},	   {"pid", 4026531836ull}, {"time", 4026531834ull},
	{"user", 4026531837ull},   {"uts", 4026531838ull},
};

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

long proc_ns_link(const struct proc_node *n, char *buf, size_t size)
{
	char text[48];
	int len;

	for (size_t i = 0; i < ARRAY_SIZE(ns_inodes); i++)
		if (strcmp(ns_inodes[i].type, n->target) == 0) {
			len = snprintf(text, sizeof(text), "%s:[%llu]", n->target,
				       ns_inodes[i].ino);
			memcpy(buf, text, MIN((size_t)len, size));
			return (long)MIN((size_t)len, size);
		}
	return -ENOENT;
}

void proc_gen_cgroup(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "0::/\n");
}
