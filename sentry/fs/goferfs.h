/* goferfs: a filesystem whose files the gofer serves. */
#ifndef RUNG_GOFERFS_H
#define RUNG_GOFERFS_H

#include <stdbool.h>
#include <stdint.h>

#include "sentry/vfs/vfs.h"

struct gofer_client;
struct memfile;

/*
 * A superblock over the gofer's tree (takes ownership of c). donate: file
 * data through donated host descriptors (else through the gofer); exclusive:
 * nobody else changes the tree, so names and attributes are cached. The page
 * cache of shared-mapped files lives in mf.
 */
int goferfs_new(struct gofer_client *c, struct memfile *mf, bool donate, bool exclusive,
		struct super_block **out);
/*
 * The same over tree number tree of the gofer (0: the rootfs, 1...: the bind
 * mounts' sources), taking a reference of its own on c (the caller keeps
 * its own). The root of a bind mount of one file is that file. A bind
 * mount is not exclusive: the host may change it at any time, and the
 * guest sees that.
 */
int goferfs_new_tree(struct gofer_client *c, uint32_t tree, struct memfile *mf, bool donate,
		     bool exclusive, struct super_block **out);

#endif
