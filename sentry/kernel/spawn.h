/*
 * Starting guest processes from outside the sandbox: the init (pid 1) and
 * the processes `exec` adds, with the credentials, limits, working directory
 * and stdio a caller describes (rung do, an OCI spec's process).
 */
#ifndef RUNG_SPAWN_H
#define RUNG_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel;
struct rung_error;
struct seccomp_filter;

struct kernel_rlimit {
	int resource;
	uint64_t soft, hard;
};

struct kernel_process {
	const char *path;  /* the program: a path, or a name found through PATH */
	char *const *argv; /* argv[0] included */
	char *const *envp;
	const char *cwd;   /* guest path; NULL: "/" */
	bool cwd_create;   /* make the directory when it is missing (OCI); else fall back to "/" */
	bool caller_creds; /* the ids of the user running rung, all capabilities for root */
	uint32_t uid, gid;
	const uint32_t *groups;
	size_t ngroups;
	bool has_caps; /* else: all capabilities for uid 0, none otherwise */
	uint64_t cap_bounding, cap_effective, cap_permitted, cap_inheritable, cap_ambient;
	const struct kernel_rlimit *rlimits;
	size_t nrlimits;
	bool no_new_privs;
	int umask; /* the file mode creation mask, when has_umask (else 022) */
	bool has_umask;
	/* A seccomp filter stack the process starts with (the OCI profile), or NULL. */
	struct seccomp_filter *seccomp;
	/* Host fds that become the guest's fds 0, 1, 2 (duplicated; -1: left closed). */
	int stdio[3];
	/* More host fds for the guest's fds 3, 4, ... (duplicated; runc's
	 * --preserve-fds). */
	const int *extra_fds;
	size_t nextra;
	/* The stdio is a terminal: the process leads a new session (exec -t). */
	bool new_session;
	/* A spawned process has no parent in the sandbox: this is called (under
	 * the kernel lock: it must not block) with its wait status when it dies. */
	void (*on_exit)(void *arg, int status);
	void *exit_arg;
};

/* Start pid 1. An exec failure ends the sandbox with 127 (not found) or 126. */
int kernel_start_init(struct kernel *k, const struct kernel_process *p, struct rung_error *err);

/* Start another process; returns once its program is running (its guest
 * pid in *pid), or fails with runc's words for why it could not start
 * (`exec: "x": executable file not found in $PATH`, ...). */
int kernel_spawn(struct kernel *k, const struct kernel_process *p, int *pid,
		 struct rung_error *err);

/* A spawned task's first exec is over (0 or -errno): wake its spawner. */
struct spawn_wait;
void spawn_report(struct spawn_wait *sw, int ret);

/* Would p's program start (resolved through PATH, executable)? The check
 * `create` makes before it parks the init: 0, or the error spawn gives. */
int kernel_check_program(struct kernel *k, const struct kernel_process *p, struct rung_error *err);

#endif
