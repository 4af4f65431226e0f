/*
 * /dev: a tmpfs populated like a container runtime's: the memory devices,
 * tty and console, the stdio and fd links into /proc, ptmx (a link into
 * devpts, mounted on pts/ by kernel_mount_system), and an empty shm/
 * (sticky, world-writable) for POSIX shared memory.
 */
#include "config.h"
#include "sentry/fs/devfs.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/kernel/creds.h"
#include "lib/util.h"

#include <sys/stat.h>

static void node(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		 const struct creds *c)
{
	struct inode *i = NULL;

	if (dir->ops->mknod(dir, name, mode, rdev, c, &i) == 0)
		inode_put(i);
}

static void link_to(struct inode *dir, const char *name, const char *target, const struct creds *c)
{
	struct inode *i = NULL;

	if (dir->ops->symlink(dir, name, target, c, &i) == 0)
		inode_put(i);
}

static void subdir(struct inode *dir, const char *name, uint32_t mode, const struct creds *c)
{
	struct inode *i = NULL;

	if (dir->ops->mkdir(dir, name, S_IFDIR | mode, c, &i) == 0) {
		/* mkdir applies no umask here: set the exact mode. */
		struct iattr a = {.valid = ATTR_MODE, .mode = mode};
		i->ops->setattr(i, &a);
		inode_put(i);
	}
}

struct super_block *devfs_new(struct memfile *mf)
{
	struct super_block *sb = tmpfs_new(mf, 0755, 0, 0);
	struct inode *dir = sb->root->inode;
	struct creds root;

	creds_init(&root, 0, 0);
	node(dir, "null", S_IFCHR | 0666, DEV_MEM_NULL, &root);
	node(dir, "zero", S_IFCHR | 0666, DEV_MEM_ZERO, &root);
	node(dir, "full", S_IFCHR | 0666, DEV_MEM_FULL, &root);
	node(dir, "random", S_IFCHR | 0666, DEV_MEM_RANDOM, &root);
	node(dir, "urandom", S_IFCHR | 0666, DEV_MEM_URANDOM, &root);
	node(dir, "tty", S_IFCHR | 0666, DEV_TTY, &root);
	node(dir, "console", S_IFCHR | 0620, DEV_CONSOLE, &root);
	link_to(dir, "ptmx", "pts/ptmx", &root);
	link_to(dir, "fd", "/proc/self/fd", &root);
	link_to(dir, "stdin", "/proc/self/fd/0", &root);
	link_to(dir, "stdout", "/proc/self/fd/1", &root);
	link_to(dir, "stderr", "/proc/self/fd/2", &root);
	subdir(dir, "shm", 01777, &root);
	subdir(dir, "pts", 0755, &root);
	return sb;
}
