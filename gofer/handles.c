#include "config.h"
#include "gofer/handles.h"
#include "lib/util.h"

#include <stdlib.h>
#include <unistd.h>

static struct rb_node **find_link(struct gofer_table *t, uint64_t id, struct rb_node **parent)
{
	struct rb_node **link = &t->root.node;

	*parent = NULL;
	while (*link) {
		struct gofer_obj *o = rb_entry(*link, struct gofer_obj, node);

		if (id == o->id)
			break;
		*parent = *link;
		link = id < o->id ? &(*link)->left : &(*link)->right;
	}
	return link;
}

struct gofer_obj *gofer_table_add(struct gofer_table *t, uint64_t id, int fd, uint32_t type)
{
	struct gofer_obj *o = xzalloc(sizeof(*o));
	struct rb_node *parent, **link = find_link(t, id, &parent);

	/* Ids come from one counter that only grows: a duplicate is a bug. */
	if (*link)
		abort();
	o->id = id;
	o->fd = fd;
	o->refs = 1;
	o->type = type;
	rb_link(&o->node, parent, link);
	rb_insert_fixup(&t->root, &o->node);
	t->count++;
	return o;
}

struct gofer_obj *gofer_table_get(struct gofer_table *t, uint64_t id)
{
	struct rb_node *parent, **link = find_link(t, id, &parent);
	struct gofer_obj *o;

	if (!*link)
		return NULL;
	o = rb_entry(*link, struct gofer_obj, node);
	o->refs++;
	return o;
}

struct gofer_obj *gofer_table_take(struct gofer_table *t, uint64_t id)
{
	struct rb_node *parent, **link = find_link(t, id, &parent);
	struct gofer_obj *o;

	if (!*link)
		return NULL;
	o = rb_entry(*link, struct gofer_obj, node);
	rb_erase(&t->root, &o->node);
	t->count--;
	return o;
}

void gofer_table_clear(struct gofer_table *t)
{
	struct rb_node *n;

	while ((n = rb_first(&t->root))) {
		struct gofer_obj *o = rb_entry(n, struct gofer_obj, node);

		rb_erase(&t->root, n);
		gofer_obj_put(o);
	}
	t->count = 0;
}

int gofer_obj_put_fd(struct gofer_obj *o)
{
	int fd;

	if (--o->refs > 0)
		return -1;
	fd = o->fd;
	free(o);
	return fd;
}

void gofer_obj_put(struct gofer_obj *o)
{
	int fd = gofer_obj_put_fd(o);

	if (fd >= 0)
		close(fd);
}
