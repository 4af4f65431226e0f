/* /proc: the sandbox's processes and kernel, synthesised. */
#ifndef RUNG_PROCFS_H
#define RUNG_PROCFS_H

#include "sentry/vfs/vfs.h"

struct kernel;

struct pid_ns;
/* A procfs instance showing the processes of pid namespace pidns (NULL: the
 * initial one) by their numbers there. */
struct super_block *procfs_new(struct kernel *k, struct pid_ns *pidns);

#endif
