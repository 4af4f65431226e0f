/* Attributes: stat, chmod/chown/truncate/utimes, access, readlink, statfs. */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/vfs/fsnotify.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Filesystems whose attributes can change behind the inode (shared gofer
 * mounts, overlays) refresh them here; cached ones return at once. */
static void refresh(struct inode *inode)
{
	if (inode->ops->getattr)
		inode->ops->getattr(inode);
}

int vfs_stat(struct task *t, int dirfd, const char *path, unsigned flags, struct kstat *st)
{
	struct path p;
	int ret = vfs_lookup(t, dirfd, path, flags, &p);

	if (ret)
		return ret;
	refresh(p.dentry->inode);
	inode_stat(p.dentry->inode, st);
	path_put(&p);
	return 0;
}

long vfs_readlink(struct task *t, int dirfd, const char *path, char *buf, size_t size)
{
	struct path p;
	struct inode *inode;
	long ret = vfs_lookup(t, dirfd, path, LOOKUP_EMPTY, &p);

	if (ret)
		return ret;
	inode = p.dentry->inode;
	if (!S_ISLNK(inode->mode) || !inode->ops->readlink)
		ret = -EINVAL;
	else
		ret = inode->ops->readlink(inode, buf, size);
	path_put(&p);
	return ret;
}

/* Linux's setattr_prepare: who may change what. */
static int setattr_allowed(struct task *t, struct inode *inode, struct iattr *attr)
{
	const struct creds *c = &t->creds;
	bool owner = inode_owner_or_capable(c, inode);

	if (attr->valid & ATTR_UID) {
		if ((attr->uid != inode->uid || c->fsuid != inode->uid) &&
		    !creds_capable(c, KCAP_CHOWN))
			return -EPERM;
	}
	if (attr->valid & ATTR_GID) {
		bool own_group = c->fsuid == inode->uid &&
				 (attr->gid == inode->gid || creds_in_group(c, attr->gid));
		if (!own_group && !creds_capable(c, KCAP_CHOWN))
			return -EPERM;
	}
	if (attr->valid & ATTR_MODE) {
		uint32_t gid = (attr->valid & ATTR_GID) ? attr->gid : inode->gid;
		if (!owner)
			return -EPERM;
		/* Not in the file's group: the setgid bit silently goes. */
		if (!creds_in_group(c, gid) && !creds_capable(c, KCAP_FSETID))
			attr->mode &= ~S_ISGID;
	}
	if (attr->valid & (ATTR_ATIME | ATTR_MTIME)) {
		bool now = (!(attr->valid & ATTR_ATIME) || (attr->valid & ATTR_ATIME_NOW)) &&
			   (!(attr->valid & ATTR_MTIME) || (attr->valid & ATTR_MTIME_NOW));
		/* Setting explicit times needs ownership; "now" also write access. */
		if (!owner && !(now && inode_permission(c, inode, MAY_WRITE) == 0))
			return now ? -EACCES : -EPERM;
	}
	return 0;
}

int vfs_setattr(struct task *t, struct path *p, struct iattr *attr)
{
	struct inode *inode = p->dentry->inode;
	int ret;

	/* (An anonymous file such as a memfd has no mount.) */
	if (p->mnt && (p->mnt->flags & MNT_RDONLY))
		return -EROFS;
	/* A symlink's mode is not changed (Linux 6.6's notify_change). */
	if ((attr->valid & ATTR_MODE) && S_ISLNK(inode->mode))
		return -EOPNOTSUPP;
	ret = setattr_allowed(t, inode, attr);
	if (ret)
		return ret;
	if ((attr->valid & ATTR_SIZE) && S_ISDIR(inode->mode))
		return -EISDIR;
	if ((attr->valid & ATTR_SIZE) && !S_ISREG(inode->mode))
		return -EINVAL;
	/* A change of owner clears set-id bits on non-directories (Linux's rule). */
	if ((attr->valid & (ATTR_UID | ATTR_GID)) && !S_ISDIR(inode->mode) &&
	    !(attr->valid & ATTR_MODE) && (inode->mode & (S_ISUID | S_ISGID))) {
		attr->valid |= ATTR_MODE;
		attr->mode = inode->mode & ~(uint32_t)S_ISUID;
		if (inode->mode & S_IXGRP)
			attr->mode &= ~(uint32_t)S_ISGID;
	}
	attr->valid |= ATTR_CTIME;
	if (!inode->ops->setattr)
		return -EPERM;
	ret = vfs_prepare_change(p->dentry);
	if (ret == 0)
		ret = inode->ops->setattr(inode, attr);
	if (ret == 0 && (attr->valid & ATTR_MODE))
		posix_acl_chmod(inode, attr->mode);
	if (ret == 0)
		fsnotify_change(p->dentry, attr->valid);
	return ret;
}

int vfs_access(struct task *t, int dirfd, const char *path, int mode, int flags)
{
	struct creds saved = t->creds;
	struct path p;
	int ret;

	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	/* access(2) asks about the real ids, and root's capabilities only
	 * when the real id is root. */
	if (!(flags & AT_EACCESS)) {
		t->creds.fsuid = t->creds.uid;
		t->creds.fsgid = t->creds.gid;
		if (t->creds.uid != 0)
			t->creds.cap_effective = 0;
		else
			t->creds.cap_effective = t->creds.cap_permitted;
	}
	ret = vfs_lookup(t, dirfd, path,
			 ((flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
				 ((flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0),
			 &p);
	if (ret == 0) {
		struct inode *inode = p.dentry->inode;
		int mask = ((mode & R_OK) ? MAY_READ : 0) | ((mode & W_OK) ? MAY_WRITE : 0) |
			   ((mode & X_OK) ? MAY_EXEC : 0);
		if ((mode & W_OK) && (p.mnt->flags & MNT_RDONLY) &&
		    (S_ISREG(inode->mode) || S_ISDIR(inode->mode) || S_ISLNK(inode->mode)))
			ret = -EROFS;
		else if (mask)
			ret = inode_permission(&t->creds, inode, mask);
		if (ret == 0 && (mode & X_OK) && (p.mnt->flags & MNT_NOEXEC) &&
		    S_ISREG(inode->mode))
			ret = -EACCES;
		path_put(&p);
	}
	t->creds = saved;
	return ret;
}

int vfs_statfs(struct path *p, struct statfs_info *out)
{
	struct super_block *sb = p->dentry->sb;

	memset(out, 0, sizeof(*out));
	if (sb->ops && sb->ops->statfs) {
		int ret = sb->ops->statfs(sb, out);
		if (ret)
			return ret;
	} else {
		out->bsize = out->frsize = 4096;
		out->namelen = VFS_NAME_MAX;
	}
	out->type = sb->magic;
	/* ST_RDONLY, ST_NOSUID, ST_NODEV, ST_NOEXEC from the mount (none for an
	 * anonymous file). */
	if (p->mnt) {
		unsigned f = p->mnt->flags;
		out->flags = ((f & MNT_RDONLY) ? 1 : 0) | ((f & MNT_NOSUID) ? 2 : 0) |
			     ((f & MNT_NODEV) ? 4 : 0) | ((f & MNT_NOEXEC) ? 8 : 0);
	}
	return 0;
}

int vfs_chdir(struct task *t, const struct path *p)
{
	struct inode *inode = p->dentry->inode;

	if (!S_ISDIR(inode->mode))
		return -ENOTDIR;
	return inode_permission(&t->creds, inode, MAY_EXEC);
}
