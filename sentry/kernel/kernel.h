/*
 * The kernel object of one sandbox: everything the sentry owns hangs off it
 * (memory file, platform, tasks), so that the whole guest can be torn down,
 * and later checkpointed, from one place.
 */
#ifndef RUNG_KERNEL_H
#define RUNG_KERNEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sentry/vfs/vfs.h"
#include "sentry/kernel/sysctl.h"
#include "lib/list.h"

struct kernel;
struct rung_error;
struct memfile;
struct thread_group;
struct platform;
struct vdso;
struct platform_ops;
struct task;
struct ktimer_base;
struct timers_kernel;
struct unix_net;
struct net_state;
struct oom_monitor;

/* The pid namespace's pid_max (also /proc/sys/kernel/pid_max). */
#define KERNEL_PID_MAX 4194304
/* Tasks a sandbox may run at once unless configured otherwise. */
#define KERNEL_DEFAULT_TASK_LIMIT 4096

struct kernel_config {
	const struct platform_ops *platform;
	unsigned task_limit; /* 0: KERNEL_DEFAULT_TASK_LIMIT */
	/* pid 1 ignores the signals it does not handle, as a container's init
	 * in its pid namespace does (OCI containers); rung do's program is an
	 * ordinary process to the signals it gets. */
	bool init_unkillable;
	bool strace;
	uint64_t memory_limit; /* guest memory, bytes */
	int host_init_fd;      /* host_exec: the init program, opened before confinement */
	/* The init's parent is a job-control shell outside (rung do on a
	 * terminal): the init's process group is not orphaned, and this is
	 * called (k->lock held) when the init stops (CLD_STOPPED, by sig) or
	 * continues (CLD_CONTINUED). NULL: the init has no such parent. */
	void (*init_job_stop)(struct kernel *k, int why, int sig);
};

struct kernel {
	struct kernel_config cfg;
	struct memfile *mf;
	struct platform *plat;
	struct vdso *vdso; /* NULL: guests get none (RUNG_VDSO=0) */
	uint64_t boot_ns;  /* CLOCK_MONOTONIC at creation */
	unsigned ncpus;	   /* CPUs the guest is told about */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mnt_namespace *mntns;
	/* The initial namespaces' nsproxy (sentry/kernel/nsproxy.c), made on
	 * first use under lock; user namespaces made (max_user_namespaces). */
	struct nsproxy *init_nsproxy;
	unsigned nr_user_ns;
	struct path root; /* the guest's "/" */
	/* The init program is a host path read by the sentry itself (no rootfs
	 * configured: the issue-2 mode, for static test programs). */
	bool host_exec;
	struct task *init;
	struct thread_group *init_tg; /* pid 1: when it dies, everything dies */
	struct list_head tasks;	      /* every live task, under lock */
	struct list_head groups;      /* every thread group not yet reaped */
	int next_tid;
	unsigned live_tasks;
	unsigned task_limit; /* tasks the sandbox may have at once (fork bombs get EAGAIN) */
	int live_threads;    /* sentry task threads still running (atomic) */
	bool exiting;	     /* the sandbox is going down */
	bool done;	     /* every task thread is gone */
	int exit_status;     /* the sandbox's exit status, 0-255 */

	/* Timers (sentry/kernel/ktimer.c) and the sandbox-wide state of process
	 * timers (sentry/kernel/timers.c): made on first use, under lock. */
	struct ktimer_base *ktimers;
	struct timers_kernel *timers;
	/* Queued signals per user (struct sig_ucount, sentry/kernel/signal.c). */
	struct list_head sig_ucounts;
	/* The UTS namespace's names (uname, sethostname). */
	char hostname[65], domainname[65];
	/* Network sysctls (set before the guest runs; read-only after). */
	struct net_sysctl net_sysctl;

	/* System V IPC: the one IPC namespace (sentry/ipc/), made on first use. */
	struct ipc_ns *ipc;
	/* The key table (sentry/kernel/keys.c), made on first use. */
	struct keys_table *keys;
	/* Unix socket names and state (sentry/net/unix.c), made on first use. */
	struct unix_net *unix_net;
	/* The network mode, configuration and egress policy (sentry/net/net.h);
	 * NULL until net_setup (unit tests: no AF_INET/AF_INET6). */
	struct net_state *net;

	/* The out-of-memory monitor (sentry/kernel/oom.c), from the init's start. */
	struct oom_monitor *oom;

	/* One "unsupported syscall" event per number per sandbox. */
	uint64_t unsupported_seen[(1024 + 63) / 64];
};

int kernel_create(const struct kernel_config *cfg, struct kernel **out, struct rung_error *err);
void kernel_destroy(struct kernel *k);

/* No root filesystem to serve: an empty tmpfs root with /dev and /tmp, and
 * the init program read from a host path (sentry/kernel/boot.c). */
int kernel_boot_empty_root(struct kernel *k, struct rung_error *err);
/* The rootfs the gofer serves (a reference on client c, owned from here on)
 * as "/", with /proc, /dev and /sys mounted on it. donate: file data through
 * donated fds; overlay: under a tmpfs that takes every write (the rootfs
 * stays as it is); read_only: the root mount refuses writes (EROFS). */
struct gofer_client;
int kernel_boot_gofer_root(struct kernel *k, struct gofer_client *c, bool donate, bool overlay,
			   bool read_only, struct rung_error *err);
/* Mount the sandbox's /proc, /dev and /sys on the root. */
int kernel_mount_system(struct kernel *k, struct rung_error *err);

/* Make sb (with flags MNT_*) the guest's root filesystem. */
void kernel_set_root(struct kernel *k, struct super_block *sb, unsigned flags, const char *source);
/*
 * Mounts while the sandbox is built (sentry/kernel/mounts.c). Guest paths
 * are resolved as root from the guest's root, symlinks followed inside the
 * guest's tree.
 *
 * kernel_mount: sb at path, which is made when missing (a directory, or an
 * empty file when sb's root is not a directory). kernel_mount_root: the
 * same for the subtree at root (a bind mount). kernel_remount_readonly:
 * path bound onto itself read-only (OCI readonlyPaths). kernel_mask_path:
 * an empty read-only directory, or a /dev/null, over path (OCI
 * maskedPaths). The last two do nothing where path does not exist.
 */
int kernel_mount(struct kernel *k, const char *path, struct super_block *sb, unsigned flags,
		 const char *source, struct rung_error *err);
int kernel_mount_root(struct kernel *k, const char *path, struct dentry *root, unsigned flags,
		      const char *source, struct rung_error *err);
int kernel_remount_readonly(struct kernel *k, const char *path, struct rung_error *err);
int kernel_mask_path(struct kernel *k, const char *path, struct rung_error *err);
/* Make the directory path and its parents (as root, whatever the mounts'
 * flags: a container's cwd on a read-only root, as runc makes it). */
int kernel_make_dir(struct kernel *k, const char *path);
/* Read up to size bytes of the regular file at the guest path (resolved
 * as above, nothing made), as the guest would see it: the count, or
 * -errno (-EINVAL for anything but a regular file of the rootfs, an
 * overlay or a tmpfs). */
long kernel_read_file(struct kernel *k, const char *path, char *buf, size_t size);

/* The sandbox's hostname (at most 64 bytes are kept). */
void kernel_set_hostname(struct kernel *k, const char *name);
/* The tasks the sandbox may have at once from now on (0: the default);
 * tasks beyond it are not killed, new ones get EAGAIN. */
void kernel_set_task_limit(struct kernel *k, unsigned limit);
/* The guest's memory limit from now on (0: the host's RAM); what it holds
 * beyond it is not taken away, it gets no more (and the OOM monitor ends
 * processes until it is under). Address spaces made from now on commit
 * against it. */
void kernel_set_memory_limit(struct kernel *k, uint64_t bytes);

/* Wait until every task has exited; returns the sandbox's exit status. */
int kernel_wait(struct kernel *k);

/* End the sandbox: every task dies, the status is 128 + sig (host signals). */
void kernel_kill(struct kernel *k, int sig);

/* A task's sentry thread is about to end (the last one wakes kernel_wait). */
void kernel_thread_done(struct kernel *k);

/* The task with this (virtual) id, with a reference, or NULL. */
struct task *kernel_find_task(struct kernel *k, int tid);
/* The same under k->lock, without a reference. */
struct task *kernel_find_task_locked(struct kernel *k, int tid);
/* A free process id (tids, tgids, groups and sessions in use are skipped),
 * or -EAGAIN. Under k->lock. */
int kernel_alloc_id_locked(struct kernel *k);
/* A live thread of process tgid (its first thread while it lives), with a
 * reference, or NULL. */
struct task *kernel_find_process(struct kernel *k, int tgid);
/* Sorted ids (malloc'd into *ids, *n of them): processes with live threads
 * and zombies, the threads of tgid, the children of tgid. */
void kernel_process_ids(struct kernel *k, int **ids, size_t *n);
void kernel_thread_ids(struct kernel *k, int tgid, int **ids, size_t *n);
void kernel_child_ids(struct kernel *k, int tgid, int **ids, size_t *n);
/* Call fn for each live task under the kernel lock (fn must not block). */
void kernel_for_each_task(struct kernel *k, void (*fn)(struct task *t, void *arg), void *arg);

/* Log the first use of an unsupported syscall nr (returns true the first time). */
bool kernel_note_unsupported(struct kernel *k, unsigned nr);

#endif
