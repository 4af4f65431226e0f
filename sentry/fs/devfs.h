/* /dev: a tmpfs holding the sandbox's own device nodes. */
#ifndef RUNG_DEVFS_H
#define RUNG_DEVFS_H

#include "sentry/vfs/vfs.h"

struct memfile;

struct super_block *devfs_new(struct memfile *mf);

#endif
