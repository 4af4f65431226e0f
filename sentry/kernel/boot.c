/*
 * The guest's filesystem tree at boot: the root, then /dev, /proc, /sys
 * and the rest mounted on it.
 */
#include "config.h"
#include "sentry/kernel/kernel.h"
#include "sentry/fs/devfs.h"
#include "sentry/fs/devpts.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/procfs.h"
#include "sentry/fs/sysfs.h"
#include "sentry/fs/goferfs.h"
#include "sentry/fs/overlay.h"
#include "gofer/client.h"
#include "lib/error.h"

/* Mount sb at path and drop the caller's reference. */
static int mount_new(struct kernel *k, const char *path, struct super_block *sb, unsigned flags,
		     const char *source, struct rung_error *err)
{
	int ret = kernel_mount(k, path, sb, flags, source, err);

	sb_put(sb);
	return ret;
}

/* /dev (with /dev/pts), /proc and /sys: the sandbox's own, whatever the
 * rootfs holds there. */
int kernel_mount_system(struct kernel *k, struct rung_error *err)
{
	int ret = mount_new(k, "/proc", procfs_new(k, NULL), MNT_NOSUID | MNT_NODEV | MNT_NOEXEC,
			    "proc", err);

	if (ret == 0)
		ret = mount_new(k, "/dev", devfs_new(k->mf), MNT_NOSUID, "devfs", err);
	if (ret == 0)
		ret = mount_new(k, "/dev/pts", devpts_new(), MNT_NOSUID | MNT_NOEXEC, "devpts",
				err);
	if (ret == 0)
		ret = mount_new(k, "/sys", sysfs_new(k->mf, k->ncpus),
				MNT_RDONLY | MNT_NOSUID | MNT_NODEV | MNT_NOEXEC, "sysfs", err);
	return ret;
}

int kernel_boot_empty_root(struct kernel *k, struct rung_error *err)
{
	struct super_block *root = tmpfs_new(k->mf, 0755, 0, 0);
	int ret;

	k->host_exec = true;
	kernel_set_root(k, root, 0, "rootfs");
	sb_put(root);
	ret = kernel_mount_system(k, err);
	if (ret == 0)
		ret = mount_new(k, "/tmp", tmpfs_new(k->mf, 01777, 0, 0), MNT_NOSUID | MNT_NODEV,
				"tmpfs", err);
	return ret;
}

int kernel_boot_gofer_root(struct kernel *k, struct gofer_client *c, bool donate, bool overlay,
			   bool read_only, struct rung_error *err)
{
	struct super_block *sb, *upper, *ovl;
	int ret = goferfs_new(c, k->mf, donate, true, &sb);

	if (ret < 0) {
		gofer_client_free(c);
		return rung_error_make(err, -ret, "attach to the gofer's root");
	}
	if (overlay) {
		/* Private writes over the read-only rootfs, in the sandbox's memory. */
		upper = tmpfs_new(k->mf, sb->root->inode->mode & 07777, sb->root->inode->uid,
				  sb->root->inode->gid);
		ovl = overlay_new(upper, sb);
		sb_put(upper);
		kernel_set_root(k, ovl, read_only ? MNT_RDONLY : 0, "overlay");
		sb_put(ovl);
	} else {
		kernel_set_root(k, sb, read_only ? MNT_RDONLY : 0, "rootfs");
	}
	sb_put(sb);
	return kernel_mount_system(k, err);
}
