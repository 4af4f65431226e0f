/*
 * Path resolution, as Linux's fs/namei.c does it: component by component
 * from the root or the starting directory, with search permission checked
 * on every directory, ".." stopping at the task's root and climbing out of
 * mounts, mounts followed downwards, and symlinks expanded in place (at most
 * VFS_MAXSYMLINKS of them per resolution).
 */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

struct nameidata {
	struct task *t;
	struct path root;  /* "/" for this resolution */
	struct path cur;   /* where the walk is */
	struct path start; /* the starting directory (LOOKUP_BENEATH) */
	unsigned flags;
	unsigned depth; /* symlinks followed */
	char *work;	/* the rest of the path, VFS_PATH_MAX * 2 bytes */
};

/* Replace nd->cur with p (whose references are handed over). */
static void set_cur(struct nameidata *nd, struct path *p)
{
	path_put(&nd->cur);
	nd->cur = *p;
	p->mnt = NULL;
	p->dentry = NULL;
}

/* Go down through every mount stacked on p. */
static void follow_mounts(struct path *p, unsigned flags, int *err)
{
	struct mount *m;

	while (p->dentry->nmounts && (m = mount_lookup(p->mnt, p->dentry))) {
		if (flags & LOOKUP_NO_XDEV) {
			mount_put(m);
			*err = -EXDEV;
			return;
		}
		path_put(p);
		p->mnt = m;
		p->dentry = dentry_get(m->root);
	}
}

static int follow_dotdot(struct nameidata *nd)
{
	struct path p;

	for (;;) {
		if (path_equal(&nd->cur, &nd->root))
			return 0; /* ".." of the root is the root */
		if ((nd->flags & LOOKUP_BENEATH) && path_equal(&nd->cur, &nd->start))
			return -EXDEV;
		if (nd->cur.dentry != nd->cur.mnt->root)
			break;
		if (!nd->cur.mnt->parent)
			return 0;
		if (nd->flags & LOOKUP_NO_XDEV)
			return -EXDEV;
		/* At the root of a mount: continue from its mountpoint. */
		p.mnt = mount_get(nd->cur.mnt->parent);
		p.dentry = dentry_get(nd->cur.mnt->mountpoint);
		set_cur(nd, &p);
	}
	p.mnt = mount_get(nd->cur.mnt);
	p.dentry = dentry_get_parent(nd->cur.dentry);
	set_cur(nd, &p);
	{
		int err = 0;
		follow_mounts(&nd->cur, nd->flags, &err);
		return err;
	}
}

/* A cached child that is still right, or NULL (a stale one is dropped). */
static struct dentry *cached_child(struct dentry *dir, const char *name)
{
	struct dentry *d = dentry_lookup_cached(dir, name);

	/* A mountpoint stays what it is (something is mounted on it, whatever
	 * the filesystem under it says now), as Linux's d_invalidate leaves it. */
	if (d && !d->sb->cached && !d->nmounts && d->sb->ops->revalidate &&
	    d->sb->ops->revalidate(d) != 0) {
		dentry_delete(d);
		dentry_put(d);
		d = NULL;
	}
	return d;
}

int vfs_lookup_child_locked(const struct path *dir, const char *name, struct dentry **out)
{
	struct inode *dirnode = dir->dentry->inode, *inode = NULL;
	struct dentry *d;
	int ret;

	/* A removed directory has no names, and none can be made in it. */
	if (inode_has(dirnode, I_DEAD))
		return -ENOENT;
	d = cached_child(dir->dentry, name);
	if (!d) {
		if (!dirnode->ops || !dirnode->ops->lookup)
			ret = -ENOENT;
		else
			ret = dirnode->ops->lookup(dirnode, name, &inode);
		if (ret < 0 && ret != -ENOENT)
			return ret;
		d = dentry_add(dir->dentry, name, ret == 0 ? inode : NULL);
		if (inode)
			inode_put(inode);
	}
	*out = d;
	return 0;
}

int vfs_lookup_child(struct task *t, const struct path *dir, const char *name, struct dentry **out)
{
	struct inode *dirnode = dir->dentry->inode;
	struct dentry *d;
	int ret;

	if (inode_has(dirnode, I_DEAD))
		return -ENOENT;
	d = cached_child(dir->dentry, name);
	if (d) {
		*out = d;
		return 0;
	}
	pthread_mutex_lock(&dirnode->dir_lock);
	ret = vfs_lookup_child_locked(dir, name, out);
	pthread_mutex_unlock(&dirnode->dir_lock);
	return ret;
}

/* The starting point of a relative path: the cwd or the directory dirfd. */
static int start_dir(struct task *t, int dirfd, struct path *out)
{
	struct file *f;

	if (dirfd == AT_FDCWD) {
		fs_get_cwd(t->fs, out);
		return 0;
	}
	f = fd_get_raw(t->files, dirfd);
	if (!f)
		return -EBADF;
	if (!f->path.dentry) {
		file_put(f);
		return -ENOTDIR;
	}
	*out = f->path;
	path_get(out);
	file_put(f);
	return 0;
}

/* Follow the symlink at link: splice its target in front of the rest. */
static int follow_symlink(struct nameidata *nd, struct path *link, const char *rest,
			  bool trailing_slash)
{
	struct inode *inode = link->dentry->inode;
	char *target;
	long len;
	size_t restlen = strlen(rest);

	if (nd->flags & LOOKUP_NO_SYMLINKS)
		return -ELOOP;
	if (++nd->depth > VFS_MAXSYMLINKS)
		return -ELOOP;
	if (inode->ops->get_link) {
		/* A magic link: jump to the file itself. */
		struct path p;
		int ret;
		if (nd->flags & (LOOKUP_NO_MAGICLINKS | LOOKUP_BENEATH | LOOKUP_IN_ROOT))
			return -ELOOP;
		ret = inode->ops->get_link(inode, nd->t, &p);
		/* A file with no path (an eventfd) is no directory either. */
		if (ret == -ENXIO && (restlen || (nd->flags & LOOKUP_DIRECTORY)))
			return -ENOTDIR;
		if (ret < 0)
			return ret;
		set_cur(nd, &p);
		memmove(nd->work, rest, restlen + 1);
		return 1; /* cur is now the target itself */
	}
	if (!inode->ops->readlink)
		return -EINVAL;
	target = xmalloc(VFS_PATH_MAX);
	len = inode->ops->readlink(inode, target, VFS_PATH_MAX);
	if (len < 0 || len >= VFS_PATH_MAX) {
		free(target);
		return len < 0 ? (int)len : -ENAMETOOLONG;
	}
	target[len] = '\0';
	if (len == 0) {
		free(target);
		return -ENOENT;
	}
	if ((size_t)len + 1 + restlen + 2 > VFS_PATH_MAX * 2) {
		free(target);
		return -ENAMETOOLONG;
	}
	/* work = target [ "/" rest ] [ "/" when the link had a trailing slash ] */
	memmove(nd->work + len + 1, rest, restlen + 1);
	memcpy(nd->work, target, (size_t)len);
	nd->work[len] = '/';
	if (!restlen && !trailing_slash)
		nd->work[len] = '\0';
	if (target[0] == '/') {
		struct path r;
		if (nd->flags & LOOKUP_BENEATH) {
			free(target);
			return -EXDEV;
		}
		r = nd->root;
		path_get(&r);
		set_cur(nd, &r);
	}
	free(target);
	return 0;
}

/*
 * The walk. With parent set, stops before the last component and fills it
 * in. Returns 0 with nd->cur the result (or the parent), or -errno.
 */
static int walk(struct nameidata *nd, struct parent_lookup *parent)
{
	const struct creds *c = &nd->t->creds;
	char *p = nd->work;
	int err = 0;

	if (*p == '/') {
		struct path r;
		if (nd->flags & LOOKUP_BENEATH)
			return -EXDEV;
		r = nd->root;
		path_get(&r);
		set_cur(nd, &r);
	}
	for (;;) {
		char name[VFS_NAME_MAX + 1];
		const char *s;
		size_t len;
		bool last, trailing;
		struct dentry *child;
		struct path next;

		while (*p == '/')
			p++;
		if (!*p) {
			/* The path ended (after "/" or a symlink to a directory). */
			if (parent) {
				parent->type = LAST_ROOT;
				parent->last[0] = '\0';
				parent->trailing_slash = true;
			}
			break;
		}
		s = p;
		while (*p && *p != '/')
			p++;
		len = (size_t)(p - s);
		trailing = *p == '/';
		while (*p == '/')
			p++;
		last = !*p;

		if (!nd->cur.dentry->inode || !S_ISDIR(nd->cur.dentry->inode->mode))
			return -ENOTDIR;
		if (len > VFS_NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, s, len);
		name[len] = '\0';

		if (last && parent) {
			memcpy(parent->last, name, len + 1);
			parent->trailing_slash = trailing;
			if (len == 1 && name[0] == '.')
				parent->type = LAST_DOT;
			else if (len == 2 && name[0] == '.' && name[1] == '.')
				parent->type = LAST_DOTDOT;
			else
				parent->type = LAST_NORM;
			/* The parent must be searchable for any use of the name. */
			return inode_permission(c, nd->cur.dentry->inode, MAY_EXEC);
		}
		err = inode_permission(c, nd->cur.dentry->inode, MAY_EXEC);
		if (err)
			return err;
		if (len == 1 && name[0] == '.')
			continue;
		if (len == 2 && name[0] == '.' && name[1] == '.') {
			err = follow_dotdot(nd);
			if (err)
				return err;
			continue;
		}
		err = vfs_lookup_child(nd->t, &nd->cur, name, &child);
		if (err)
			return err;
		if (!child->inode) {
			dentry_put(child);
			return -ENOENT;
		}
		next.mnt = mount_get(nd->cur.mnt);
		next.dentry = child;
		follow_mounts(&next, nd->flags, &err);
		if (err) {
			path_put(&next);
			return err;
		}
		if (S_ISLNK(next.dentry->inode->mode) &&
		    (!last || trailing || (nd->flags & LOOKUP_FOLLOW))) {
			err = follow_symlink(nd, &next, p, trailing);
			path_put(&next);
			if (err < 0)
				return err;
			p = nd->work;
			if (err == 1) {
				/* A magic link: cur is the file; nothing left means done. */
				err = 0;
				if (!*p)
					break;
				continue;
			}
			if (*p == '/') {
				/* Absolute target: cur was reset to the root already. */
			}
			continue;
		}
		set_cur(nd, &next);
		if (last) {
			if (trailing && !S_ISDIR(nd->cur.dentry->inode->mode))
				return -ENOTDIR;
			break;
		}
	}
	if ((nd->flags & LOOKUP_DIRECTORY) && !parent &&
	    (!nd->cur.dentry->inode || !S_ISDIR(nd->cur.dentry->inode->mode)))
		return -ENOTDIR;
	return 0;
}

static int nd_init(struct nameidata *nd, struct task *t, int dirfd, const struct path *from,
		   const char *path, unsigned flags)
{
	size_t len = strlen(path);
	int ret;

	memset(nd, 0, sizeof(*nd));
	nd->t = t;
	nd->flags = flags;
	if (len >= VFS_PATH_MAX)
		return -ENAMETOOLONG;
	if (len == 0 && !(flags & LOOKUP_EMPTY))
		return -ENOENT;
	nd->work = xmalloc(VFS_PATH_MAX * 2);
	memcpy(nd->work, path, len + 1);
	fs_get_root(t->fs, &nd->root);
	if (path[0] == '/' && !(flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT))) {
		nd->cur = nd->root;
		path_get(&nd->cur);
	} else if (from) {
		nd->cur = *from;
		path_get(&nd->cur);
	} else {
		ret = start_dir(t, dirfd, &nd->cur);
		if (ret < 0)
			return ret;
	}
	nd->start = nd->cur;
	path_get(&nd->start);
	if (flags & LOOKUP_IN_ROOT) {
		path_put(&nd->root);
		nd->root = nd->cur;
		path_get(&nd->root);
		if (path[0] == '/')
			nd->work[0] = '/';
	}
	return 0;
}

static void nd_release(struct nameidata *nd)
{
	path_put(&nd->root);
	path_put(&nd->cur);
	path_put(&nd->start);
	free(nd->work);
}

int vfs_lookup(struct task *t, int dirfd, const char *path, unsigned flags, struct path *out)
{
	struct nameidata nd;
	int ret = nd_init(&nd, t, dirfd, NULL, path, flags);

	if (ret == 0) {
		/* RESOLVE_IN_ROOT: an absolute path starts at the (new) root. */
		ret = walk(&nd, NULL);
	}
	if (ret == 0) {
		*out = nd.cur;
		nd.cur.mnt = NULL;
		nd.cur.dentry = NULL;
	}
	nd_release(&nd);
	return ret;
}

int vfs_lookup_parent_from(struct task *t, int dirfd, const struct path *from, const char *path,
			   unsigned flags, struct parent_lookup *out)
{
	struct nameidata nd;
	int ret = nd_init(&nd, t, dirfd, from, path, flags & ~LOOKUP_EMPTY);

	memset(&out->parent, 0, sizeof(out->parent));
	out->type = LAST_ROOT;
	out->last[0] = '\0';
	out->trailing_slash = false;
	if (ret == 0)
		ret = walk(&nd, out);
	if (ret == 0) {
		out->parent = nd.cur;
		nd.cur.mnt = NULL;
		nd.cur.dentry = NULL;
	}
	nd_release(&nd);
	return ret;
}

int vfs_lookup_parent(struct task *t, int dirfd, const char *path, unsigned flags,
		      struct parent_lookup *out)
{
	return vfs_lookup_parent_from(t, dirfd, NULL, path, flags, out);
}
