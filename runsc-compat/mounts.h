/*
 * A spec's mounts (config.json `mounts`, or `rung do -v/--tmpfs`) as the
 * sandbox makes them: checked and planned before anything starts (every
 * option rung does not honour is refused with an error that names the
 * mount), the bind mounts' sources handed to the gofer, then mounted in the
 * guest's tree once the kernel has booted.
 */
#ifndef RUNG_MOUNTS_H
#define RUNG_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;
struct kernel;
struct oci_mount;
struct gofer_bind;
struct gofer_client;

enum mount_kind {
	MOUNT_SKIP,  /* the sandbox's own already (/proc, /sys, /dev, /dev/pts) */
	MOUNT_BIND,  /* a host file or directory through the gofer */
	MOUNT_TMPFS, /* tmpfs, shm */
	MOUNT_PROC,  /* another procfs (elsewhere than /proc) */
	MOUNT_SYSFS, /* another sysfs (elsewhere than /sys) */
	MOUNT_EMPTY, /* mqueue, cgroup: an empty tmpfs (read-only for cgroup) */
};

struct mount_item {
	enum mount_kind kind;
	const char *destination;
	const char *type; /* for messages and /proc/mounts */
	unsigned flags;	  /* MNT_* */
	/* tmpfs */
	uint32_t mode, uid, gid;
	uint64_t size; /* 0: no limit */
	/* bind: the gofer's tree number (1...) */
	uint32_t tree;
};

struct mount_plan {
	struct mount_item *items;
	size_t n;
	struct gofer_bind *binds; /* for the gofer: items of kind MOUNT_BIND, in tree order */
	unsigned nbinds;
};

/* Check and plan mounts[0..n) (bind sources must be absolute). */
int mounts_plan(const struct oci_mount *mounts, size_t n, struct mount_plan *out,
		struct rung_error *err);
/* Make the plan's mounts in k's tree; c serves the bind mounts (NULL when
 * there are none), donate as for the rootfs. */
int mounts_apply(struct kernel *k, const struct mount_plan *plan, struct gofer_client *c,
		 bool donate, struct rung_error *err);
void mounts_plan_free(struct mount_plan *plan);

#endif
