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
/* nr_inodes=: at most n inodes (statfs's f_files), more is ENOSPC. */
void tmpfs_set_inode_limit(struct super_block *sb, uint64_t n);

/*
 * File seals (fcntl F_ADD_SEALS/F_GET_SEALS) of a tmpfs regular file; any
 * other file: -EINVAL. A new file has F_SEAL_SEAL, which a memfd made with
 * MFD_ALLOW_SEALING drops (tmpfs_allow_sealing). Adding needs a writable
 * file (EPERM), F_SEAL_SEAL not set (EPERM), and for F_SEAL_WRITE no
 * writable shared mapping (EBUSY).
 */
void tmpfs_allow_sealing(struct inode *i);
long tmpfs_get_seals(struct file *f);
long tmpfs_add_seals(struct file *f, unsigned seals);
/* mmap of f: -EPERM when its seals forbid the mapping; *nowrite set when
 * the mapping may never become writable. shared_writable: MAP_SHARED of a
 * file open for writing. 0 for files without seals. */
long tmpfs_mmap_seals(struct file *f, int prot, bool shared_writable, bool *nowrite);

/* Opening an inode that is not a regular file or directory: devices by
 * number, fifos, sockets (sentry/fs/special.c). */
int special_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out);

#endif
