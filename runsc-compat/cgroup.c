/* Host cgroups (v1 and v2) for a container's sandbox processes. */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/spec.h"
#include "lib/error.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

/* The v1 controllers rung places the sandbox in (those mounted here). */
static const char *const v1_controllers[] = {"memory", "cpu",	  "cpuacct", "cpuset",
					     "pids",   "freezer", "devices", "blkio"};

static bool is_v2(void)
{
	struct stat st;

	return stat(CGROUP_ROOT "/cgroup.controllers", &st) == 0;
}

char *cgroup_path(const char *cgroups_path, const char *id, bool systemd)
{
	if (cgroups_path && systemd) {
		/* "slice:prefix:name" -> /slice/prefix-name.scope, as runc lays it out. */
		char *copy = xstrdup(cgroups_path), *slice = copy, *prefix, *name, *out;
		prefix = strchr(slice, ':');
		name = prefix ? strchr(prefix + 1, ':') : NULL;
		if (!prefix || !name) {
			free(copy);
			return xasprintf("/%s", cgroups_path);
		}
		*prefix++ = '\0';
		*name++ = '\0';
		out = xasprintf("/%s/%s-%s.scope", *slice ? slice : "system.slice", prefix, name);
		free(copy);
		return out;
	}
	if (cgroups_path)
		return cgroups_path[0] == '/' ? xstrdup(cgroups_path)
					      : xasprintf("/%s", cgroups_path);
	return xasprintf(CGROUP_DEFAULT_PARENT "/%s", id);
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A new v1 cpuset cgroup starts with empty cpus/mems: copy the parent's. */
static void cpuset_inherit(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

	if (slash && slash != parent) {
		*slash = '\0';
		for (int i = 0; i < 2; i++) {
			const char *f = i ? "cpuset.mems" : "cpuset.cpus";
			char *src = xasprintf("%s/%s", parent, f),
			     *dst = xasprintf("%s/%s", dir, f);
			char buf[4096];
			int fd = open(src, O_RDONLY | O_CLOEXEC);
			ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
			if (fd >= 0)
				close(fd);
			if (n > 1) {
				buf[n] = '\0';
				write_file(dst, buf);
			}
			free(src);
			free(dst);
		}
	}
	free(parent);
}

/* v2: the controllers rung writes, enabled for a new level's children by
 * its parent (and then for the level below by it). Controllers the host
 * does not have are left out; errors show when a limit is written. */
static void enable_controllers(const char *dir)
{
	static const char *const ctl[] = {"+cpu", "+cpuset", "+io", "+memory", "+pids"};
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

	if (slash && slash != parent) {
		*slash = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(ctl); i++) {
			char *f = xasprintf("%s/cgroup.subtree_control", parent);
			write_file(f, ctl[i]);
			free(f);
		}
	}
	free(parent);
}

static int mkdir_p_once(const char *path, bool cpuset);

/* mkdir -p; a new v1 cpuset level gets its parent's cpus and mems (it
 * starts empty, and an empty cpuset takes no process). A parent another
 * sandbox removed meanwhile (an empty /rung goes with its last user) is
 * made again. */
static int mkdir_p(const char *path, bool cpuset)
{
	int ret = -ENOENT;

	for (int i = 0; i < 5 && ret == -ENOENT; i++)
		ret = mkdir_p_once(path, cpuset);
	return ret;
}

static int mkdir_p_once(const char *path, bool cpuset)
{
	char *copy = xstrdup(path);
	int ret = 0;

	for (char *p = copy + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(copy, 0755) == 0) {
			if (cpuset)
				cpuset_inherit(copy);
			else if (is_v2())
				enable_controllers(copy);
		} else if (errno != EEXIST) {
			ret = -errno;
		}
		*p = c;
		if (!c || ret < 0)
			break;
	}
	free(copy);
	return ret;
}

/* The sentry enforces pids.limit on guest tasks itself (its task limit);
 * the host cgroup is only a backstop, sized for what the sandbox needs on
 * the host so that the sentry's limit is always met first: a sentry
 * thread and a stub thread per guest task, a stub's own thread per
 * address space, the sentry threads of exited tasks that wait for the
 * stubs they spawned (docs/architecture.md), plus the sentry's own
 * threads and the gofer's. */
static long long host_pids_max(long long guest_limit)
{
	return guest_limit > LLONG_MAX / 8 ? LLONG_MAX : 4 * guest_limit + 64;
}

/* --- resources: a LinuxResources object onto the cgroup's files ------------------- */

char *cgroup_file(const char *path, const char *v1_controller, const char *file)
{
	return is_v2() ? xasprintf(CGROUP_ROOT "%s/%s", path, file)
		       : xasprintf(CGROUP_ROOT "/%s%s/%s", v1_controller ? v1_controller : "", path,
				   file);
}

bool cgroup_v2(void)
{
	return is_v2();
}

/* obj[key] when present and not null. */
static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

/* An integer member: false when absent (or null). */
static bool jint(struct json_object *o, const char *key, int64_t *v)
{
	struct json_object *j = jget(o, key);

	if (!j || !json_object_is_type(j, json_type_int))
		return false;
	*v = json_object_get_int64(j);
	return true;
}

/* Is member key set to something other than its "unset" value (0, false,
 * "", [], {})? */
static bool jset(struct json_object *o, const char *key)
{
	struct json_object *j = jget(o, key);

	if (!j)
		return false;
	switch (json_object_get_type(j)) {
	case json_type_int:
		return json_object_get_int64(j) != 0;
	case json_type_boolean:
		return json_object_get_boolean(j);
	case json_type_string:
		return json_object_get_string_len(j) > 0;
	case json_type_array:
		return json_object_array_length(j) > 0;
	case json_type_object:
		return json_object_object_length(j) > 0;
	default:
		return true;
	}
}

int cgroup_check_resources(const char *json, const char *prefix, struct rung_error *err)
{
	/* Members rung cannot honour: set to anything but their zero value, they
	 * are refused, named. */
	static const struct {
		const char *object, *member, *why;
	} refused[] = {
		{NULL, "hugepageLimits", "no hugetlb limits"},
		{NULL, "rdma", "no rdma limits"},
		{NULL, "network", "no net_cls/net_prio classes"},
		{"memory", "kernel", "kernel memory limits are gone from Linux"},
		{"memory", "kernelTCP", "kernel memory limits are gone from Linux"},
		{"cpu", "realtimeRuntime", "no real-time scheduling"},
		{"cpu", "realtimePeriod", "no real-time scheduling"},
		{"cpu", "idle", "no SCHED_IDLE groups"},
		{"cpu", "burst", "no CPU burst"},
		{"blockIO", "leafWeight", "only blockIO.weight"},
		{"blockIO", "weightDevice", "only blockIO.weight"},
		{"blockIO", "throttleReadBpsDevice", "no I/O throttling"},
		{"blockIO", "throttleWriteBpsDevice", "no I/O throttling"},
		{"blockIO", "throttleReadIOPSDevice", "no I/O throttling"},
		{"blockIO", "throttleWriteIOPSDevice", "no I/O throttling"},
	};
	struct json_object *o = json_tokener_parse(json);
	int ret = 0;

	if (!o || !json_object_is_type(o, json_type_object)) {
		ret = rung_error_make(err, EINVAL, "`%s` is not a JSON object", prefix);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused) && ret == 0; i++) {
		struct json_object *in = refused[i].object ? jget(o, refused[i].object) : o;
		if (jset(in, refused[i].member))
			ret = rung_error_make(err, EINVAL, "`%s.%s%s%s` is not supported (%s)",
					      prefix, refused[i].object ? refused[i].object : "",
					      refused[i].object ? "." : "", refused[i].member,
					      refused[i].why);
	}
	if (ret == 0 && jset(jget(o, "memory"), "disableOOMKiller") && is_v2())
		ret = rung_error_make(err, EINVAL,
				      "`%s.memory.disableOOMKiller` is not supported on cgroup v2",
				      prefix);
	if (ret == 0 && jset(o, "unified") && !is_v2())
		ret = rung_error_make(err, EINVAL, "`%s.unified` needs cgroup v2", prefix);
out:
	if (o)
		json_object_put(o);
	return ret;
}

/* Write value to the cgroup's file (v1: in controller's hierarchy). */
static int cg_write(const char *path, const char *controller, const char *file, const char *value,
		    struct rung_error *err)
{
	char *f = cgroup_file(path, controller, file);
	int ret = write_file(f, value);

	if (ret < 0)
		rung_error_make(err, -ret, "write `%s` to %s", value, f);
	free(f);
	return ret;
}

static bool cg_exists(const char *path, const char *controller, const char *file)
{
	char *f = cgroup_file(path, controller, file);
	bool ok = access(f, F_OK) == 0;

	free(f);
	return ok;
}

static void num(char *buf, size_t n, int64_t v, const char *unlimited)
{
	if (v < 0 && unlimited)
		snprintf(buf, n, "%s", unlimited);
	else
		snprintf(buf, n, "%lld", (long long)v);
}

/* memory: limit, reservation, swap (v1: memory+swap, v2: swap alone),
 * swappiness (v1), disableOOMKiller (v1). -1 is unlimited, 0 unset. */
static int apply_memory(const char *path, struct json_object *m, struct rung_error *err)
{
	bool v2 = is_v2();
	int64_t limit = 0, swap = 0, resv = 0, swappiness;
	char v[32];
	int ret = 0;

	jint(m, "limit", &limit);
	jint(m, "swap", &swap);
	jint(m, "reservation", &resv);
	if (limit) {
		num(v, sizeof(v), limit, v2 ? "max" : "-1");
		ret = cg_write(path, "memory", v2 ? "memory.max" : "memory.limit_in_bytes", v, err);
		/* v1: a limit above memory+swap is refused until that grows first. */
		if (ret < 0 && !v2 && swap &&
		    cg_exists(path, "memory", "memory.memsw.limit_in_bytes")) {
			rung_error_release(err);
			num(v, sizeof(v), swap, "-1");
			ret = cg_write(path, "memory", "memory.memsw.limit_in_bytes", v, err);
			num(v, sizeof(v), limit, "-1");
			if (ret == 0)
				ret = cg_write(path, "memory", "memory.limit_in_bytes", v, err);
		}
		if (ret < 0)
			return ret;
	}
	if (swap) {
		if (v2) {
			if (swap < 0 || limit <= 0)
				snprintf(v, sizeof(v), "max");
			else
				snprintf(v, sizeof(v), "%lld", (long long)MAX(swap - limit, 0));
			if (cg_exists(path, NULL, "memory.swap.max"))
				ret = cg_write(path, NULL, "memory.swap.max", v, err);
		} else if (cg_exists(path, "memory", "memory.memsw.limit_in_bytes")) {
			/* (Without swap accounting on the host there is nothing to limit.) */
			num(v, sizeof(v), swap, "-1");
			ret = cg_write(path, "memory", "memory.memsw.limit_in_bytes", v, err);
		}
		if (ret < 0)
			return ret;
	}
	if (resv) {
		num(v, sizeof(v), resv, v2 ? "max" : "-1");
		ret = cg_write(path, "memory", v2 ? "memory.low" : "memory.soft_limit_in_bytes", v,
			       err);
		if (ret < 0)
			return ret;
	}
	if (!v2 && jint(m, "swappiness", &swappiness) && swappiness >= 0 && swappiness <= 100) {
		num(v, sizeof(v), swappiness, NULL);
		ret = cg_write(path, "memory", "memory.swappiness", v, err);
		if (ret < 0)
			return ret;
	}
	if (!v2 && jset(m, "disableOOMKiller"))
		ret = cg_write(path, "memory", "memory.oom_control", "1", err);
	return ret;
}

/* cpu: shares (v2: weight), quota and period, cpus and mems (cpuset). */
static int apply_cpu(const char *path, struct json_object *c, struct rung_error *err)
{
	bool v2 = is_v2();
	int64_t shares = 0, quota = 0, period = 0;
	struct json_object *s;
	char v[64];
	int ret = 0;

	jint(c, "shares", &shares);
	jint(c, "quota", &quota);
	jint(c, "period", &period);
	if (shares > 0) {
		if (v2)
			snprintf(v, sizeof(v), "%lld",
				 1 + ((long long)MAX(shares, 2) - 2) * 9999 / 262142);
		else
			num(v, sizeof(v), shares, NULL);
		ret = cg_write(path, "cpu", v2 ? "cpu.weight" : "cpu.shares", v, err);
		if (ret < 0)
			return ret;
	}
	if (v2 && (quota || period > 0)) {
		/* cpu.max is "QUOTA PERIOD": what is not given stays. */
		char *f = cgroup_file(path, NULL, "cpu.max"), cur[64] = "max 100000", q[32];
		long long p = 100000;
		int fd = open(f, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, cur, sizeof(cur) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0)
			cur[n] = '\0';
		free(f);
		if (sscanf(cur, "%31s %lld", q, &p) != 2)
			snprintf(q, sizeof(q), "max");
		if (quota)
			num(q, sizeof(q), quota, "max");
		snprintf(v, sizeof(v), "%s %lld", q, period > 0 ? (long long)period : p);
		ret = cg_write(path, NULL, "cpu.max", v, err);
	} else if (!v2) {
		if (period > 0) {
			num(v, sizeof(v), period, NULL);
			ret = cg_write(path, "cpu", "cpu.cfs_period_us", v, err);
		}
		if (ret == 0 && quota) {
			num(v, sizeof(v), quota, "-1");
			ret = cg_write(path, "cpu", "cpu.cfs_quota_us", v, err);
		}
	}
	if (ret < 0)
		return ret;
	if ((s = jget(c, "cpus")) && json_object_get_string_len(s) > 0)
		ret = cg_write(path, "cpuset", "cpuset.cpus", json_object_get_string(s), err);
	if (ret == 0 && (s = jget(c, "mems")) && json_object_get_string_len(s) > 0)
		ret = cg_write(path, "cpuset", "cpuset.mems", json_object_get_string(s), err);
	return ret;
}

int cgroup_update(const char *path, const char *json, struct rung_error *err)
{
	struct json_object *o, *x;
	int64_t v;
	char buf[32];
	int ret;

	if (!path)
		return rung_error_make(err, 0, "the container has no cgroup");
	ret = cgroup_check_resources(json, "resources", err);
	if (ret < 0)
		return ret;
	o = json_tokener_parse(json);
	if ((x = jget(o, "memory")))
		ret = apply_memory(path, x, err);
	if (ret == 0 && (x = jget(o, "cpu")))
		ret = apply_cpu(path, x, err);
	if (ret == 0 && (x = jget(o, "pids")) && jint(x, "limit", &v) && v) {
		num(buf, sizeof(buf), v > 0 ? host_pids_max(v) : v, "max");
		ret = cg_write(path, "pids", "pids.max", buf, err);
	}
	if (ret == 0 && (x = jget(o, "blockIO")) && jint(x, "weight", &v) && v > 0) {
		num(buf, sizeof(buf), v, NULL);
		if (is_v2())
			snprintf(buf, sizeof(buf), "default %lld", (long long)v);
		ret = cg_write(path, "blkio", is_v2() ? "io.weight" : "blkio.weight", buf, err);
	}
	if (ret == 0 && is_v2() && (x = jget(o, "unified"))) {
		json_object_object_foreach(x, key, val)
		{
			if (strchr(key, '/') || !json_object_is_type(val, json_type_string)) {
				ret = rung_error_make(err, EINVAL,
						      "`unified.%s`: not a cgroup file", key);
				break;
			}
			ret = cg_write(path, NULL, key, json_object_get_string(val), err);
			if (ret < 0)
				break;
		}
	}
	json_object_put(o);
	return ret < 0 ? -1 : 0;
}
/* Is the v1 hierarchy of controller mounted here? */
static bool v1_mounted(const char *controller)
{
	char *base = xasprintf(CGROUP_ROOT "/%s", controller);
	struct stat st;
	bool ok = stat(base, &st) == 0;

	free(base);
	return ok;
}

static bool in_list(const char *list, const char *controller);

/* Is v1 controller c one of only (NULL: every one rung uses)? */
static bool wanted(const char *only, const char *c)
{
	return v1_mounted(c) && (!only || in_list(only, c));
}

int cgroup_create_in(const char *path, const char *only, struct rung_error *err)
{
	int ret;

	if (is_v2()) {
		char *dir = xasprintf(CGROUP_ROOT "%s", path);
		ret = mkdir_p(dir, false);
		free(dir);
		if (ret < 0)
			return rung_error_make(err, -ret, "create the cgroup `%s`", path);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v1_controllers); i++) {
		char *dir;
		if (!wanted(only, v1_controllers[i]))
			continue;
		dir = xasprintf(CGROUP_ROOT "/%s%s", v1_controllers[i], path);
		ret = mkdir_p(dir, strcmp(v1_controllers[i], "cpuset") == 0);
		free(dir);
		if (ret < 0)
			return rung_error_make(err, -ret, "create the %s cgroup `%s`",
					       v1_controllers[i], path);
	}
	return 0;
}

int cgroup_create(const char *path, const struct oci_resources *res, struct rung_error *err)
{
	if (cgroup_create_in(path, NULL, err) < 0)
		return -1;
	return res && res->raw ? cgroup_update(path, res->raw, err) : 0;
}

/* Moving a whole process takes the kernel's threadgroup lock for writing,
 * which waits for an RCU grace period (~15 ms here, a third of a `run`);
 * a single-threaded process moving itself through v1's `tasks` file does
 * not take it. */
int cgroup_join_in(const char *path, pid_t pid, const char *only, struct rung_error *err)
{
	const char *file = pid ? "cgroup.procs" : "tasks";
	char pidbuf[32];
	int ret;

	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	if (is_v2()) {
		char *procs = xasprintf(CGROUP_ROOT "%s/cgroup.procs", path);
		ret = write_file(procs, pidbuf);
		free(procs);
		if (ret < 0)
			return rung_error_make(err, -ret, "join the cgroup `%s`", path);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v1_controllers); i++) {
		char *f;
		if (!wanted(only, v1_controllers[i]))
			continue;
		f = cgroup_file(path, v1_controllers[i], file);
		ret = write_file(f, pidbuf);
		free(f);
		if (ret < 0)
			return rung_error_make(err, -ret, "join the %s cgroup `%s`",
					       v1_controllers[i], path);
	}
	return 0;
}

int cgroup_join(const char *path, pid_t pid, struct rung_error *err)
{
	return cgroup_join_in(path, pid, NULL, err);
}

/* Is controller one of the comma-separated list? */
static bool in_list(const char *list, const char *controller)
{
	size_t n = strlen(controller);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, controller, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

char **cgroup_self_procs(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t n = 0, cap = ARRAY_SIZE(v1_controllers) + 2;
	char **files = xzalloc(cap * sizeof(*files));
	char line[PATH_MAX + 64];
	bool v2 = is_v2();

	while (f && fgets(line, sizeof(line), f)) {
		char *ctrls = strchr(line, ':'), *path = ctrls ? strchr(ctrls + 1, ':') : NULL;

		if (!path)
			continue;
		*ctrls++ = '\0';
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		if (v2) {
			if (strcmp(line, "0") == 0 && n + 1 < cap)
				files[n++] = xasprintf(CGROUP_ROOT "%s/cgroup.procs",
						       strcmp(path, "/") == 0 ? "" : path);
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(v1_controllers) && n + 1 < cap; i++)
			if (in_list(ctrls, v1_controllers[i]) && v1_mounted(v1_controllers[i]))
				files[n++] = cgroup_file(path, v1_controllers[i], "cgroup.procs");
	}
	if (f)
		fclose(f);
	return files;
}

int cgroup_freeze(const char *path, bool frozen, struct rung_error *err)
{
	char *f;
	int ret;

	if (is_v2()) {
		f = xasprintf(CGROUP_ROOT "%s/cgroup.freeze", path);
		ret = write_file(f, frozen ? "1" : "0");
	} else {
		f = xasprintf(CGROUP_ROOT "/freezer%s/freezer.state", path);
		ret = write_file(f, frozen ? "FROZEN" : "THAWED");
	}
	free(f);
	if (ret < 0)
		return rung_error_make(err, -ret, "%s the cgroup `%s`", frozen ? "freeze" : "thaw",
				       path);
	return 0;
}

int cgroup_pids(const char *path, pid_t **pids, size_t *n)
{
	char *f = is_v2() ? xasprintf(CGROUP_ROOT "%s/cgroup.procs", path)
			  : xasprintf(CGROUP_ROOT "/pids%s/cgroup.procs", path);
	FILE *fp = fopen(f, "re");
	size_t cap = 0;
	int pid;

	free(f);
	*pids = NULL;
	*n = 0;
	if (!fp)
		return -errno;
	while (fscanf(fp, "%d", &pid) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*pids = xrealloc(*pids, cap * sizeof(**pids));
		}
		(*pids)[(*n)++] = pid;
	}
	fclose(fp);
	return 0;
}

/* rmdir of every level-1 directory of path: true when none is left. */
static bool remove_dirs(const char *path)
{
	bool done = true;

	if (is_v2()) {
		char *dir = xasprintf(CGROUP_ROOT "%s", path);
		done = rmdir(dir) == 0 || errno == ENOENT;
		free(dir);
		return done;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v1_controllers); i++) {
		char *dir = xasprintf(CGROUP_ROOT "/%s%s", v1_controllers[i], path);
		if (rmdir(dir) < 0 && errno != ENOENT)
			done = false;
		free(dir);
	}
	return done;
}

void cgroup_kill(const char *path)
{
	pid_t *pids;
	size_t n;

	if (cgroup_pids(path, &pids, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	free(pids);
}

bool cgroup_try_remove(const char *path)
{
	return remove_dirs(path);
}

void cgroup_remove(const char *path)
{
	/* The gofer and the stubs end a moment after the sandbox process (their
	 * parent-death signal), and the cgroup is busy until then: a few tries,
	 * about two seconds at most. */
	for (int i = 0; i < 200 && !remove_dirs(path); i++)
		usleep(10000);
	/* An rmdir of the parent fails while another sandbox uses it. */
	if (strncmp(path, CGROUP_DEFAULT_PARENT "/", strlen(CGROUP_DEFAULT_PARENT "/")) == 0 &&
	    !strchr(path + strlen(CGROUP_DEFAULT_PARENT "/"), '/'))
		remove_dirs(CGROUP_DEFAULT_PARENT);
}
