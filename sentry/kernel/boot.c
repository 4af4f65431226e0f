/*
 * The guest's filesystem tree at boot: the root, then /dev, /proc, /sys
 * and the rest mounted on it.
 */
#include "config.h"
#include "sentry/kernel/kernel.h"
#include "sentry/fs/devfs.h"
#include "sentry/fs/tmpfs.h"
#include "lib/error.h"

int kernel_boot_empty_root(struct kernel *k, struct rung_error *err)
{
	struct super_block *root = tmpfs_new(k->mf, 0755, 0, 0), *dev;
	int ret;

	k->host_exec = true;
	kernel_set_root(k, root, 0, "rootfs");
	sb_put(root);
	dev = devfs_new(k->mf);
	ret = kernel_mount(k, "/dev", dev, 0, "devfs", err);
	sb_put(dev);
	if (ret < 0)
		return ret;
	dev = tmpfs_new(k->mf, 01777, 0, 0);
	ret = kernel_mount(k, "/tmp", dev, 0, "tmpfs", err);
	sb_put(dev);
	return ret;
}
