/*
 * The overlay's index of hard-link groups: for a lower file with several
 * names, the one upper inode that all of them share once any of them is
 * copied up (what Linux's overlayfs keeps in its index directory with
 * index=on). Keyed by the lower file's device and inode number.
 */
#ifndef RUNG_OVERLAY_INDEX_H
#define RUNG_OVERLAY_INDEX_H

#include "lib/rbtree.h"
#include "sentry/vfs/vfs.h"

struct ovl_index {
	pthread_mutex_t lock;
	struct rb_root groups;
};

void ovl_index_init(struct ovl_index *ix);
/* Drop every group (and its reference on its upper inode). */
void ovl_index_destroy(struct ovl_index *ix);
/* The upper inode of the group of lower file (dev, ino), with a
 * reference, or NULL when none of its names has been copied up. */
struct inode *ovl_index_find(struct ovl_index *ix, uint64_t dev, uint64_t ino);
/* Record up (reference taken) as the upper inode of lower file (dev, ino),
 * whose other pending names are still in the lower layer only. */
void ovl_index_add(struct ovl_index *ix, uint64_t dev, uint64_t ino, struct inode *up,
		   uint64_t pending);
/* One pending name of the group got its upper name or went away; the
 * group is forgotten with the last one (no lower name can find it then). */
void ovl_index_settle(struct ovl_index *ix, uint64_t dev, uint64_t ino);

#endif
