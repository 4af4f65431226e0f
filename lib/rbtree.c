#include "config.h"
#include "lib/rbtree.h"

static void rotate_left(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		root->node = y;
	else if (x == x->parent->left)
		x->parent->left = y;
	else
		x->parent->right = y;
	y->left = x;
	x->parent = y;
}

static void rotate_right(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		root->node = y;
	else if (x == x->parent->right)
		x->parent->right = y;
	else
		x->parent->left = y;
	y->right = x;
	x->parent = y;
}

void rb_insert_fixup(struct rb_root *root, struct rb_node *z)
{
	while (z->parent && z->parent->red) {
		struct rb_node *p = z->parent, *g = p->parent, *u;

		if (p == g->left) {
			u = g->right;
			if (u && u->red) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				rotate_left(root, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(root, g);
		} else {
			u = g->left;
			if (u && u->red) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				rotate_right(root, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(root, g);
		}
	}
	root->node->red = false;
}

/* Put v where u was (u's subtree links are the caller's business). */
static void transplant(struct rb_root *root, struct rb_node *u, struct rb_node *v)
{
	if (!u->parent)
		root->node = v;
	else if (u == u->parent->left)
		u->parent->left = v;
	else
		u->parent->right = v;
	if (v)
		v->parent = u->parent;
}

static void erase_fixup(struct rb_root *root, struct rb_node *x, struct rb_node *xp)
{
	/* x may be NULL (a black leaf); xp is its parent. */
	while (x != root->node && (!x || !x->red)) {
		struct rb_node *w;

		if (x == xp->left) {
			w = xp->right;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rotate_left(root, xp);
				w = xp->right;
			}
			if ((!w->left || !w->left->red) && (!w->right || !w->right->red)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!w->right || !w->right->red) {
					w->left->red = false;
					w->red = true;
					rotate_right(root, w);
					w = xp->right;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->right)
					w->right->red = false;
				rotate_left(root, xp);
				x = root->node;
				xp = NULL;
			}
		} else {
			w = xp->left;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rotate_right(root, xp);
				w = xp->left;
			}
			if ((!w->right || !w->right->red) && (!w->left || !w->left->red)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!w->left || !w->left->red) {
					w->right->red = false;
					w->red = true;
					rotate_left(root, w);
					w = xp->left;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->left)
					w->left->red = false;
				rotate_right(root, xp);
				x = root->node;
				xp = NULL;
			}
		}
	}
	if (x)
		x->red = false;
}

void rb_erase(struct rb_root *root, struct rb_node *z)
{
	struct rb_node *x, *xp, *y = z;
	bool y_red = y->red;

	if (!z->left) {
		x = z->right;
		xp = z->parent;
		transplant(root, z, z->right);
	} else if (!z->right) {
		x = z->left;
		xp = z->parent;
		transplant(root, z, z->left);
	} else {
		y = z->right;
		while (y->left)
			y = y->left;
		y_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			transplant(root, y, y->right);
			y->right = z->right;
			y->right->parent = y;
		}
		transplant(root, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	if (!y_red)
		erase_fixup(root, x, xp);
	z->parent = z->left = z->right = NULL;
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->left)
		n = n->left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->right)
		n = n->right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *n)
{
	struct rb_node *p;

	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct rb_node *)n;
	}
	while ((p = n->parent) && n == p->right)
		n = p;
	return p;
}

struct rb_node *rb_prev(const struct rb_node *n)
{
	struct rb_node *p;

	if (n->left) {
		n = n->left;
		while (n->right)
			n = n->right;
		return (struct rb_node *)n;
	}
	while ((p = n->parent) && n == p->left)
		n = p;
	return p;
}

static int check_node(const struct rb_node *n, const struct rb_node *parent)
{
	int l, r;

	if (!n)
		return 1;
	if (n->parent != parent)
		return -1;
	if (n->red && ((n->left && n->left->red) || (n->right && n->right->red)))
		return -1;
	l = check_node(n->left, n);
	r = check_node(n->right, n);
	if (l < 0 || r < 0 || l != r)
		return -1;
	return l + (n->red ? 0 : 1);
}

int rb_check(const struct rb_root *root)
{
	if (root->node && root->node->red)
		return -1;
	return check_node(root->node, NULL);
}
