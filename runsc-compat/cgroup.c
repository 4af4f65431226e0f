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
	return xasprintf("/rung/%s", id);
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

/* mkdir -p; a new v1 cpuset level gets its parent's cpus and mems (it
 * starts empty, and an empty cpuset takes no process). */
static int mkdir_p(const char *path, bool cpuset)
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
 * the host: a sentry thread and a stub thread per guest task, plus the
 * sentry's own threads and the gofer. */
static long long host_pids_max(long long guest_limit)
{
	return guest_limit > LLONG_MAX / 4 ? LLONG_MAX : 2 * guest_limit + 32;
}

static void apply_v1(const char *path, const struct oci_resources *r)
{
	char *f, v[64];

	if (!r)
		return;
	if (r->memory_limit > 0) {
		f = xasprintf(CGROUP_ROOT "/memory%s/memory.limit_in_bytes", path);
		snprintf(v, sizeof(v), "%lld", (long long)r->memory_limit);
		write_file(f, v);
		free(f);
	}
	if (r->pids_limit > 0) {
		f = xasprintf(CGROUP_ROOT "/pids%s/pids.max", path);
		snprintf(v, sizeof(v), "%lld", (long long)host_pids_max(r->pids_limit));
		write_file(f, v);
		free(f);
	}
	if (r->cpu_shares) {
		f = xasprintf(CGROUP_ROOT "/cpu%s/cpu.shares", path);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->cpu_shares);
		write_file(f, v);
		free(f);
	}
	if (r->cpu_period) {
		f = xasprintf(CGROUP_ROOT "/cpu%s/cpu.cfs_period_us", path);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->cpu_period);
		write_file(f, v);
		free(f);
	}
	if (r->cpu_quota > 0) {
		f = xasprintf(CGROUP_ROOT "/cpu%s/cpu.cfs_quota_us", path);
		snprintf(v, sizeof(v), "%lld", (long long)r->cpu_quota);
		write_file(f, v);
		free(f);
	}
}

int cgroup_create(const char *path, const struct oci_resources *res, struct rung_error *err)
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
		char *base = xasprintf(CGROUP_ROOT "/%s", v1_controllers[i]), *dir;
		struct stat st;
		if (stat(base, &st) < 0) {
			free(base);
			continue; /* not mounted here */
		}
		dir = xasprintf("%s%s", base, path);
		ret = mkdir_p(dir, strcmp(v1_controllers[i], "cpuset") == 0);
		free(dir);
		free(base);
		if (ret < 0)
			return rung_error_make(err, -ret, "create the %s cgroup `%s`",
					       v1_controllers[i], path);
	}
	apply_v1(path, res);
	return 0;
}

/* Moving a whole process takes the kernel's threadgroup lock for writing,
 * which waits for an RCU grace period (~15 ms here, a third of a `run`);
 * a single-threaded process moving itself through v1's `tasks` file does
 * not take it. */
int cgroup_join(const char *path, pid_t pid, struct rung_error *err)
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
		char *base = xasprintf(CGROUP_ROOT "/%s", v1_controllers[i]), *f;
		struct stat st;
		if (stat(base, &st) < 0) {
			free(base);
			continue;
		}
		f = xasprintf("%s%s/%s", base, path, file);
		ret = write_file(f, pidbuf);
		free(f);
		free(base);
		if (ret < 0)
			return rung_error_make(err, -ret, "join the %s cgroup `%s`",
					       v1_controllers[i], path);
	}
	return 0;
}

int cgroup_update(const char *path, const char *resources_json, struct rung_error *err)
{
	return rung_error_make(err, 0, "update: changing resources is not supported yet");
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

/* rmdir one cgroup directory; EBUSY while processes are still in it. */
static int remove_dir(const char *dir)
{
	return rmdir(dir) < 0 && errno != ENOENT ? -errno : 0;
}

/* The gofer and the stubs die with the sandbox process, but a moment after
 * it (PDEATHSIG, PTRACE_O_EXITKILL): until they are gone the cgroup is
 * busy. Whatever is still in it is killed, as runc's delete does, and the
 * rmdir tried again, for up to a second. */
void cgroup_remove(const char *path)
{
	for (int tries = 0; tries < 200; tries++) {
		bool busy = false;
		if (is_v2()) {
			char *dir = xasprintf(CGROUP_ROOT "%s", path);
			busy = remove_dir(dir) == -EBUSY;
			free(dir);
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(v1_controllers); i++) {
				char *dir = xasprintf(CGROUP_ROOT "/%s%s", v1_controllers[i], path);
				busy |= remove_dir(dir) == -EBUSY;
				free(dir);
			}
		}
		if (!busy)
			return;
		pid_t *pids;
		size_t n;
		if (cgroup_pids(path, &pids, &n) == 0) {
			for (size_t i = 0; i < n; i++)
				kill(pids[i], SIGKILL);
			free(pids);
		}
		usleep(5000);
	}
}
