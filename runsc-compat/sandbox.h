/*
 * One sandbox: the gofer serving the rootfs, the kernel booted on it, the
 * sandbox process confined. `rung do` and the OCI commands both build it
 * here; what runs in it is started with sentry/kernel/spawn.h.
 */
#ifndef RUNG_SANDBOX_H
#define RUNG_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sentry/net/net.h"

struct rung_error;
struct kernel;
struct platform_ops;
struct oci_mount;

struct sandbox_config {
	const struct platform_ops *platform;
	bool strace;
	uint64_t memory_limit; /* 0: the host's RAM */
	unsigned task_limit;   /* 0: the kernel's default */
	const char *rootfs;    /* NULL: no root filesystem (host_init_fd names the program) */
	bool overlay;	       /* a private in-memory layer over a read-only rootfs */
	bool donate;	       /* file data through descriptors the gofer hands over */
	int host_init_fd;      /* with no rootfs: the init program, opened by the caller */
	bool init_unkillable;  /* pid 1 ignores signals it does not handle (containers) */
	const char *hostname;  /* NULL: "rung" */
	bool root_readonly;    /* the guest's / refuses writes (EROFS) */
	const struct oci_mount *mounts; /* extra mounts (bind, tmpfs, ...) from a spec */
	size_t nmounts;
	char **masked_paths;   /* NULL-terminated (or NULL): hidden under empty mounts */
	char **readonly_paths; /* NULL-terminated (or NULL): made read-only */
	char **sysctl_keys, **sysctl_values; /* n_sysctl of them */
	size_t n_sysctl;
	int tty;	/* the caller's terminal (its /dev/tty) for the guest, or -1 */
	bool confine;	/* drop the host filesystem, capabilities; seccomp */
	int compat_fd;	/* > 2: the `auto` record to finish at the end (compat.h) */
	int supervisor; /* > 2: the socket to rung do's supervisor (sentry/kernel/outside.h) */
	/* The guest's network (sentry/net/net.h), set up in the current network
	 * namespace; egress: the policy (NULL: the default). */
	enum net_mode network;
	const char *egress;
	/* NULL, or where the keeper of the namespace's addresses goes
	 * (cgroup.procs files, NULL-terminated): the caller's cgroups. */
	char *const *keeper_cgroups;
};

struct sandbox {
	struct kernel *k;
	pid_t gofer;
	int compat_fd; /* the `auto` record, or -1 */
};

/* The guest's memory limit in a cgroup limited to cgroup_limit bytes: the
 * room left is the sandbox's own (the sentry's heap, the stubs' page
 * tables, the gofer), so that the guest meets its limit (ENOMEM, ENOSPC,
 * the sentry's OOM monitor) before the host's OOM killer meets the
 * sandbox. */
uint64_t sandbox_guest_memory(uint64_t cgroup_limit);

/* Join the network namespace at path (a file of `ip netns` or
 * /proc/PID/ns/net); what names the path in messages: "--netns", ... */
int sandbox_join_netns(const char *path, const char *what, struct rung_error *err);

/* Build the sandbox: gofer, kernel, filesystems, then confinement. */
int sandbox_setup(const struct sandbox_config *cfg, struct sandbox **out, struct rung_error *err);
/* Host signals for the guest (a thread of their own; the caller blocks them
 * first): on a terminal, SIGINT, SIGQUIT and SIGTSTP go to the guest's
 * foreground job; else, and SIGTERM and SIGHUP always, end the sandbox
 * with 128+sig. */
int sandbox_forward_signals(struct sandbox *sb, struct rung_error *err);
/* Wait until every guest task is gone; tear down; the exit status. */
int sandbox_wait(struct sandbox *sb);
/* Tear down a sandbox whose init never started. */
void sandbox_destroy(struct sandbox *sb);

/* The signals sandbox_forward_signals takes (blocked by the caller first,
 * with SIGCHLD, before any thread exists). */
void sandbox_block_signals(void);

#endif
