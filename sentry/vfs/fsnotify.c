/*
 * The VFS's change notifications (Linux's include/linux/fsnotify.h): which
 * events each change makes, in Linux's order, and on which inodes. A change
 * to a file is told to the file's watches and, with the file's name, to
 * its directory's (Linux's fsnotify_parent); a change to a directory's
 * names only to the directory's.
 */
#include "config.h"
#include "sentry/vfs/fsnotify.h"
#include "sentry/fs/file.h"
#include "sentry/vfs/vfs.h"

#include <sys/stat.h>

static bool watched(struct inode *i)
{
	return i && __atomic_load_n(&i->inotify, __ATOMIC_ACQUIRE);
}

static uint32_t isdir(struct inode *i)
{
	return i && S_ISDIR(i->mode) ? IN_ISDIR : 0;
}

/* An event on the file at d: its directory hears it with d's name. */
static void notify_dentry(struct dentry *d, uint32_t mask)
{
	char name[VFS_NAME_MAX + 1];
	struct inode *inode = d->inode;
	struct dentry *parent;

	if (!inode || !fsnotify_active())
		return;
	mask |= isdir(inode);
	parent = dentry_get_parent_name(d, name);
	if (parent != d && watched(parent->inode))
		inotify_event(parent->inode, mask, 0, name, d->deleted);
	dentry_put(parent);
	if (watched(inode))
		inotify_event(inode, mask, 0, NULL, d->deleted);
}

/* An event on inode alone (Linux's fsnotify_inode). */
static void notify_inode(struct inode *inode, uint32_t mask)
{
	if (watched(inode))
		inotify_event(inode, mask | isdir(inode), 0, NULL, false);
}

/* An event on a name in dir (Linux's fsnotify_name). */
static void notify_name(struct inode *dir, uint32_t mask, struct inode *child, const char *name,
			uint32_t cookie)
{
	if (watched(dir))
		inotify_event(dir, mask | isdir(child), cookie, name, false);
}

void fsnotify_create(struct inode *dir, const char *name, struct inode *inode)
{
	notify_name(dir, IN_CREATE, inode, name, 0);
}

void fsnotify_link_count(struct inode *inode)
{
	notify_inode(inode, IN_ATTRIB);
}

void fsnotify_delete(struct inode *dir, const char *name, struct inode *victim, bool gone)
{
	if (!S_ISDIR(victim->mode))
		notify_inode(victim, IN_ATTRIB);
	if (gone && watched(victim))
		inotify_inode_unlinked(victim);
	notify_name(dir, IN_DELETE, victim, name, 0);
}

/* One name's move (Linux's fsnotify_move). */
static void notify_move(struct inode *olddir, const char *oldname, struct inode *newdir,
			const char *newname, struct inode *moved, struct inode *target,
			bool target_gone)
{
	uint32_t cookie;

	if (!fsnotify_active())
		return;
	cookie = inotify_next_cookie();
	notify_name(olddir, FSNOTIFY_RENAME, moved, oldname, 0); /* dnotify's DN_RENAME */
	notify_name(olddir, IN_MOVED_FROM, moved, oldname, cookie);
	notify_name(newdir, IN_MOVED_TO, moved, newname, cookie);
	if (target)
		notify_inode(target, IN_ATTRIB);
	if (watched(moved))
		inotify_event(moved, IN_MOVE_SELF, 0, NULL, false);
	if (target && target_gone && watched(target))
		inotify_inode_unlinked(target);
}

void fsnotify_rename(struct inode *olddir, const char *oldname, struct inode *newdir,
		     const char *newname, struct inode *moved, struct inode *target, bool exchange,
		     bool target_gone)
{
	if (!exchange) {
		notify_move(olddir, oldname, newdir, newname, moved, target, target_gone);
		return;
	}
	notify_move(olddir, oldname, newdir, newname, moved, NULL, false);
	notify_move(newdir, newname, olddir, oldname, target, NULL, false);
}

void fsnotify_change(struct dentry *d, unsigned valid)
{
	uint32_t mask = 0;

	if (valid & (ATTR_UID | ATTR_GID | ATTR_MODE))
		mask |= IN_ATTRIB;
	if (valid & ATTR_SIZE)
		mask |= IN_MODIFY;
	/* Both times: utimes; one alone reads as what would have set it. */
	if ((valid & (ATTR_ATIME | ATTR_MTIME)) == (ATTR_ATIME | ATTR_MTIME))
		mask |= IN_ATTRIB;
	else if (valid & ATTR_ATIME)
		mask |= IN_ACCESS;
	else if (valid & ATTR_MTIME)
		mask |= IN_MODIFY;
	if (mask)
		notify_dentry(d, mask);
}

void fsnotify_xattr(struct dentry *d)
{
	notify_dentry(d, IN_ATTRIB);
}

void fsnotify_open(struct file *f, int flags)
{
	struct dentry *d = f->path.dentry;

	if (!d || !d->inode || (f->fmode & (FMODE_PATH | FMODE_NOTIFY)))
		return;
	f->fmode |= FMODE_NOTIFY | (flags_writable(flags) ? FMODE_NOTIFY_WRITE : 0);
	__atomic_add_fetch(&d->inode->nopen, 1, __ATOMIC_RELEASE);
	notify_dentry(d, IN_OPEN);
}

void fsnotify_file_event(struct file *f, uint32_t mask)
{
	if (f->fmode & FMODE_NOTIFY)
		notify_dentry(f->path.dentry, mask);
}

void fsnotify_close(struct file *f)
{
	struct inode *inode;

	if (!(f->fmode & FMODE_NOTIFY))
		return;
	inode = f->path.dentry->inode;
	notify_dentry(f->path.dentry,
		      (f->fmode & FMODE_NOTIFY_WRITE) ? IN_CLOSE_WRITE : IN_CLOSE_NOWRITE);
	__atomic_sub_fetch(&inode->nopen, 1, __ATOMIC_RELEASE);
	if (watched(inode))
		inotify_inode_closed(inode);
}
