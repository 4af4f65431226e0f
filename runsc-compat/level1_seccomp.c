/*
 * linux.seccomp for isolation level 1: the profile compiled with libseccomp
 * into the filter the host kernel applies to the container's processes.
 * (The sentry applies the same profile to guest syscalls itself; that is
 * another module. This one is small and stands alone.)
 *
 * As runc: syscall names this libseccomp does not know are skipped, a rule
 * whose action is the default one is dropped, several conditions on one
 * argument become one rule each (any of them matches), and the filter does
 * not set no_new_privs by itself.
 */
#include "config.h"
#include "runsc-compat/level1_setup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#define F "linux.seccomp"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    json_object_get_type(v) == json_type_null)
		return NULL;
	return v;
}

/* An action by its OCI name; errno_ret (may be NULL) for ERRNO and TRACE. */
static int parse_action(struct json_object *name, struct json_object *errno_ret, const char *field,
			uint32_t *out, struct rung_error *err)
{
	const char *s = name && json_object_is_type(name, json_type_string)
				? json_object_get_string(name)
				: NULL;
	int64_t e = EPERM;

	if (errno_ret) {
		if (!json_object_is_type(errno_ret, json_type_int))
			return rung_error_make(err, EINVAL,
					       "config: `%s` errnoRet must be an integer", field);
		e = json_object_get_int64(errno_ret);
		if (e < 0 || e > 0xffff)
			return rung_error_make(err, EINVAL, "config: `%s` errnoRet is out of range",
					       field);
	}
	if (!s)
		return rung_error_make(err, EINVAL, "config: `%s` needs an action", field);
	if (strcmp(s, "SCMP_ACT_ALLOW") == 0)
		*out = SCMP_ACT_ALLOW;
	else if (strcmp(s, "SCMP_ACT_ERRNO") == 0)
		*out = SCMP_ACT_ERRNO((uint32_t)e);
	else if (strcmp(s, "SCMP_ACT_KILL") == 0 || strcmp(s, "SCMP_ACT_KILL_THREAD") == 0)
		*out = SCMP_ACT_KILL_THREAD;
	else if (strcmp(s, "SCMP_ACT_KILL_PROCESS") == 0)
		*out = SCMP_ACT_KILL_PROCESS;
	else if (strcmp(s, "SCMP_ACT_TRAP") == 0)
		*out = SCMP_ACT_TRAP;
	else if (strcmp(s, "SCMP_ACT_TRACE") == 0)
		*out = SCMP_ACT_TRACE((uint32_t)e);
	else if (strcmp(s, "SCMP_ACT_LOG") == 0)
		*out = SCMP_ACT_LOG;
	else if (strcmp(s, "SCMP_ACT_NOTIFY") == 0)
		return rung_error_make(err, EINVAL,
				       "config: `%s`: SCMP_ACT_NOTIFY (a seccomp agent) is not "
				       "supported",
				       field);
	else
		return rung_error_make(err, EINVAL, "config: `%s`: unknown action `%s`", field, s);
	return 0;
}

static int parse_op(const char *s, enum scmp_compare *op)
{
	static const struct {
		const char *name;
		enum scmp_compare op;
	} ops[] = {
		{"SCMP_CMP_NE", SCMP_CMP_NE},
		{"SCMP_CMP_LT", SCMP_CMP_LT},
		{"SCMP_CMP_LE", SCMP_CMP_LE},
		{"SCMP_CMP_EQ", SCMP_CMP_EQ},
		{"SCMP_CMP_GE", SCMP_CMP_GE},
		{"SCMP_CMP_GT", SCMP_CMP_GT},
		{"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
	};

	for (size_t i = 0; s && i < ARRAY_SIZE(ops); i++)
		if (strcmp(s, ops[i].name) == 0) {
			*op = ops[i].op;
			return 0;
		}
	return -1;
}

/* The argument conditions of one rule (at most 6). */
static int parse_args(struct json_object *args, struct scmp_arg_cmp *cmp, unsigned *n,
		      bool *same_index, struct rung_error *err)
{
	unsigned seen = 0;

	*n = 0;
	*same_index = false;
	if (!args)
		return 0;
	if (!json_object_is_type(args, json_type_array) || json_object_array_length(args) > 6)
		return rung_error_make(err, EINVAL,
				       "config: `" F ".syscalls[].args` must be an array of at "
				       "most 6 conditions");
	for (size_t i = 0; i < json_object_array_length(args); i++) {
		struct json_object *a = json_object_array_get_idx(args, i), *idx = get(a, "index"),
				   *val = get(a, "value"), *val2 = get(a, "valueTwo"),
				   *op = get(a, "op");
		enum scmp_compare c;
		int64_t index = idx && json_object_is_type(idx, json_type_int)
					? json_object_get_int64(idx)
					: -1;
		if (index < 0 || index > 5 || !val || !json_object_is_type(val, json_type_int) ||
		    (val2 && !json_object_is_type(val2, json_type_int)) ||
		    parse_op(op ? json_object_get_string(op) : NULL, &c) < 0)
			return rung_error_make(err, EINVAL,
					       "config: `" F ".syscalls[].args[%zu]`: needs an "
					       "index 0-5, an integer value and a known op",
					       i);
		if (seen & (1u << index))
			*same_index = true;
		seen |= 1u << index;
		cmp[*n].arg = (unsigned)index;
		cmp[*n].op = c;
		cmp[*n].datum_a = json_object_get_uint64(val);
		cmp[*n].datum_b = val2 ? json_object_get_uint64(val2) : 0;
		(*n)++;
	}
	return 0;
}

static int add_arches(scmp_filter_ctx ctx, struct json_object *arches, struct rung_error *err)
{
	if (!arches)
		return 0;
	if (!json_object_is_type(arches, json_type_array))
		return rung_error_make(err, EINVAL,
				       "config: `" F ".architectures` must be an array");
	for (size_t i = 0; i < json_object_array_length(arches); i++) {
		struct json_object *a = json_object_array_get_idx(arches, i);
		const char *s =
			json_object_is_type(a, json_type_string) ? json_object_get_string(a) : "";
		char name[32];
		uint32_t token;
		int ret;
		if (strncmp(s, "SCMP_ARCH_", 10) == 0)
			s += 10;
		snprintf(name, sizeof(name), "%s", s);
		for (char *c = name; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		token = seccomp_arch_resolve_name(name);
		if (!token)
			return rung_error_make(err, EINVAL,
					       "config: `" F ".architectures`: unknown `%s`", s);
		ret = seccomp_arch_add(ctx, token);
		if (ret < 0 && ret != -EEXIST)
			return rung_error_make(err, -ret, "seccomp: add the architecture `%s`", s);
	}
	return 0;
}

static int set_flags(scmp_filter_ctx ctx, struct json_object *flags, struct rung_error *err)
{
	if (!flags)
		return 0;
	if (!json_object_is_type(flags, json_type_array))
		return rung_error_make(err, EINVAL, "config: `" F ".flags` must be an array");
	for (size_t i = 0; i < json_object_array_length(flags); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(flags, i));
		enum scmp_filter_attr attr;
		if (s && strcmp(s, "SECCOMP_FILTER_FLAG_LOG") == 0)
			attr = SCMP_FLTATR_CTL_LOG;
		else if (s && strcmp(s, "SECCOMP_FILTER_FLAG_SPEC_ALLOW") == 0)
			attr = SCMP_FLTATR_CTL_SSB;
		else if (s && strcmp(s, "SECCOMP_FILTER_FLAG_TSYNC") == 0)
			attr = SCMP_FLTATR_CTL_TSYNC;
		else
			return rung_error_make(err, EINVAL, "config: `" F ".flags`: unknown `%s`",
					       s ? s : "(not a string)");
		if (seccomp_attr_set(ctx, attr, 1) < 0)
			return rung_error_make(err, EINVAL, "seccomp: the flag `%s`", s);
	}
	return 0;
}

/* One entry of syscalls[]: a rule for each name libseccomp knows. */
static int add_rule(scmp_filter_ctx ctx, struct json_object *r, uint32_t def, size_t i,
		    struct rung_error *err)
{
	struct json_object *names = get(r, "names");
	struct scmp_arg_cmp cmp[6];
	char field[64];
	unsigned n;
	bool same;
	uint32_t action;
	int ret;

	snprintf(field, sizeof(field), F ".syscalls[%zu]", i);
	if ((ret = parse_action(get(r, "action"), get(r, "errnoRet"), field, &action, err)) < 0 ||
	    (ret = parse_args(get(r, "args"), cmp, &n, &same, err)) < 0)
		return ret;
	if (!names || !json_object_is_type(names, json_type_array))
		return rung_error_make(err, EINVAL, "config: `%s.names` must be an array", field);
	if (action == def)
		return 0;
	for (size_t j = 0; j < json_object_array_length(names); j++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, j));
		int nr = name ? seccomp_syscall_resolve_name(name) : __NR_SCMP_ERROR;
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a syscall of this kernel or libseccomp */
		if (same) {
			for (unsigned k = 0; k < n && ret == 0; k++)
				ret = seccomp_rule_add_array(ctx, action, nr, 1, &cmp[k]);
		} else {
			ret = seccomp_rule_add_array(ctx, action, nr, n, cmp);
		}
		if (ret < 0)
			return rung_error_make(err, -ret, "seccomp: the rule for `%s`", name);
	}
	return 0;
}

int level1_seccomp_compile(const char *json, void **filter, struct rung_error *err)
{
	struct json_object *o = json_tokener_parse(json), *rules;
	scmp_filter_ctx ctx = NULL;
	uint32_t def;
	int ret;

	*filter = NULL;
	if (!o || !json_object_is_type(o, json_type_object)) {
		ret = rung_error_make(err, EINVAL, "config: `" F "` must be an object");
		goto out;
	}
	if (get(o, "listenerPath")) {
		ret = rung_error_make(err, EINVAL,
				      "config: `" F ".listenerPath`: seccomp agents are not "
				      "supported");
		goto out;
	}
	ret = parse_action(get(o, "defaultAction"), get(o, "defaultErrnoRet"), F ".defaultAction",
			   &def, err);
	if (ret < 0)
		goto out;
	ctx = seccomp_init(def);
	if (!ctx) {
		ret = rung_error_make(err, ENOMEM, "seccomp: init");
		goto out;
	}
	/* no_new_privs is process.noNewPrivileges' business, not the filter's. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0) {
		ret = rung_error_make(err, EINVAL, "seccomp: the NNP attribute");
		goto out;
	}
	if ((ret = add_arches(ctx, get(o, "architectures"), err)) < 0 ||
	    (ret = set_flags(ctx, get(o, "flags"), err)) < 0)
		goto out;
	rules = get(o, "syscalls");
	if (rules && !json_object_is_type(rules, json_type_array)) {
		ret = rung_error_make(err, EINVAL, "config: `" F ".syscalls` must be an array");
		goto out;
	}
	for (size_t i = 0; rules && i < json_object_array_length(rules); i++) {
		ret = add_rule(ctx, json_object_array_get_idx(rules, i), def, i, err);
		if (ret < 0)
			goto out;
	}
	*filter = ctx;
	ctx = NULL;
	ret = 0;
out:
	if (ctx)
		seccomp_release(ctx);
	json_object_put(o);
	return ret;
}

int level1_seccomp_load(void *filter, struct rung_error *err)
{
	int ret = seccomp_load(filter);

	return ret < 0 ? rung_error_make(err, -ret, "load the seccomp filter") : 0;
}

void level1_seccomp_release(void *filter)
{
	if (filter)
		seccomp_release(filter);
}
