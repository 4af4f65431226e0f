/*
 * An intrusive red-black tree. The caller embeds struct rb_node in its
 * object, finds the insertion point itself (so it controls the ordering),
 * links the node with rb_link() and then calls rb_insert_fixup().
 */
#ifndef RUNG_RBTREE_H
#define RUNG_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_node {
	struct rb_node *parent, *left, *right;
	bool red;
};

struct rb_root {
	struct rb_node *node;
};

#define RB_ROOT_INIT \
	{            \
		NULL \
	}

#define rb_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define rb_entry_safe(ptr, type, member)                  \
	({                                                \
		struct rb_node *__n = (ptr);              \
		__n ? rb_entry(__n, type, member) : NULL; \
	})

/* Attach node as the child *link of parent (link points into parent or root). */
static inline void rb_link(struct rb_node *node, struct rb_node *parent, struct rb_node **link)
{
	node->parent = parent;
	node->left = node->right = NULL;
	node->red = true;
	*link = node;
}

void rb_insert_fixup(struct rb_root *root, struct rb_node *node);
void rb_erase(struct rb_root *root, struct rb_node *node);

struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

static inline bool rb_empty(const struct rb_root *root)
{
	return root->node == NULL;
}

/* The number of nodes (walks the tree: for tests and statistics). */
static inline unsigned long rb_count(const struct rb_root *root)
{
	unsigned long count = 0;

	for (const struct rb_node *n = rb_first(root); n; n = rb_next(n))
		count++;
	return count;
}

/* Check the red-black invariants; returns the black height or -1 (unit tests). */
int rb_check(const struct rb_root *root);

#endif
