/*
 * Mounts made while the sandbox is built (before any guest code runs): a
 * filesystem on a guest path, a bind of part of the guest's tree onto
 * itself read-only, and masking (OCI maskedPaths / readonlyPaths); and
 * reading a guest file the sandbox's set-up needs (/etc/resolv.conf), in
 * the guest's own view of its tree.
 *
 * Guest paths are resolved here without a task, as root, from the guest's
 * root: symlinks are followed inside the guest's tree (an absolute target
 * starts again at the guest's root, ".." never climbs above it), mounts are
 * stepped onto, and missing mountpoints are made (directories, or an empty
 * file for a filesystem whose root is one), as runc makes them in a rootfs.
 */
#include "config.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/creds.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/file.h"
#include "sentry/fs/tmpfs.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a missing last component becomes. */
enum make_last {
	MAKE_NOTHING, /* it must exist (-ENOENT) */
	MAKE_DIR,
	MAKE_FILE,
};

/* Find name under p (a directory), making it (as root) when missing and
 * make says so; *out is referenced. */
static int child(struct path *p, const char *name, enum make_last make, struct dentry **out)
{
	struct inode *dir = p->dentry->inode, *inode = NULL;
	struct file *f = NULL;
	struct dentry *d;
	struct creds root;
	int ret;

	creds_init(&root, 0, 0);
	pthread_mutex_lock(&dir->dir_lock);
	ret = vfs_lookup_child_locked(p, name, &d);
	if (ret == 0 && !d->inode) {
		dentry_put(d);
		d = NULL;
		if (make == MAKE_NOTHING)
			ret = -ENOENT;
		else
			ret = vfs_prepare_change(p->dentry);
		if (ret == 0 && make == MAKE_DIR)
			ret = dir->ops->mkdir
				      ? dir->ops->mkdir(dir, name, S_IFDIR | 0755, &root, &inode)
				      : -EROFS;
		else if (ret == 0)
			ret = dir->ops->create ? dir->ops->create(dir, name, S_IFREG | 0644, &root,
								  O_RDONLY, &inode, &f)
					       : -EROFS;
		if (f)
			file_put(f);
		if (ret == 0) {
			d = dentry_add(p->dentry, name, inode);
			inode_put(inode);
		}
	}
	pthread_mutex_unlock(&dir->dir_lock);
	if (ret == 0)
		*out = d;
	return ret;
}

/* Step onto whatever is mounted on p (the most recent mount on top). */
static void onto_mounts(struct path *p)
{
	struct mount *m;

	while (p->dentry->nmounts && (m = mount_lookup(p->mnt, p->dentry))) {
		path_put(p);
		p->mnt = m;
		p->dentry = dentry_get(m->root);
	}
}

/* path made absolute and clean in buf: no "", "." or ".." components
 * (".." of the root is the root). */
static void clean(const char *path, char *buf)
{
	char *copy = xstrdup(path), *save = NULL, *name;
	size_t len = 0;

	for (name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			while (len > 0 && buf[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash */
			continue;
		}
		buf[len++] = '/';
		memcpy(buf + len, name, strlen(name));
		len += strlen(name);
	}
	buf[len] = '\0';
	free(copy);
}

/*
 * Resolve the guest path from the guest's root (see the top of the file);
 * make the last component as make says when it is missing. *out has
 * references.
 */
static int resolve(struct kernel *k, const char *path, enum make_last make, struct path *out)
{
	char *work = xmalloc(VFS_PATH_MAX * 2), *target = xmalloc(VFS_PATH_MAX);
	unsigned links = 0;
	struct path p = {0};
	int ret;

	if (strlen(path) >= VFS_PATH_MAX) {
		ret = -ENAMETOOLONG;
		goto out;
	}
	clean(path, work);
restart:
	p = k->root;
	path_get(&p);
	onto_mounts(&p);
	for (char *s = work; *s;) {
		char *e = strchr(s + 1, '/');
		size_t len = e ? (size_t)(e - s - 1) : strlen(s + 1);
		char name[VFS_NAME_MAX + 1];
		struct dentry *d;
		struct inode *i;
		long n;

		if (len > VFS_NAME_MAX) {
			ret = -ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, s + 1, len);
		name[len] = '\0';
		if (!p.dentry->inode || !S_ISDIR(p.dentry->inode->mode)) {
			ret = -ENOTDIR;
			goto fail;
		}
		/* Directories on the way are made only when the last one may be. */
		ret = child(&p, name, e && make != MAKE_NOTHING ? MAKE_DIR : make, &d);
		if (ret)
			goto fail;
		dentry_put(p.dentry);
		p.dentry = d;
		onto_mounts(&p);
		i = p.dentry->inode;
		if (!S_ISLNK(i->mode)) {
			s = e ? e : s + 1 + len;
			continue;
		}
		/* A symlink: splice its target in and start again from the root. */
		if (++links > VFS_MAXSYMLINKS || i->ops->get_link || !i->ops->readlink) {
			ret = -ELOOP;
			goto fail;
		}
		n = i->ops->readlink(i, target, VFS_PATH_MAX - 1);
		if (n <= 0 || n >= VFS_PATH_MAX - 1) {
			ret = n < 0 ? (int)n : n == 0 ? -ENOENT : -ENAMETOOLONG;
			goto fail;
		}
		target[n] = '\0';
		{
			char *joined = xmalloc(VFS_PATH_MAX * 3);
			size_t dirlen = (size_t)(s - work);

			/* (directory of the link)/target/(rest), or target/(rest). */
			if (target[0] == '/')
				snprintf(joined, VFS_PATH_MAX * 3, "%s%s", target, e ? e : "");
			else
				snprintf(joined, VFS_PATH_MAX * 3, "%.*s/%s%s", (int)dirlen, work,
					 target, e ? e : "");
			if (strlen(joined) >= VFS_PATH_MAX) {
				free(joined);
				ret = -ENAMETOOLONG;
				goto fail;
			}
			clean(joined, work);
			free(joined);
		}
		path_put(&p);
		goto restart;
	}
	*out = p;
	ret = 0;
	goto out;
fail:
	path_put(&p);
out:
	free(work);
	free(target);
	return ret;
}

int kernel_mount(struct kernel *k, const char *path, struct super_block *sb, unsigned flags,
		 const char *source, struct rung_error *err)
{
	return kernel_mount_root(k, path, sb->root, flags, source, err);
}

int kernel_mount_root(struct kernel *k, const char *path, struct dentry *root, unsigned flags,
		      const char *source, struct rung_error *err)
{
	bool dir = root->inode && S_ISDIR(root->inode->mode);
	struct path p;
	int ret = resolve(k, path, dir ? MAKE_DIR : MAKE_FILE, &p);

	if (ret == 0) {
		ret = mount_attach_root(k->mntns, &p, root, flags, source);
		path_put(&p);
	}
	if (ret < 0)
		return rung_error_make(err, -ret, "mount %s on `%s`", root->sb->fstype, path);
	return 0;
}

int kernel_make_dir(struct kernel *k, const char *path)
{
	struct path p;
	int ret = resolve(k, path, MAKE_DIR, &p);

	if (ret == 0) {
		ret = S_ISDIR(p.dentry->inode->mode) ? 0 : -ENOTDIR;
		path_put(&p);
	}
	return ret;
}

int kernel_remount_readonly(struct kernel *k, const char *path, struct rung_error *err)
{
	struct path p;
	int ret = resolve(k, path, MAKE_NOTHING, &p);

	if (ret == -ENOENT)
		return 0; /* nothing there to protect (runc skips it too) */
	if (ret == 0) {
		ret = mount_attach_root(k->mntns, &p, p.dentry,
					(p.mnt->flags & ~MNT_INTERNAL) | MNT_RDONLY, p.mnt->source);
		path_put(&p);
	}
	if (ret < 0)
		return rung_error_make(err, -ret, "make `%s` read-only", path);
	return 0;
}

/* An empty, read-only stand-in for a masked path: a directory, or a
 * /dev/null (reads nothing, takes writes) for anything else. */
static int mask_root(struct kernel *k, bool dir, struct super_block **sb, struct dentry **root)
{
	struct inode *i = NULL;
	struct creds rootc;
	int ret;

	*sb = tmpfs_new(k->mf, 0755, 0, 0);
	if (dir) {
		*root = dentry_get((*sb)->root);
		return 0;
	}
	creds_init(&rootc, 0, 0);
	ret = (*sb)->root->inode->ops->mknod((*sb)->root->inode, "null", S_IFCHR | 0666,
					     DEV_MEM_NULL, &rootc, &i);
	if (ret == 0) {
		*root = dentry_add((*sb)->root, "null", i);
		inode_put(i);
	} else {
		sb_put(*sb);
	}
	return ret;
}

int kernel_mask_path(struct kernel *k, const char *path, struct rung_error *err)
{
	struct super_block *sb = NULL;
	struct dentry *root = NULL;
	struct path p;
	int ret = resolve(k, path, MAKE_NOTHING, &p);

	if (ret == -ENOENT)
		return 0; /* nothing to hide (runc skips it too) */
	if (ret == 0) {
		bool dir = S_ISDIR(p.dentry->inode->mode);

		ret = mask_root(k, dir, &sb, &root);
		/* (A masking /dev/null must stay a device that opens.) */
		if (ret == 0) {
			ret = mount_attach_root(k->mntns, &p, root,
						MNT_RDONLY | MNT_NOSUID | MNT_NOEXEC |
							(dir ? MNT_NODEV : 0),
						"tmpfs");
			dentry_put(root);
			sb_put(sb);
		}
		path_put(&p);
	}
	if (ret < 0)
		return rung_error_make(err, -ret, "mask `%s`", path);
	return 0;
}

static bool holds_data(const struct super_block *sb)
{
	return sb->magic == V9FS_MAGIC || sb->magic == TMPFS_MAGIC ||
	       sb->magic == OVERLAYFS_SUPER_MAGIC;
}

long kernel_read_file(struct kernel *k, const char *path, char *buf, size_t size)
{
	struct file *f = NULL;
	struct path p;
	int64_t pos = 0;
	size_t total = 0;
	int ret = resolve(k, path, MAKE_NOTHING, &p);

	if (ret < 0)
		return ret;
	/* A regular file that holds data only: a fifo would block, a device
	 * never end, and /proc's and /sys's files need a running sandbox. */
	if (!S_ISREG(p.dentry->inode->mode) || !holds_data(p.dentry->inode->sb))
		ret = -EINVAL;
	else if (!p.dentry->inode->ops->open)
		ret = -ENXIO;
	else
		ret = p.dentry->inode->ops->open(p.dentry->inode, p.dentry, O_RDONLY, &f);
	while (ret == 0 && total < size) {
		long n = f->ops->read ? f->ops->read(f, buf + total, size - total, &pos) : -EINVAL;

		if (n < 0)
			ret = (int)n;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	if (f)
		file_put(f);
	path_put(&p);
	return ret < 0 ? ret : (long)total;
}
