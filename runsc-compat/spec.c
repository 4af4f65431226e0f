/* Loading config.json and process.json (json-c) into struct oci_spec. */
#include "config.h"
#include "runsc-compat/spec.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

/* A field's path for error messages ("process.user.uid"). */
#define FIELD_MAX 128

static int type_error(struct rung_error *err, const char *field, const char *want)
{
	return rung_error_make(err, EINVAL, "config: `%s` must be %s", field, want);
}

/* obj[key], or NULL when absent or null. */
static struct json_object *get(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    json_object_get_type(v) == json_type_null)
		return NULL;
	return v;
}

static int get_string(struct json_object *obj, const char *key, const char *field, char **out,
		      struct rung_error *err)
{
	struct json_object *v = get(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return type_error(err, field, "a string");
	*out = xstrdup(json_object_get_string(v));
	return 0;
}

static int get_bool(struct json_object *obj, const char *key, const char *field, bool *out,
		    struct rung_error *err)
{
	struct json_object *v = get(obj, key);

	*out = false;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return type_error(err, field, "true or false");
	*out = json_object_get_boolean(v);
	return 0;
}

/* An integer in [lo, hi]; *present tells whether the key was there. */
static int get_int(struct json_object *obj, const char *key, const char *field, int64_t lo,
		   int64_t hi, int64_t *out, bool *present, struct rung_error *err)
{
	struct json_object *v = get(obj, key);
	int64_t n;

	if (present)
		*present = v != NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return type_error(err, field, "an integer");
	errno = 0;
	n = json_object_get_int64(v);
	/* json-c saturates at INT64_MAX: an unsigned 64-bit value beyond it. */
	if (n == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX)
		n = hi;
	if (n < lo || n > hi)
		return rung_error_make(err, EINVAL, "config: `%s` is out of range", field);
	*out = n;
	return 0;
}

/* A NULL-terminated copy of a string array (NULL when absent). */
static int get_strv(struct json_object *obj, const char *key, const char *field, char ***out,
		    struct rung_error *err)
{
	struct json_object *v = get(obj, key);
	size_t n;
	char **strv;

	*out = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return type_error(err, field, "an array of strings");
	n = json_object_array_length(v);
	strv = xzalloc((n + 1) * sizeof(*strv));
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(v, i);
		if (!json_object_is_type(s, json_type_string)) {
			for (size_t j = 0; j < i; j++)
				free(strv[j]);
			free(strv);
			return type_error(err, field, "an array of strings");
		}
		strv[i] = xstrdup(json_object_get_string(s));
	}
	*out = strv;
	return 0;
}

/* --- capabilities and rlimits ------------------------------------------------- */

static const char *const cap_names[] = {
	"CHOWN",
	"DAC_OVERRIDE",
	"DAC_READ_SEARCH",
	"FOWNER",
	"FSETID",
	"KILL",
	"SETGID",
	"SETUID",
	"SETPCAP",
	"LINUX_IMMUTABLE",
	"NET_BIND_SERVICE",
	"NET_BROADCAST",
	"NET_ADMIN",
	"NET_RAW",
	"IPC_LOCK",
	"IPC_OWNER",
	"SYS_MODULE",
	"SYS_RAWIO",
	"SYS_CHROOT",
	"SYS_PTRACE",
	"SYS_PACCT",
	"SYS_ADMIN",
	"SYS_BOOT",
	"SYS_NICE",
	"SYS_RESOURCE",
	"SYS_TIME",
	"SYS_TTY_CONFIG",
	"MKNOD",
	"LEASE",
	"AUDIT_WRITE",
	"AUDIT_CONTROL",
	"SETFCAP",
	"MAC_OVERRIDE",
	"MAC_ADMIN",
	"SYSLOG",
	"WAKE_ALARM",
	"BLOCK_SUSPEND",
	"AUDIT_READ",
	"PERFMON",
	"BPF",
	"CHECKPOINT_RESTORE",
};

int spec_cap_number(const char *name)
{
	if (strncasecmp(name, "CAP_", 4) == 0)
		name += 4;
	for (size_t i = 0; i < ARRAY_SIZE(cap_names); i++)
		if (strcasecmp(name, cap_names[i]) == 0)
			return (int)i;
	return -1;
}

static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
	{"RLIMIT_CPU", RLIMIT_CPU},	      {"RLIMIT_FSIZE", RLIMIT_FSIZE},
	{"RLIMIT_DATA", RLIMIT_DATA},	      {"RLIMIT_STACK", RLIMIT_STACK},
	{"RLIMIT_CORE", RLIMIT_CORE},	      {"RLIMIT_RSS", RLIMIT_RSS},
	{"RLIMIT_NPROC", RLIMIT_NPROC},	      {"RLIMIT_NOFILE", RLIMIT_NOFILE},
	{"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},   {"RLIMIT_AS", RLIMIT_AS},
	{"RLIMIT_LOCKS", RLIMIT_LOCKS},	      {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
	{"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
	{"RLIMIT_RTPRIO", RLIMIT_RTPRIO},     {"RLIMIT_RTTIME", RLIMIT_RTTIME},
};

int spec_rlimit_number(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rlimit_names); i++)
		if (strcmp(name, rlimit_names[i].name) == 0)
			return rlimit_names[i].resource;
	return -1;
}

/* A capability set: an array of names as a bit mask. */
static int get_caps(struct json_object *caps, const char *key, uint64_t *mask,
		    struct rung_error *err)
{
	char field[FIELD_MAX], **names;
	int ret;

	snprintf(field, sizeof(field), "process.capabilities.%s", key);
	*mask = 0;
	ret = get_strv(caps, key, field, &names, err);
	if (ret < 0)
		return ret;
	for (char **n = names; n && *n; n++) {
		int c = spec_cap_number(*n);
		if (c < 0) {
			ret = rung_error_make(err, EINVAL, "config: `%s`: unknown capability `%s`",
					      field, *n);
			break;
		}
		*mask |= 1ull << c;
	}
	strv_free(names);
	return ret;
}

/* --- process -------------------------------------------------------------------- */

static int parse_process(struct json_object *o, struct oci_process *p, struct rung_error *err)
{
	struct json_object *user = get(o, "user"), *caps = get(o, "capabilities"),
			   *rl = get(o, "rlimits"), *cs = get(o, "consoleSize"), *gids;
	int64_t v;
	bool present;
	int ret;

	memset(p, 0, sizeof(*p));
	p->umask = -1;
	if (!json_object_is_type(o, json_type_object))
		return type_error(err, "process", "an object");
	if ((ret = get_bool(o, "terminal", "process.terminal", &p->terminal, err)) < 0 ||
	    (ret = get_strv(o, "args", "process.args", &p->args, err)) < 0 ||
	    (ret = get_strv(o, "env", "process.env", &p->env, err)) < 0 ||
	    (ret = get_string(o, "cwd", "process.cwd", &p->cwd, err)) < 0 ||
	    (ret = get_bool(o, "noNewPrivileges", "process.noNewPrivileges", &p->no_new_privileges,
			    err)) < 0)
		return ret;
	if (!p->args || !p->args[0])
		return rung_error_make(err, EINVAL, "config: `process.args` must not be empty");
	if (!p->cwd || p->cwd[0] != '/')
		return rung_error_make(err, EINVAL,
				       "config: `process.cwd` must be an absolute path");
	if (!p->env)
		p->env = xzalloc(sizeof(char *));
	if (cs) {
		if ((ret = get_int(cs, "width", "process.consoleSize.width", 0, UINT16_MAX, &v,
				   &present, err)) < 0)
			return ret;
		p->console_width = present ? (uint32_t)v : 0;
		if ((ret = get_int(cs, "height", "process.consoleSize.height", 0, UINT16_MAX, &v,
				   &present, err)) < 0)
			return ret;
		p->console_height = present ? (uint32_t)v : 0;
	}
	if (user) {
		if ((ret = get_int(user, "uid", "process.user.uid", 0, UINT32_MAX, &v, &present,
				   err)) < 0)
			return ret;
		p->uid = present ? (uint32_t)v : 0;
		if ((ret = get_int(user, "gid", "process.user.gid", 0, UINT32_MAX, &v, &present,
				   err)) < 0)
			return ret;
		p->gid = present ? (uint32_t)v : 0;
		if ((ret = get_int(user, "umask", "process.user.umask", 0, 0777, &v, &present,
				   err)) < 0)
			return ret;
		p->umask = present ? (int)v : -1;
		if (get(user, "username"))
			return rung_error_make(err, EINVAL,
					       "config: `process.user.username` is for Windows");
		gids = get(user, "additionalGids");
		if (gids) {
			if (!json_object_is_type(gids, json_type_array))
				return type_error(err, "process.user.additionalGids",
						  "an array of integers");
			p->n_additional_gids = json_object_array_length(gids);
			p->additional_gids = xzalloc((p->n_additional_gids + 1) * sizeof(uint32_t));
			for (size_t i = 0; i < p->n_additional_gids; i++) {
				struct json_object *g = json_object_array_get_idx(gids, i);
				int64_t n = json_object_get_int64(g);
				if (!json_object_is_type(g, json_type_int) || n < 0 ||
				    n > UINT32_MAX)
					return type_error(err, "process.user.additionalGids",
							  "an array of integers");
				p->additional_gids[i] = (uint32_t)n;
			}
		}
	}
	if (caps) {
		p->has_caps = true;
		if ((ret = get_caps(caps, "bounding", &p->cap_bounding, err)) < 0 ||
		    (ret = get_caps(caps, "effective", &p->cap_effective, err)) < 0 ||
		    (ret = get_caps(caps, "permitted", &p->cap_permitted, err)) < 0 ||
		    (ret = get_caps(caps, "inheritable", &p->cap_inheritable, err)) < 0 ||
		    (ret = get_caps(caps, "ambient", &p->cap_ambient, err)) < 0)
			return ret;
	}
	if (rl) {
		if (!json_object_is_type(rl, json_type_array))
			return type_error(err, "process.rlimits", "an array");
		p->n_rlimits = json_object_array_length(rl);
		p->rlimits = xzalloc((p->n_rlimits + 1) * sizeof(*p->rlimits));
		for (size_t i = 0; i < p->n_rlimits; i++) {
			struct json_object *r = json_object_array_get_idx(rl, i);
			char *type = NULL;
			int64_t soft = 0, hard = 0;
			if ((ret = get_string(r, "type", "process.rlimits[].type", &type, err)) < 0)
				return ret;
			p->rlimits[i].resource = type ? spec_rlimit_number(type) : -1;
			if (p->rlimits[i].resource < 0) {
				ret = rung_error_make(
					err, EINVAL, "config: `process.rlimits`: unknown type `%s`",
					type ? type : "(none)");
				free(type);
				return ret;
			}
			free(type);
			if ((ret = get_int(r, "soft", "process.rlimits[].soft", 0, INT64_MAX, &soft,
					   NULL, err)) < 0 ||
			    (ret = get_int(r, "hard", "process.rlimits[].hard", 0, INT64_MAX, &hard,
					   NULL, err)) < 0)
				return ret;
			/* Beyond INT64_MAX (json-c saturates) means unlimited. */
			p->rlimits[i].soft = soft == INT64_MAX ? RLIM_INFINITY : (uint64_t)soft;
			p->rlimits[i].hard = hard == INT64_MAX ? RLIM_INFINITY : (uint64_t)hard;
		}
	}
	if ((ret = get_int(o, "oomScoreAdj", "process.oomScoreAdj", -1000, 1000, &v,
			   &p->has_oom_score_adj, err)) < 0)
		return ret;
	p->oom_score_adj = (int)v;
	return 0;
}

void spec_process_release(struct oci_process *p)
{
	strv_free(p->args);
	strv_free(p->env);
	free(p->cwd);
	free(p->additional_gids);
	free(p->rlimits);
	memset(p, 0, sizeof(*p));
}

/* --- the rest of config.json ------------------------------------------------------ */

static int parse_hooks(struct json_object *o, const char *key, struct oci_hook **out, size_t *n,
		       struct rung_error *err)
{
	struct json_object *arr = get(o, key);
	char field[FIELD_MAX];
	int ret;

	*out = NULL;
	*n = 0;
	if (!arr)
		return 0;
	snprintf(field, sizeof(field), "hooks.%s", key);
	if (!json_object_is_type(arr, json_type_array))
		return type_error(err, field, "an array");
	*n = json_object_array_length(arr);
	*out = xzalloc((*n + 1) * sizeof(**out));
	for (size_t i = 0; i < *n; i++) {
		struct json_object *h = json_object_array_get_idx(arr, i);
		struct oci_hook *hk = &(*out)[i];
		int64_t t;
		bool present;
		if ((ret = get_string(h, "path", field, &hk->path, err)) < 0 ||
		    (ret = get_strv(h, "args", field, &hk->args, err)) < 0 ||
		    (ret = get_strv(h, "env", field, &hk->env, err)) < 0 ||
		    (ret = get_int(h, "timeout", field, 1, INT_MAX, &t, &present, err)) < 0)
			return ret;
		if (!hk->path || hk->path[0] != '/')
			return rung_error_make(err, EINVAL,
					       "config: `%s[%zu].path` must be absolute", field, i);
		hk->timeout = present ? (int)t : 0;
	}
	return 0;
}

static void free_hooks(struct oci_hook *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].path);
		strv_free(h[i].args);
		strv_free(h[i].env);
	}
	free(h);
}

/* A bind mount: type "bind", or options with bind or rbind. */
static bool mount_is_bind(const struct oci_mount *m)
{
	for (char **o = m->options; o && *o; o++)
		if (strcmp(*o, "bind") == 0 || strcmp(*o, "rbind") == 0)
			return true;
	return !m->type || strcmp(m->type, "bind") == 0;
}

static int parse_mounts(struct json_object *arr, const char *bundle, struct oci_spec *s,
			struct rung_error *err)
{
	int ret;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return type_error(err, "mounts", "an array");
	s->n_mounts = json_object_array_length(arr);
	s->mounts = xzalloc((s->n_mounts + 1) * sizeof(*s->mounts));
	for (size_t i = 0; i < s->n_mounts; i++) {
		struct json_object *m = json_object_array_get_idx(arr, i);
		struct oci_mount *om = &s->mounts[i];
		if ((ret = get_string(m, "destination", "mounts[].destination", &om->destination,
				      err)) < 0 ||
		    (ret = get_string(m, "type", "mounts[].type", &om->type, err)) < 0 ||
		    (ret = get_string(m, "source", "mounts[].source", &om->source, err)) < 0 ||
		    (ret = get_strv(m, "options", "mounts[].options", &om->options, err)) < 0)
			return ret;
		if (!om->destination || om->destination[0] != '/')
			return rung_error_make(err, EINVAL,
					       "config: `mounts[%zu].destination` must be absolute",
					       i);
		/* A relative bind source is relative to the bundle (as runc has it). */
		if (om->source && om->source[0] && om->source[0] != '/' && mount_is_bind(om)) {
			char *abs = xasprintf("%s/%s", bundle, om->source);
			free(om->source);
			om->source = abs;
		}
	}
	return 0;
}

/* linux.resources.devices: the device cgroup rules, in order. */
static int parse_device_rules(struct json_object *arr, struct oci_resources *r,
			      struct rung_error *err)
{
	const char *f = "linux.resources.devices";
	int ret;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return type_error(err, f, "an array");
	r->n_devices = json_object_array_length(arr);
	r->devices = xzalloc((r->n_devices + 1) * sizeof(*r->devices));
	for (size_t i = 0; i < r->n_devices; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		struct oci_device_rule *rule = &r->devices[i];
		char *type = NULL, *access = NULL;
		bool present;
		if (!json_object_is_type(d, json_type_object))
			return type_error(err, f, "an array of objects");
		if ((ret = get_bool(d, "allow", "linux.resources.devices[].allow", &rule->allow,
				    err)) < 0 ||
		    (ret = get_int(d, "major", "linux.resources.devices[].major", -1, INT32_MAX,
				   &rule->major, &present, err)) < 0)
			return ret;
		if (!present)
			rule->major = -1;
		if ((ret = get_int(d, "minor", "linux.resources.devices[].minor", -1, INT32_MAX,
				   &rule->minor, &present, err)) < 0)
			return ret;
		if (!present)
			rule->minor = -1;
		if ((ret = get_string(d, "type", "linux.resources.devices[].type", &type, err)) <
			    0 ||
		    (ret = get_string(d, "access", "linux.resources.devices[].access", &access,
				      err)) < 0) {
			free(type);
			return ret;
		}
		rule->type = type ? type[0] : 'a';
		if ((type && (strlen(type) != 1 || !strchr("acb", type[0]))) ||
		    (access && (strlen(access) > 3 || strspn(access, "rwm") != strlen(access))))
			ret = rung_error_make(err, EINVAL, "config: `%s[%zu]`: bad type or access",
					      f, i);
		else
			snprintf(rule->access, sizeof(rule->access), "%s", access ? access : "rwm");
		free(type);
		free(access);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* linux.devices: the device nodes a container gets. */
static int parse_devices(struct json_object *arr, struct oci_spec *s, struct rung_error *err)
{
	const char *f = "linux.devices";
	int ret;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return type_error(err, f, "an array");
	s->n_devices = json_object_array_length(arr);
	s->devices = xzalloc((s->n_devices + 1) * sizeof(*s->devices));
	for (size_t i = 0; i < s->n_devices; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		struct oci_device *dev = &s->devices[i];
		char *type = NULL;
		int64_t v;
		bool present, major, minor;
		if (!json_object_is_type(d, json_type_object))
			return type_error(err, f, "an array of objects");
		if ((ret = get_string(d, "path", "linux.devices[].path", &dev->path, err)) < 0 ||
		    (ret = get_string(d, "type", "linux.devices[].type", &type, err)) < 0)
			return ret;
		dev->type = type && strlen(type) == 1 ? type[0] : '?';
		free(type);
		if (!dev->path || dev->path[0] != '/')
			return rung_error_make(err, EINVAL,
					       "config: `linux.devices[%zu].path` must be absolute",
					       i);
		if (!strchr("cbup", dev->type))
			return rung_error_make(err, EINVAL,
					       "config: `linux.devices[%zu].type` must be c, b, u "
					       "or p",
					       i);
		if ((ret = get_int(d, "major", "linux.devices[].major", 0, INT32_MAX, &dev->major,
				   &major, err)) < 0 ||
		    (ret = get_int(d, "minor", "linux.devices[].minor", 0, INT32_MAX, &dev->minor,
				   &minor, err)) < 0)
			return ret;
		if (dev->type != 'p' && (!major || !minor))
			return rung_error_make(err, EINVAL,
					       "config: `linux.devices[%zu]` needs major and minor",
					       i);
		if ((ret = get_int(d, "fileMode", "linux.devices[].fileMode", 0, 07777, &v,
				   &present, err)) < 0)
			return ret;
		dev->file_mode = present ? (uint32_t)v : 0666;
		if ((ret = get_int(d, "uid", "linux.devices[].uid", 0, UINT32_MAX, &v, &present,
				   err)) < 0)
			return ret;
		dev->uid = present ? (uint32_t)v : 0;
		if ((ret = get_int(d, "gid", "linux.devices[].gid", 0, UINT32_MAX, &v, &present,
				   err)) < 0)
			return ret;
		dev->gid = present ? (uint32_t)v : 0;
	}
	return 0;
}

static int parse_linux(struct json_object *lx, struct oci_spec *s, struct rung_error *err)
{
	struct json_object *ns = get(lx, "namespaces"), *res = get(lx, "resources"),
			   *sec = get(lx, "seccomp"), *sys = get(lx, "sysctl");
	int ret;

	if (!lx)
		return 0;
	if (get(lx, "uidMappings") || get(lx, "gidMappings"))
		return rung_error_make(err, EINVAL,
				       "config: `linux.uidMappings`/`gidMappings`: user namespaces "
				       "are not supported (the sandbox has its own ids)");
	if ((ret = get_string(lx, "cgroupsPath", "linux.cgroupsPath", &s->cgroups_path, err)) < 0 ||
	    (ret = get_strv(lx, "maskedPaths", "linux.maskedPaths", &s->masked_paths, err)) < 0 ||
	    (ret = get_strv(lx, "readonlyPaths", "linux.readonlyPaths", &s->readonly_paths, err)) <
		    0)
		return ret;
	if (ns) {
		if (!json_object_is_type(ns, json_type_array))
			return type_error(err, "linux.namespaces", "an array");
		s->n_namespaces = json_object_array_length(ns);
		s->namespaces = xzalloc((s->n_namespaces + 1) * sizeof(*s->namespaces));
		for (size_t i = 0; i < s->n_namespaces; i++) {
			struct json_object *n = json_object_array_get_idx(ns, i);
			struct oci_namespace *on = &s->namespaces[i];
			static const char *const known[] = {"pid", "network", "mount",	"ipc",
							    "uts", "user",    "cgroup", "time"};
			bool ok = false;
			if ((ret = get_string(n, "type", "linux.namespaces[].type", &on->type,
					      err)) < 0 ||
			    (ret = get_string(n, "path", "linux.namespaces[].path", &on->path,
					      err)) < 0)
				return ret;
			for (size_t k = 0; on->type && k < ARRAY_SIZE(known); k++)
				ok |= strcmp(on->type, known[k]) == 0;
			if (!ok)
				return rung_error_make(
					err, EINVAL,
					"config: `linux.namespaces[%zu].type`: unknown "
					"namespace `%s`",
					i, on->type ? on->type : "(none)");
			if (on->path && strcmp(on->type, "network") != 0)
				return rung_error_make(err, EINVAL,
						       "config: `linux.namespaces`: joining a %s "
						       "namespace by path is not supported (only "
						       "network)",
						       on->type);
		}
	}
	s->resources.memory_limit = s->resources.memory_swap = s->resources.memory_reservation = -1;
	s->resources.cpu_quota = s->resources.pids_limit = -1;
	if (res) {
		struct json_object *mem = get(res, "memory"), *cpu = get(res, "cpu"),
				   *pids = get(res, "pids");
		int64_t v;
		bool present;
		s->resources.raw =
			xstrdup(json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN));
		if ((ret = parse_device_rules(get(res, "devices"), &s->resources, err)) < 0)
			return ret;
		if (mem) {
			if ((ret = get_int(mem, "limit", "linux.resources.memory.limit", -1,
					   INT64_MAX, &v, &present, err)) < 0)
				return ret;
			if (present && v > 0)
				s->resources.memory_limit = v;
			if ((ret = get_int(mem, "swap", "linux.resources.memory.swap", -1,
					   INT64_MAX, &v, &present, err)) < 0)
				return ret;
			if (present && v > 0)
				s->resources.memory_swap = v;
			if ((ret = get_int(mem, "reservation", "linux.resources.memory.reservation",
					   -1, INT64_MAX, &v, &present, err)) < 0)
				return ret;
			if (present && v > 0)
				s->resources.memory_reservation = v;
		}
		if (cpu) {
			if ((ret = get_int(cpu, "shares", "linux.resources.cpu.shares", 0,
					   UINT32_MAX, &v, &present, err)) < 0)
				return ret;
			s->resources.cpu_shares = present ? (uint64_t)v : 0;
			if ((ret = get_int(cpu, "quota", "linux.resources.cpu.quota", -1, INT64_MAX,
					   &v, &present, err)) < 0)
				return ret;
			if (present && v > 0)
				s->resources.cpu_quota = v;
			if ((ret = get_int(cpu, "period", "linux.resources.cpu.period", 0,
					   UINT32_MAX, &v, &present, err)) < 0)
				return ret;
			s->resources.cpu_period = present ? (uint64_t)v : 0;
			if ((ret = get_string(cpu, "cpus", "linux.resources.cpu.cpus",
					      &s->resources.cpuset_cpus, err)) < 0 ||
			    (ret = get_string(cpu, "mems", "linux.resources.cpu.mems",
					      &s->resources.cpuset_mems, err)) < 0)
				return ret;
		}
		if (pids) {
			if ((ret = get_int(pids, "limit", "linux.resources.pids.limit", INT64_MIN,
					   INT64_MAX, &v, &present, err)) < 0)
				return ret;
			if (present && v > 0)
				s->resources.pids_limit = v;
		}
	}
	if ((ret = parse_devices(get(lx, "devices"), s, err)) < 0)
		return ret;
	if (sec)
		s->seccomp = xstrdup(json_object_to_json_string_ext(sec, JSON_C_TO_STRING_PLAIN));
	if (sys) {
		size_t i = 0;
		if (!json_object_is_type(sys, json_type_object))
			return type_error(err, "linux.sysctl", "an object of strings");
		s->n_sysctl = (size_t)json_object_object_length(sys);
		s->sysctl_keys = xzalloc((s->n_sysctl + 1) * sizeof(char *));
		s->sysctl_values = xzalloc((s->n_sysctl + 1) * sizeof(char *));
		json_object_object_foreach(sys, key, val)
		{
			if (!json_object_is_type(val, json_type_string))
				return type_error(err, "linux.sysctl", "an object of strings");
			s->sysctl_keys[i] = xstrdup(key);
			s->sysctl_values[i++] = xstrdup(json_object_get_string(val));
		}
	}
	return 0;
}

static int parse_spec(struct json_object *o, const char *bundle, struct oci_spec *s,
		      struct rung_error *err)
{
	struct json_object *proc = get(o, "process"), *root = get(o, "root"),
			   *hooks = get(o, "hooks"), *ann = get(o, "annotations");
	char *path = NULL;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return rung_error_make(err, EINVAL, "config: not a JSON object");
	if ((ret = get_string(o, "ociVersion", "ociVersion", &s->oci_version, err)) < 0)
		return ret;
	if (!s->oci_version || strncmp(s->oci_version, "1.", 2) != 0)
		return rung_error_make(err, EINVAL, "config: `ociVersion` `%s` is not 1.x",
				       s->oci_version ? s->oci_version : "(none)");
	if (!proc)
		return rung_error_make(err, EINVAL, "config: `process` is missing");
	if ((ret = parse_process(proc, &s->process, err)) < 0)
		return ret;
	if (!root)
		return rung_error_make(err, EINVAL, "config: `root` is missing");
	if ((ret = get_string(root, "path", "root.path", &path, err)) < 0 ||
	    (ret = get_bool(root, "readonly", "root.readonly", &s->root_readonly, err)) < 0)
		return ret;
	if (!path || !*path)
		return rung_error_make(err, EINVAL, "config: `root.path` is missing");
	s->root_path = path[0] == '/' ? path : xasprintf("%s/%s", bundle, path);
	if (s->root_path != path)
		free(path);
	if ((ret = get_string(o, "hostname", "hostname", &s->hostname, err)) < 0 ||
	    (ret = parse_mounts(get(o, "mounts"), bundle, s, err)) < 0 ||
	    (ret = parse_linux(get(o, "linux"), s, err)) < 0)
		return ret;
	if (hooks &&
	    ((ret = parse_hooks(hooks, "prestart", &s->hooks.prestart, &s->hooks.n_prestart, err)) <
		     0 ||
	     (ret = parse_hooks(hooks, "createRuntime", &s->hooks.create_runtime,
				&s->hooks.n_create_runtime, err)) < 0 ||
	     (ret = parse_hooks(hooks, "createContainer", &s->hooks.create_container,
				&s->hooks.n_create_container, err)) < 0 ||
	     (ret = parse_hooks(hooks, "startContainer", &s->hooks.start_container,
				&s->hooks.n_start_container, err)) < 0 ||
	     (ret = parse_hooks(hooks, "poststart", &s->hooks.poststart, &s->hooks.n_poststart,
				err)) < 0 ||
	     (ret = parse_hooks(hooks, "poststop", &s->hooks.poststop, &s->hooks.n_poststop, err)) <
		     0))
		return ret;
	if (ann && !json_object_is_type(ann, json_type_object))
		return type_error(err, "annotations", "an object");
	s->annotations =
		xstrdup(ann ? json_object_to_json_string_ext(ann, JSON_C_TO_STRING_PLAIN) : "{}");
	return 0;
}

/* Parse the JSON file at path. */
static int load_json(const char *path, struct json_object **out, struct rung_error *err)
{
	struct json_object *o = json_object_from_file(path);

	if (!o) {
		int e = errno;
		return rung_error_make(err, e ? e : EINVAL, "cannot load `%s`: %s", path,
				       json_util_get_last_err() ? json_util_get_last_err()
								: "not JSON");
	}
	*out = o;
	return 0;
}

int spec_load(const char *bundle, struct oci_spec **out, struct rung_error *err)
{
	char *path = xasprintf("%s/config.json", bundle);
	struct json_object *o = NULL;
	struct oci_spec *s;
	int ret = load_json(path, &o, err);

	free(path);
	if (ret < 0)
		return ret;
	s = xzalloc(sizeof(*s));
	ret = parse_spec(o, bundle, s, err);
	json_object_put(o);
	if (ret < 0) {
		spec_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int spec_load_process(const char *path, struct oci_process *out, struct rung_error *err)
{
	struct json_object *o = NULL;
	int ret = load_json(path, &o, err);

	if (ret < 0)
		return ret;
	ret = parse_process(o, out, err);
	json_object_put(o);
	if (ret < 0)
		spec_process_release(out);
	return ret;
}

int spec_parse_process(const char *json, struct oci_process *out, struct rung_error *err)
{
	struct json_object *o = json_tokener_parse(json);
	int ret;

	if (!o)
		return rung_error_make(err, EINVAL, "process: not JSON");
	ret = parse_process(o, out, err);
	json_object_put(o);
	if (ret < 0)
		spec_process_release(out);
	return ret;
}

char *spec_annotation(const struct oci_spec *spec, const char *key)
{
	struct json_object *o = json_tokener_parse(spec->annotations ? spec->annotations : "{}");
	struct json_object *v = get(o, key);
	char *out = v && json_object_is_type(v, json_type_string)
			    ? xstrdup(json_object_get_string(v))
			    : NULL;

	json_object_put(o);
	return out;
}

const struct oci_namespace *spec_namespace(const struct oci_spec *spec, const char *type)
{
	for (size_t i = 0; i < spec->n_namespaces; i++)
		if (strcmp(spec->namespaces[i].type, type) == 0)
			return &spec->namespaces[i];
	return NULL;
}

void spec_free(struct oci_spec *s)
{
	if (!s)
		return;
	free(s->oci_version);
	spec_process_release(&s->process);
	free(s->root_path);
	free(s->hostname);
	for (size_t i = 0; i < s->n_mounts; i++) {
		free(s->mounts[i].destination);
		free(s->mounts[i].type);
		free(s->mounts[i].source);
		strv_free(s->mounts[i].options);
	}
	free(s->mounts);
	free_hooks(s->hooks.prestart, s->hooks.n_prestart);
	free_hooks(s->hooks.create_runtime, s->hooks.n_create_runtime);
	free_hooks(s->hooks.create_container, s->hooks.n_create_container);
	free_hooks(s->hooks.start_container, s->hooks.n_start_container);
	free_hooks(s->hooks.poststart, s->hooks.n_poststart);
	free_hooks(s->hooks.poststop, s->hooks.n_poststop);
	for (size_t i = 0; i < s->n_namespaces; i++) {
		free(s->namespaces[i].type);
		free(s->namespaces[i].path);
	}
	free(s->namespaces);
	free(s->cgroups_path);
	free(s->resources.cpuset_cpus);
	free(s->resources.cpuset_mems);
	free(s->resources.raw);
	free(s->resources.devices);
	for (size_t i = 0; i < s->n_devices; i++)
		free(s->devices[i].path);
	free(s->devices);
	free(s->seccomp);
	strv_free(s->masked_paths);
	strv_free(s->readonly_paths);
	strv_free(s->sysctl_keys);
	strv_free(s->sysctl_values);
	free(s->annotations);
	free(s);
}
