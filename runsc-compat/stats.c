/* A container's resource usage from its host cgroup, as runc's stats (stats.h). */
#include "config.h"
#include "runsc-compat/stats.h"
#include "runsc-compat/cgroup.h"
#include "lib/util.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The text of a cgroup file (NUL-terminated, malloc'd), or NULL. */
static char *slurp(const char *cg, const char *controller, const char *file)
{
	char *path = cgroup_file(cg, controller, file), *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	free(path);
	if (fd < 0)
		return NULL;
	do {
		if (cap - len < 4096)
			buf = xrealloc(buf, cap += 8192);
		n = read(fd, buf + len, cap - len - 1);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* One number (a "max" is 0: no limit, as runc reports it). */
static uint64_t value(const char *cg, const char *controller, const char *file)
{
	char *s = slurp(cg, controller, file);
	uint64_t v = s ? strtoull(s, NULL, 10) : 0;

	free(s);
	return v;
}

/* "key value" lines: the value of key, or 0. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
			return strtoull(p + klen + 1, NULL, 10);
	return 0;
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

/* "key value" lines as an object of numbers. */
static struct json_object *raw(const char *text)
{
	struct json_object *o = json_object_new_object();
	char key[128];
	unsigned long long v;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "%127s %llu", key, &v) == 2)
			add_u64(o, key, v);
	return o;
}

static struct json_object *cpu_v1(const char *cg)
{
	struct json_object *cpu = json_object_new_object(), *usage = json_object_new_object(),
			   *thr = json_object_new_object(), *percpu = json_object_new_array();
	char *pc = slurp(cg, "cpuacct", "cpuacct.usage_percpu"), *st = slurp(cg, "cpu", "cpu.stat");
	char *end;

	add_u64(usage, "total", value(cg, "cpuacct", "cpuacct.usage"));
	for (char *p = pc; p && *p; p = end) {
		uint64_t v = strtoull(p, &end, 10);
		if (end == p)
			break;
		json_object_array_add(percpu, json_object_new_uint64(v));
	}
	json_object_object_add(usage, "percpu", percpu);
	add_u64(usage, "kernel", value(cg, "cpuacct", "cpuacct.usage_sys"));
	add_u64(usage, "user", value(cg, "cpuacct", "cpuacct.usage_user"));
	add_u64(thr, "periods", keyed(st, "nr_periods"));
	add_u64(thr, "throttledPeriods", keyed(st, "nr_throttled"));
	add_u64(thr, "throttledTime", keyed(st, "throttled_time"));
	json_object_object_add(cpu, "usage", usage);
	json_object_object_add(cpu, "throttling", thr);
	free(pc);
	free(st);
	return cpu;
}

static struct json_object *cpu_v2(const char *cg)
{
	struct json_object *cpu = json_object_new_object(), *usage = json_object_new_object(),
			   *thr = json_object_new_object();
	char *st = slurp(cg, NULL, "cpu.stat");

	/* cpu.stat counts microseconds; runc reports nanoseconds. */
	add_u64(usage, "total", keyed(st, "usage_usec") * 1000);
	json_object_object_add(usage, "percpu", json_object_new_array());
	add_u64(usage, "kernel", keyed(st, "system_usec") * 1000);
	add_u64(usage, "user", keyed(st, "user_usec") * 1000);
	add_u64(thr, "periods", keyed(st, "nr_periods"));
	add_u64(thr, "throttledPeriods", keyed(st, "nr_throttled"));
	add_u64(thr, "throttledTime", keyed(st, "throttled_usec") * 1000);
	json_object_object_add(cpu, "usage", usage);
	json_object_object_add(cpu, "throttling", thr);
	free(st);
	return cpu;
}

/* {usage, limit, max, failcnt} of the v1 memory files named prefix.*. */
static struct json_object *mem_entry_v1(const char *cg, const char *prefix)
{
	struct json_object *e = json_object_new_object();
	char f[64];
	uint64_t limit;

	snprintf(f, sizeof(f), "%s.usage_in_bytes", prefix);
	add_u64(e, "usage", value(cg, "memory", f));
	snprintf(f, sizeof(f), "%s.limit_in_bytes", prefix);
	limit = value(cg, "memory", f);
	add_u64(e, "limit", limit);
	snprintf(f, sizeof(f), "%s.max_usage_in_bytes", prefix);
	add_u64(e, "max", value(cg, "memory", f));
	snprintf(f, sizeof(f), "%s.failcnt", prefix);
	add_u64(e, "failcnt", value(cg, "memory", f));
	return e;
}

static struct json_object *memory(const char *cg)
{
	struct json_object *m = json_object_new_object(), *u;
	char *st;

	if (cgroup_v2()) {
		u = json_object_new_object();
		add_u64(u, "usage", value(cg, NULL, "memory.current"));
		add_u64(u, "limit", value(cg, NULL, "memory.max"));
		json_object_object_add(m, "usage", u);
		u = json_object_new_object();
		add_u64(u, "usage", value(cg, NULL, "memory.swap.current"));
		add_u64(u, "limit", value(cg, NULL, "memory.swap.max"));
		json_object_object_add(m, "swap", u);
		st = slurp(cg, NULL, "memory.stat");
	} else {
		json_object_object_add(m, "usage", mem_entry_v1(cg, "memory"));
		json_object_object_add(m, "swap", mem_entry_v1(cg, "memory.memsw"));
		json_object_object_add(m, "kernel", mem_entry_v1(cg, "memory.kmem"));
		st = slurp(cg, "memory", "memory.stat");
	}
	add_u64(m, "cache", keyed(st, cgroup_v2() ? "file" : "cache"));
	json_object_object_add(m, "raw", raw(st));
	free(st);
	return m;
}

struct json_object *stats_read(const char *cg)
{
	struct json_object *d = json_object_new_object(), *pids = json_object_new_object();

	json_object_object_add(d, "cpu", cgroup_v2() ? cpu_v2(cg) : cpu_v1(cg));
	json_object_object_add(d, "memory", memory(cg));
	add_u64(pids, "current", value(cg, "pids", "pids.current"));
	add_u64(pids, "limit", value(cg, "pids", "pids.max"));
	json_object_object_add(d, "pids", pids);
	json_object_object_add(d, "blkio", json_object_new_object());
	json_object_object_add(d, "hugetlb", json_object_new_object());
	return d;
}
