/*
 * Starting and running the gofer: a separate process per container that
 * serves one directory tree (the rootfs) over gofer channels.
 */
#ifndef RUNG_GOFER_H
#define RUNG_GOFER_H

#include <stdbool.h>
#include <sys/types.h>

struct rung_error;

/* Most channels one gofer serves. */
#define GOFER_MAX_CHANNELS 64

struct gofer_config {
	const char *rootfs; /* host directory served as "/" */
	bool read_only;	    /* refuse every change with EROFS */
};

/*
 * Start the gofer (a re-exec of this binary: `rung gofer ...`) serving
 * cfg->rootfs over nchan channels. On success *pid is the gofer and
 * fds[0..nchan) the sentry's ends of the channels (O_CLOEXEC).
 *
 * The gofer dies (PR_SET_PDEATHSIG) when the calling *thread* exits, and
 * exits by itself once every channel is closed; the caller reaps it.
 */
int gofer_spawn(const struct gofer_config *cfg, unsigned nchan, pid_t *pid, int *fds,
		struct rung_error *err);

/* The body of `rung gofer`: set up confinement and serve until every channel
 * is closed. Returns the process exit status. */
int gofer_main(int argc, char **argv);

#endif
