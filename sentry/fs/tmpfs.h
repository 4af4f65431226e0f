/* tmpfs: an in-sandbox filesystem whose file data lives in the memory file. */
#ifndef RUNG_TMPFS_H
#define RUNG_TMPFS_H

#include <stdbool.h>
#include <stdint.h>

#include "sentry/vfs/vfs.h"

struct memfile;
struct file;

/* A new, empty tmpfs (one reference on the superblock). */
struct super_block *tmpfs_new(struct memfile *mf, uint32_t root_mode, uint32_t uid, uint32_t gid);
bool inode_is_tmpfs(const struct inode *i);
/* A size limit (tmpfs size=, rounded up to pages) on a new tmpfs: writes
 * beyond it are short or fail with ENOSPC. */
void tmpfs_set_size_limit(struct super_block *sb, uint64_t bytes);

/* Opening an inode that is not a regular file or directory: devices by
 * number, fifos, sockets (sentry/fs/special.c). */
int special_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out);

#endif
