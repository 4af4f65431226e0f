/* rung delete [--force] ID */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdbool.h>

static const struct option delete_options[] = {
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0},
};

int cmd_delete(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	bool force = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+f", delete_options, NULL)) != -1) {
		if (opt != 'f')
			return rung_error_make(err, 0, "delete: unknown option `%s`",
					       argv[optind - 1]);
		force = true;
	}
	if (optind != argc - 1)
		return rung_error_make(err, 0, "delete: exactly one container id is needed");
	return oci_delete(g, argv[optind], force, err) < 0 ? -1 : 0;
}
