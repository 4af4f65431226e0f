/* A spec's mounts, checked, planned and made (see mounts.h). */
#include "config.h"
#include "runsc-compat/mounts.h"
#include "runsc-compat/spec.h"
#include "sentry/kernel/kernel.h"
#include "sentry/fs/goferfs.h"
#include "sentry/fs/procfs.h"
#include "sentry/fs/sysfs.h"
#include "sentry/fs/tmpfs.h"
#include "gofer/gofer.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Options every mount type takes. */
static const struct {
	const char *name;
	unsigned set, clear; /* MNT_* */
} flag_options[] = {
	{"ro", MNT_RDONLY, 0},	   {"rw", 0, MNT_RDONLY},   {"nosuid", MNT_NOSUID, 0},
	{"suid", 0, MNT_NOSUID},   {"nodev", MNT_NODEV, 0}, {"dev", 0, MNT_NODEV},
	{"noexec", MNT_NOEXEC, 0}, {"exec", 0, MNT_NOEXEC},
};

/* Options taken and without meaning in a sandbox: mount propagation (the
 * guest's mounts never propagate to or from the host) and access-time
 * policy (the sentry keeps the times its filesystems report). */
static const char *const ignored_options[] = {
	"private",     "rprivate",	"shared",   "rshared",	  "slave",    "rslave",
	"unbindable",  "runbindable",	"atime",    "noatime",	  "relatime", "norelatime",
	"strictatime", "nostrictatime", "diratime", "nodiratime", "defaults", "async",
};

static bool in(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* "key=value": the value when opt has key, else NULL. */
static const char *value_of(const char *opt, const char *key)
{
	size_t len = strlen(key);

	return strncmp(opt, key, len) == 0 && opt[len] == '=' ? opt + len + 1 : NULL;
}

static int parse_octal(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '7')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX - 1)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The mount's name in messages. */
#define WHERE "config: `mounts[%zu]` (%s on `%s`)"

/* One option of a tmpfs (size, mode, uid, gid): 1 if it was one, 0 if not,
 * < 0 if its value is bad. */
static int tmpfs_option(const char *o, struct mount_item *it)
{
	const char *v;

	if ((v = value_of(o, "size")))
		return parse_size(v, &it->size) < 0 || strchr(v, '%') ? -EINVAL : 1;
	if ((v = value_of(o, "mode")))
		return parse_octal(v, 07777, &it->mode) < 0 ? -EINVAL : 1;
	if ((v = value_of(o, "uid")))
		return parse_id(v, &it->uid) < 0 ? -EINVAL : 1;
	if ((v = value_of(o, "gid")))
		return parse_id(v, &it->gid) < 0 ? -EINVAL : 1;
	return 0;
}

/* One option of a devpts (checked, then the sandbox's own /dev/pts serves). */
static int devpts_option(const char *o)
{
	const char *v;
	uint32_t n;

	if (strcmp(o, "newinstance") == 0)
		return 1;
	if ((v = value_of(o, "ptmxmode")) || (v = value_of(o, "mode")))
		return parse_octal(v, 0777, &n) < 0 ? -EINVAL : 1;
	if ((v = value_of(o, "gid")) || (v = value_of(o, "uid")) || (v = value_of(o, "max")))
		return parse_id(v, &n) < 0 ? -EINVAL : 1;
	return 0;
}

static bool is_bind(const struct oci_mount *m)
{
	for (char **o = m->options; o && *o; o++)
		if (strcmp(*o, "bind") == 0 || strcmp(*o, "rbind") == 0)
			return true;
	return m->type && strcmp(m->type, "bind") == 0;
}

/* A bind mount's source: an absolute path to a directory or a regular file. */
static int check_source(size_t idx, const struct oci_mount *m, const char *type,
			struct rung_error *err)
{
	struct stat st;

	if (!m->source || m->source[0] != '/')
		return rung_error_make(err, EINVAL, WHERE ": the source must be an absolute path",
				       idx, type, m->destination);
	if (stat(m->source, &st) < 0)
		return rung_error_make(err, 0, WHERE ": source `%s`: %s", idx, type, m->destination,
				       m->source, strerror(errno));
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return rung_error_make(err, EINVAL,
				       WHERE ": source `%s` is neither a directory nor a regular "
					     "file (sockets and devices cannot be bound in)",
				       idx, type, m->destination, m->source);
	return 0;
}

static int plan_one(size_t idx, const struct oci_mount *m, struct mount_item *it,
		    struct mount_plan *plan, struct rung_error *err)
{
	const char *type = m->type ? m->type : "bind";
	bool bind = is_bind(m), recursive = false;
	int ret;

	memset(it, 0, sizeof(*it));
	it->destination = m->destination;
	it->type = type;
	if (bind) {
		it->kind = MOUNT_BIND;
		type = "bind";
	} else if (!m->type) {
		return rung_error_make(err, EINVAL, WHERE ": no type, and not a bind mount", idx,
				       "mount", m->destination);
	} else if (strcmp(type, "tmpfs") == 0) {
		it->kind = strcmp(m->destination, "/dev") == 0 ? MOUNT_SKIP : MOUNT_TMPFS;
		it->mode = 01777;
	} else if (strcmp(type, "proc") == 0) {
		it->kind = strcmp(m->destination, "/proc") == 0 ? MOUNT_SKIP : MOUNT_PROC;
	} else if (strcmp(type, "sysfs") == 0) {
		it->kind = strcmp(m->destination, "/sys") == 0 ? MOUNT_SKIP : MOUNT_SYSFS;
	} else if (strcmp(type, "devpts") == 0) {
		if (strcmp(m->destination, "/dev/pts") != 0)
			return rung_error_make(err, EINVAL,
					       WHERE ": devpts is only served on /dev/pts", idx,
					       type, m->destination);
		it->kind = MOUNT_SKIP;
	} else if (strcmp(type, "mqueue") == 0) {
		it->kind = MOUNT_EMPTY;
		it->mode = 01777;
	} else if (strcmp(type, "cgroup") == 0 || strcmp(type, "cgroup2") == 0) {
		it->kind = MOUNT_EMPTY;
		it->mode = 0755;
		it->flags = MNT_RDONLY;
	} else {
		return rung_error_make(err, EINVAL, WHERE ": mount type `%s` is not supported", idx,
				       type, m->destination, type);
	}
	for (char **o = m->options; o && *o; o++) {
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(flag_options); i++)
			if (strcmp(*o, flag_options[i].name) == 0) {
				it->flags =
					(it->flags & ~flag_options[i].clear) | flag_options[i].set;
				known = true;
			}
		if (known || in(ignored_options, ARRAY_SIZE(ignored_options), *o))
			continue;
		if (bind && (strcmp(*o, "bind") == 0 || strcmp(*o, "rbind") == 0)) {
			recursive |= strcmp(*o, "rbind") == 0;
			continue;
		}
		ret = 0;
		if (it->kind == MOUNT_TMPFS ||
		    (it->kind == MOUNT_SKIP && strcmp(type, "tmpfs") == 0))
			ret = tmpfs_option(*o, it);
		else if (strcmp(type, "devpts") == 0)
			ret = devpts_option(*o);
		else if (strcmp(type, "mqueue") == 0 && value_of(*o, "mode"))
			ret = parse_octal(value_of(*o, "mode"), 07777, &it->mode) < 0 ? -EINVAL : 1;
		if (ret < 0)
			return rung_error_make(err, EINVAL, WHERE ": bad value in option `%s`", idx,
					       type, m->destination, *o);
		if (ret == 0)
			return rung_error_make(err, EINVAL, WHERE ": option `%s` is not supported",
					       idx, type, m->destination, *o);
	}
	/* A cgroup filesystem stays read-only, whatever the options say. */
	if (strcmp(type, "cgroup") == 0 || strcmp(type, "cgroup2") == 0)
		it->flags |= MNT_RDONLY;
	if (bind) {
		if ((ret = check_source(idx, m, type, err)) < 0)
			return ret;
		if (plan->nbinds == GOFER_MAX_ROOTS - 1)
			return rung_error_make(err, EINVAL, WHERE ": more than %d bind mounts", idx,
					       type, m->destination, GOFER_MAX_ROOTS - 1);
		it->tree = plan->nbinds + 1;
		plan->binds[plan->nbinds++] = (struct gofer_bind){
			.source = m->source,
			.read_only = (it->flags & MNT_RDONLY) != 0,
			.recursive = recursive,
		};
	}
	return 0;
}

int mounts_plan(const struct oci_mount *mounts, size_t n, struct mount_plan *out,
		struct rung_error *err)
{
	memset(out, 0, sizeof(*out));
	out->items = xzalloc((n + 1) * sizeof(*out->items));
	out->binds = xzalloc((n + 1) * sizeof(*out->binds));
	for (size_t i = 0; i < n; i++) {
		int ret = plan_one(i, &mounts[i], &out->items[i], out, err);
		if (ret < 0) {
			mounts_plan_free(out);
			return ret;
		}
		out->n++;
	}
	return 0;
}

static int apply_one(struct kernel *k, const struct mount_item *it, struct gofer_client *c,
		     bool donate, struct rung_error *err)
{
	struct super_block *sb = NULL;
	const char *source = it->type;
	int ret;

	switch (it->kind) {
	case MOUNT_SKIP:
		return 0;
	case MOUNT_BIND:
		ret = c ? goferfs_new_tree(c, it->tree, k->mf, donate, false, &sb) : -EINVAL;
		if (ret < 0)
			return rung_error_make(err, -ret, "attach to the gofer's tree of `%s`",
					       it->destination);
		source = "bind";
		break;
	case MOUNT_TMPFS:
		sb = tmpfs_new(k->mf, it->mode, it->uid, it->gid);
		if (it->size)
			tmpfs_set_size_limit(sb, it->size);
		break;
	case MOUNT_PROC:
		sb = procfs_new(k, NULL);
		break;
	case MOUNT_SYSFS:
		sb = sysfs_new(k->mf, k->ncpus);
		break;
	case MOUNT_EMPTY:
		sb = tmpfs_new(k->mf, it->mode, 0, 0);
		break;
	}
	ret = kernel_mount(k, it->destination, sb, it->flags, source, err);
	sb_put(sb);
	return ret;
}

int mounts_apply(struct kernel *k, const struct mount_plan *plan, struct gofer_client *c,
		 bool donate, struct rung_error *err)
{
	for (size_t i = 0; i < plan->n; i++) {
		int ret = apply_one(k, &plan->items[i], c, donate, err);
		if (ret < 0)
			return rung_error_wrap(err, "config: `mounts[%zu]` (%s on `%s`)", i,
					       plan->items[i].type, plan->items[i].destination);
	}
	return 0;
}

void mounts_plan_free(struct mount_plan *plan)
{
	free(plan->items);
	free(plan->binds);
	memset(plan, 0, sizeof(*plan));
}
