/* /proc: the sandbox's processes and kernel, synthesised. */
#ifndef RUNG_PROCFS_H
#define RUNG_PROCFS_H

#include "sentry/vfs/vfs.h"

#include <stdbool.h>

struct kernel;

struct pid_ns;
/* A procfs instance showing the processes of pid namespace pidns (NULL: the
 * initial one) by their numbers there. */
struct super_block *procfs_new(struct kernel *k, struct pid_ns *pidns);
/* The process whose /proc/<pid> directory inode i is, or 0 (for another
 * inode, /proc/<pid>/task/<tid> among them): what pidfd_send_signal takes
 * in place of a pidfd (Linux's tgid_pidfd_to_pid). */
int procfs_dir_tgid(const struct inode *i);
/* The host (domain: domain) name changed: pollers of its sysctl learn it. */
void procfs_uts_changed(bool domain);

#endif
