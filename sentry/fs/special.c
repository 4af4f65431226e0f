/*
 * Opening special files found in any filesystem: character devices by
 * device number (the sandbox's own implementations, never the host's),
 * fifos, sockets.
 */
#include "config.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/file.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/pipe.h"

#include <errno.h>
#include <sys/stat.h>

int special_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	switch (inode->mode & S_IFMT) {
	case S_IFCHR:
		return chrdev_open(inode, flags, out);
	case S_IFIFO:
		return fifo_open(inode, flags, out);
	case S_IFSOCK:
		return -ENXIO; /* a socket file is connected to, not opened */
	default:
		return -ENXIO; /* block devices: none in a sandbox */
	}
}
