/*
 * A level-1 container's devices: the nodes every container has (the OCI
 * runtime spec's list), those of linux.devices, /dev's links, and the device
 * cgroup (v1) that decides which devices it may open or make at all.
 */
#include "config.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/spec.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const struct oci_device default_devices[] = {
	{"/dev/null", 'c', 1, 3, 0666, 0, 0},	 {"/dev/zero", 'c', 1, 5, 0666, 0, 0},
	{"/dev/full", 'c', 1, 7, 0666, 0, 0},	 {"/dev/random", 'c', 1, 8, 0666, 0, 0},
	{"/dev/urandom", 'c', 1, 9, 0666, 0, 0}, {"/dev/tty", 'c', 5, 0, 0666, 0, 0},
};

/* Make device d in the tree at rootfd: mknod, or where that is not allowed
 * a bind mount of the host's node at the same path. One already there stays. */
static int make_node(int rootfd, const struct oci_device *d, struct rung_error *err)
{
	cleanup_free char *dir = xstrdup(d->path), *base = xstrdup(d->path);
	cleanup_close int parent = level1_open_in_root(rootfd, dirname(dir), S_IFDIR, err);
	const char *name = basename(base);
	mode_t type = d->type == 'b' ? S_IFBLK : d->type == 'p' ? S_IFIFO : S_IFCHR;
	char target[64];
	int fd;

	if (parent < 0)
		return parent;
	if (mknodat(parent, name, type | (d->file_mode & 07777),
		    makedev((unsigned)d->major, (unsigned)d->minor)) == 0) {
		if (fchownat(parent, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
			return rung_error_make(err, errno, "chown the device `%s`", d->path);
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	if (errno != EPERM)
		return rung_error_make(err, errno, "make the device `%s`", d->path);
	fd = openat(parent, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return rung_error_make(err, errno, "make the device `%s`", d->path);
	close(fd);
	fd = level1_open_in_root(rootfd, d->path, 0, err);
	if (fd < 0)
		return fd;
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (mount(d->path, target, NULL, MS_BIND, NULL) < 0) {
		close(fd);
		return rung_error_make(err, errno, "bind the host's device `%s`", d->path);
	}
	close(fd);
	return 0;
}

static int make_link(int rootfd, const char *target, const char *path, bool replace,
		     struct rung_error *err)
{
	cleanup_close int dev = level1_open_in_root(rootfd, "/dev", S_IFDIR, err);
	const char *name = strrchr(path, '/') + 1;

	if (dev < 0)
		return dev;
	if (replace)
		unlinkat(dev, name, 0);
	if (symlinkat(target, dev, name) < 0 && errno != EEXIST)
		return rung_error_make(err, errno, "link `%s` to `%s`", path, target);
	return 0;
}

int level1_dev_populate(int rootfd, const struct oci_spec *spec, struct rung_error *err)
{
	static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
					       {"/proc/self/fd/0", "/dev/stdin"},
					       {"/proc/self/fd/1", "/dev/stdout"},
					       {"/proc/self/fd/2", "/dev/stderr"}};
	mode_t mask = umask(0);
	int ret = 0, pts;

	for (size_t i = 0; i < ARRAY_SIZE(default_devices) && ret == 0; i++) {
		bool given = false;
		for (size_t j = 0; j < spec->n_devices; j++)
			given |= strcmp(spec->devices[j].path, default_devices[i].path) == 0;
		if (!given)
			ret = make_node(rootfd, &default_devices[i], err);
	}
	for (size_t i = 0; i < spec->n_devices && ret == 0; i++)
		ret = make_node(rootfd, &spec->devices[i], err);
	umask(mask);
	for (size_t i = 0; i < ARRAY_SIZE(links) && ret == 0; i++)
		ret = make_link(rootfd, links[i][0], links[i][1], false, err);
	/* With a devpts of its own, /dev/ptmx is that instance's. */
	if (ret == 0 && (pts = level1_open_in_root(rootfd, "/dev/pts/ptmx", 0, NULL)) >= 0) {
		close(pts);
		ret = make_link(rootfd, "pts/ptmx", "/dev/ptmx", true, err);
	}
	return ret;
}

/* --- the device cgroup ------------------------------------------------------------------ */

/* Our devices cgroup directory (v1), or NULL. */
static char *devices_cgroup(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL, *out = NULL;
	size_t len = 0;
	struct stat st;

	while (f && !out && getline(&line, &len, f) > 0) {
		char *ctrls = strchr(line, ':'), *path = ctrls ? strchr(ctrls + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		for (char *c = ctrls + 1, *save = NULL; (c = strtok_r(c, ",", &save)); c = NULL)
			if (strcmp(c, "devices") == 0)
				out = xasprintf("/sys/fs/cgroup/devices%s", path);
	}
	free(line);
	if (f)
		fclose(f);
	if (out && stat(out, &st) < 0) {
		free(out);
		out = NULL;
	}
	return out;
}

static int write_rule(const char *dir, bool allow, const char *rule, struct rung_error *err)
{
	cleanup_free char *path = xasprintf("%s/devices.%s", dir, allow ? "allow" : "deny");
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0 || write(fd, rule, strlen(rule)) < 0)
		ret = rung_error_make(err, errno, "device cgroup rule `%s %s`",
				      allow ? "allow" : "deny", rule);
	if (fd >= 0)
		close(fd);
	return ret;
}

static void number(char *buf, size_t size, int64_t n)
{
	if (n < 0)
		snprintf(buf, size, "*");
	else
		snprintf(buf, size, "%lld", (long long)n);
}

int level1_dev_cgroup(const struct oci_spec *spec, bool *enforced, struct rung_error *err)
{
	/* What runc allows every container besides its spec: mknod of anything,
	 * the default devices, ptys. */
	static const char *const defaults[] = {"c *:* m",   "b *:* m",	 "c 1:3 rwm",  "c 1:5 rwm",
					       "c 1:7 rwm", "c 1:8 rwm", "c 1:9 rwm",  "c 5:0 rwm",
					       "c 5:1 rwm", "c 5:2 rwm", "c 136:* rwm"};
	cleanup_free char *dir = devices_cgroup();
	int ret;

	*enforced = false;
	if (!dir)
		return 0;
	ret = write_rule(dir, false, "a", err);
	for (size_t i = 0; i < spec->resources.n_devices && ret == 0; i++) {
		const struct oci_device_rule *r = &spec->resources.devices[i];
		char rule[64], major[24], minor[24];
		number(major, sizeof(major), r->major);
		number(minor, sizeof(minor), r->minor);
		if (r->type == 'a')
			snprintf(rule, sizeof(rule), "a");
		else
			snprintf(rule, sizeof(rule), "%c %s:%s %s", r->type, major, minor,
				 r->access);
		ret = write_rule(dir, r->allow, rule, err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(defaults) && ret == 0; i++)
		ret = write_rule(dir, true, defaults[i], err);
	for (size_t i = 0; i < spec->n_devices && ret == 0; i++) {
		const struct oci_device *d = &spec->devices[i];
		char rule[64];
		if (d->type == 'p')
			continue;
		snprintf(rule, sizeof(rule), "%c %lld:%lld rwm", d->type == 'b' ? 'b' : 'c',
			 (long long)d->major, (long long)d->minor);
		ret = write_rule(dir, true, rule, err);
	}
	*enforced = ret == 0;
	return ret;
}
