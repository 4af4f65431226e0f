/* Mounts: filesystems attached at dentries, forming the sandbox's tree. */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
/* Mount ids are unique across namespaces, as Linux's (under mount_lock). */
static unsigned next_mount_id = 20;

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
	free(m->opts);
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
	m->id = next_mount_id++;
	m->source = xstrdup(source ? source : "none");
	list_init(&m->children);
	list_init(&m->sibling);
	m->ns = ns;
	ns->nr_mounts++;
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
	ns->refs = 1;
	ns->ino = 4026531841ull; /* Linux's first mount namespace */
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

/* --- namespaces of guests ------------------------------------------------------ */

struct mnt_namespace *mntns_get(struct mnt_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
	return ns;
}

/* Take m out of its namespace (mount_lock held); the namespace's reference
 * goes to *drop. Its parent and mountpoint stay as they were, so that a
 * path still on it (an open directory, a cwd) has a valid ".." to read. */
static void mount_unhash(struct mount *m, struct mount ***drop, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*drop = xrealloc(*drop, *cap * sizeof(**drop));
	}
	list_del_init(&m->all);
	list_del_init(&m->sibling);
	if (m->mountpoint)
		m->mountpoint->nmounts--;
	if (m->ns)
		m->ns->nr_mounts--;
	m->ns = NULL;
	(*drop)[(*n)++] = m;
}

/* m and every mount under it, children before parents. */
static void unhash_tree(struct mount *m, struct mount ***drop, size_t *n, size_t *cap)
{
	while (!list_empty(&m->children))
		unhash_tree(list_first_entry(&m->children, struct mount, sibling), drop, n, cap);
	mount_unhash(m, drop, n, cap);
}

static void drop_all(struct mount **drop, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mount_put(drop[i]);
	free(drop);
}

void mntns_put(struct mnt_namespace *ns)
{
	struct mount **drop = NULL;
	size_t n = 0, cap = 0;

	if (!ns || __atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_lock(&mount_lock);
	while (!list_empty(&ns->mounts)) {
		struct mount *m = list_first_entry(&ns->mounts, struct mount, all);
		while (m->parent && m->parent->ns == ns)
			m = m->parent;
		unhash_tree(m, &drop, &n, &cap);
	}
	pthread_mutex_unlock(&mount_lock);
	drop_all(drop, n);
	free(ns);
}

bool mount_in_ns(const struct mount *m, const struct mnt_namespace *ns)
{
	return m && ns && __atomic_load_n(&m->ns, __ATOMIC_ACQUIRE) == ns;
}

/* A copy of m (same filesystem, subtree and flags) in ns, attached nowhere. */
static struct mount *mount_clone(struct mnt_namespace *ns, struct mount *m, struct dentry *root)
{
	struct mount *c = mount_alloc(ns, m->sb, root, m->flags & ~MNT_INTERNAL, m->source);

	c->peer_group = m->peer_group;
	c->locked = m->locked;
	c->opts = m->opts ? xstrdup(m->opts) : NULL;
	return c;
}

static void attach_locked(struct mount *m, struct mount *parent, struct dentry *mp)
{
	m->parent = mount_get(parent);
	m->mountpoint = dentry_get(mp);
	mp->nmounts++;
	list_add_tail(&m->sibling, &parent->children);
}

/* Copy the mounts under src (children of src whose mountpoints are under
 * root, recursively) onto dst, the copy of src. Unbindable ones are left
 * out, as Linux's copy_tree does for a bind. */
static void copy_children(struct mnt_namespace *ns, struct mount *src, struct dentry *root,
			  struct mount *dst, bool skip_unbindable, bool lock)
{
	struct mount *c;

	list_for_each_entry(c, &src->children, sibling) {
		struct mount *n;
		if (skip_unbindable && (c->flags & MNT_UNBINDABLE))
			continue;
		if (!dentry_is_under(c->mountpoint, root))
			continue;
		n = mount_clone(ns, c, c->root);
		c->copy = n;
		if (lock)
			n->locked |= (n->flags & MNT_LOCKABLE) | MNT_LOCKED;
		attach_locked(n, dst, c->mountpoint);
		copy_children(ns, c, c->root, n, skip_unbindable, lock);
	}
}

struct mnt_namespace *mntns_copy(struct mnt_namespace *old, struct path **paths, size_t n,
				 bool lock)
{
	struct mnt_namespace *ns = xzalloc(sizeof(*ns));
	struct mount *root;

	list_init(&ns->mounts);
	ns->refs = 1;
	pthread_mutex_lock(&mount_lock);
	root = mount_clone(ns, old->root, old->root->root);
	old->root->copy = root;
	ns->root = root;
	if (lock)
		root->locked |= root->flags & MNT_LOCKABLE;
	copy_children(ns, old->root, old->root->root, root, false, lock);
	/* Each path onto the copy of its mount (copy is valid under the lock
	 * for every mount of old, all of which were just copied). */
	for (size_t i = 0; i < n; i++) {
		struct mount *m = paths[i]->mnt;
		if (m && m->ns == old) {
			paths[i]->mnt = mount_get(m->copy);
			mount_put(m); /* not the last: old still holds it */
		}
	}
	pthread_mutex_unlock(&mount_lock);
	return ns;
}

bool dentry_is_under(struct dentry *d, struct dentry *ancestor)
{
	struct dentry *p = dentry_get(d);
	bool found = false;

	if (d->sb != ancestor->sb) {
		dentry_put(p);
		return false;
	}
	for (;;) {
		struct dentry *up;
		if (p == ancestor) {
			found = true;
			break;
		}
		up = dentry_get_parent(p);
		if (up == p) {
			dentry_put(up);
			break;
		}
		dentry_put(p);
		p = up;
	}
	dentry_put(p);
	return found;
}

bool mount_path_under(const struct path *p, const struct path *r)
{
	struct mount *m = p->mnt;
	struct dentry *d = p->dentry;
	bool ret = false;

	pthread_mutex_lock(&mount_lock);
	for (;;) {
		if (m == r->mnt) {
			ret = dentry_is_under(d, r->dentry);
			break;
		}
		if (!m->parent || !m->ns)
			break;
		d = m->mountpoint;
		m = m->parent;
	}
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

int mount_bind(struct mnt_namespace *ns, const struct path *at, const struct path *from, bool rec,
	       unsigned flags)
{
	struct mount *top;

	if (!at->dentry->inode || !from->dentry->inode)
		return -ENOENT;
	if (S_ISDIR(at->dentry->inode->mode) != S_ISDIR(from->dentry->inode->mode))
		return S_ISDIR(from->dentry->inode->mode) ? -ENOTDIR : -EISDIR;
	pthread_mutex_lock(&mount_lock);
	if (from->mnt->flags & MNT_UNBINDABLE) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	/* The whole copy is made before it is attached: a bind of a tree
	 * into itself copies what was there, not its own new mounts. */
	top = mount_clone(ns, from->mnt, from->dentry);
	top->flags = (top->flags & ~MNT_PROPAGATION) | flags;
	top->peer_group = 0;
	top->locked &= ~MNT_LOCKED; /* the caller's own mount */
	if (rec)
		copy_children(ns, from->mnt, from->dentry, top, true, false);
	attach_locked(top, at->mnt, at->dentry);
	pthread_mutex_unlock(&mount_lock);
	return 0;
}

int mount_umount(struct mnt_namespace *ns, struct mount *m, bool lazy)
{
	struct mount **drop = NULL;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&mount_lock);
	if (m->ns != ns || !m->parent || (m->locked & MNT_LOCKED)) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	/* Busy: something mounted under it, or a reference beyond the
	 * namespace's and the caller's (an open file, a cwd, a root). */
	if (!lazy &&
	    (!list_empty(&m->children) || __atomic_load_n(&m->refs, __ATOMIC_RELAXED) > 2)) {
		pthread_mutex_unlock(&mount_lock);
		return -EBUSY;
	}
	unhash_tree(m, &drop, &n, &cap);
	pthread_mutex_unlock(&mount_lock);
	drop_all(drop, n);
	return 0;
}

/* Take m off its parent (mount_lock held); the parent and mountpoint
 * references go to *parent and *mp. */
static void detach_locked(struct mount *m, struct mount **parent, struct dentry **mp)
{
	list_del_init(&m->sibling);
	m->mountpoint->nmounts--;
	*parent = m->parent;
	*mp = m->mountpoint;
	m->parent = NULL;
	m->mountpoint = NULL;
}

void mntns_root(struct mnt_namespace *ns, struct path *out)
{
	pthread_mutex_lock(&mount_lock);
	out->mnt = ns->root;
	out->dentry = ns->root->root;
	path_get(out);
	pthread_mutex_unlock(&mount_lock);
}

int mount_pivot(struct mnt_namespace *ns, const struct path *new_root, const struct path *put_old)
{
	struct mount *nm = new_root->mnt, *old = ns->root;
	struct mount *nparent = NULL;
	struct dentry *nmp = NULL;

	pthread_mutex_lock(&mount_lock);
	if (nm->ns != ns || !nm->parent || old == nm) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	detach_locked(nm, &nparent, &nmp);
	ns->root = nm;
	attach_locked(old, put_old->mnt, put_old->dentry);
	pthread_mutex_unlock(&mount_lock);
	mount_put(nparent);
	dentry_put(nmp);
	return 0;
}

int mount_move(struct mnt_namespace *ns, struct mount *m, const struct path *at)
{
	struct mount *parent = NULL, *p;
	struct dentry *mp = NULL;

	pthread_mutex_lock(&mount_lock);
	if (m->ns != ns || !m->parent || (m->locked & MNT_LOCKED)) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	/* Not under itself. */
	for (p = at->mnt; p; p = p->parent)
		if (p == m) {
			pthread_mutex_unlock(&mount_lock);
			return -ELOOP;
		}
	detach_locked(m, &parent, &mp);
	attach_locked(m, at->mnt, at->dentry);
	pthread_mutex_unlock(&mount_lock);
	mount_put(parent);
	dentry_put(mp);
	return 0;
}

static unsigned next_peer_group = 1;

static void set_propagation(struct mount *m, unsigned type, bool rec)
{
	struct mount *c;

	m->flags = (m->flags & ~MNT_PROPAGATION) | type;
	if (type == MNT_SHARED && !m->peer_group)
		m->peer_group = next_peer_group++;
	else if (type == 0 || type == MNT_UNBINDABLE)
		m->peer_group = 0;
	if (rec)
		list_for_each_entry(c, &m->children, sibling)
			set_propagation(c, type, rec);
}

void mount_set_propagation(struct mount *m, unsigned type, bool rec)
{
	pthread_mutex_lock(&mount_lock);
	set_propagation(m, type, rec);
	pthread_mutex_unlock(&mount_lock);
}

int mount_change_flags(struct mount *m, unsigned set, unsigned clr, bool rec)
{
	struct mount **todo = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	/* The mounts to change, m first; then every one is checked before any changes. */
	todo = xrealloc(todo, (cap = 16) * sizeof(*todo));
	todo[n++] = m;
	for (size_t i = 0; rec && i < n; i++) {
		struct mount *c;
		list_for_each_entry(c, &todo[i]->children, sibling) {
			if (n == cap)
				todo = xrealloc(todo, (cap *= 2) * sizeof(*todo));
			todo[n++] = c;
		}
	}
	for (size_t i = 0; i < n && !ret; i++)
		if (todo[i]->locked & MNT_LOCKABLE & clr & ~set)
			ret = -EPERM;
	for (size_t i = 0; i < n && !ret; i++)
		__atomic_store_n(&todo[i]->flags, (todo[i]->flags & ~clr) | set, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mount_lock);
	free(todo);
	return ret;
}

static struct mnt_namespace *anon_alloc(void)
{
	struct mnt_namespace *ns = xzalloc(sizeof(*ns));

	list_init(&ns->mounts);
	ns->refs = 1;
	ns->anon = true;
	return ns;
}

struct mnt_namespace *mntns_anon_new(struct super_block *sb, unsigned flags, const char *source)
{
	struct mnt_namespace *ns = anon_alloc();

	pthread_mutex_lock(&mount_lock);
	ns->root = mount_alloc(ns, sb, sb->root, flags, source);
	pthread_mutex_unlock(&mount_lock);
	return ns;
}

struct mnt_namespace *mntns_anon_clone(const struct path *from, bool rec, int *err)
{
	struct mnt_namespace *ns;
	struct mount *m;

	pthread_mutex_lock(&mount_lock);
	if (from->mnt->flags & MNT_UNBINDABLE) {
		pthread_mutex_unlock(&mount_lock);
		*err = -EINVAL;
		return NULL;
	}
	ns = anon_alloc();
	ns->root = mount_clone(ns, from->mnt, from->dentry);
	ns->root->locked &= ~MNT_LOCKED;
	if (rec)
		copy_children(ns, from->mnt, from->dentry, ns->root, true, false);
	/* A clone is private, as Linux's (CL_PRIVATE). */
	list_for_each_entry(m, &ns->mounts, all) {
		m->flags &= ~MNT_PROPAGATION;
		m->peer_group = 0;
	}
	pthread_mutex_unlock(&mount_lock);
	*err = 0;
	return ns;
}

int mount_graft(struct mnt_namespace *ns, struct mnt_namespace *anon, const struct path *at)
{
	struct mount *root;

	if (!at->dentry->inode)
		return -ENOENT;
	pthread_mutex_lock(&mount_lock);
	root = anon->root;
	if (!root || root->ns != anon) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	if (S_ISDIR(at->dentry->inode->mode) != S_ISDIR(root->root->inode->mode)) {
		pthread_mutex_unlock(&mount_lock);
		return S_ISDIR(root->root->inode->mode) ? -ENOTDIR : -EISDIR;
	}
	while (!list_empty(&anon->mounts)) {
		struct mount *m = list_first_entry(&anon->mounts, struct mount, all);
		list_del_init(&m->all);
		list_add_tail(&m->all, &ns->mounts);
		__atomic_store_n(&m->ns, ns, __ATOMIC_RELEASE);
		anon->nr_mounts--;
		ns->nr_mounts++;
	}
	attach_locked(root, at->mnt, at->dentry);
	anon->root = NULL;
	pthread_mutex_unlock(&mount_lock);
	return 0;
}
