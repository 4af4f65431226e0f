/* rung update --resources FILE|- ID: new resource limits for the container's cgroup. */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option update_options[] = {
	{"resources", required_argument, NULL, 'r'},
	{NULL, 0, NULL, 0},
};

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
	if (f && f != stdin)
		fclose(f);
	free(json);
	state_release(&st);
	return ret < 0 ? -1 : 0;
}
