/* goferfs: a filesystem whose files the gofer serves. */
#ifndef RUNG_GOFERFS_H
#define RUNG_GOFERFS_H

#include <stdbool.h>

#include "sentry/vfs/vfs.h"

struct gofer_client;

/*
 * A superblock over the gofer's tree (takes ownership of c). donate: file
 * data through donated host descriptors (else through the gofer); exclusive:
 * nobody else changes the tree, so names and attributes are cached.
 */
int goferfs_new(struct gofer_client *c, bool donate, bool exclusive, struct super_block **out);

#endif
