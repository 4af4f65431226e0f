/*
 * Mount propagation: peer groups, masters and slaves, and the copies a
 * mount or unmount event makes across a propagation tree (the semantics
 * of Linux's fs/pnode.c; see propagation.h). Callers hold mount_lock.
 *
 * A propagation tree is walked group by group, breadth first: a group is
 * the ring of a shared mount's peers, or one mount that is not shared;
 * the groups below it are those of its members' slaves.
 */
#include "config.h"
#include "sentry/vfs/propagation.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

void mount_vec_push(struct mount_vec *mv, struct mount *m)
{
	if (mv->n == mv->cap) {
		mv->cap = mv->cap ? mv->cap * 2 : 16;
		mv->v = xrealloc(mv->v, mv->cap * sizeof(*mv->v));
	}
	mv->v[mv->n++] = m;
}

void mount_vec_free(struct mount_vec *mv)
{
	free(mv->v);
	mv->v = NULL;
	mv->n = mv->cap = 0;
}

/* --- group ids: the smallest free one, as Linux's IDA ------------------------------- */

static uint64_t *group_bits;
static size_t group_words;

static unsigned group_alloc(void)
{
	for (size_t w = 0;; w++) {
		if (w == group_words) {
			size_t nw = group_words ? group_words * 2 : 4;
			group_bits = xrealloc(group_bits, nw * sizeof(*group_bits));
			memset(group_bits + group_words, 0,
			       (nw - group_words) * sizeof(*group_bits));
			group_words = nw;
		}
		/* Bit 0 of word 0 is id 0, never handed out. */
		uint64_t used = group_bits[w] | (w == 0 ? 1 : 0);
		if (~used) {
			unsigned b = (unsigned)__builtin_ctzll(~used);
			group_bits[w] |= 1ull << b;
			return (unsigned)(w * 64 + b);
		}
	}
}

static void group_free(unsigned id)
{
	if (id && id / 64 < group_words)
		group_bits[id / 64] &= ~(1ull << (id % 64));
}

/* --- one mount's state --------------------------------------------------------------- */

void prop_init(struct mount *m)
{
	m->group = 0;
	m->master = NULL;
	list_init(&m->peers);
	list_init(&m->slaves);
	list_init(&m->slave);
}

bool prop_is_shared(const struct mount *m)
{
	return m->group != 0;
}

bool prop_is_new(const struct mount *m)
{
	return !m->ns || m->ns->anon;
}

static struct mount *next_peer(struct mount *m)
{
	return list_entry(m->peers.next, struct mount, peers);
}

/* Leave m's peer group; the id goes back when m was its last member. */
static void leave_group(struct mount *m)
{
	if (!m->group)
		return;
	if (list_empty(&m->peers))
		group_free(m->group);
	list_del_init(&m->peers);
	m->group = 0;
}

static void set_master(struct mount *m, struct mount *master)
{
	list_del_init(&m->slave);
	m->master = master;
	if (master)
		list_add_tail(&m->slave, &master->slaves);
}

void prop_make_shared(struct mount *m)
{
	if (!m->group)
		m->group = group_alloc();
	/* Shared and unbindable exclude each other. (Flags are read without
	 * mount_lock: atomically.) */
	__atomic_and_fetch(&m->flags, ~MNT_UNBINDABLE, __ATOMIC_RELEASE);
}

void prop_inherit(struct mount *c, struct mount *old, int cl)
{
	prop_init(c);
	if ((cl & CL_SLAVE) || ((cl & CL_SHARED_TO_SLAVE) && prop_is_shared(old))) {
		set_master(c, old);
	} else if (!(cl & CL_PRIVATE)) {
		if (((cl & CL_MAKE_SHARED) || prop_is_shared(old)) && old->group) {
			c->group = old->group;
			list_add(&c->peers, &old->peers);
		}
		set_master(c, old->master);
	}
	if ((cl & CL_MAKE_SHARED) && !c->group)
		prop_make_shared(c);
}

/* Make m a slave of its group (or of its master, when it has no peers),
 * taking its slaves along: Linux's do_make_slave. A mount with neither
 * peers nor a master ends up private, its slaves freed. */
static void make_slave(struct mount *m)
{
	struct mount *master, *s, *tmp;

	if (list_empty(&m->peers)) {
		leave_group(m);
		master = m->master;
		if (!master) {
			list_for_each_entry_safe(s, tmp, &m->slaves, slave)
				set_master(s, NULL);
			return;
		}
	} else {
		/* A peer with the same root is the best master, else any. */
		struct mount *p;
		master = next_peer(m);
		for (p = master; p != m; p = next_peer(p))
			if (p->root == m->root) {
				master = p;
				break;
			}
		leave_group(m);
	}
	list_for_each_entry_safe(s, tmp, &m->slaves, slave)
		set_master(s, master);
	set_master(m, master);
}

void prop_change(struct mount *m, unsigned long ms_type)
{
	if (ms_type == MS_SHARED) {
		prop_make_shared(m);
		return;
	}
	make_slave(m);
	if (ms_type != MS_SLAVE) {
		set_master(m, NULL);
		if (ms_type == MS_UNBINDABLE)
			__atomic_or_fetch(&m->flags, MNT_UNBINDABLE, __ATOMIC_RELEASE);
		else
			__atomic_and_fetch(&m->flags, ~MNT_UNBINDABLE, __ATOMIC_RELEASE);
	}
}

void prop_join(struct mount *to, struct mount *from)
{
	if (from->master)
		set_master(to, from->master);
	if (from->group) {
		to->group = from->group;
		list_add(&to->peers, &from->peers);
		__atomic_and_fetch(&to->flags, ~MNT_UNBINDABLE, __ATOMIC_RELEASE);
	}
}

unsigned prop_master_id(const struct mount *m)
{
	return m->master ? m->master->group : 0;
}

/* Is the root of m visible from root (m at or under it)? */
static bool reachable(const struct mount *m, const struct path *root)
{
	const struct mount *p = m;
	struct dentry *d = m->root;

	while (p != root->mnt) {
		if (!p->parent || !p->ns)
			return false;
		d = p->mountpoint;
		p = p->parent;
	}
	return dentry_is_under(d, root->dentry);
}

unsigned prop_dominating_id(const struct mount *m, const struct path *root)
{
	for (const struct mount *g = m->master; g; g = g->master) {
		const struct mount *p = g;
		do {
			if (p->ns == m->ns && reachable(p, root))
				return p->group == prop_master_id(m) ? 0 : p->group;
			p = list_entry(p->peers.next, struct mount, peers);
		} while (p != g);
	}
	return 0;
}

/* --- walking a propagation tree ----------------------------------------------------- */

static unsigned walk_gen;

/* A group to visit, and the copy its slaves' copies are made from. */
struct walk_item {
	struct mount *group;
	struct mount *from;
};

struct walk {
	struct walk_item *q;
	size_t head, n, cap;
	unsigned gen;
};

static void walk_mark_group(struct walk *w, struct mount *g)
{
	struct mount *p = g;

	do {
		p->walk = w->gen;
		p = next_peer(p);
	} while (p != g);
}

static void walk_push(struct walk *w, struct mount *g, struct mount *from)
{
	if (g->walk == w->gen)
		return;
	walk_mark_group(w, g);
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->q = xrealloc(w->q, w->cap * sizeof(*w->q));
	}
	w->q[w->n++] = (struct walk_item){g, from};
}

/* Queue the groups of the slaves of every member of g's group. */
static void walk_push_slaves(struct walk *w, struct mount *g, struct mount *from)
{
	struct mount *p = g, *s;

	do {
		list_for_each_entry(s, &p->slaves, slave)
			walk_push(w, s, from);
		p = next_peer(p);
	} while (p != g);
}

static void walk_begin(struct walk *w, struct mount *origin)
{
	memset(w, 0, sizeof(*w));
	w->gen = ++walk_gen;
	if (!w->gen)
		w->gen = ++walk_gen; /* 0 is every mount's initial mark */
	walk_push(w, origin, NULL);
}

static void walk_end(struct walk *w)
{
	free(w->q);
}

/* --- mount events --------------------------------------------------------------------- */

static unsigned tree_size(struct mount *top)
{
	unsigned n = 0;

	for (struct mount *p = top; p; p = mount_next(p, top))
		n++;
	return n;
}

/* A copy of src for m, at mp: NULL when mp is not visible in m. */
static int copy_for(struct mount *m, struct dentry *mp, struct mount *src, int cl,
		    struct mount_vec *copies, struct mount **out)
{
	struct mount *c;

	*out = NULL;
	if (prop_is_new(m) || !dentry_is_under(mp, m->root))
		return 0;
	c = mount_copy_tree(src, src->root, cl);
	c->parent = mount_get(m);
	c->mountpoint = dentry_get(mp);
	mount_vec_push(copies, c);
	*out = c;
	return mount_count_add(m->ns, tree_size(c));
}

int prop_mount(struct mount *dest, struct dentry *mp, struct mount *source,
	       struct mount_vec *copies)
{
	struct walk w;
	int ret = 0;

	walk_begin(&w, dest);
	while (w.head < w.n && !ret) {
		struct walk_item it = w.q[w.head++];
		bool top = it.group == dest;
		/* A copy in this group: the peers' copies are its peers. */
		struct mount *here = top ? source : NULL, *p = it.group, *c;

		do {
			if (p != dest) {
				if (here)
					ret = copy_for(p, mp, here, CL_MAKE_SHARED, copies, &c);
				else
					ret = copy_for(
						p, mp, it.from,
						CL_SLAVE | (prop_is_shared(p) ? CL_MAKE_SHARED : 0),
						copies, &c);
				if (c && !here)
					here = c;
			}
			p = next_peer(p);
		} while (p != it.group && !ret);
		/* Slaves copy from this group's copy, or (none here: mp is not
		 * in these mounts) from the one above. */
		walk_push_slaves(&w, it.group, here ? here : it.from);
	}
	walk_end(&w);
	return ret;
}

/* --- unmount events -------------------------------------------------------------------- */

/* Call fn for every mount of the propagation tree of origin but origin. */
static void for_each_receiver(struct mount *origin, void (*fn)(struct mount *r, void *arg),
			      void *arg)
{
	struct walk w;

	walk_begin(&w, origin);
	while (w.head < w.n) {
		struct mount *g = w.q[w.head++].group, *p = g;
		do {
			if (p != origin)
				fn(p, arg);
			p = next_peer(p);
		} while (p != g);
		walk_push_slaves(&w, g, NULL);
	}
	walk_end(&w);
}

/* The one mount on m that covers its root, if that is all that is on m. */
static struct mount *topper(struct mount *m)
{
	struct mount *c;

	if (list_empty(&m->children) || m->children.next != m->children.prev)
		return NULL;
	c = list_first_entry(&m->children, struct mount, sibling);
	return c->mountpoint == m->root ? c : NULL;
}

struct busy_ctx {
	struct dentry *mp;
	bool busy;
};

static void busy_one(struct mount *r, void *arg)
{
	struct busy_ctx *bc = arg;
	struct mount *c = mount_child_at(r, bc->mp);
	int expect;

	if (!c || bc->busy)
		return;
	/* Beyond its namespace's reference: one per submount. */
	if (topper(c))
		expect = 1;
	else if (list_empty(&c->children))
		expect = 0;
	else
		return; /* it would not be unmounted */
	if (mount_extra_refs(c) > expect)
		bc->busy = true;
}

bool prop_umount_busy(struct mount *m)
{
	struct busy_ctx bc = {.mp = m->mountpoint};

	if (!m->parent)
		return false;
	for_each_receiver(m->parent, busy_one, &bc);
	return bc.busy;
}

struct umount_ctx {
	struct dentry *mp;
	struct mount_vec cand; /* the mounts the unmount may propagate to */
	unsigned seen;	       /* ->seen of a mount visited by this unmount */
};

/* ->seen of a candidate found free to go. */
#define UMOUNT_OK(uc) ((uc)->seen + 1)

static void umount_one(struct mount *r, void *arg)
{
	struct umount_ctx *uc = arg;
	struct mount *c = mount_child_at(r, uc->mp);

	if (!c || c->seen == uc->seen)
		return;
	c->seen = uc->seen;
	if (!mount_umounting(c))
		mount_vec_push(&uc->cand, c);
}

/* May c go, everything on it going too (or covering it whole)? */
static bool may_go(const struct umount_ctx *uc, struct mount *c)
{
	struct mount *k;

	list_for_each_entry(k, &c->children, sibling)
		if (k->mountpoint != c->root && !mount_umounting(k) && k->seen != UMOUNT_OK(uc))
			return false;
	return true;
}

/* c goes, with everything on it but the mounts that cover one of them
 * whole: those go to *covers. */
static void umount_with_children(struct mount *c, struct mount_vec *list, struct mount_vec *covers)
{
	size_t i = list->n;

	mount_set_umounting(c);
	mount_vec_push(list, c);
	for (; i < list->n; i++) {
		struct mount *x = list->v[i], *k;
		list_for_each_entry(k, &x->children, sibling) {
			if (mount_umounting(k))
				continue;
			if (k->mountpoint == x->root) {
				mount_vec_push(covers, k);
				continue;
			}
			mount_set_umounting(k);
			mount_vec_push(list, k);
		}
	}
}

void prop_umount(struct mount_vec *list)
{
	struct umount_ctx uc = {0};
	struct mount_vec covers = {0};
	bool progress = true;
	size_t n = list->n;

	/* Two marks of ours: seen, and seen + 1 for "free to go". */
	walk_gen += 2;
	uc.seen = walk_gen - 1;
	for (size_t i = 0; i < n; i++) {
		struct mount *m = list->v[i];
		if (m->seen == uc.seen || !m->parent)
			continue;
		m->seen = uc.seen;
		uc.mp = m->mountpoint;
		for_each_receiver(m->parent, umount_one, &uc);
	}
	/* Until nothing changes: a candidate may go once all on it may. */
	while (progress) {
		progress = false;
		for (size_t i = 0; i < uc.cand.n; i++) {
			struct mount *c = uc.cand.v[i];
			if (c->seen != UMOUNT_OK(&uc) && may_go(&uc, c)) {
				c->seen = UMOUNT_OK(&uc);
				progress = true;
			}
		}
	}
	/* A locked one stays (what it covers stays hidden), unless its
	 * parent goes. */
	for (size_t i = 0; i < uc.cand.n; i++) {
		struct mount *c = uc.cand.v[i];
		if (c->seen == UMOUNT_OK(&uc) && !(c->locked & MNT_LOCKED) && !mount_umounting(c))
			umount_with_children(c, list, &covers);
	}
	/* A cover moves down to the place of the nearest mount under it that
	 * stays. */
	for (size_t i = 0; i < covers.n; i++) {
		struct mount *t = covers.v[i], *parent = t->parent;
		struct dentry *mp = t->mountpoint;
		if (mount_umounting(t))
			continue;
		while (mount_umounting(parent) && parent->parent) {
			mp = parent->mountpoint;
			parent = parent->parent;
		}
		if (parent != t->parent)
			mount_reattach(t, parent, mp);
	}
	mount_vec_free(&covers);
	mount_vec_free(&uc.cand);
}
