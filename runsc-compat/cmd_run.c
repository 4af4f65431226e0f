/* rung run [create options] ID: create, start, wait, delete; the init's status. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "lib/error.h"

#include <signal.h>
#include <sys/wait.h>

int parse_create_options(int argc, char **argv, struct create_opts *o, const char **id,
			 bool *detach, struct rung_error *err);

int cmd_run(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct create_opts o;
	bool detach = false;
	const char *id;
	pid_t pid;
	int status, ret = parse_create_options(argc, argv, &o, &id, &detach, err);

	if (ret < 0)
		return ret;
	ret = oci_create(g, id, &o, &pid, err);
	if (ret < 0)
		return ret;
	ret = oci_start(g, id, err);
	if (ret < 0) {
		struct rung_error derr = {0};
		oci_delete(g, id, true, &derr);
		rung_error_release(&derr);
		return ret;
	}
	if (detach)
		return 0;
	/* The sandbox is our child: its exit status is the container's. */
	while (waitpid(pid, &status, 0) < 0)
		;
	oci_delete(g, id, true, err);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
