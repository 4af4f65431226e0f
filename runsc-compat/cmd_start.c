/* rung start ID: release the parked init. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "lib/error.h"

int cmd_start(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	if (argc != 2)
		return rung_error_make(err, 0, "start: exactly one container id is needed");
	return oci_start(g, argv[1], err) < 0 ? -1 : 0;
}
