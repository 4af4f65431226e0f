/* rung state ID: runc's state JSON. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_state(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct container_state st;
	char *json;

	if (argc != 2)
		return rung_error_make(err, 0, "state: exactly one container id is needed");
	if (!state_valid_id(argv[1]) || state_load(oci_root(g), argv[1], &st, err) < 0)
		return rung_error_make(err, 0, "container does not exist");
	json = state_json(&st);
	printf("%s\n", json);
	free(json);
	state_release(&st);
	return 0;
}
