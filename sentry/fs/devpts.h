/*
 * devpts: the sandbox's /dev/pts. "ptmx" opens a new pty pair; each pair
 * has a node N (character device 136:N) from the master's open until the
 * master closes. The pairs themselves are sentry/fs/pty.c's.
 */
#ifndef RUNG_DEVPTS_H
#define RUNG_DEVPTS_H

#include "sentry/vfs/vfs.h"

struct creds;
struct devpts;
struct pty;

#define DEVPTS_SUPER_MAGIC 0x1cd1
#define DEVPTS_MAX	   4096 /* pairs at once (Linux's kernel.pty.max default) */
#define PTY_SLAVE_MAJOR	   136
#define TTY_GROUP	   5 /* the slaves' group, as mount -o gid=5 gives */

struct super_block *devpts_new(void);

/*
 * A number and a node for a new pair, owned by c's fsuid: *node holds a
 * reference for the caller, and the node holds one on pty (pty_get).
 * -ENOSPC when every number is taken.
 */
int devpts_new_node(struct devpts *fs, struct pty *pty, const struct creds *c, int *index,
		    struct inode **node);
/* The pair's master closed: its node goes from the directory. */
void devpts_remove_node(struct devpts *fs, int index);
/* The pair is gone: its number may be used again. */
void devpts_free_index(struct devpts *fs, int index);
/* The devpts of a superblock (to keep it while a pair lives). */
struct devpts *devpts_of(struct super_block *sb);
struct super_block *devpts_sb(struct devpts *fs);

#endif
