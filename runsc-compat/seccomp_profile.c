/* Compiling an OCI linux.seccomp profile into a guest filter (see seccomp_profile.h). */
#include "config.h"
#include "runsc-compat/seccomp_profile.h"
#include "sentry/kernel/seccomp.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 6
/* Room for a field's name in messages (linux.seccomp.syscalls[N].args[M].valueTwo). */
#define FIELD_MAX 192

/* obj[key], or NULL when absent or null. */
static struct json_object *get(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    json_object_get_type(v) == json_type_null)
		return NULL;
	return v;
}

static int bad_type(struct rung_error *err, const char *field, const char *want)
{
	return rung_error_make(err, EINVAL, "config: `%s` must be %s", field, want);
}

/* obj[key] as an unsigned integer at most max; *present says whether it was there. */
static int get_uint(struct json_object *obj, const char *key, const char *field, uint64_t max,
		    uint64_t *out, bool *present, struct rung_error *err)
{
	struct json_object *v = get(obj, key);

	*out = 0;
	if (present)
		*present = v != NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
	    json_object_get_uint64(v) > max)
		return rung_error_make(err, EINVAL,
				       "config: `%s` must be an integer from 0 to %llu", field,
				       (unsigned long long)max);
	*out = json_object_get_uint64(v);
	return 0;
}

/* obj[key] as a string, or NULL when absent; not a string is an error. */
static int get_str(struct json_object *obj, const char *key, const char *field, const char **out,
		   struct rung_error *err)
{
	struct json_object *v = get(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return bad_type(err, field, "a string");
	*out = json_object_get_string(v);
	return 0;
}

/* obj[key] as an array (NULL when absent). */
static int get_array(struct json_object *obj, const char *key, const char *field,
		     struct json_object **out, struct rung_error *err)
{
	*out = get(obj, key);
	if (*out && !json_object_is_type(*out, json_type_array))
		return bad_type(err, field, "an array");
	return 0;
}

/* --- actions, operators, architectures, flags ------------------------------------- */

static const struct {
	const char *name;
	uint32_t action;
	bool with_errno; /* errnoRet (default EPERM) goes in its data, as runc does */
} actions[] = {
	{"SCMP_ACT_KILL", SCMP_ACT_KILL, false},
	{"SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD, false},
	{"SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS, false},
	{"SCMP_ACT_TRAP", SCMP_ACT_TRAP, false},
	{"SCMP_ACT_ERRNO", SCMP_ACT_ERRNO(0), true},
	{"SCMP_ACT_TRACE", SCMP_ACT_TRACE(0), true},
	{"SCMP_ACT_ALLOW", SCMP_ACT_ALLOW, false},
	{"SCMP_ACT_LOG", SCMP_ACT_LOG, false},
};

/* The action obj[akey] with its errno obj[ekey] (field names the object). */
static int parse_action(struct json_object *obj, const char *akey, const char *ekey,
			const char *field, uint32_t *out, struct rung_error *err)
{
	char f[FIELD_MAX];
	const char *name;
	uint64_t eno;
	bool has_errno;

	snprintf(f, sizeof(f), "%s.%s", field, akey);
	if (get_str(obj, akey, f, &name, err) < 0)
		return -1;
	if (!name)
		return rung_error_make(err, EINVAL, "config: `%s` is missing", f);
	snprintf(f, sizeof(f), "%s.%s", field, ekey);
	if (get_uint(obj, ekey, f, 0xffff, &eno, &has_errno, err) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (strcmp(name, actions[i].name) == 0) {
			*out = actions[i].action;
			if (actions[i].with_errno)
				*out |= has_errno ? (uint32_t)eno : EPERM;
			return 0;
		}
	snprintf(f, sizeof(f), "%s.%s", field, akey);
	if (strcmp(name, "SCMP_ACT_NOTIFY") == 0)
		return rung_error_make(err, EINVAL,
				       "config: `%s`: SCMP_ACT_NOTIFY is not supported (rung's "
				       "guest seccomp has no listener)",
				       f);
	return rung_error_make(err, EINVAL, "config: `%s`: unknown action `%s`", f, name);
}

static const struct {
	const char *name;
	enum scmp_compare op;
} operators[] = {
	{"SCMP_CMP_NE", SCMP_CMP_NE},
	{"SCMP_CMP_LT", SCMP_CMP_LT},
	{"SCMP_CMP_LE", SCMP_CMP_LE},
	{"SCMP_CMP_EQ", SCMP_CMP_EQ},
	{"SCMP_CMP_GE", SCMP_CMP_GE},
	{"SCMP_CMP_GT", SCMP_CMP_GT},
	{"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
};

/* One element of a rule's args: {index, value, valueTwo, op}. */
static int parse_arg(struct json_object *a, const char *field, struct scmp_arg_cmp *out,
		     struct rung_error *err)
{
	char f[FIELD_MAX];
	const char *op;
	uint64_t index;
	bool present;

	if (!json_object_is_type(a, json_type_object))
		return bad_type(err, field, "an object");
	snprintf(f, sizeof(f), "%s.index", field);
	if (get_uint(a, "index", f, MAX_ARGS - 1, &index, &present, err) < 0)
		return -1;
	if (!present)
		return rung_error_make(err, EINVAL, "config: `%s` is missing", f);
	snprintf(f, sizeof(f), "%s.value", field);
	if (get_uint(a, "value", f, UINT64_MAX, &out->datum_a, NULL, err) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.valueTwo", field);
	if (get_uint(a, "valueTwo", f, UINT64_MAX, &out->datum_b, NULL, err) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.op", field);
	if (get_str(a, "op", f, &op, err) < 0)
		return -1;
	if (!op)
		return rung_error_make(err, EINVAL, "config: `%s` is missing", f);
	out->arg = (unsigned)index;
	for (size_t i = 0; i < ARRAY_SIZE(operators); i++)
		if (strcmp(op, operators[i].name) == 0) {
			out->op = operators[i].op;
			return 0;
		}
	return rung_error_make(err, EINVAL, "config: `%s`: unknown operator `%s`", f, op);
}

/* SCMP_ARCH_X86_64 -> libseccomp's token (0 when unknown). */
static uint32_t arch_token(const char *name)
{
	char lower[32];
	size_t i;

	if (strncmp(name, "SCMP_ARCH_", 10) != 0 || strlen(name + 10) >= sizeof(lower))
		return 0;
	for (i = 0; name[10 + i]; i++)
		lower[i] = (char)tolower((unsigned char)name[10 + i]);
	lower[i] = '\0';
	return seccomp_arch_resolve_name(lower);
}

/* linux.seccomp.flags: the filter flags rung honours (TSYNC is moot for a
 * new process, SPEC_ALLOW a no-op: the sentry runs the filter). */
static int parse_flags(struct json_object *flags, bool *log, struct rung_error *err)
{
	char f[64];

	*log = false;
	for (size_t i = 0; flags && i < json_object_array_length(flags); i++) {
		struct json_object *v = json_object_array_get_idx(flags, i);
		const char *name =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		snprintf(f, sizeof(f), "linux.seccomp.flags[%zu]", i);
		if (!name)
			return bad_type(err, f, "a string");
		if (strcmp(name, "SECCOMP_FILTER_FLAG_LOG") == 0)
			*log = true;
		else if (strcmp(name, "SECCOMP_FILTER_FLAG_TSYNC") != 0 &&
			 strcmp(name, "SECCOMP_FILTER_FLAG_SPEC_ALLOW") != 0)
			return rung_error_make(
				err, EINVAL, "config: `%s`: %s flag `%s`", f,
				strcmp(name, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV")
					? "unknown"
					: "unsupported (no listener)",
				name);
	}
	return 0;
}

/* --- rules ------------------------------------------------------------------------- */

/* Add syscalls[i]: each name with the rule's action and conditions. */
static int add_rule(scmp_filter_ctx ctx, struct json_object *rule, size_t i, uint32_t def,
		    struct rung_error *err)
{
	struct scmp_arg_cmp conds[MAX_ARGS];
	unsigned per_index[MAX_ARGS] = {0};
	struct json_object *names, *args;
	bool split = false;
	size_t nconds = 0;
	uint32_t action;
	char f[FIELD_MAX / 2], g[FIELD_MAX - 16];

	snprintf(f, sizeof(f), "linux.seccomp.syscalls[%zu]", i);
	if (!json_object_is_type(rule, json_type_object))
		return bad_type(err, f, "an object");
	if (parse_action(rule, "action", "errnoRet", f, &action, err) < 0)
		return -1;
	snprintf(g, sizeof(g), "%s.names", f);
	if (get_array(rule, "names", g, &names, err) < 0)
		return -1;
	snprintf(g, sizeof(g), "%s.args", f);
	if (get_array(rule, "args", g, &args, err) < 0)
		return -1;
	for (size_t j = 0; args && j < json_object_array_length(args); j++) {
		snprintf(g, sizeof(g), "%s.args[%zu]", f, j);
		if (nconds == MAX_ARGS)
			return rung_error_make(err, EINVAL, "config: `%s`: more than %d conditions",
					       g, MAX_ARGS);
		if (parse_arg(json_object_array_get_idx(args, j), g, &conds[nconds], err) < 0)
			return -1;
		if (++per_index[conds[nconds].arg] > 1)
			split = true; /* libseccomp takes one condition per argument in a rule */
		nconds++;
	}
	/* As runc: a rule with the default action is no rule at all. */
	if (action == def)
		return 0;
	for (size_t j = 0; names && j < json_object_array_length(names); j++) {
		struct json_object *v = json_object_array_get_idx(names, j);
		const char *name =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		int nr, ret = 0;
		snprintf(g, sizeof(g), "%s.names[%zu]", f, j);
		if (!name)
			return bad_type(err, g, "a string");
		nr = seccomp_syscall_resolve_name(name);
		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this libseccomp: skipped, as runc does */
		if (!split)
			ret = seccomp_rule_add_array(ctx, action, nr, (unsigned)nconds, conds);
		for (size_t c = 0; split && ret == 0 && c < nconds; c++)
			ret = seccomp_rule_add_array(ctx, action, nr, 1, &conds[c]);
		if (ret < 0)
			return rung_error_make(err, -ret,
					       "config: `%s`: cannot add a rule for `%s`", g, name);
	}
	return 0;
}

/* The compiled program, through a memfd (libseccomp 2.5 exports to an fd). */
static int export_program(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *len,
			  struct rung_error *err)
{
	cleanup_close int fd = memfd_create("rung-seccomp-profile", MFD_CLOEXEC);
	struct stat st;
	size_t done = 0;
	int ret;

	if (fd < 0)
		return rung_error_make(err, errno, "linux.seccomp: memfd_create");
	ret = seccomp_export_bpf(ctx, fd);
	if (ret < 0)
		return rung_error_make(err, -ret, "linux.seccomp: export the filter");
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter))
		return rung_error_make(err, EINVAL,
				       "linux.seccomp: the exported filter is malformed");
	*len = (size_t)st.st_size / sizeof(struct sock_filter);
	*insns = xmalloc((size_t)st.st_size);
	while (done < (size_t)st.st_size) {
		ssize_t n =
			pread(fd, (char *)*insns + done, (size_t)st.st_size - done, (off_t)done);
		if (n <= 0) {
			free(*insns);
			*insns = NULL;
			return rung_error_make(err, n < 0 ? errno : EIO,
					       "linux.seccomp: read the exported filter");
		}
		done += (size_t)n;
	}
	return 0;
}

static int compile(struct json_object *sec, struct seccomp_filter **out, struct rung_error *err)
{
	struct json_object *archs, *flags, *rules;
	struct sock_filter *insns = NULL;
	scmp_filter_ctx ctx;
	const char *listener;
	uint32_t def;
	size_t len = 0;
	bool log;
	int ret;

	if (!json_object_is_type(sec, json_type_object))
		return bad_type(err, "linux.seccomp", "an object");
	if (parse_action(sec, "defaultAction", "defaultErrnoRet", "linux.seccomp", &def, err) < 0 ||
	    get_array(sec, "architectures", "linux.seccomp.architectures", &archs, err) < 0 ||
	    get_array(sec, "flags", "linux.seccomp.flags", &flags, err) < 0 ||
	    get_array(sec, "syscalls", "linux.seccomp.syscalls", &rules, err) < 0 ||
	    get_str(sec, "listenerPath", "linux.seccomp.listenerPath", &listener, err) < 0 ||
	    parse_flags(flags, &log, err) < 0)
		return -1;
	if (listener && *listener)
		return rung_error_make(
			err, EINVAL,
			"config: `linux.seccomp.listenerPath`: a seccomp listener is "
			"not supported");
	ctx = seccomp_init(def);
	if (!ctx)
		return rung_error_make(err, EINVAL,
				       "linux.seccomp: libseccomp refused the default "
				       "action");
	ret = 0;
	for (size_t i = 0; ret == 0 && archs && i < json_object_array_length(archs); i++) {
		struct json_object *v = json_object_array_get_idx(archs, i);
		const char *name =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
		uint32_t token = arch_token(name);
		int r = token ? seccomp_arch_add(ctx, token) : -EINVAL;
		if (r < 0 && r != -EEXIST)
			ret = rung_error_make(err, EINVAL,
					      "config: `linux.seccomp.architectures[%zu]`: unknown "
					      "architecture `%s`",
					      i, name);
	}
	for (size_t i = 0; ret == 0 && rules && i < json_object_array_length(rules); i++)
		ret = add_rule(ctx, json_object_array_get_idx(rules, i), i, def, err);
	if (ret == 0)
		ret = export_program(ctx, &insns, &len, err);
	seccomp_release(ctx);
	if (ret < 0)
		return -1;
	if (len > SECCOMP_MAX_INSNS) {
		free(insns);
		return rung_error_make(err, EINVAL,
				       "linux.seccomp: the profile compiles to %zu instructions, "
				       "more than the %d a filter may have",
				       len, SECCOMP_MAX_INSNS);
	}
	ret = seccomp_filter_new(insns, (unsigned)len, log, out);
	free(insns);
	if (ret < 0)
		return rung_error_make(err, -ret, "linux.seccomp: the compiled filter is invalid");
	return 0;
}

int seccomp_profile_load(const char *json, struct seccomp_filter **out, struct rung_error *err)
{
	struct json_object *sec;
	int ret;

	*out = NULL;
	if (!json)
		return 0;
	sec = json_tokener_parse(json);
	if (!sec)
		return rung_error_make(err, EINVAL, "config: `linux.seccomp` is not valid JSON");
	ret = compile(sec, out, err);
	json_object_put(sec);
	return ret;
}
