/* rung netkeep: internal; the keeper of a network namespace's addresses
 * while a sandbox has them (sentry/net/keeper.h). */
#include "config.h"
#include "runsc-compat/cli.h"
#include "sentry/net/keeper.h"

int cmd_netkeep(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	return net_keeper_main(argc, argv);
}
