/* Files of anonymous shared memory (memfd.h). */
#include "config.h"
#include "sentry/fs/memfd.h"
#include "sentry/fs/file.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/kernel/kernel.h"
#include "sentry/vfs/vfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

/* The tmpfs every memfd lives on (Linux's shm_mnt), made on first use. */
static struct mount *memfd_mount(struct kernel *k)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct mount *mnt;
	struct mount *m;

	pthread_mutex_lock(&lock);
	if (!mnt) {
		struct super_block *sb = tmpfs_new(k->mf, 01777, 0, 0);
		mnt = mount_internal(sb);
		sb_put(sb);
	}
	m = mount_get(mnt);
	pthread_mutex_unlock(&lock);
	return m;
}

int memfd_file_new(struct kernel *k, const char *name, uint64_t size, const struct creds *c,
		   struct file **out)
{
	struct inode *root, *inode = NULL;
	struct path p;
	struct file *f = NULL;
	int ret;

	p.mnt = memfd_mount(k);
	root = p.mnt->root->inode;
	ret = root->ops->tmpfile(root, S_IFREG | 0777, c, &inode);
	if (ret) {
		mount_put(p.mnt);
		return ret;
	}
	if (size) {
		struct iattr ia = {.valid = ATTR_SIZE, .size = size};
		ret = inode->ops->setattr(inode, &ia);
	}
	p.dentry = dentry_alloc_anon(p.mnt->root, name, inode);
	if (ret == 0)
		ret = inode->ops->open(inode, p.dentry, O_RDWR, &f);
	if (ret == 0) {
		file_set_path(f, &p);
		f->flags = O_RDWR | KO_LARGEFILE;
		*out = f;
	}
	path_put(&p);
	inode_put(inode);
	return ret;
}
