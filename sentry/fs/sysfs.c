/*
 * A minimal /sys: what runtimes read to size themselves (the CPUs the
 * sandbox has). A tmpfs filled at boot, mounted read-only.
 */
#include "config.h"
#include "sentry/fs/sysfs.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/creds.h"
#include "lib/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static struct inode *mkdir_in(struct inode *dir, const char *name, const struct creds *c)
{
	struct inode *i = NULL;

	if (dir->ops->lookup(dir, name, &i) == 0)
		return i;
	if (dir->ops->mkdir(dir, name, S_IFDIR | 0755, c, &i) < 0)
		return NULL;
	return i;
}

static void file_in(struct inode *dir, const char *name, const char *text, const struct creds *c)
{
	struct inode *i = NULL;
	struct file *f = NULL;
	int64_t pos = 0;

	if (dir->ops->create(dir, name, S_IFREG | 0444, c, O_WRONLY, &i, &f) < 0)
		return;
	if (i->ops->open(i, NULL, O_WRONLY, &f) == 0) {
		f->ops->write(f, text, strlen(text), &pos);
		file_put(f);
	}
	inode_put(i);
}

struct super_block *sysfs_new(struct memfile *mf, unsigned ncpus)
{
	struct super_block *sb = tmpfs_new(mf, 0555, 0, 0);
	struct inode *d = inode_get(sb->root->inode), *n;
	static const char *const path[] = {"devices", "system", "cpu"};
	char range[32];
	struct creds root;

	creds_init(&root, 0, 0);
	for (size_t i = 0; i < ARRAY_SIZE(path) && d; i++) {
		n = mkdir_in(d, path[i], &root);
		inode_put(d);
		d = n;
	}
	if (!d)
		return sb;
	if (ncpus > 1)
		snprintf(range, sizeof(range), "0-%u\n", ncpus - 1);
	else
		snprintf(range, sizeof(range), "0\n");
	file_in(d, "online", range, &root);
	file_in(d, "possible", range, &root);
	file_in(d, "present", range, &root);
	inode_put(d);
	return sb;
}
