/* rung pause ID / rung resume ID: freeze and thaw the sandbox's cgroup. */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <string.h>
#include <unistd.h>

static int set_paused(struct global_args *g, const char *id, bool pause, struct rung_error *err)
{
	const char *root = oci_root(g);
	struct container_state st;
	enum container_status s;
	int lock, ret = state_lock(root, id, &lock, err);

	if (ret < 0)
		return ret;
	ret = state_load(root, id, &st, err);
	if (ret < 0)
		goto out_lock;
	s = state_status(&st);
	if (pause && s != STATUS_RUNNING && s != STATUS_CREATED)
		ret = rung_error_make(err, 0, "container not running");
	else if (!pause && !st.paused)
		ret = rung_error_make(err, 0, "container not paused");
	/* (A paused container whose init died meanwhile is thawed all the same:
	 * what is left of its sandbox must be able to end.) */
	else if (!st.cgroup)
		ret = rung_error_make(err, 0, "the container has no cgroup to freeze");
	else
		ret = cgroup_freeze(st.cgroup, pause, err);
	if (ret == 0) {
		st.paused = pause;
		ret = state_save(root, &st, err);
	}
	state_release(&st);
out_lock:
	close(lock);
	return ret;
}

int cmd_pause(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	if (argc != 2)
		return rung_error_make(err, 0, "%s: exactly one container id is needed", argv[0]);
	return set_paused(g, argv[1], strcmp(argv[0], "pause") == 0, err) < 0 ? -1 : 0;
}
