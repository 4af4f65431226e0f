/* nsfs (nsfs.h). */
#include "config.h"
#include "sentry/fs/nsfs.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define NSFS_MAGIC 0x6e736673

static struct super_block *nsfs;
static struct mount *nsfs_mnt;
static pthread_once_t nsfs_once = PTHREAD_ONCE_INIT;

/* Nothing can be read or written: only setns and stat use the file. */
static const struct file_ops nsfs_file_ops = {0};

static int nsfs_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	*out = file_alloc(&nsfs_file_ops, flags, inode->priv);
	return 0;
}

static void nsfs_evict(struct inode *inode)
{
	struct ns_ref *r = inode->priv;

	if (r) {
		ns_ref_put(r);
		free(r);
	}
}

static const struct inode_ops nsfs_inode_ops = {
	.open = nsfs_open,
	.evict = nsfs_evict,
};
static const struct inode_ops nsfs_root_ops = {0};

static void nsfs_init(void)
{
	struct inode *root;

	nsfs = sb_new(NULL, "nsfs", NSFS_MAGIC);
	root = inode_new(nsfs, &nsfs_root_ops, S_IFDIR | 0500);
	nsfs->root = dentry_make_root(nsfs, root);
	inode_put(root);
	nsfs_mnt = mount_internal(nsfs);
}

int nsfs_path(struct task *t, const char *name, struct path *out)
{
	struct ns_ref *r = xzalloc(sizeof(*r));
	struct inode *inode;
	char text[48];
	int ret = task_ns_ref(t, name, r);

	if (ret < 0) {
		free(r);
		return ret;
	}
	pthread_once(&nsfs_once, nsfs_init);
	inode = inode_new(nsfs, &nsfs_inode_ops, S_IFREG | 0444);
	inode->ino = r->ino;
	inode->nlink = 1;
	inode->priv = r;
	snprintf(text, sizeof(text), "%s:[%llu]", name, (unsigned long long)r->ino);
	out->mnt = mount_get(nsfs_mnt);
	out->dentry = dentry_alloc_anon(nsfs->root, text, inode);
	inode_put(inode);
	return 0;
}

const struct ns_ref *nsfs_file_ns(struct file *f)
{
	return f->ops == &nsfs_file_ops ? f->priv : NULL;
}
