/*
 * The dentry cache: the tree of names the VFS has looked up, positive and
 * negative. Unused dentries (no reference) of caching filesystems stay in
 * their parent's child table and on an LRU list until pruned; those of
 * filesystems that cannot be cached (sb->cached false), and deleted ones,
 * are freed as soon as the last reference goes.
 *
 * One mutex, dcache_lock, protects child tables, parent pointers, the LRU
 * and the zero/non-zero reference transitions. Inodes are released outside
 * it, since a filesystem's evict may block.
 */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many unused dentries the cache keeps before pruning the oldest, at
 * most; filesystems whose dentries hold scarce resources lower it
 * (dcache_limit). */
#define DCACHE_MAX_UNUSED 50000
#define DCACHE_MIN_UNUSED 64

static pthread_mutex_t dcache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head lru = LIST_HEAD_INIT(lru);
static unsigned long nr_unused;
static unsigned long max_unused = DCACHE_MAX_UNUSED;

#define child_of(n) rb_entry(n, struct dentry, node)

static struct dentry *find_child(struct dentry *dir, const char *name)
{
	struct rb_node *n = dir->children.node;

	while (n) {
		struct dentry *c = child_of(n);
		int cmp = strcmp(name, c->name);
		if (cmp < 0)
			n = n->left;
		else if (cmp > 0)
			n = n->right;
		else
			return c;
	}
	return NULL;
}

static void insert_child(struct dentry *dir, struct dentry *d)
{
	struct rb_node **link = &dir->children.node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (strcmp(d->name, child_of(parent)->name) < 0)
			link = &parent->left;
		else
			link = &parent->right;
	}
	rb_link(&d->node, parent, link);
	rb_insert_fixup(&dir->children, &d->node);
	d->hashed = true;
}

/* Take d out of its parent's table (dcache_lock held). */
static void unhash(struct dentry *d)
{
	if (!d->hashed)
		return;
	rb_erase(&d->parent->children, &d->node);
	d->hashed = false;
}

static void lru_remove(struct dentry *d)
{
	if (!list_empty(&d->lru)) {
		list_del(&d->lru);
		nr_unused--;
	}
}

struct dentry *dentry_get(struct dentry *d)
{
	pthread_mutex_lock(&dcache_lock);
	if (d->refs++ == 0)
		lru_remove(d);
	pthread_mutex_unlock(&dcache_lock);
	return d;
}

/* Detach an unused dentry for freeing (dcache_lock held); returns its parent,
 * whose reference the caller must drop. */
static struct dentry *detach(struct dentry *d)
{
	struct dentry *parent = d->parent;

	lru_remove(d);
	unhash(d);
	return parent == d ? NULL : parent;
}

static void free_dentry(struct dentry *d)
{
	if (d->inode)
		inode_put(d->inode);
	free(d->name);
	free(d);
}

/* Drop one reference to d with dcache_lock held. Returns a dentry to free
 * (detached) or NULL. */
static struct dentry *put_locked(struct dentry *d)
{
	if (--d->refs > 0)
		return NULL;
	if (d->hashed && !d->deleted && d->sb->cached && d->parent != d) {
		list_add_tail(&d->lru, &lru);
		nr_unused++;
		return NULL;
	}
	return d;
}

void dentry_put(struct dentry *d)
{
	while (d) {
		struct dentry *parent = NULL, *dead;

		pthread_mutex_lock(&dcache_lock);
		dead = put_locked(d);
		if (dead)
			parent = detach(dead);
		pthread_mutex_unlock(&dcache_lock);
		if (!dead)
			break;
		free_dentry(dead);
		d = parent; /* the child's reference on its parent goes too */
	}
	if (__atomic_load_n(&nr_unused, __ATOMIC_RELAXED) >
	    __atomic_load_n(&max_unused, __ATOMIC_RELAXED))
		dcache_prune();
}

/* Free the oldest unused dentries until keep or fewer are left; returns
 * how many went (a parent that becomes unused joins the list, and may go
 * too). */
static unsigned long prune_to(unsigned long keep)
{
	unsigned long freed = 0;

	for (;;) {
		struct dentry *d, *parent;

		pthread_mutex_lock(&dcache_lock);
		if (nr_unused <= keep || list_empty(&lru)) {
			pthread_mutex_unlock(&dcache_lock);
			return freed;
		}
		d = list_first_entry(&lru, struct dentry, lru);
		parent = detach(d);
		pthread_mutex_unlock(&dcache_lock);
		free_dentry(d);
		dentry_put(parent);
		freed++;
	}
}

void dcache_prune(void)
{
	prune_to(__atomic_load_n(&max_unused, __ATOMIC_RELAXED) * 3 / 4);
}

unsigned long dcache_shrink(void)
{
	return prune_to(0);
}

void dcache_limit(unsigned long max)
{
	unsigned long cur = __atomic_load_n(&max_unused, __ATOMIC_RELAXED);

	max = MAX(max, (unsigned long)DCACHE_MIN_UNUSED);
	while (max < cur && !__atomic_compare_exchange_n(&max_unused, &cur, max, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static struct dentry *dentry_alloc(struct super_block *sb, const char *name, size_t len)
{
	struct dentry *d = xzalloc(sizeof(*d));

	d->refs = 1;
	d->sb = sb;
	d->name = xmalloc(len + 1);
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	list_init(&d->lru);
	return d;
}

struct dentry *dentry_make_root(struct super_block *sb, struct inode *root)
{
	struct dentry *d = dentry_alloc(sb, "/", 1);

	d->parent = d;
	d->inode = inode_get(root);
	return d;
}

struct dentry *dentry_get_parent(struct dentry *d)
{
	struct dentry *p;

	pthread_mutex_lock(&dcache_lock);
	p = d->parent;
	if (p->refs++ == 0)
		lru_remove(p);
	pthread_mutex_unlock(&dcache_lock);
	return p;
}

struct dentry *dentry_get_parent_name(struct dentry *d, char name[VFS_NAME_MAX + 1])
{
	struct dentry *p;

	pthread_mutex_lock(&dcache_lock);
	p = d->parent;
	if (p->refs++ == 0)
		lru_remove(p);
	snprintf(name, VFS_NAME_MAX + 1, "%s", d->name);
	pthread_mutex_unlock(&dcache_lock);
	return p;
}

struct dentry *dentry_lookup_cached(struct dentry *dir, const char *name)
{
	struct dentry *c;

	pthread_mutex_lock(&dcache_lock);
	c = find_child(dir, name);
	if (c && c->refs++ == 0)
		lru_remove(c);
	pthread_mutex_unlock(&dcache_lock);
	return c;
}

struct dentry *dentry_add(struct dentry *dir, const char *name, struct inode *inode)
{
	struct dentry *d = dentry_alloc(dir->sb, name, strlen(name)), *old, *dead = NULL;
	struct dentry *dead_parent = NULL;

	d->inode = inode ? inode_get(inode) : NULL;
	pthread_mutex_lock(&dcache_lock);
	old = find_child(dir, name);
	if (old) {
		unhash(old);
		if (old->refs == 0) {
			dead = old;
			dead_parent = detach(old);
		}
	}
	d->parent = dir;
	if (dir->refs++ == 0)
		lru_remove(dir);
	insert_child(dir, d);
	pthread_mutex_unlock(&dcache_lock);
	if (dead) {
		free_dentry(dead);
		dentry_put(dead_parent);
	}
	return d;
}

struct dentry *dentry_alloc_anon(struct dentry *dir, const char *name, struct inode *inode)
{
	struct dentry *d = dentry_alloc(dir->sb, name, strlen(name));

	d->inode = inode ? inode_get(inode) : NULL;
	d->deleted = true;
	d->parent = dentry_get(dir);
	return d;
}

void dentry_delete(struct dentry *d)
{
	pthread_mutex_lock(&dcache_lock);
	unhash(d);
	d->deleted = true;
	pthread_mutex_unlock(&dcache_lock);
}

void dentry_move(struct dentry *d, struct dentry *newdir, const char *newname)
{
	struct dentry *old_parent, *victim, *dead = NULL, *dead_parent = NULL;
	char *name = xstrdup(newname);

	pthread_mutex_lock(&dcache_lock);
	victim = find_child(newdir, newname);
	if (victim && victim != d) {
		unhash(victim);
		victim->deleted = true;
		if (victim->refs == 0) {
			dead = victim;
			dead_parent = detach(victim);
		}
	}
	unhash(d);
	old_parent = d->parent;
	free(d->name);
	d->name = name;
	d->parent = newdir;
	if (newdir->refs++ == 0)
		lru_remove(newdir);
	insert_child(newdir, d);
	pthread_mutex_unlock(&dcache_lock);
	dentry_put(old_parent);
	if (dead) {
		free_dentry(dead);
		dentry_put(dead_parent);
	}
}

long dentry_path(struct dentry *d, char *buf, size_t size)
{
	size_t pos = size;
	long ret;

	if (size == 0)
		return -ENAMETOOLONG;
	buf[--pos] = '\0';
	pthread_mutex_lock(&dcache_lock);
	while (d->parent != d) {
		size_t len = strlen(d->name);
		if (pos < len + 1) {
			pthread_mutex_unlock(&dcache_lock);
			return -ENAMETOOLONG;
		}
		pos -= len;
		memcpy(buf + pos, d->name, len);
		buf[--pos] = '/';
		d = d->parent;
	}
	pthread_mutex_unlock(&dcache_lock);
	if (pos == size - 1) {
		if (pos == 0)
			return -ENAMETOOLONG;
		buf[--pos] = '/';
	}
	ret = (long)(size - 1 - pos);
	memmove(buf, buf + pos, (size_t)ret + 1);
	return ret;
}

int dentry_prepend_path(struct dentry *d, struct dentry *stop, char *buf, size_t *pos)
{
	int ret = 0;

	pthread_mutex_lock(&dcache_lock);
	for (;;) {
		size_t len;
		if (d == stop) {
			ret = 1;
			break;
		}
		if (d->parent == d)
			break;
		len = strlen(d->name);
		if (*pos < len + 1) {
			ret = -ENAMETOOLONG;
			break;
		}
		*pos -= len;
		memcpy(buf + *pos, d->name, len);
		buf[--*pos] = '/';
		d = d->parent;
	}
	pthread_mutex_unlock(&dcache_lock);
	return ret;
}

void path_put(struct path *p)
{
	if (p->dentry)
		dentry_put(p->dentry);
	if (p->mnt)
		mount_put(p->mnt);
	p->dentry = NULL;
	p->mnt = NULL;
}
