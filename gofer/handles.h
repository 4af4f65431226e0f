/*
 * The gofer's tables of what it holds for the sentry: handles (an O_PATH
 * descriptor per walked node) and open files (fids). Both map a 64-bit id,
 * never 0 and never reused, to a host fd.
 *
 * Entries are reference counted: the table holds one reference and every
 * request working with an entry holds another, so a CLOSE racing with a
 * request on another channel never lets that request's fd number be reused
 * under it.
 */
#ifndef RUNG_GOFER_HANDLES_H
#define RUNG_GOFER_HANDLES_H

#include "lib/rbtree.h"

#include <stddef.h>
#include <stdint.h>

struct gofer_obj {
	struct rb_node node;
	uint64_t id;
	int fd;
	unsigned refs;
	uint32_t type; /* S_IFMT bits of the node (the type of an inode never changes) */
};

struct gofer_table {
	struct rb_root root;
	size_t count;
};

/* Insert fd (ownership moves to the table) under id; returns the entry. */
struct gofer_obj *gofer_table_add(struct gofer_table *t, uint64_t id, int fd, uint32_t type);
/* Look id up and take a reference, or NULL. */
struct gofer_obj *gofer_table_get(struct gofer_table *t, uint64_t id);
/* Unlink id from the table; the caller inherits the table's reference. NULL if unknown. */
struct gofer_obj *gofer_table_take(struct gofer_table *t, uint64_t id);
/* Release every entry (at exit). */
void gofer_table_clear(struct gofer_table *t);

/* Drop a reference; the last one closes the fd. */
void gofer_obj_put(struct gofer_obj *o);
/* Drop a reference; when it was the last, free the entry and return its fd for
 * the caller to close (asynchronously), else -1. */
int gofer_obj_put_fd(struct gofer_obj *o);

#endif
