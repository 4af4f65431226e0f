/* What mount(2) and the fd mount API (sys_fsmount.c) share. */
#ifndef RUNG_SYSCALLS_SYS_MOUNT_H
#define RUNG_SYSCALLS_SYS_MOUNT_H

#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"

/* The caller's mount namespace, if it may change it (CAP_SYS_ADMIN in the
 * user namespace that owns it); else NULL and *err set. */
struct mnt_namespace *may_mount(struct task *t, long *err);
/* MS_* per-mount flags to MNT_*. */
unsigned mnt_flags_of(unsigned long ms);
/* Is fstype one mount_new_fs makes? */
bool mount_fs_type_known(const char *fstype);
/* A new superblock of fstype with options data (a comma-separated list,
 * changed in place); *opts the text /proc/mounts shows for them, or NULL.
 * -ENODEV for a type the sandbox does not have (every block-device
 * filesystem among them). */
long mount_new_fs(struct task *t, const char *fstype, char *data, struct super_block **sb,
		  char **opts);
/* The same for "overlay" (mount_overlay.c). */
long mount_overlay_new(struct task *t, char *data, struct super_block **sb, char **opts);

#endif
