/* /proc: the sandbox's processes and kernel, synthesised. */
#ifndef RUNG_PROCFS_H
#define RUNG_PROCFS_H

#include "sentry/vfs/vfs.h"

struct kernel;

struct super_block *procfs_new(struct kernel *k);

#endif
