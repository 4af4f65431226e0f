/*
 * Starting and running the gofer: a separate process per container that
 * serves directory trees (the rootfs, and the source of each bind mount)
 * over gofer channels.
 */
#ifndef RUNG_GOFER_H
#define RUNG_GOFER_H

#include <stdbool.h>
#include <sys/types.h>

#include "gofer/protocol.h"

struct rung_error;

/* Most channels one gofer serves. */
#define GOFER_MAX_CHANNELS 64

/* A bind mount's source: a host directory or file, served as a tree of its own. */
struct gofer_bind {
	const char *source; /* absolute host path */
	bool read_only;	    /* every change fails with EROFS (a read-only host mount) */
	bool recursive;	    /* rbind: with the host mounts under source */
};

struct gofer_config {
	const char *rootfs;		/* host directory served as "/" (tree 0) */
	bool read_only;			/* refuse every change with EROFS */
	const struct gofer_bind *binds; /* trees 1..nbinds, in this order */
	unsigned nbinds;
};

/*
 * Start the gofer (a re-exec of this binary: `rung gofer ...`) serving
 * cfg->rootfs and the bind mounts' sources over nchan channels. On success *pid is the gofer and
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
