/* rung gofer: internal; the gofer process that serves a rootfs (see gofer/). */
#include "config.h"
#include "runsc-compat/cli.h"
#include "gofer/gofer.h"

int cmd_gofer(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	return gofer_main(argc, argv);
}
