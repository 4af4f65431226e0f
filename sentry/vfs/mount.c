/* Mounts: filesystems attached at dentries, forming the sandbox's tree. */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/propagation.h"
#include "sentry/kernel/wait.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
/* Mount ids are unique across namespaces, as Linux's (under mount_lock). */
static unsigned next_mount_id = 20;
/* /proc/sys/fs/mount-max: the most mounts a namespace holds (Linux's default). */
unsigned vfs_mount_max = 100000;

/* Woken at every change of any namespace (a poll of /proc/PID/mounts). */
static struct waitq mount_waitq = WAITQ_INIT(mount_waitq);

struct waitq *mntns_waitq(void)
{
	return &mount_waitq;
}

unsigned mntns_event(struct mnt_namespace *ns)
{
	return __atomic_load_n(&ns->event, __ATOMIC_ACQUIRE);
}

/* ns changed (mount_lock held; the wake-ups take no mount lock). */
static void ns_touch(struct mnt_namespace *ns)
{
	if (!ns || ns->anon)
		return;
	__atomic_add_fetch(&ns->event, 1, __ATOMIC_RELEASE);
	waitq_wake_events(&mount_waitq, POLLPRI | POLLERR);
}

void mount_touch(struct mount *m)
{
	pthread_mutex_lock(&mount_lock);
	ns_touch(m->ns);
	pthread_mutex_unlock(&mount_lock);
}

struct mount *mount_get(struct mount *m)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void mount_put(struct mount *m)
{
	struct mount_vec kept = {0};

	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* Unmounted mounts kept on it (umount_tree's connected ones) are its
	 * to drop. Nothing else can be on a mount no one holds. */
	if (!list_empty(&m->children)) {
		pthread_mutex_lock(&mount_lock);
		while (!list_empty(&m->children)) {
			struct mount *c = list_first_entry(&m->children, struct mount, sibling);
			list_del_init(&c->sibling);
			c->mountpoint->nmounts--;
			c->parent = NULL; /* its reference on m went at the unmount */
			mount_vec_push(&kept, c);
		}
		pthread_mutex_unlock(&mount_lock);
	}
	for (size_t i = 0; i < kept.n; i++)
		mount_put(kept.v[i]);
	mount_vec_free(&kept);
	dentry_put(m->root);
	if (m->mountpoint)
		dentry_put(m->mountpoint);
	if (m->parent && m->gone_from_parent)
		__atomic_sub_fetch(&m->parent->gone_children, 1, __ATOMIC_RELAXED);
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
	list_init(&m->all);
	prop_init(m);
	if (ns) {
		m->ns = ns;
		ns->nr_mounts++;
		list_add_tail(&m->all, &ns->mounts);
	}
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
	prop_init(m);
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

/* --- the tree ------------------------------------------------------------------------ */

struct mount *mount_next(struct mount *p, struct mount *top)
{
	if (!list_empty(&p->children))
		return list_first_entry(&p->children, struct mount, sibling);
	while (p != top) {
		if (p->sibling.next != &p->parent->children)
			return list_entry(p->sibling.next, struct mount, sibling);
		p = p->parent;
	}
	return NULL;
}

/* The next mount after p's subtree in a walk of the tree at top. */
static struct mount *mount_next_skip(struct mount *p, struct mount *top)
{
	while (p != top) {
		if (p->sibling.next != &p->parent->children)
			return list_entry(p->sibling.next, struct mount, sibling);
		p = p->parent;
	}
	return NULL;
}

struct mount *mount_child_at(struct mount *parent, struct dentry *dentry)
{
	struct mount *c, *found = NULL;

	if (!dentry->nmounts)
		return NULL;
	/* The most recent mount on a dentry is the visible one. */
	list_for_each_entry(c, &parent->children, sibling)
		if (c->mountpoint == dentry)
			found = c;
	return found;
}

struct mount *mount_lookup(struct mount *mnt, struct dentry *dentry)
{
	struct mount *found;

	if (!dentry->nmounts)
		return NULL;
	pthread_mutex_lock(&mount_lock);
	found = mount_child_at(mnt, dentry);
	if (found)
		mount_get(found);
	pthread_mutex_unlock(&mount_lock);
	return found;
}

int mount_extra_refs(struct mount *m)
{
	return __atomic_load_n(&m->refs, __ATOMIC_RELAXED) -
	       __atomic_load_n(&m->gone_children, __ATOMIC_RELAXED) - 1;
}

bool mount_umounting(const struct mount *m)
{
	return m->umounting;
}

void mount_set_umounting(struct mount *m)
{
	m->umounting = true;
}

int mount_count_add(struct mnt_namespace *ns, unsigned n)
{
	unsigned max = __atomic_load_n(&vfs_mount_max, __ATOMIC_RELAXED);

	if ((uint64_t)ns->nr_mounts + ns->pending + n > max)
		return -ENOSPC;
	ns->pending += n;
	return 0;
}

/* Hang m (not attached) on mp of parent. */
static void attach_locked(struct mount *m, struct mount *parent, struct dentry *mp)
{
	m->parent = mount_get(parent);
	m->mountpoint = dentry_get(mp);
	mp->nmounts++;
	list_add_tail(&m->sibling, &parent->children);
}

/* Take m off its parent: the references are the caller's to drop. */
static void detach_locked(struct mount *m, struct mount **parent, struct dentry **mp)
{
	list_del_init(&m->sibling);
	m->mountpoint->nmounts--;
	*parent = m->parent;
	*mp = m->mountpoint;
	m->parent = NULL;
	m->mountpoint = NULL;
}

void mount_reattach(struct mount *m, struct mount *parent, struct dentry *mp)
{
	struct mount *op;
	struct dentry *od;

	detach_locked(m, &op, &od);
	attach_locked(m, parent, mp);
	mount_put(op);
	dentry_put(od);
}

/* A copy of m with root (same filesystem and flags), in no namespace. */
static struct mount *mount_clone(struct mount *m, struct dentry *root, int cl)
{
	struct mount *c = mount_alloc(NULL, m->sb, root, m->flags & ~MNT_INTERNAL, m->source);

	c->locked = m->locked;
	c->opts = m->opts ? xstrdup(m->opts) : NULL;
	prop_inherit(c, m, cl);
	return c;
}

struct mount *mount_copy_tree(struct mount *src, struct dentry *root, int cl)
{
	struct mount *top = mount_clone(src, root, cl), *p = mount_next(src, src);

	src->copy = top;
	while (p) {
		/* Only what is under root, and (for a bind) no unbindable mount. */
		if ((p->parent == src && !dentry_is_under(p->mountpoint, root)) ||
		    (!(cl & CL_COPY_UNBINDABLE) && (p->flags & MNT_UNBINDABLE))) {
			p = mount_next_skip(p, src);
			continue;
		}
		p->copy = mount_clone(p, p->root, cl);
		attach_locked(p->copy, p->parent->copy, p->mountpoint);
		p = mount_next(p, src);
	}
	return top;
}

/* Put the tree at top (attached nowhere, or hung on its parent by a
 * pending copy) into ns: into its list, or out of the detached tree it
 * was in. */
static void commit_tree(struct mnt_namespace *ns, struct mount *top)
{
	for (struct mount *p = top; p; p = mount_next(p, top)) {
		if (p->ns == ns)
			continue;
		if (p->ns)
			p->ns->nr_mounts--;
		list_del_init(&p->all);
		list_add_tail(&p->all, &ns->mounts);
		__atomic_store_n(&p->ns, ns, __ATOMIC_RELEASE);
		ns->nr_mounts++;
	}
}

/* Free a tree that was never in a namespace (a failed operation's). */
static void free_tree(struct mount *top, struct mount_vec *drop)
{
	size_t first = drop->n;

	for (struct mount *p = top; p; p = mount_next(p, top)) {
		prop_change(p, MS_PRIVATE);
		mount_vec_push(drop, p);
	}
	/* Children first; each parent is still held by its own reference. */
	for (size_t i = drop->n; i-- > first;) {
		struct mount *p = drop->v[i], *par;
		struct dentry *mp;
		if (p != top && p->parent) {
			detach_locked(p, &par, &mp);
			mount_put(par);
			dentry_put(mp);
		}
	}
}

/* The flags a mount copied into a less privileged namespace may not lose. */
static void lock_tree(struct mount *top)
{
	for (struct mount *p = top; p; p = mount_next(p, top))
		p->locked |= (p->flags & MNT_LOCKABLE) | MNT_LOCKED;
}

static unsigned tree_count(struct mount *top)
{
	unsigned n = 0;

	for (struct mount *p = top; p; p = mount_next(p, top))
		n++;
	return n;
}

/* Linux's attach_recursive_mnt: hang the tree src on mp of dest in ns (a
 * new tree, or with moving one already in ns), with its copies in every
 * mount dest's events propagate to. On an error nothing changed (a new
 * src is the caller's to free). */
static int attach_tree(struct mnt_namespace *ns, struct mount *src, struct mount *dest,
		       struct dentry *mp, bool moving, struct mount_vec *drop)
{
	struct mount_vec copies = {0}, invented = {0};
	int ret = 0;

	if (!moving)
		ret = mount_count_add(ns, tree_count(src));
	if (ret == 0 && prop_is_shared(dest)) {
		/* Everything that goes on a shared mount is shared. */
		for (struct mount *p = src; p; p = mount_next(p, src))
			if (!prop_is_shared(p)) {
				prop_make_shared(p);
				mount_vec_push(&invented, p);
			}
		ret = prop_mount(dest, mp, src, &copies);
	}
	/* The counts were for this operation only. */
	ns->pending = 0;
	for (size_t i = 0; i < copies.n; i++)
		copies.v[i]->parent->ns->pending = 0;
	if (ret) {
		for (size_t i = 0; i < copies.n; i++) {
			struct mount *c = copies.v[i];
			mount_put(c->parent);
			dentry_put(c->mountpoint);
			c->parent = NULL;
			c->mountpoint = NULL;
			free_tree(c, drop);
		}
		for (size_t i = 0; i < invented.n; i++)
			prop_change(invented.v[i], MS_PRIVATE);
	} else {
		if (moving)
			mount_reattach(src, dest, mp);
		else
			attach_locked(src, dest, mp);
		commit_tree(ns, src);
		ns_touch(ns);
		for (size_t i = 0; i < copies.n; i++) {
			struct mount *c = copies.v[i], *parent = c->parent, *q;
			/* What is on the same place already goes on top of the copy. */
			q = mount_child_at(parent, c->mountpoint);
			c->mountpoint->nmounts++;
			list_add_tail(&c->sibling, &parent->children);
			/* Into a less privileged namespace: locked there. */
			if (parent->ns->owner != ns->owner) {
				lock_tree(c);
				c->locked &= ~MNT_LOCKED;
			}
			commit_tree(parent->ns, c);
			ns_touch(parent->ns);
			if (q)
				mount_reattach(q, c, c->root);
		}
	}
	mount_vec_free(&copies);
	mount_vec_free(&invented);
	return ret;
}

static void drop_all(struct mount_vec *drop)
{
	for (size_t i = 0; i < drop->n; i++)
		mount_put(drop->v[i]);
	mount_vec_free(drop);
}

/* umount_tree's ways. */
#define UT_PROPAGATE 0x1 /* what the unmount propagates to goes too */
#define UT_SYNC	     0x2 /* not lazy: every mount leaves its parent */

/* Take m and its tree out of their namespace (and what the unmount
 * propagates to); the namespace's references go to drop. Parents and
 * mountpoints stay, so that a path still on a mount (an open directory, a
 * cwd) has a valid ".." to read. In a lazy unmount, a locked mount whose
 * parent goes too stays on it (connected: what it hides stays hidden from
 * whoever still holds the parent), which then owns it (mount_put). */
static void umount_tree(struct mount *m, unsigned how, struct mount_vec *drop)
{
	struct mount_vec list = {0};

	for (struct mount *p = m; p; p = mount_next(p, m)) {
		p->umounting = true;
		mount_vec_push(&list, p);
	}
	if (how & UT_PROPAGATE)
		prop_umount(&list);
	for (size_t i = list.n; i-- > 0;) {
		struct mount *p = list.v[i];
		bool keep = !(how & UT_SYNC) && p->parent && p->parent->umounting &&
			    (p->locked & MNT_LOCKED);
		prop_change(p, MS_PRIVATE);
		list_del_init(&p->all);
		if (p->ns)
			p->ns->nr_mounts--;
		ns_touch(p->ns);
		__atomic_store_n(&p->ns, NULL, __ATOMIC_RELEASE);
		p->umounting = false;
		if (keep) {
			/* The parent holds it now, not it the parent (which is
			 * still held by its namespace's reference, in drop). */
			__atomic_sub_fetch(&p->parent->refs, 1, __ATOMIC_ACQ_REL);
			p->connected = true;
			continue;
		}
		list_del_init(&p->sibling);
		if (p->mountpoint)
			p->mountpoint->nmounts--;
		if (p->parent && !p->parent->umounting) {
			__atomic_add_fetch(&p->parent->gone_children, 1, __ATOMIC_RELAXED);
			p->gone_from_parent = true;
		}
		mount_vec_push(drop, p);
	}
	mount_vec_free(&list);
}

/* --- namespaces of guests ------------------------------------------------------------ */

struct mnt_namespace *mntns_get(struct mnt_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
	return ns;
}

void mntns_put(struct mnt_namespace *ns)
{
	struct mount_vec drop = {0};

	if (!ns || __atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_lock(&mount_lock);
	while (!list_empty(&ns->mounts)) {
		struct mount *m = list_first_entry(&ns->mounts, struct mount, all);
		while (m->parent && m->parent->ns == ns)
			m = m->parent;
		umount_tree(m, 0, &drop);
	}
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	free(ns);
}

bool mount_in_ns(const struct mount *m, const struct mnt_namespace *ns)
{
	return m && ns && __atomic_load_n(&m->ns, __ATOMIC_ACQUIRE) == ns;
}

struct mnt_namespace *mntns_copy(struct mnt_namespace *old, struct path **paths, size_t n,
				 bool lock)
{
	struct mnt_namespace *ns = xzalloc(sizeof(*ns));
	struct mount *root, *m;

	list_init(&ns->mounts);
	ns->refs = 1;
	pthread_mutex_lock(&mount_lock);
	list_for_each_entry(m, &old->mounts, all)
		m->copy = NULL;
	/* Peers stay peers; into a less privileged namespace, shared mounts
	 * give slaves (Linux's copy_mnt_ns). */
	root = mount_copy_tree(old->root, old->root->root,
			       CL_COPY_UNBINDABLE | (lock ? CL_SHARED_TO_SLAVE : 0));
	if (lock) {
		lock_tree(root);
		root->locked &= ~MNT_LOCKED;
	}
	commit_tree(ns, root);
	ns->root = root;
	/* Each path onto the copy of its mount. */
	for (size_t i = 0; i < n; i++) {
		struct mount *pm = paths[i]->mnt;
		if (pm && pm->ns == old && pm->copy) {
			paths[i]->mnt = mount_get(pm->copy);
			mount_put(pm); /* not the last: old still holds it */
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

/* Is (m, d) at or under the subtree of r (mount_lock held)? */
static bool path_under_locked(struct mount *m, struct dentry *d, const struct path *r)
{
	for (;;) {
		if (m == r->mnt)
			return dentry_is_under(d, r->dentry);
		if (!m->parent || !m->ns)
			return false;
		d = m->mountpoint;
		m = m->parent;
	}
}

bool mount_path_under(const struct path *p, const struct path *r)
{
	bool ret;

	pthread_mutex_lock(&mount_lock);
	ret = path_under_locked(p->mnt, p->dentry, r);
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

/* Linux's rule: a directory on a directory, anything else on anything but one. */
static int check_types(struct dentry *at, struct dentry *root)
{
	if (!at->inode || !root->inode)
		return -ENOENT;
	return S_ISDIR(at->inode->mode) != S_ISDIR(root->inode->mode) ? -ENOTDIR : 0;
}

int mount_attach_fs(struct mnt_namespace *ns, const struct path *at, struct super_block *sb,
		    unsigned flags, const char *source, const char *opts)
{
	struct mount_vec drop = {0};
	struct mount *m;
	int ret = check_types(at->dentry, sb->root);

	if (ret)
		return ret;
	pthread_mutex_lock(&mount_lock);
	m = mount_alloc(NULL, sb, sb->root, flags, source);
	m->opts = opts ? xstrdup(opts) : NULL;
	ret = attach_tree(ns, m, at->mnt, at->dentry, false, &drop);
	if (ret)
		free_tree(m, &drop);
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return ret;
}

int mount_attach(struct mnt_namespace *ns, const struct path *at, struct super_block *sb,
		 unsigned flags, const char *source)
{
	return mount_attach_root(ns, at, sb->root, flags, source);
}

int mount_attach_root(struct mnt_namespace *ns, const struct path *at, struct dentry *root,
		      unsigned flags, const char *source)
{
	struct mount_vec drop = {0};
	struct mount *m;
	int ret = check_types(at->dentry, root);

	if (ret)
		return ret;
	pthread_mutex_lock(&mount_lock);
	m = mount_alloc(NULL, root->sb, root, flags, source);
	ret = attach_tree(ns, m, at->mnt, at->dentry, false, &drop);
	if (ret)
		free_tree(m, &drop);
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return ret;
}

/* Is a mount under dentry of m locked to it (Linux's has_locked_children)? */
static bool has_locked_children(struct mount *m, struct dentry *dentry)
{
	struct mount *c;

	list_for_each_entry(c, &m->children, sibling)
		if ((c->locked & MNT_LOCKED) && dentry_is_under(c->mountpoint, dentry))
			return true;
	return false;
}

int mount_bind(struct mnt_namespace *ns, const struct path *at, const struct path *from, bool rec)
{
	struct mount_vec drop = {0};
	struct mount *top;
	int ret = check_types(at->dentry, from->dentry);

	if (ret)
		return ret;
	pthread_mutex_lock(&mount_lock);
	if (from->mnt->flags & MNT_UNBINDABLE) {
		ret = -EINVAL;
	} else if (!rec && has_locked_children(from->mnt, from->dentry)) {
		ret = -EINVAL; /* it would show what they hide */
	} else {
		/* The whole copy is made before it is attached: a bind of a tree
		 * into itself copies what was there, not its own new mounts. */
		top = rec ? mount_copy_tree(from->mnt, from->dentry, 0)
			  : mount_clone(from->mnt, from->dentry, 0);
		top->locked &= ~MNT_LOCKED; /* the caller's own mount */
		ret = attach_tree(ns, top, at->mnt, at->dentry, false, &drop);
		if (ret)
			free_tree(top, &drop);
	}
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return ret;
}

int mount_umount(struct mnt_namespace *ns, struct mount *m, bool lazy)
{
	struct mount_vec drop = {0};

	pthread_mutex_lock(&mount_lock);
	if (m->ns != ns || !m->parent || (m->locked & MNT_LOCKED)) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	/* Busy: something mounted under it, or a reference beyond the
	 * namespace's and the caller's (an open file, a cwd, a root); or so
	 * is a mount the unmount propagates to. */
	if (!lazy &&
	    (!list_empty(&m->children) || mount_extra_refs(m) > 1 || prop_umount_busy(m))) {
		pthread_mutex_unlock(&mount_lock);
		return -EBUSY;
	}
	umount_tree(m, UT_PROPAGATE | (lazy ? 0 : UT_SYNC), &drop);
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return 0;
}

void mntns_root(struct mnt_namespace *ns, struct path *out)
{
	pthread_mutex_lock(&mount_lock);
	out->mnt = ns->root;
	out->dentry = ns->root->root;
	path_get(out);
	pthread_mutex_unlock(&mount_lock);
}

int mount_pivot(struct mnt_namespace *ns, const struct path *new_root, const struct path *put_old,
		const struct path *root)
{
	struct mount *nm = new_root->mnt, *om = put_old->mnt, *rm = root->mnt;
	struct mount *rparent = NULL, *nparent = NULL;
	struct dentry *rmp = NULL, *nmp = NULL;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	/* Linux's checks, in its order. */
	if (prop_is_shared(om) || (nm->parent && prop_is_shared(nm->parent)) ||
	    (rm->parent && prop_is_shared(rm->parent)))
		ret = -EINVAL; /* the change would propagate */
	else if (rm->ns != ns || nm->ns != ns || om->ns != ns)
		ret = -EINVAL;
	else if (nm->locked & MNT_LOCKED)
		ret = -EINVAL;
	else if (new_root->dentry->deleted)
		ret = -ENOENT;
	else if (nm == rm || om == rm)
		ret = -EBUSY; /* the same filesystem */
	else if (root->dentry != rm->root || new_root->dentry != nm->root || !nm->parent)
		ret = -EINVAL;
	else if (!path_under_locked(om, put_old->dentry, new_root) ||
		 !path_under_locked(nm, new_root->dentry, root))
		ret = -EINVAL;
	if (ret) {
		pthread_mutex_unlock(&mount_lock);
		return ret;
	}
	detach_locked(nm, &nparent, &nmp);
	if (rm->parent)
		detach_locked(rm, &rparent, &rmp);
	/* A lock on the old root (what it covers stays hidden) goes with its place. */
	if (rm->locked & MNT_LOCKED) {
		nm->locked |= MNT_LOCKED;
		rm->locked &= ~MNT_LOCKED;
	}
	attach_locked(rm, om, put_old->dentry);
	if (rparent)
		attach_locked(nm, rparent, rmp);
	else
		ns->root = nm;
	ns_touch(ns);
	pthread_mutex_unlock(&mount_lock);
	mount_put(nparent);
	dentry_put(nmp);
	if (rparent) {
		mount_put(rparent);
		dentry_put(rmp);
	}
	return 0;
}

static bool tree_has_unbindable(struct mount *top)
{
	for (struct mount *p = top; p; p = mount_next(p, top))
		if (p->flags & MNT_UNBINDABLE)
			return true;
	return false;
}

int mount_move(struct mnt_namespace *ns, struct mount *m, const struct path *at)
{
	struct mount_vec drop = {0};
	struct mount *p;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	if (m->ns != ns || !m->parent || (m->locked & MNT_LOCKED))
		ret = -EINVAL;
	else if (prop_is_shared(m->parent))
		ret = -EINVAL; /* its parent's peers would keep it */
	else if (prop_is_shared(at->mnt) && tree_has_unbindable(m))
		ret = -EINVAL;
	for (p = at->mnt; p && !ret; p = p->parent)
		if (p == m)
			ret = -ELOOP; /* not under itself */
	if (!ret)
		ret = attach_tree(ns, m, at->mnt, at->dentry, true, &drop);
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return ret;
}

int mount_set_group(const struct path *from, const struct path *to)
{
	struct mount *f = from->mnt, *t = to->mnt;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	/* Linux's do_set_group, in its order. */
	if (!f->ns || !t->ns)
		ret = -EINVAL; /* both mounted */
	else if (from->dentry != f->root || to->dentry != t->root)
		ret = -EINVAL;
	else if (f->sb != t->sb || !dentry_is_under(t->root, f->root))
		ret = -EINVAL; /* the same filesystem, from's root at or above to's */
	else if (has_locked_children(f, t->root))
		ret = -EINVAL;
	else if (prop_is_shared(t) || t->master)
		ret = -EINVAL; /* to must be private */
	else if (!prop_is_shared(f) && !f->master)
		ret = -EINVAL; /* from must not be */
	else
		prop_join(t, f);
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

bool mount_is_shared(struct mount *m)
{
	bool ret;

	pthread_mutex_lock(&mount_lock);
	ret = prop_is_shared(m);
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

void mount_set_propagation(struct mount *m, unsigned long ms_type, bool rec)
{
	pthread_mutex_lock(&mount_lock);
	for (struct mount *p = m; p; p = rec ? mount_next(p, m) : NULL)
		prop_change(p, ms_type);
	pthread_mutex_unlock(&mount_lock);
}

void mount_propagation_text(struct mount *m, const struct path *root, char *buf, size_t size)
{
	int n = 0;
	unsigned dom;

	buf[0] = '\0';
	pthread_mutex_lock(&mount_lock);
	if (m->group)
		n += snprintf(buf + n, size - (size_t)n, " shared:%u", m->group);
	if (m->master && (size_t)n < size) {
		n += snprintf(buf + n, size - (size_t)n, " master:%u", prop_master_id(m));
		dom = prop_dominating_id(m, root);
		if (dom && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " propagate_from:%u", dom);
	}
	if ((m->flags & MNT_UNBINDABLE) && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " unbindable");
	pthread_mutex_unlock(&mount_lock);
}

int mount_change_flags(struct mount *m, unsigned set, unsigned clr, bool rec)
{
	struct mount_vec todo = {0};
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	/* Every mount is checked before any changes. */
	for (struct mount *p = m; p; p = rec ? mount_next(p, m) : NULL)
		mount_vec_push(&todo, p);
	for (size_t i = 0; i < todo.n && !ret; i++)
		if (todo.v[i]->locked & MNT_LOCKABLE & clr & ~set)
			ret = -EPERM;
	for (size_t i = 0; i < todo.n && !ret; i++) {
		__atomic_store_n(&todo.v[i]->flags, (todo.v[i]->flags & ~clr) | set,
				 __ATOMIC_RELEASE);
		ns_touch(todo.v[i]->ns);
	}
	pthread_mutex_unlock(&mount_lock);
	mount_vec_free(&todo);
	return ret;
}

/* --- detached trees -------------------------------------------------------------------- */

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
	struct mount *top;

	pthread_mutex_lock(&mount_lock);
	if (from->mnt->flags & MNT_UNBINDABLE) {
		pthread_mutex_unlock(&mount_lock);
		*err = -EINVAL;
		return NULL;
	}
	if (!rec && has_locked_children(from->mnt, from->dentry)) {
		pthread_mutex_unlock(&mount_lock);
		*err = -EINVAL;
		return NULL;
	}
	ns = anon_alloc();
	/* A clone is private, as Linux's (CL_PRIVATE). */
	top = rec ? mount_copy_tree(from->mnt, from->dentry, CL_PRIVATE)
		  : mount_clone(from->mnt, from->dentry, CL_PRIVATE);
	top->locked &= ~MNT_LOCKED;
	commit_tree(ns, top);
	ns->root = top;
	pthread_mutex_unlock(&mount_lock);
	*err = 0;
	return ns;
}

bool mount_is_detached(const struct mount *m)
{
	struct mnt_namespace *ns = __atomic_load_n(&m->ns, __ATOMIC_ACQUIRE);

	return ns && ns->anon;
}

int mount_graft(struct mnt_namespace *ns, struct mnt_namespace *anon, const struct path *at)
{
	struct mount_vec drop = {0};
	struct mount *root;
	int ret;

	pthread_mutex_lock(&mount_lock);
	root = anon->root;
	if (!root || root->ns != anon) {
		pthread_mutex_unlock(&mount_lock);
		return -EINVAL;
	}
	ret = check_types(at->dentry, root->root);
	if (ret == 0 && prop_is_shared(at->mnt) && tree_has_unbindable(root))
		ret = -EINVAL;
	if (ret == 0)
		ret = attach_tree(ns, root, at->mnt, at->dentry, false, &drop);
	if (ret == 0)
		anon->root = NULL;
	pthread_mutex_unlock(&mount_lock);
	drop_all(&drop);
	return ret;
}
