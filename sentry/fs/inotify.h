/*
 * inotify (Linux's fs/notify/inotify): an instance is an anonymous file
 * with a queue of events; a watch ties an instance to an inode with a mask
 * of the events it wants. The VFS reports changes through the hooks in
 * sentry/vfs/fsnotify.h, which call inotify_event() for the inode the
 * change is on and for its parent directory (with the child's name).
 *
 * All watches and queues are under one lock (inotify.c); the hooks look
 * at nothing while no watch exists anywhere (fsnotify_active()).
 */
#ifndef RUNG_INOTIFY_H
#define RUNG_INOTIFY_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct inode;
struct path;

/* Linux's defaults for /proc/sys/fs/inotify. */
#define INOTIFY_MAX_USER_INSTANCES 128
#define INOTIFY_MAX_QUEUED_EVENTS  16384
/* max_user_watches: as Linux computes it from the memory (the host's). */
unsigned inotify_max_user_watches(void);

/* Watches in every instance: non-zero while the hooks have work. */
extern unsigned long inotify_watches;

/* A new instance for user uid with IN_NONBLOCK in flags: *out, or -EMFILE
 * past max_user_instances. */
int inotify_file_new(uint32_t uid, int flags, struct file **out);
/* Is f an inotify instance? */
bool inotify_file_is(struct file *f);
/* Watch the inode at p with mask (the syscall checked its bits): the watch
 * descriptor (the same one for an inode already watched), or -EEXIST
 * (IN_MASK_CREATE), -ENOSPC past max_user_watches. */
int inotify_watch_add(struct file *f, const struct path *p, uint32_t mask);
/* Remove a watch (queueing IN_IGNORED): 0 or -EINVAL. */
int inotify_watch_remove(struct file *f, int wd);

/* Queue mask (IN_*) with cookie and name (NULL: none) on every watch of
 * inode that wants it; unlinked: the event is about a file with no name
 * left, which IN_EXCL_UNLINK watches do not hear of. */
void inotify_event(struct inode *inode, uint32_t mask, uint32_t cookie, const char *name,
		   bool unlinked);
/* The inode's last name went: IN_DELETE_SELF and every watch on it goes
 * (IN_IGNORED), now or, while files are open on it, at the last close. */
void inotify_inode_unlinked(struct inode *inode);
/* A file open on inode closed: the end of an unlinked one's last. */
void inotify_inode_closed(struct inode *inode);
/* A cookie that ties an IN_MOVED_FROM to its IN_MOVED_TO. */
uint32_t inotify_next_cookie(void);

/* Linux's FS_RENAME: a rename, told to the old directory; only dnotify
 * hears it (it is not an IN_* event). */
#define FSNOTIFY_RENAME 0x10000000u

/*
 * dnotify (fcntl F_NOTIFY, Linux's fs/notify/dnotify): a registration is a
 * watch with no instance on the directory a file is open on, keyed by the
 * file and the registering process; an event it wants signals the file's
 * owner (fasync.h) with POLL_MSG. Without DN_MULTISHOT it ends at its
 * first event.
 */
struct task;
/* F_NOTIFY of f (descriptor fd) with arg (DN_*): 0, -ENOTDIR. A mask of
 * nothing but DN_MULTISHOT ends the process's registration. */
long dnotify_fcntl(struct task *t, struct file *f, int fd, unsigned long arg);
/* Process id closed a descriptor of f (Linux's dnotify_flush). */
void dnotify_flush(struct file *f, const void *id);
/* f's last reference is going: every registration of f ends. */
void dnotify_release(struct file *f);

#endif
