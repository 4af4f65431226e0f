/* rung kill [--all] ID [SIGNAL]: a signal for the init (or every process). */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/container.h"
#include "runsc-compat/control.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct option kill_options[] = {
	{"all", no_argument, NULL, 'a'},
	{NULL, 0, NULL, 0},
};

int cmd_kill(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *root = oci_root(g);
	struct container_state st;
	bool all = false;
	char *path;
	int opt, sig = SIGTERM, fd, lock, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+a", kill_options, NULL)) != -1) {
		if (opt != 'a')
			return rung_error_make(err, 0, "kill: unknown option `%s`",
					       argv[optind - 1]);
		all = true;
	}
	if (optind >= argc || argc - optind > 2)
		return rung_error_make(err, 0, "kill: usage: kill [--all] ID [SIGNAL]");
	if (argc - optind == 2) {
		sig = parse_signal(argv[optind + 1]);
		if (sig < 0)
			return rung_error_make(err, 0, "invalid signal `%s`", argv[optind + 1]);
	}
	ret = state_lock(root, argv[optind], &lock, err);
	if (ret < 0)
		return ret;
	ret = state_load(root, argv[optind], &st, err);
	if (ret < 0)
		goto out_lock;
	if (isolation_is_container(&st) && (all || state_status(&st) != STATUS_STOPPED)) {
		/* (--all also reaches what outlived the init in a shared pid namespace) */
		ret = level1_kill(&st, sig, all, err);
	} else if (state_status(&st) == STATUS_STOPPED) {
		ret = rung_error_make(err, 0, "container not running");
	} else if (sig == SIGKILL) {
		/* The sandbox dies at once, and the stubs and the gofer with it (a
		 * frozen one is thawed first, or it could not). */
		if (st.paused && st.cgroup)
			cgroup_freeze(st.cgroup, false, err);
		ret = kill(st.pid, SIGKILL) < 0 ? rung_error_make(err, 0, "container not running")
						: 0;
	} else if (st.paused && !all && container_relays_signal(sig)) {
		/* A frozen sandbox cannot answer the control socket; a host signal
		 * waits in the kernel until resume, and the sandbox then passes it
		 * on to the init (as runc's signal to a frozen init waits). */
		ret = kill(st.pid, sig) < 0 ? rung_error_make(err, 0, "container not running") : 0;
	} else {
		/* Otherwise a frozen sandbox is thawed for the signal, and frozen
		 * again (the guest gets it at once). */
		bool thawed = st.paused && st.cgroup && cgroup_freeze(st.cgroup, false, err) == 0;
		path = ctl_path(root, argv[optind]);
		ret = ctl_connect(path, &fd, err);
		free(path);
		if (ret == 0) {
			ret = ctl_call(fd, CTL_KILL, sig, all, NULL, 0, NULL, 0, NULL, err);
			close(fd);
		}
		if (thawed) {
			struct rung_error ferr = {0};
			if (cgroup_freeze(st.cgroup, true, &ferr) < 0)
				rung_error_print(&ferr, "kill: freeze the container again");
		}
	}
	state_release(&st);
out_lock:
	close(lock);
	return ret < 0 ? -1 : 0;
}
