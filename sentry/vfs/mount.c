/* Mounts: filesystems attached at dentries, forming the sandbox's tree. */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;

struct mount *mount_get(struct mount *m)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void mount_put(struct mount *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	dentry_put(m->root);
	if (m->mountpoint)
		dentry_put(m->mountpoint);
	if (m->parent)
		mount_put(m->parent);
	sb_put(m->sb);
	free(m->source);
	free(m);
}

static struct mount *mount_alloc(struct mnt_namespace *ns, struct super_block *sb,
				 struct dentry *root, unsigned flags, const char *source)
{
	struct mount *m = xzalloc(sizeof(*m));

	m->refs = 1; /* the namespace's */
	m->sb = sb_get(sb);
	m->root = dentry_get(root);
	m->flags = flags;
	m->id = ns->next_id++;
	m->source = xstrdup(source ? source : "none");
	list_init(&m->children);
	list_init(&m->sibling);
	list_add_tail(&m->all, &ns->mounts);
	return m;
}

struct mount *mount_internal(struct super_block *sb)
{
	struct mount *m = xzalloc(sizeof(*m));

	m->refs = 1;
	m->sb = sb_get(sb);
	m->root = dentry_get(sb->root);
	m->flags = MNT_INTERNAL;
	m->source = xstrdup("none");
	list_init(&m->children);
	list_init(&m->sibling);
	list_init(&m->all);
	return m;
}

struct mnt_namespace *mntns_new(struct super_block *sb, unsigned flags, const char *source)
{
	struct mnt_namespace *ns = xzalloc(sizeof(*ns));

	list_init(&ns->mounts);
	ns->next_id = 20;
	pthread_mutex_lock(&mount_lock);
	ns->root = mount_alloc(ns, sb, sb->root, flags, source);
	pthread_mutex_unlock(&mount_lock);
	return ns;
}

int mount_attach(struct mnt_namespace *ns, const struct path *at, struct super_block *sb,
		 unsigned flags, const char *source)
{
	return mount_attach_root(ns, at, sb->root, flags, source);
}

int mount_attach_root(struct mnt_namespace *ns, const struct path *at, struct dentry *root,
		      unsigned flags, const char *source)
{
	struct mount *m;

	/* A directory on a directory, anything else on anything but one (Linux's rule). */
	if (!at->dentry->inode || !root->inode)
		return -ENOENT;
	if (S_ISDIR(at->dentry->inode->mode) != S_ISDIR(root->inode->mode))
		return S_ISDIR(root->inode->mode) ? -ENOTDIR : -EISDIR;
	pthread_mutex_lock(&mount_lock);
	m = mount_alloc(ns, root->sb, root, flags, source);
	m->parent = mount_get(at->mnt);
	m->mountpoint = dentry_get(at->dentry);
	at->dentry->nmounts++;
	list_add_tail(&m->sibling, &at->mnt->children);
	pthread_mutex_unlock(&mount_lock);
	return 0;
}

struct mount *mount_lookup(struct mount *mnt, struct dentry *dentry)
{
	struct mount *c, *found = NULL;

	if (!dentry->nmounts)
		return NULL;
	pthread_mutex_lock(&mount_lock);
	/* The most recent mount on a dentry is the visible one. */
	list_for_each_entry(c, &mnt->children, sibling)
		if (c->mountpoint == dentry)
			found = c;
	if (found)
		mount_get(found);
	pthread_mutex_unlock(&mount_lock);
	return found;
}

long path_to_string(const struct path *p, const struct path *root, char *buf, size_t size)
{
	struct mount *mnt = p->mnt;
	struct dentry *d = p->dentry;
	size_t pos = size;
	long ret;

	if (size < 2)
		return -ENAMETOOLONG;
	buf[--pos] = '\0';
	pthread_mutex_lock(&mount_lock);
	for (;;) {
		struct dentry *stop = mnt == root->mnt ? root->dentry : mnt->root;
		int r = dentry_prepend_path(d, stop, buf, &pos);
		if (r < 0) {
			pthread_mutex_unlock(&mount_lock);
			return r;
		}
		if ((r == 1 && mnt == root->mnt) || !mnt->parent)
			break;
		/* At the root of this mount: continue from where it is mounted. */
		d = mnt->mountpoint;
		mnt = mnt->parent;
	}
	pthread_mutex_unlock(&mount_lock);
	if (pos == size - 1)
		buf[--pos] = '/';
	ret = (long)(size - 1 - pos);
	memmove(buf, buf + pos, (size_t)ret + 1);
	return ret;
}

void mntns_for_each(struct mnt_namespace *ns, void (*fn)(struct mount *m, void *arg), void *arg)
{
	struct mount *m, **all = NULL;
	size_t n = 0, cap = 0;

	/* Take references under the lock, call fn outside it (fn resolves paths). */
	pthread_mutex_lock(&mount_lock);
	list_for_each_entry(m, &ns->mounts, all) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[n++] = mount_get(m);
	}
	pthread_mutex_unlock(&mount_lock);
	for (size_t i = 0; i < n; i++) {
		fn(all[i], arg);
		mount_put(all[i]);
	}
	free(all);
}
