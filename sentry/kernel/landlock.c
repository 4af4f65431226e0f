/*
 * Landlock's rulesets, domains and access checks (see landlock.h), after
 * Linux 6.1's security/landlock/{ruleset,fs,ptrace}.c.
 *
 * A rule holds its inode and the dentry it was added through: the dentry
 * keeps the name cached, so that a layered filesystem that makes an inode
 * per lookup (the overlay) keeps finding the same inode for it.
 *
 * The checks keep, per access right, a mask of the layers that still deny
 * it (Linux's layer masks); walking from the file up to the root clears a
 * layer's bit wherever one of its rules allows the right.
 */
#include "config.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Linux allows U32_MAX rules; each rule here pins a cached name. */
#define LL_MAX_RULES (1u << 16)

struct ll_rule {
	struct inode *inode;   /* a reference */
	struct dentry *dentry; /* a reference */
	uint32_t access;
};

struct landlock_ruleset {
	int refs;
	pthread_mutex_t lock; /* the rules */
	uint32_t handled;
	size_t n, cap;
	struct ll_rule *rules; /* sorted by inode */
};

struct landlock_domain {
	int refs;
	struct landlock_domain *parent; /* the layer below (a reference), or NULL */
	unsigned level;			/* 1 for the first layer */
	uint32_t handled;
	size_t n;
	struct ll_rule rules[]; /* sorted by inode */
};

typedef uint16_t layer_masks[LL_NUM_ACCESS];

/* --- rules ------------------------------------------------------------------------ */

/* The index of inode in rules[0..n), or where it would go (*found false). */
static size_t rule_search(const struct ll_rule *rules, size_t n, const struct inode *inode,
			  bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)rules[mid].inode < (uintptr_t)inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && rules[lo].inode == inode;
	return lo;
}

static void rules_release(struct ll_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dentry_put(rules[i].dentry);
		inode_put(rules[i].inode);
	}
}

struct landlock_ruleset *landlock_ruleset_new(uint32_t handled)
{
	struct landlock_ruleset *rs = xzalloc(sizeof(*rs));

	rs->refs = 1;
	pthread_mutex_init(&rs->lock, NULL);
	rs->handled = handled;
	return rs;
}

void landlock_ruleset_put(struct landlock_ruleset *rs)
{
	if (!rs || __atomic_sub_fetch(&rs->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	rules_release(rs->rules, rs->n);
	free(rs->rules);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

uint32_t landlock_ruleset_handled(const struct landlock_ruleset *rs)
{
	return rs->handled;
}

int landlock_ruleset_add(struct landlock_ruleset *rs, const struct path *p, uint32_t allowed)
{
	struct inode *inode = p->dentry->inode;
	bool found;
	size_t i;
	int ret = 0;

	if (!S_ISDIR(inode->mode) && (allowed & ~LL_FS_FILE))
		return -EINVAL;
	pthread_mutex_lock(&rs->lock);
	i = rule_search(rs->rules, rs->n, inode, &found);
	if (found) {
		rs->rules[i].access |= allowed; /* one rule per file: the union */
	} else if (rs->n >= LL_MAX_RULES) {
		ret = -E2BIG;
	} else {
		if (rs->n == rs->cap) {
			rs->cap = rs->cap ? rs->cap * 2 : 8;
			rs->rules = xrealloc(rs->rules, rs->cap * sizeof(*rs->rules));
		}
		memmove(&rs->rules[i + 1], &rs->rules[i], (rs->n - i) * sizeof(*rs->rules));
		rs->rules[i] = (struct ll_rule){.inode = inode_get(inode),
						.dentry = dentry_get(p->dentry),
						.access = allowed};
		rs->n++;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/* --- domains ---------------------------------------------------------------------- */

static struct landlock_domain *domain_get(struct landlock_domain *d)
{
	if (d)
		__atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
	return d;
}

static void domain_put(struct landlock_domain *d)
{
	while (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct landlock_domain *parent = d->parent;
		rules_release(d->rules, d->n);
		free(d);
		d = parent;
	}
}

int landlock_restrict(struct task *t, struct landlock_ruleset *rs)
{
	struct landlock_domain *old = t->landlock, *d;
	unsigned level = old ? old->level + 1 : 1;

	if (level > LANDLOCK_MAX_LAYERS)
		return -E2BIG;
	/* A snapshot: rules added to rs later do not change the domain. */
	pthread_mutex_lock(&rs->lock);
	d = xzalloc(sizeof(*d) + rs->n * sizeof(d->rules[0]));
	d->refs = 1;
	d->parent = old; /* the task's reference moves to the new layer */
	d->level = level;
	d->handled = rs->handled;
	d->n = rs->n;
	for (size_t i = 0; i < rs->n; i++) {
		d->rules[i] = rs->rules[i];
		inode_get(d->rules[i].inode);
		dentry_get(d->rules[i].dentry);
	}
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_lock(&t->k->lock);
	t->landlock = d;
	pthread_mutex_unlock(&t->k->lock);
	return 0;
}

void landlock_fork(struct task *child, struct task *parent)
{
	child->landlock = domain_get(parent->landlock);
}

void landlock_task_exit(struct task *t)
{
	struct landlock_domain *d;

	pthread_mutex_lock(&t->k->lock);
	d = t->landlock;
	t->landlock = NULL;
	pthread_mutex_unlock(&t->k->lock);
	domain_put(d);
}

bool landlock_may_ptrace(const struct task *tracer, const struct task *target)
{
	const struct landlock_domain *d;

	if (!tracer->landlock)
		return true;
	for (d = target->landlock; d; d = d->parent)
		if (d == tracer->landlock)
			return true;
	return false;
}

int landlock_check_mount(const struct task *t)
{
	return t->landlock ? -EPERM : 0;
}

/* --- layer masks ------------------------------------------------------------------ */

/* The layers of dom that handle each right of request (REFER: every layer,
 * as Linux always denies it by default). Returns the rights some layer denies. */
static uint32_t masks_init(const struct landlock_domain *dom, uint32_t request, layer_masks m)
{
	uint32_t denied = 0;

	memset(m, 0, sizeof(layer_masks));
	for (const struct landlock_domain *d = dom; d; d = d->parent) {
		uint32_t h = (d->handled | LL_FS_REFER) & request;
		for (unsigned b = 0; b < LL_NUM_ACCESS; b++) {
			if (h & (1u << b)) {
				m[b] |= (uint16_t)(1u << (d->level - 1));
				denied |= 1u << b;
			}
		}
	}
	return denied;
}

/* Clear the layers whose rule on inode allows a right of request. */
static void masks_unmask(const struct landlock_domain *dom, const struct inode *inode,
			 uint32_t request, layer_masks m)
{
	if (!inode)
		return;
	for (const struct landlock_domain *d = dom; d; d = d->parent) {
		bool found;
		size_t i = rule_search(d->rules, d->n, inode, &found);
		uint32_t a;
		if (!found)
			continue;
		a = d->rules[i].access & request;
		for (unsigned b = 0; b < LL_NUM_ACCESS; b++)
			if (a & (1u << b))
				m[b] &= (uint16_t) ~(1u << (d->level - 1));
	}
}

/* Is every right of request allowed by every layer (no bit left)? */
static bool masks_clear(const layer_masks m, uint32_t request)
{
	for (unsigned b = 0; b < LL_NUM_ACCESS; b++)
		if ((request & (1u << b)) && m[b])
			return false;
	return true;
}

/* --- walking up ------------------------------------------------------------------- */

/* Step w (references held) to the next directory above it, through the
 * mounts: the dentry a mount is on is hidden by it and not visited, as in
 * Linux. false at the real root. */
static bool walk_up(struct path *w)
{
	struct dentry *up;

	while (w->dentry == w->mnt->root) {
		struct mount *parent = w->mnt->parent;
		struct path next;
		if (!parent)
			return false;
		next.mnt = mount_get(parent);
		next.dentry = dentry_get(w->mnt->mountpoint);
		path_put(w);
		*w = next;
	}
	up = dentry_get_parent(w->dentry);
	if (up == w->dentry) {
		/* A root outside the mount's subtree (the file left a bind
		 * mount's directory): go on from the mount's root. */
		dentry_put(up);
		up = dentry_get(w->mnt->root);
	}
	dentry_put(w->dentry);
	w->dentry = up;
	return true;
}

/* Unmask request along p and its ancestors (stopping once all is allowed). */
static void masks_walk(const struct landlock_domain *dom, const struct path *p, uint32_t request,
		       layer_masks m)
{
	struct path w = *p;

	path_get(&w);
	do {
		masks_unmask(dom, w.dentry->inode, request, m);
		if (masks_clear(m, request))
			break;
	} while (walk_up(&w));
	path_put(&w);
}

/* Files of internal mounts (pipes, sockets, memfds reopened through
 * /proc/self/fd) are in no hierarchy a rule can name: always allowed. */
static bool unnamed(const struct path *p)
{
	return (p->mnt->flags & MNT_INTERNAL) != 0;
}

static int check_path(struct task *t, const struct path *p, uint32_t request)
{
	const struct landlock_domain *dom = t->landlock;
	layer_masks m;

	if (!dom || !request || unnamed(p))
		return 0;
	if (!masks_init(dom, request, m))
		return 0;
	masks_walk(dom, p, request, m);
	return masks_clear(m, request) ? 0 : -EACCES;
}

/* --- the VFS's checks ------------------------------------------------------------- */

static uint32_t make_access(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFLNK:
		return LL_FS_MAKE_SYM;
	case S_IFDIR:
		return LL_FS_MAKE_DIR;
	case S_IFCHR:
		return LL_FS_MAKE_CHAR;
	case S_IFBLK:
		return LL_FS_MAKE_BLOCK;
	case S_IFIFO:
		return LL_FS_MAKE_FIFO;
	case S_IFSOCK:
		return LL_FS_MAKE_SOCK;
	default:
		return LL_FS_MAKE_REG;
	}
}

int landlock_check_open(struct task *t, const struct path *p, int flags)
{
	uint32_t request = 0;
	int acc = flags & O_ACCMODE;

	if (!t->landlock)
		return 0;
	if (acc == O_RDONLY || acc == O_RDWR) {
		if (S_ISDIR(p->dentry->inode->mode))
			return check_path(t, p, LL_FS_READ_DIR);
		request |= LL_FS_READ_FILE;
	}
	if (acc == O_WRONLY || acc == O_RDWR)
		request |= LL_FS_WRITE_FILE;
	return check_path(t, p, request);
}

int landlock_check_exec(struct task *t, const struct path *p)
{
	return check_path(t, p, LL_FS_EXECUTE | LL_FS_READ_FILE);
}

int landlock_check_make(struct task *t, const struct path *dir, uint32_t mode)
{
	return check_path(t, dir, make_access(mode));
}

int landlock_check_remove(struct task *t, const struct path *dir, bool isdir)
{
	return check_path(t, dir, isdir ? LL_FS_REMOVE_DIR : LL_FS_REMOVE_FILE);
}

/* Would a file with masks child (its own rule) gain a right by moving
 * from under parent1 to under parent2? Linux's no_more_access: whatever a
 * layer denies it at its place must that layer deny under parent2 too. */
static bool no_more_access(const layer_masks parent1, const layer_masks child, bool child_dir,
			   const layer_masks parent2)
{
	for (unsigned b = 0; b < LL_NUM_ACCESS; b++) {
		if (!child_dir && !((1u << b) & LL_FS_FILE))
			continue;
		if ((parent1[b] & child[b]) & ~parent2[b])
			return false;
	}
	return true;
}

/* Every right of dom, unmasked along dir (which must be named). */
static void collect(const struct landlock_domain *dom, const struct path *dir, layer_masks m)
{
	masks_init(dom, LL_FS_ALL, m);
	masks_walk(dom, dir, LL_FS_ALL, m);
}

/* The masks of a moved file itself: every right, unmasked by its own rule. */
static void child_masks(const struct landlock_domain *dom, struct dentry *d, layer_masks m)
{
	masks_init(dom, LL_FS_ALL, m);
	masks_unmask(dom, d->inode, LL_FS_ALL, m);
}

static bool denies_beyond_refer(const layer_masks m, uint32_t request)
{
	return !masks_clear(m, request & ~LL_FS_REFER);
}

/*
 * A link or rename that moves od (in olddir) to newdir, as Linux's
 * current_check_refer_path: in one directory only the creation (and
 * removal) rights are needed; across directories REFER is needed on both
 * sides and the file must not gain rights by the move (-EXDEV when that is
 * all that is wrong, -EACCES first when a right is missing anyway).
 */
static int check_refer(struct task *t, const struct path *olddir, struct dentry *od,
		       const struct path *newdir, struct dentry *nd, bool removable, bool exchange)
{
	const struct landlock_domain *dom = t->landlock;
	uint32_t req1 = 0, req2 = make_access(od->inode->mode);
	layer_masks p1, p2, c1, c2;
	bool ok;

	if (!dom || unnamed(newdir))
		return 0;
	if (exchange)
		req1 = make_access(nd->inode->mode);
	if (removable) {
		req1 |= S_ISDIR(od->inode->mode) ? LL_FS_REMOVE_DIR : LL_FS_REMOVE_FILE;
		if (nd && nd->inode)
			req2 |= S_ISDIR(nd->inode->mode) ? LL_FS_REMOVE_DIR : LL_FS_REMOVE_FILE;
	}
	if (olddir->dentry == newdir->dentry)
		return check_path(t, newdir, req1 | req2);
	req1 |= LL_FS_REFER;
	req2 |= LL_FS_REFER;
	collect(dom, olddir, p1);
	collect(dom, newdir, p2);
	child_masks(dom, od, c1);
	ok = no_more_access(p1, c1, S_ISDIR(od->inode->mode), p2);
	if (exchange) {
		child_masks(dom, nd, c2);
		ok = ok && no_more_access(p2, c2, S_ISDIR(nd->inode->mode), p1);
	}
	if (ok && masks_clear(p1, req1) && masks_clear(p2, req2))
		return 0;
	if (denies_beyond_refer(p1, req1) || denies_beyond_refer(p2, req2))
		return -EACCES;
	return -EXDEV;
}

int landlock_check_link(struct task *t, const struct path *old, const struct path *newdir)
{
	struct path olddir;
	int ret;

	if (!t->landlock)
		return 0;
	/* The directory old is in (a mount's root is its own, as in Linux). */
	olddir.mnt = mount_get(old->mnt);
	olddir.dentry = old->dentry == old->mnt->root ? dentry_get(old->dentry)
						      : dentry_get_parent(old->dentry);
	ret = check_refer(t, &olddir, old->dentry, newdir, NULL, false, false);
	path_put(&olddir);
	return ret;
}

int landlock_check_rename(struct task *t, const struct path *olddir, struct dentry *od,
			  const struct path *newdir, struct dentry *nd, bool exchange)
{
	if (!t->landlock)
		return 0;
	return check_refer(t, olddir, od, newdir, nd, true, exchange);
}
