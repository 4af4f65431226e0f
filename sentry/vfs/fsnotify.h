/*
 * The VFS's change notifications, as Linux's fsnotify_*() helpers: one
 * call where the VFS makes each change, after it succeeded. They turn the
 * change into inotify events on the inode and on its parent directory
 * (sentry/fs/inotify.c) and cost one load while nothing is watched.
 */
#ifndef RUNG_FSNOTIFY_H
#define RUNG_FSNOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/inotify.h>

#include "sentry/fs/inotify.h"

struct dentry;
struct file;
struct inode;

static inline bool fsnotify_active(void)
{
	return __atomic_load_n(&inotify_watches, __ATOMIC_ACQUIRE) != 0;
}

/* name was made in dir (create, mkdir, mknod, symlink): IN_CREATE. */
void fsnotify_create(struct inode *dir, const char *name, struct inode *inode);
/* inode's link count changed (link(): before its IN_CREATE). */
void fsnotify_link_count(struct inode *inode);
/* unlink/rmdir of name (victim) in dir; gone: that was its last name. */
void fsnotify_delete(struct inode *dir, const char *name, struct inode *victim, bool gone);
/* rename of moved from olddir/oldname to newdir/newname over target (NULL:
 * none; target_gone: that was its last name); exchange: target went the
 * other way (RENAME_EXCHANGE). */
void fsnotify_rename(struct inode *olddir, const char *oldname, struct inode *newdir,
		     const char *newname, struct inode *moved, struct inode *target, bool exchange,
		     bool target_gone);
/* setattr of d with ATTR_* valid. */
void fsnotify_change(struct dentry *d, unsigned valid);
/* setxattr/removexattr of d. */
void fsnotify_xattr(struct dentry *d);

/* f was opened by path with flags: it reports from now on (IN_OPEN). */
void fsnotify_open(struct file *f, int flags);
void fsnotify_file_event(struct file *f, uint32_t mask);
/* f's last reference went (file_put): IN_CLOSE_WRITE / IN_CLOSE_NOWRITE. */
void fsnotify_close(struct file *f);

/* A read (readdir too) or write through f returned data. */
static inline void fsnotify_access(struct file *f)
{
	if (fsnotify_active())
		fsnotify_file_event(f, IN_ACCESS);
}

static inline void fsnotify_modify(struct file *f)
{
	if (fsnotify_active())
		fsnotify_file_event(f, IN_MODIFY);
}

#endif
