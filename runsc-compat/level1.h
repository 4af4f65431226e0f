/*
 * Isolation level 1 (`--isolation=container`): the bundle runs as a plain
 * namespaces + cgroups + seccomp container, as crun runs it, through the
 * same CLI and state directory as a sentry container. The pid in the state
 * (and the pid file) is the container's init itself: `create` clones it in
 * its new namespaces, it builds the root file system and its credentials,
 * then parks on <root>/<id>/exec.fifo until `start`, and execs the
 * workload. kill, ps, exec and delete work on it and on its cgroup.
 *
 * docs/isolation-container.md says what this level does and does not
 * protect against.
 */
#ifndef RUNG_LEVEL1_H
#define RUNG_LEVEL1_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rung_error;
struct oci_spec;
struct container_state;

/* What create hands over (the fds are the child's ends; the caller closes
 * its copies after the spawn). */
struct level1_create {
	const struct oci_spec *spec;
	const char *bundle;    /* absolute; relative bind sources are under it */
	const char *root, *id; /* the state directory */
	const char *cgroup;    /* the container's cgroup (the init joins it) */
	int preserve_fds;      /* the caller's fds 3... the workload keeps */
	int ready_fd;	       /* the init writes "ok" or its error, then closes it */
	int go_fd;	       /* a byte arrives once the caller is ready for the init */
	int console_fd;	       /* a connected console socket (process.terminal), or -1 */
};

/* Clone the container's init in the spec's namespaces; it waits on go_fd,
 * sets the container up, reports on ready_fd and parks. Its pid in *pid. */
int level1_spawn(const struct level1_create *c, pid_t *pid, struct rung_error *err);

/* Release the parked init of st (through its exec.fifo). */
int level1_start(const char *root, const struct container_state *st, struct rung_error *err);

/* Signal the init of st, or with all every process in its cgroup. */
int level1_kill(const struct container_state *st, int sig, bool all, struct rung_error *err);

/* update --resources for st: pids.max as given (cgroup_update did the rest,
 * sizing pids.max for a sentry). */
int level1_update(const struct container_state *st, const char *resources_json,
		  struct rung_error *err);

/* SIGKILL whatever is left in st's cgroup and wait (briefly) until it is empty. */
void level1_destroy(const struct container_state *st);

/* The host pids of st's container: every process in its cgroup (malloc'd). */
int level1_pids(const struct container_state *st, pid_t **pids, size_t *n);

/* Run process_json (an OCI process) in st's container: join its namespaces
 * and cgroup. With detach, the pid file names the process and we return 0
 * once it runs; without, we wait for it, pass signals on, and return its
 * exit status (128 + signal when one ends it). */
int level1_exec(const struct container_state *st, const char *process_json, int console_fd,
		bool detach, const char *pid_file, struct rung_error *err);

/* rung do --isolation=container: run argv in a throwaway level-1 container
 * whose root is rootfs (an in-memory overlay over it when overlay,
 * read-only when read_only), with mounts (-v, --tmpfs) after rung do's
 * own; its exit status. */
struct oci_mount;
struct level1_do_opts {
	const char *rootfs;
	bool overlay, read_only;
	bool host_network;
	const struct oci_mount *mounts;
	size_t n_mounts;
};
int level1_do(const struct level1_do_opts *o, char **argv, struct rung_error *err);

#endif
