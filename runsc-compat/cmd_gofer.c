/* rung gofer: internal; the gofer process that serves a rootfs (see gofer/). */
#include "config.h"
#include "runsc-compat/cli.h"
#include "gofer/gofer.h"

#include <sys/prctl.h>

int cmd_gofer(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	/* So that ps (and people) can tell the gofer from the sentry. */
	prctl(PR_SET_NAME, "rung-gofer", 0, 0, 0);
	return gofer_main(argc, argv);
}
