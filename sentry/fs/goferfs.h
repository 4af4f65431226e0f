/* goferfs: a filesystem whose files the gofer serves. */
#ifndef RUNG_GOFERFS_H
#define RUNG_GOFERFS_H

#include <stdbool.h>

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

#endif
