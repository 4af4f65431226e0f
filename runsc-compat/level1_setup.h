/*
 * The pieces of a level-1 container's setup (level1.h), one file per
 * concern: namespaces (level1_ns.c), the root file system (level1_rootfs.c),
 * devices (level1_dev.c), the process's credentials and limits
 * (level1_process.c), seccomp (level1_seccomp.c). They run in the
 * container's init, or in a process joining it (exec), before execve: each
 * returns < 0 with err filled, and the caller reports and exits.
 */
#ifndef RUNG_LEVEL1_SETUP_H
#define RUNG_LEVEL1_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rung_error;
struct oci_spec;
struct oci_process;

/* What the init (level1_create.c) is given across clone. */
struct level1_init_args {
	const struct oci_spec *spec;
	const char *bundle;
	int ready_fd, go_fd, console_fd;
	int fifo_fd;	    /* park on it until start; -1: run at once (rung do) */
	const char *cgroup; /* join it first; NULL: none (rung do) */
	int preserve_fds;   /* fds 3... that the workload keeps */
	bool do_mode;	    /* rung do: keep signal dispositions, die with the caller */
	bool overlay;	    /* rung do: an in-memory overlay over the root */
	bool lo_up;	    /* bring up the loopback of the new network namespace */
	bool close_stdio[3];
};

/* The clone entry of a container's init; never returns. */
int level1_init(void *args);
/* Clone the init with a's spec's namespaces; its pid in *pid. */
int level1_clone(struct level1_init_args *a, pid_t *pid, struct rung_error *err);

/* --- namespaces (level1_ns.c) -------------------------------------------------- */

/* The clone flags for the spec's namespaces (refusing those level 1 lacks).
 * A cgroup namespace is not among them: level1_unshare_late makes it once
 * the init is in its cgroup. */
int level1_clone_flags(const struct oci_spec *spec, int *flags, struct rung_error *err);
/* Join a network namespace named by path; unshare the cgroup namespace. */
int level1_join_late(const struct oci_spec *spec, struct rung_error *err);
/* Bring up lo in a new network namespace. */
int level1_lo_up(struct rung_error *err);
/* The spec's hostname (needs a UTS namespace). */
int level1_hostname(const struct oci_spec *spec, struct rung_error *err);

/* --- the root file system (level1_rootfs.c) ------------------------------------ */

/* An O_PATH descriptor of path inside the tree rooted at rootfd (symlinks
 * stay inside it). create: 0 (must exist), S_IFDIR or S_IFREG (made, with
 * missing parents, when absent). */
int level1_open_in_root(int rootfd, const char *path, mode_t create, struct rung_error *err);
/* Build the root: private propagation, the rootfs (or an overlay over it),
 * the spec's mounts and devices, the device cgroup (not for rung do, which
 * has no cgroup of its own), then pivot_root into it.
 * *dev_rules tells whether a device cgroup confines the container. */
int level1_rootfs_setup(const struct level1_init_args *a, bool *dev_rules, struct rung_error *err);
/* After pivot_root: sysctl, readonlyPaths, maskedPaths, the cwd, a
 * read-only root. */
int level1_rootfs_finish(const struct oci_spec *spec, struct rung_error *err);

/* --- devices (level1_dev.c) -------------------------------------------------------- */

/* The default devices, linux.devices and /dev's links in the tree at rootfd. */
int level1_dev_populate(int rootfd, const struct oci_spec *spec, struct rung_error *err);
/* The device cgroup rules (v1): deny all, the spec's rules, the defaults.
 * *enforced false when the host has no device cgroup for us. */
int level1_dev_cgroup(const struct oci_spec *spec, bool *enforced, struct rung_error *err);

/* --- the process (level1_process.c) ------------------------------------------------ */

/* A new pty from the container's /dev/ptmx: master sent over console_fd,
 * slave our stdio and controlling terminal (and with dev_console, bound
 * on /dev/console where /dev can have it). */
int level1_console(int console_fd, const struct oci_process *p, bool dev_console,
		   struct rung_error *err);
/* /proc/self/oom_score_adj from process.oomScoreAdj. */
int level1_oom_score(const struct oci_process *p, struct rung_error *err);
/* Everything between the set-up process and execve: a session keyring of
 * its own, rlimits, the seccomp
 * filter (before the credentials unless noNewPrivileges), groups, gid, uid,
 * capabilities (without CAP_MKNOD when no device cgroup confines us),
 * no_new_privs, cwd. filter may be NULL. */
int level1_finalize(const struct oci_process *p, void *filter, bool drop_mknod,
		    struct rung_error *err);
/* The program p->args[0] names, looked up in p's PATH (malloc'd); runc's
 * words when it is missing or not executable. */
int level1_find_program(const struct oci_process *p, char **path, struct rung_error *err);
/* Signals back to their defaults, none blocked. */
void level1_reset_signals(void);
/* execve path with p's args and env; on failure say why on stderr and exit
 * 127 (not found) or 126. */
__attribute__((noreturn)) void level1_execve(const char *path, const struct oci_process *p);

/* --- seccomp (level1_seccomp.c) ------------------------------------------------------ */

/* Compile linux.seccomp (its JSON) into a libseccomp filter, not loaded. */
int level1_seccomp_compile(const char *json, void **filter, struct rung_error *err);
int level1_seccomp_load(void *filter, struct rung_error *err);
void level1_seccomp_release(void *filter);

#endif
