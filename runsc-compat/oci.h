/* What the OCI subcommands share: the state root, pid files, signals, create. */
#ifndef RUNG_OCI_H
#define RUNG_OCI_H

#include <stdbool.h>
#include <sys/types.h>

struct global_args;
struct rung_error;
struct container_state;

/* --root, or rung's default. */
const char *oci_root(const struct global_args *g);

/* Write pid to path atomically (a temporary, then rename), decimal without newline. */
int write_pid_file(const char *path, pid_t pid, struct rung_error *err);

/* A signal by number or name ("9", "KILL", "SIGKILL", "RTMIN+1"): its number, or -1. */
int parse_signal(const char *s);

/* What create needs (and run, which creates and then starts). */
struct create_opts {
	const char *bundle;
	const char *pid_file;
	const char *console_socket;
	int preserve_fds;
};

/* Create container id: fork the sandbox, wait until it is parked, run the
 * prestart/createRuntime hooks, save the state, write the pid file. The
 * sandbox's pid in *pid (it stays our child until we exit). */
int oci_create(struct global_args *g, const char *id, const struct create_opts *o, pid_t *pid,
	       struct rung_error *err);
/* Release the parked init of id and run the poststart hooks. */
int oci_start(struct global_args *g, const char *id, struct rung_error *err);
/* Remove id's state (killing what is left when force); poststop hooks. */
int oci_delete(struct global_args *g, const char *id, bool force, struct rung_error *err);

/* The host pids of the sandbox of st (its process and descendants, malloc'd). */
int oci_host_pids(const struct container_state *st, pid_t **pids, size_t *n);

#endif
