/* /sys: the few files runtimes read to learn the machine. */
#ifndef RUNG_SYSFS_H
#define RUNG_SYSFS_H

#include "sentry/vfs/vfs.h"

struct memfile;

struct super_block *sysfs_new(struct memfile *mf, unsigned ncpus);

#endif
