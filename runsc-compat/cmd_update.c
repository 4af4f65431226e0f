/* rung update --resources FILE|- ID: new resource limits for the container's cgroup. */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/control.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <getopt.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct option update_options[] = {
	{"resources", required_argument, NULL, 'r'},
	{NULL, 0, NULL, 0},
};

/* group.limit of the resources JSON, or 0 when unset. */
static int64_t resource_limit(const char *json, const char *group)
{
	struct json_object *o = json_tokener_parse(json), *g, *limit;
	int64_t v = 0;

	if (o && json_object_object_get_ex(o, group, &g) &&
	    json_object_object_get_ex(g, "limit", &limit) &&
	    json_object_is_type(limit, json_type_int))
		v = json_object_get_int64(limit);
	if (o)
		json_object_put(o);
	return v;
}

/* Tell a running sandbox a new limit (type CTL_TASK_LIMIT or
 * CTL_MEMORY_LIMIT, a its value). */
static int tell_sandbox(struct global_args *g, const struct container_state *st, int type,
			int32_t a, struct rung_error *err)
{
	char *path = ctl_path(oci_root(g), st->id);
	int fd, ret = ctl_connect(path, &fd, err);

	free(path);
	if (ret < 0)
		return ret;
	ret = ctl_call(fd, type, a, 0, NULL, 0, NULL, 0, NULL, err);
	close(fd);
	return ret;
}

/* pids.limit is the guest's task limit and memory.limit sets the guest's
 * memory limit, which the sentry keeps (the host cgroup holds only a
 * backstop): tell a running sandbox. */
static int update_sandbox(struct global_args *g, const struct container_state *st, const char *json,
			  struct rung_error *err)
{
	int64_t pids = resource_limit(json, "pids"), mem = resource_limit(json, "memory");
	int ret = 0;

	if (state_status(st) != STATUS_RUNNING)
		return 0; /* nothing to tell */
	if (pids)
		ret = tell_sandbox(g, st, CTL_TASK_LIMIT,
				   pids < 0 || pids > INT32_MAX ? 0 : (int32_t)pids, err);
	if (ret == 0 && mem)
		ret = tell_sandbox(g, st, CTL_MEMORY_LIMIT,
				   mem < 0 || (mem >> 10) > INT32_MAX ? 0 : (int32_t)(mem >> 10),
				   err);
	return ret;
}

int cmd_update(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *resources = NULL;
	struct container_state st;
	char *json = NULL;
	size_t len = 0;
	FILE *f;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+r:", update_options, NULL)) != -1) {
		if (opt != 'r')
			return rung_error_make(err, 0, "update: option `%s` is not supported",
					       argv[optind - 1]);
		resources = optarg;
	}
	if (optind != argc - 1 || !resources)
		return rung_error_make(err, 0, "update: usage: update --resources FILE|- ID");
	if (!state_valid_id(argv[optind]) || state_load(oci_root(g), argv[optind], &st, err) < 0)
		return rung_error_make(err, 0, "container does not exist");
	f = strcmp(resources, "-") == 0 ? stdin : fopen(resources, "re");
	if (!f || getdelim(&json, &len, '\0', f) < 0)
		ret = rung_error_make(err, 0, "update: cannot read the resources");
	else
		ret = cgroup_update(st.cgroup, json, err);
	if (ret == 0)
		ret = isolation_is_container(&st) ? level1_update(&st, json, err)
						  : update_sandbox(g, &st, json, err);
	if (f && f != stdin)
		fclose(f);
	free(json);
	state_release(&st);
	return ret < 0 ? -1 : 0;
}
