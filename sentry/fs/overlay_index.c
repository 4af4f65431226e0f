/*
 * The overlay's index of hard-link groups (see overlay_index.h). One lock
 * guards the tree; the groups are few (lower files with more than one name
 * that the guest changed), so a tree of them costs next to nothing.
 */
#include "config.h"
#include "sentry/fs/overlay_index.h"
#include "lib/util.h"

#include <stdlib.h>

struct ovl_group {
	struct rb_node node;
	uint64_t dev, ino;   /* of the lower file */
	struct inode *upper; /* a reference */
	uint64_t pending;    /* names still in the lower layer only */
};

static int cmp_key(const struct ovl_group *g, uint64_t dev, uint64_t ino)
{
	if (dev != g->dev)
		return dev < g->dev ? -1 : 1;
	if (ino != g->ino)
		return ino < g->ino ? -1 : 1;
	return 0;
}

/* The group of (dev, ino), or NULL; *linkp and *parentp say where it
 * would go. Called with ix->lock held. */
static struct ovl_group *find_locked(struct ovl_index *ix, uint64_t dev, uint64_t ino,
				     struct rb_node ***linkp, struct rb_node **parentp)
{
	struct rb_node **link = &ix->groups.node, *parent = NULL;

	while (*link) {
		struct ovl_group *g = rb_entry(*link, struct ovl_group, node);
		int c = cmp_key(g, dev, ino);
		if (c == 0)
			return g;
		parent = *link;
		link = c < 0 ? &(*link)->left : &(*link)->right;
	}
	if (linkp) {
		*linkp = link;
		*parentp = parent;
	}
	return NULL;
}

void ovl_index_init(struct ovl_index *ix)
{
	pthread_mutex_init(&ix->lock, NULL);
	ix->groups = (struct rb_root)RB_ROOT_INIT;
}

void ovl_index_destroy(struct ovl_index *ix)
{
	struct rb_node *n;

	while ((n = rb_first(&ix->groups))) {
		struct ovl_group *g = rb_entry(n, struct ovl_group, node);
		rb_erase(&ix->groups, n);
		inode_put(g->upper);
		free(g);
	}
	pthread_mutex_destroy(&ix->lock);
}

struct inode *ovl_index_find(struct ovl_index *ix, uint64_t dev, uint64_t ino)
{
	struct ovl_group *g;
	struct inode *up = NULL;

	pthread_mutex_lock(&ix->lock);
	g = find_locked(ix, dev, ino, NULL, NULL);
	if (g)
		up = inode_get(g->upper);
	pthread_mutex_unlock(&ix->lock);
	return up;
}

void ovl_index_add(struct ovl_index *ix, uint64_t dev, uint64_t ino, struct inode *up,
		   uint64_t pending)
{
	struct rb_node **link, *parent;
	struct ovl_group *g;

	pthread_mutex_lock(&ix->lock);
	if (!find_locked(ix, dev, ino, &link, &parent)) {
		g = xzalloc(sizeof(*g));
		g->dev = dev;
		g->ino = ino;
		g->upper = inode_get(up);
		g->pending = pending;
		rb_link(&g->node, parent, link);
		rb_insert_fixup(&ix->groups, &g->node);
	}
	pthread_mutex_unlock(&ix->lock);
}

void ovl_index_settle(struct ovl_index *ix, uint64_t dev, uint64_t ino)
{
	struct ovl_group *g;
	struct inode *drop = NULL;

	pthread_mutex_lock(&ix->lock);
	g = find_locked(ix, dev, ino, NULL, NULL);
	if (g && (g->pending == 0 || --g->pending == 0)) {
		rb_erase(&ix->groups, &g->node);
		drop = g->upper;
		free(g);
	}
	pthread_mutex_unlock(&ix->lock);
	if (drop)
		inode_put(drop);
}
