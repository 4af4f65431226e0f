/*
 * tmpfs: files that live entirely in the sandbox, their data in the memory
 * file (a page store per regular file). Used for /tmp, /dev/shm, and as the
 * upper layer of the rootfs overlay.
 *
 * A directory keeps its entries twice: by name (lookups) and in creation
 * order with a serial number (readdir positions stay valid while entries
 * come and go). Each entry holds a reference on its inode. Everything in an
 * inode is protected by inode->lock; namespace operations also run under
 * the directory's dir_lock, taken by the VFS.
 */
#include "config.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/file.h"
#include "sentry/fs/filemap.h"
#include "sentry/kernel/creds.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/pagestore.h"
#include "sentry/vfs/posix_acl.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/xattr.h>

#define TMPFS_MAGIC 0x01021994

struct tmpfs_dirent {
	struct rb_node node;	/* by name */
	struct list_head order; /* by serial */
	uint64_t serial;
	struct inode *inode;
	char name[];
};

struct tmpfs_xattr {
	struct list_head link;
	char *name;
	void *value;
	size_t size;
};

struct tmpfs_inode {
	/* directories */
	struct rb_root entries;
	struct list_head order;
	uint64_t next_serial;
	uint64_t nentries;
	/* regular files */
	struct pagestore data;
	/* symlinks */
	char *target;
	struct list_head xattrs;
	/* regular files: bytes counted against the filesystem's size limit
	 * (whole pages up to the furthest byte written) */
	uint64_t charged;
	/* regular files: F_SEAL_* (F_SEAL_SEAL unless a memfd allows sealing) */
	unsigned seals;
};

struct tmpfs_sb {
	struct memfile *mf;
	pthread_mutex_t lock; /* used */
	uint64_t limit;	      /* size=: bytes the files may hold; 0: no limit */
	uint64_t used;	      /* bytes charged to files */
	uint64_t max_inodes;  /* nr_inodes=: 0: no limit of its own */
	uint64_t inodes;      /* inodes alive (under lock) */
};

#define PAGE 4096ull

static const struct inode_ops tmpfs_inode_ops;
static const struct file_ops tmpfs_file_ops;
static const struct file_ops tmpfs_dir_ops;

#define TI(i)	     ((struct tmpfs_inode *)(i)->priv)
#define dirent_of(n) rb_entry(n, struct tmpfs_dirent, node)

/*
 * The size limit (size=): a file is charged whole pages up to the furthest
 * byte written into it (write, fallocate), and gives them back when it
 * shrinks or goes. How many of len bytes at pos fit (inode->lock held): len,
 * fewer (a short write), or 0 (ENOSPC); with all, len or 0.
 */
static uint64_t charge(struct inode *i, uint64_t pos, uint64_t len, bool all)
{
	struct tmpfs_sb *ts = i->sb->priv;
	struct tmpfs_inode *ti = TI(i);
	uint64_t need = ALIGN_UP(pos + len, PAGE), room, end;

	if (need <= ti->charged)
		return len;
	pthread_mutex_lock(&ts->lock);
	room = ts->limit ? ts->limit - ts->used : UINT64_MAX;
	if (need - ti->charged <= room) {
		ts->used += need - ti->charged;
		ti->charged = need;
		pthread_mutex_unlock(&ts->lock);
		return len;
	}
	end = ti->charged + ALIGN_DOWN(room, PAGE);
	if (all || end <= pos) {
		pthread_mutex_unlock(&ts->lock);
		return 0;
	}
	ts->used += end - ti->charged;
	ti->charged = end;
	pthread_mutex_unlock(&ts->lock);
	return end - pos;
}

/* The file is size bytes now: give back the pages past it (inode->lock held). */
static void uncharge(struct inode *i, uint64_t size)
{
	struct tmpfs_sb *ts = i->sb->priv;
	struct tmpfs_inode *ti = TI(i);
	uint64_t keep = MIN(ti->charged, ALIGN_UP(size, PAGE));

	if (keep == ti->charged)
		return;
	pthread_mutex_lock(&ts->lock);
	ts->used -= ti->charged - keep;
	pthread_mutex_unlock(&ts->lock);
	ti->charged = keep;
}

/* What an inode, its dentry and its name cost the sentry's heap: charged to
 * the sandbox's memory account while the inode lives (an inode bomb in
 * /tmp ends in ENOSPC, as a tmpfs out of inodes does). */
#define TMPFS_INODE_COST 1024u

/* A new inode, or NULL (ENOSPC) when the memory account has no room. */
static struct inode *tmpfs_new_inode(struct super_block *sb, uint32_t mode, const struct creds *c,
				     struct inode *dir)
{
	struct tmpfs_sb *ts = sb->priv;
	struct tmpfs_inode *ti;
	struct inode *i;

	pthread_mutex_lock(&ts->lock);
	if (dir && ts->max_inodes && ts->inodes >= ts->max_inodes) {
		pthread_mutex_unlock(&ts->lock);
		return NULL; /* out of nr_inodes */
	}
	ts->inodes++;
	pthread_mutex_unlock(&ts->lock);
	if (!dir) {
		memacct_charge_force(&ts->mf->acct, TMPFS_INODE_COST);
	} else if (memacct_charge(&ts->mf->acct, TMPFS_INODE_COST) < 0) {
		pthread_mutex_lock(&ts->lock);
		ts->inodes--;
		pthread_mutex_unlock(&ts->lock);
		return NULL;
	}
	i = inode_new(sb, &tmpfs_inode_ops, mode);
	ti = xzalloc(sizeof(*ti));
	list_init(&ti->order);
	list_init(&ti->xattrs);
	ti->next_serial = 2; /* 0 and 1 are "." and ".." */
	ps_init(&ti->data, ts->mf);
	ti->seals = F_SEAL_SEAL;
	i->priv = ti;
	i->uid = c ? c->fsuid : 0;
	i->gid = c ? c->fsgid : 0;
	/* A set-group-id directory hands its group (and, to directories, the bit) down. */
	if (dir && (dir->mode & S_ISGID)) {
		i->gid = dir->gid;
		if (S_ISDIR(mode))
			i->mode |= S_ISGID;
	}
	if (S_ISDIR(mode))
		i->nlink = 2;
	return i;
}

static struct tmpfs_dirent *find_entry(struct tmpfs_inode *dir, const char *name)
{
	struct rb_node *n = dir->entries.node;

	while (n) {
		struct tmpfs_dirent *e = dirent_of(n);
		int cmp = strcmp(name, e->name);
		if (cmp < 0)
			n = n->left;
		else if (cmp > 0)
			n = n->right;
		else
			return e;
	}
	return NULL;
}

/* A change of dir's entries moves its mtime and ctime (inode->lock held). */
static void touch_locked(struct inode *dir)
{
	clock_gettime(CLOCK_REALTIME, &dir->mtime);
	dir->ctime = dir->mtime;
}

/* Add name -> inode to dir (inode->lock of dir held); takes a reference. */
static void add_entry(struct inode *dir, const char *name, struct inode *inode)
{
	struct tmpfs_inode *td = TI(dir);
	size_t len = strlen(name);
	struct tmpfs_dirent *e = xmalloc(sizeof(*e) + len + 1);
	struct rb_node **link = &td->entries.node, *parent = NULL;

	memcpy(e->name, name, len + 1);
	e->inode = inode_get(inode);
	e->serial = td->next_serial++;
	while (*link) {
		parent = *link;
		if (strcmp(name, dirent_of(parent)->name) < 0)
			link = &parent->left;
		else
			link = &parent->right;
	}
	rb_link(&e->node, parent, link);
	rb_insert_fixup(&td->entries, &e->node);
	list_add_tail(&e->order, &td->order);
	td->nentries++;
	dir->size = td->nentries * 32;
	touch_locked(dir);
}

/* Remove an entry; returns its inode reference for the caller to drop. */
static struct inode *remove_entry(struct inode *dir, struct tmpfs_dirent *e)
{
	struct tmpfs_inode *td = TI(dir);
	struct inode *i = e->inode;

	rb_erase(&td->entries, &e->node);
	list_del(&e->order);
	td->nentries--;
	dir->size = td->nentries * 32;
	touch_locked(dir);
	free(e);
	return i;
}

static int tmpfs_lookup(struct inode *dir, const char *name, struct inode **out)
{
	struct tmpfs_dirent *e;
	int ret = -ENOENT;

	pthread_mutex_lock(&dir->lock);
	e = find_entry(TI(dir), name);
	if (e) {
		*out = inode_get(e->inode);
		ret = 0;
	}
	pthread_mutex_unlock(&dir->lock);
	return ret;
}

/* Link a new inode under name in dir (the VFS made sure the name is free). */
static void link_new(struct inode *dir, const char *name, struct inode *i)
{
	pthread_mutex_lock(&dir->lock);
	add_entry(dir, name, i);
	if (S_ISDIR(i->mode))
		dir->nlink++;
	pthread_mutex_unlock(&dir->lock);
}

static int tmpfs_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out);

static int tmpfs_create(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
			int flags, struct inode **out, struct file **file)
{
	struct inode *i = tmpfs_new_inode(dir->sb, mode, c, dir);

	if (!i)
		return -ENOSPC;
	link_new(dir, name, i);
	*out = i;
	*file = NULL;
	return 0;
}

static int tmpfs_tmpfile(struct inode *dir, uint32_t mode, const struct creds *c,
			 struct inode **out)
{
	struct inode *i = tmpfs_new_inode(dir->sb, mode, c, dir);

	if (!i)
		return -ENOSPC;
	i->nlink = 0;
	*out = i;
	return 0;
}

static int tmpfs_mkdir(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
		       struct inode **out)
{
	struct inode *i = tmpfs_new_inode(dir->sb, mode, c, dir);

	if (!i)
		return -ENOSPC;
	link_new(dir, name, i);
	*out = i;
	return 0;
}

static int tmpfs_mknod(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		       const struct creds *c, struct inode **out)
{
	struct inode *i = tmpfs_new_inode(dir->sb, mode, c, dir);

	if (!i)
		return -ENOSPC;
	i->rdev = rdev;
	link_new(dir, name, i);
	*out = i;
	return 0;
}

static int tmpfs_symlink(struct inode *dir, const char *name, const char *target,
			 const struct creds *c, struct inode **out)
{
	struct inode *i = tmpfs_new_inode(dir->sb, S_IFLNK | 0777, c, dir);

	if (!i)
		return -ENOSPC;
	TI(i)->target = xstrdup(target);
	i->size = strlen(target);
	link_new(dir, name, i);
	*out = i;
	return 0;
}

static int tmpfs_link(struct inode *dir, const char *name, struct inode *target)
{
	if (target->sb != dir->sb)
		return -EXDEV;
	pthread_mutex_lock(&target->lock);
	target->nlink++;
	pthread_mutex_unlock(&target->lock);
	pthread_mutex_lock(&dir->lock);
	add_entry(dir, name, target);
	pthread_mutex_unlock(&dir->lock);
	return 0;
}

static int tmpfs_unlink(struct inode *dir, const char *name, struct inode *victim)
{
	struct tmpfs_dirent *e;
	struct inode *i;

	pthread_mutex_lock(&dir->lock);
	e = find_entry(TI(dir), name);
	if (!e) {
		pthread_mutex_unlock(&dir->lock);
		return -ENOENT;
	}
	i = remove_entry(dir, e);
	pthread_mutex_unlock(&dir->lock);
	pthread_mutex_lock(&i->lock);
	i->nlink--;
	pthread_mutex_unlock(&i->lock);
	inode_put(i);
	return 0;
}

static int tmpfs_rmdir(struct inode *dir, const char *name, struct inode *victim)
{
	struct tmpfs_dirent *e;
	struct inode *i;

	pthread_mutex_lock(&victim->lock);
	if (TI(victim)->nentries) {
		pthread_mutex_unlock(&victim->lock);
		return -ENOTEMPTY;
	}
	victim->nlink = 0;
	pthread_mutex_unlock(&victim->lock);
	pthread_mutex_lock(&dir->lock);
	e = find_entry(TI(dir), name);
	if (!e) {
		pthread_mutex_unlock(&dir->lock);
		return -ENOENT;
	}
	i = remove_entry(dir, e);
	dir->nlink--;
	pthread_mutex_unlock(&dir->lock);
	inode_put(i);
	return 0;
}

static bool dir_empty(struct inode *i)
{
	bool empty;

	pthread_mutex_lock(&i->lock);
	empty = TI(i)->nentries == 0;
	pthread_mutex_unlock(&i->lock);
	return empty;
}

/* Lock two directories' inode locks in address order. */
static void lock2(struct inode *a, struct inode *b)
{
	if (a == b) {
		pthread_mutex_lock(&a->lock);
	} else if (a < b) {
		pthread_mutex_lock(&a->lock);
		pthread_mutex_lock(&b->lock);
	} else {
		pthread_mutex_lock(&b->lock);
		pthread_mutex_lock(&a->lock);
	}
}

static void unlock2(struct inode *a, struct inode *b)
{
	pthread_mutex_unlock(&a->lock);
	if (a != b)
		pthread_mutex_unlock(&b->lock);
}

static int tmpfs_rename(struct inode *olddir, const char *oldname, struct inode *newdir,
			const char *newname, unsigned flags)
{
	struct tmpfs_dirent *oe, *ne;
	struct inode *src, *dst, *dropped = NULL;

	lock2(olddir, newdir);
	oe = find_entry(TI(olddir), oldname);
	ne = find_entry(TI(newdir), newname);
	if (!oe) {
		unlock2(olddir, newdir);
		return -ENOENT;
	}
	src = oe->inode;
	dst = ne ? ne->inode : NULL;
	if (flags & RENAME_EXCHANGE) {
		/* Swap what the two names point at. */
		oe->inode = dst;
		ne->inode = src;
		if (olddir != newdir && S_ISDIR(src->mode) != S_ISDIR(dst->mode)) {
			int d = S_ISDIR(src->mode) ? 1 : -1;
			newdir->nlink += d;
			olddir->nlink -= d;
		}
		touch_locked(olddir);
		touch_locked(newdir);
		unlock2(olddir, newdir);
		return 0;
	}
	if (dst && S_ISDIR(dst->mode)) {
		unlock2(olddir, newdir);
		if (!dir_empty(dst))
			return -ENOTEMPTY;
		lock2(olddir, newdir);
		oe = find_entry(TI(olddir), oldname);
		ne = find_entry(TI(newdir), newname);
		if (!oe || !ne || ne->inode != dst || oe->inode != src) {
			unlock2(olddir, newdir);
			return -EAGAIN;
		}
	}
	if (ne) {
		dropped = remove_entry(newdir, ne);
		if (S_ISDIR(dropped->mode))
			newdir->nlink--;
	}
	inode_get(src);
	inode_put(remove_entry(olddir, find_entry(TI(olddir), oldname)));
	add_entry(newdir, newname, src);
	inode_put(src);
	if (S_ISDIR(src->mode) && olddir != newdir) {
		olddir->nlink--;
		newdir->nlink++;
	}
	unlock2(olddir, newdir);
	if (dropped) {
		pthread_mutex_lock(&dropped->lock);
		dropped->nlink = S_ISDIR(dropped->mode) ? 0 : dropped->nlink - 1;
		pthread_mutex_unlock(&dropped->lock);
		inode_put(dropped);
	}
	return 0;
}

static long tmpfs_readlink(struct inode *inode, char *buf, size_t size)
{
	size_t len = strlen(TI(inode)->target);

	memcpy(buf, TI(inode)->target, MIN(len, size));
	return (long)MIN(len, size);
}

static int tmpfs_setattr(struct inode *inode, const struct iattr *a)
{
	struct timespec now;
	bool shrunk = false;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&inode->lock);
	if ((a->valid & ATTR_SIZE) &&
	    (((TI(inode)->seals & F_SEAL_SHRINK) && a->size < inode->size) ||
	     ((TI(inode)->seals & F_SEAL_GROW) && a->size > inode->size))) {
		pthread_mutex_unlock(&inode->lock);
		return -EPERM;
	}
	if (a->valid & ATTR_SIZE) {
		if (a->size < inode->size) {
			ps_truncate(&TI(inode)->data, a->size);
			uncharge(inode, a->size);
			shrunk = true;
		}
		inode->size = a->size;
		inode->mtime = now;
	}
	if (a->valid & ATTR_MODE)
		inode->mode = (inode->mode & S_IFMT) | (a->mode & 07777);
	if (a->valid & ATTR_UID)
		inode->uid = a->uid;
	if (a->valid & ATTR_GID)
		inode->gid = a->gid;
	if (a->valid & ATTR_ATIME)
		inode->atime = (a->valid & ATTR_ATIME_NOW) ? now : a->atime;
	if (a->valid & ATTR_MTIME)
		inode->mtime = (a->valid & ATTR_MTIME_NOW) ? now : a->mtime;
	if (a->valid & ATTR_CTIME)
		inode->ctime = now;
	inode->blocks = ALIGN_UP(inode->size, 4096) / 512;
	pthread_mutex_unlock(&inode->lock);
	if (shrunk)
		file_mappings_shrunk(inode, a->size);
	return 0;
}

/* --- extended attributes (kept in memory; user., trusted., security., ACLs) ---- */

static struct tmpfs_xattr *find_xattr(struct tmpfs_inode *ti, const char *name)
{
	struct tmpfs_xattr *x;

	list_for_each_entry(x, &ti->xattrs, link)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

/* The VFS checked and converted a POSIX ACL (posix_acl.h) before it
 * comes here: it is kept as any other attribute. */
static bool xattr_ns_ok(const char *name)
{
	return strncmp(name, "user.", 5) == 0 || strncmp(name, "trusted.", 8) == 0 ||
	       strncmp(name, "security.", 9) == 0 || posix_acl_type(name) >= 0;
}

static long tmpfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size)
{
	struct tmpfs_xattr *x;
	long ret;

	if (!xattr_ns_ok(name))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&inode->lock);
	x = find_xattr(TI(inode), name);
	if (!x)
		ret = -ENODATA;
	else if (size && size < x->size)
		ret = -ERANGE;
	else {
		if (size)
			memcpy(buf, x->value, x->size);
		ret = (long)x->size;
	}
	pthread_mutex_unlock(&inode->lock);
	return ret;
}

static int tmpfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size,
			  int flags)
{
	struct tmpfs_xattr *x;
	int ret = 0;

	if (!xattr_ns_ok(name))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&inode->lock);
	x = find_xattr(TI(inode), name);
	if (x && (flags & XATTR_CREATE))
		ret = -EEXIST;
	else if (!x && (flags & XATTR_REPLACE))
		ret = -ENODATA;
	else {
		if (!x) {
			x = xzalloc(sizeof(*x));
			x->name = xstrdup(name);
			list_add_tail(&x->link, &TI(inode)->xattrs);
		}
		free(x->value);
		x->value = xmalloc(size ? size : 1);
		memcpy(x->value, value, size);
		x->size = size;
	}
	pthread_mutex_unlock(&inode->lock);
	return ret;
}

static long tmpfs_listxattr(struct inode *inode, char *buf, size_t size)
{
	struct tmpfs_xattr *x;
	size_t need = 0;
	long ret;

	pthread_mutex_lock(&inode->lock);
	list_for_each_entry(x, &TI(inode)->xattrs, link)
		need += strlen(x->name) + 1;
	if (size && size < need) {
		ret = -ERANGE;
	} else {
		size_t pos = 0;
		if (size)
			list_for_each_entry(x, &TI(inode)->xattrs, link) {
				size_t l = strlen(x->name) + 1;
				memcpy(buf + pos, x->name, l);
				pos += l;
			}
		ret = (long)need;
	}
	pthread_mutex_unlock(&inode->lock);
	return ret;
}

static int tmpfs_removexattr(struct inode *inode, const char *name)
{
	struct tmpfs_xattr *x;
	int ret = 0;

	if (!xattr_ns_ok(name))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&inode->lock);
	x = find_xattr(TI(inode), name);
	if (!x) {
		ret = -ENODATA;
	} else {
		list_del(&x->link);
		free(x->name);
		free(x->value);
		free(x);
	}
	pthread_mutex_unlock(&inode->lock);
	return ret;
}

static void tmpfs_evict(struct inode *inode)
{
	struct tmpfs_sb *ts = inode->sb->priv;
	struct tmpfs_inode *ti = TI(inode);
	struct tmpfs_xattr *x, *nx;
	struct rb_node *n;

	while ((n = rb_first(&ti->entries)))
		inode_put(remove_entry(inode, dirent_of(n)));
	list_for_each_entry_safe(x, nx, &ti->xattrs, link) {
		free(x->name);
		free(x->value);
		free(x);
	}
	uncharge(inode, 0);
	ps_release(&ti->data);
	free(ti->target);
	free(ti);
	pthread_mutex_lock(&ts->lock);
	ts->inodes--;
	pthread_mutex_unlock(&ts->lock);
	memacct_uncharge(&ts->mf->acct, TMPFS_INODE_COST);
}

/* --- open files ------------------------------------------------------------- */

static int tmpfs_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	struct file *f;

	if (S_ISDIR(inode->mode))
		f = file_alloc(&tmpfs_dir_ops, flags, NULL);
	else if (S_ISREG(inode->mode))
		f = file_alloc(&tmpfs_file_ops, flags, NULL);
	else
		return special_open(inode, dentry, flags, out);
	f->fmode = FMODE_ATPOS | FMODE_PREAD;
	f->inode = inode_get(inode);
	*out = f;
	return 0;
}

static long tmpfs_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct inode *i = f->inode;
	long n = 0;

	pthread_mutex_lock(&i->lock);
	if ((uint64_t)*pos < i->size) {
		n = (long)MIN(len, i->size - (uint64_t)*pos);
		ps_read(&TI(i)->data, buf, (size_t)n, (uint64_t)*pos);
		*pos += n;
	}
	pthread_mutex_unlock(&i->lock);
	return n;
}

static long tmpfs_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct inode *i = f->inode;
	struct timespec now;
	long n;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&i->lock);
	if (f->flags & O_APPEND)
		*pos = (int64_t)i->size;
	/* Seals, as shmem_write_begin checks them. */
	if ((TI(i)->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) ||
	    ((TI(i)->seals & F_SEAL_GROW) && (uint64_t)*pos + len > i->size))
		n = -EPERM;
	else if (len && !(len = (size_t)charge(i, (uint64_t)*pos, len, false)))
		n = -ENOSPC;
	else
		n = ps_write(&TI(i)->data, buf, len, (uint64_t)*pos);
	if (n > 0) {
		*pos += n;
		if ((uint64_t)*pos > i->size)
			i->size = (uint64_t)*pos;
		i->blocks = ALIGN_UP(i->size, 4096) / 512;
		i->mtime = i->ctime = now;
		/* Writing clears set-user-id (Linux's file_remove_privs, simplified). */
		i->mode &= ~(uint32_t)S_ISUID;
	}
	pthread_mutex_unlock(&i->lock);
	return n == -EFBIG ? -EFBIG : n;
}

static int64_t tmpfs_llseek(struct file *f, int64_t off, int whence)
{
	struct inode *i = f->inode;
	int64_t ret;

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_llseek(f, off, whence, (int64_t)i->size);
	/* Holes are where the page store has no pages (Linux's shmem does the same). */
	pthread_mutex_lock(&i->lock);
	if (off < 0 || (uint64_t)off >= i->size)
		ret = -ENXIO;
	else
		ret = ps_seek(&TI(i)->data, (uint64_t)off, i->size, whence);
	pthread_mutex_unlock(&i->lock);
	return ret;
}

static int tmpfs_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	return 0;
}

static int tmpfs_fsync(struct file *f, bool datasync)
{
	return 0;
}

static int tmpfs_fallocate(struct file *f, int mode, int64_t off, int64_t len)
{
	struct inode *i = f->inode;
	uint64_t end = (uint64_t)off + (uint64_t)len, charged;
	int ret = 0;

	pthread_mutex_lock(&i->lock);
	charged = TI(i)->charged;
	if ((mode & FALLOC_FL_PUNCH_HOLE) &&
	    (TI(i)->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))) {
		ret = -EPERM;
	} else if (!(mode & FALLOC_FL_PUNCH_HOLE) && (TI(i)->seals & F_SEAL_GROW) &&
		   end > i->size) {
		ret = -EPERM;
	} else if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (!(mode & FALLOC_FL_KEEP_SIZE))
			ret = -EOPNOTSUPP;
		else
			ps_zero_range(&TI(i)->data, (uint64_t)off, MIN(end, i->size));
	} else if (mode & ~FALLOC_FL_KEEP_SIZE) {
		ret = -EOPNOTSUPP;
	} else if (len > 0 && !charge(i, (uint64_t)off, (uint64_t)len, true)) {
		ret = -ENOSPC;
	} else if (len > 0 && (ret = ps_allocate(&TI(i)->data, (uint64_t)off, (uint64_t)len)) < 0) {
		uncharge(i, charged); /* back to what size= counted before */
	} else if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i->size) {
		i->size = end;
		i->blocks = ALIGN_UP(i->size, 4096) / 512;
	}
	pthread_mutex_unlock(&i->lock);
	return ret;
}

static int tmpfs_pages(struct file *f, uint64_t off, uint64_t len, bool writable,
		       struct pagestore **ps, pthread_mutex_t **lock)
{
	*lock = &f->inode->lock;
	*ps = &TI(f->inode)->data;
	return 0;
}

static const struct file_ops tmpfs_file_ops = {
	.pages = tmpfs_pages,
	.read = tmpfs_read,
	.write = tmpfs_write,
	.llseek = tmpfs_llseek,
	.fstat = tmpfs_fstat,
	.fsync = tmpfs_fsync,
	.fallocate = tmpfs_fallocate,
};

static int tmpfs_getdents(struct file *f, struct dir_emitter *e)
{
	struct inode *dir = f->inode;
	struct tmpfs_dirent *d;
	int ret = 0;

	if (f->pos == 0) {
		if (!e->emit(e, ".", 1, dir->ino, DT_DIR, 1))
			return 0;
		f->pos = 1;
	}
	if (f->pos == 1) {
		struct dentry *parent = f->path.dentry ? dentry_get_parent(f->path.dentry) : NULL;
		uint64_t ino = parent && parent->inode ? parent->inode->ino : dir->ino;
		if (parent)
			dentry_put(parent);
		if (!e->emit(e, "..", 2, ino, DT_DIR, 2))
			return 0;
		f->pos = 2;
	}
	pthread_mutex_lock(&dir->lock);
	list_for_each_entry(d, &TI(dir)->order, order) {
		if (d->serial < (uint64_t)f->pos)
			continue;
		if (!e->emit(e, d->name, strlen(d->name), d->inode->ino, IFTODT(d->inode->mode),
			     (int64_t)d->serial + 1))
			break;
		f->pos = (int64_t)d->serial + 1;
	}
	pthread_mutex_unlock(&dir->lock);
	return ret;
}

static int64_t tmpfs_dir_llseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_SET && off >= 0)
		return off;
	if (whence == SEEK_CUR && f->pos + off >= 0)
		return f->pos + off;
	return -EINVAL;
}

static const struct file_ops tmpfs_dir_ops = {
	.getdents = tmpfs_getdents,
	.llseek = tmpfs_dir_llseek,
	.fstat = tmpfs_fstat,
	.fsync = tmpfs_fsync,
};

static const struct inode_ops tmpfs_inode_ops = {
	.lookup = tmpfs_lookup,
	.create = tmpfs_create,
	.tmpfile = tmpfs_tmpfile,
	.mkdir = tmpfs_mkdir,
	.mknod = tmpfs_mknod,
	.symlink = tmpfs_symlink,
	.link = tmpfs_link,
	.unlink = tmpfs_unlink,
	.rmdir = tmpfs_rmdir,
	.rename = tmpfs_rename,
	.readlink = tmpfs_readlink,
	.setattr = tmpfs_setattr,
	.open = tmpfs_open,
	.getxattr = tmpfs_getxattr,
	.setxattr = tmpfs_setxattr,
	.listxattr = tmpfs_listxattr,
	.removexattr = tmpfs_removexattr,
	.evict = tmpfs_evict,
};

static int tmpfs_statfs(struct super_block *sb, struct statfs_info *out)
{
	struct tmpfs_sb *ts = sb->priv;

	uint64_t limit = ts->mf->acct.limit, room = memacct_room(&ts->mf->acct);

	/* Without size=, the sandbox's memory is the size (Linux's tmpfs takes
	 * half the RAM): what the account has left is free. */
	out->bsize = out->frsize = 4096;
	out->blocks = limit == UINT64_MAX ? 1ul << 20 : limit / PAGE;
	out->bfree = out->bavail = room == UINT64_MAX ? out->blocks : MIN(room / PAGE, out->blocks);
	if (ts->limit) {
		pthread_mutex_lock(&ts->lock);
		out->blocks = MIN(out->blocks, ts->limit / PAGE);
		out->bfree = out->bavail = MIN(out->bfree, (ts->limit - ts->used) / PAGE);
		pthread_mutex_unlock(&ts->lock);
	}
	out->files = out->ffree = 1ul << 20;
	if (ts->max_inodes) {
		pthread_mutex_lock(&ts->lock);
		out->files = ts->max_inodes;
		out->ffree = ts->inodes < ts->max_inodes ? ts->max_inodes - ts->inodes : 0;
		pthread_mutex_unlock(&ts->lock);
	}
	out->namelen = VFS_NAME_MAX;
	return 0;
}

static void tmpfs_release(struct super_block *sb)
{
	struct tmpfs_sb *ts = sb->priv;

	pthread_mutex_destroy(&ts->lock);
	free(ts);
}

static const struct super_ops tmpfs_super_ops = {
	.statfs = tmpfs_statfs,
	.release = tmpfs_release,
};

struct super_block *tmpfs_new(struct memfile *mf, uint32_t root_mode, uint32_t uid, uint32_t gid)
{
	struct super_block *sb = sb_new(&tmpfs_super_ops, "tmpfs", TMPFS_MAGIC);
	struct tmpfs_sb *ts = xzalloc(sizeof(*ts));
	struct inode *root;

	ts->mf = mf;
	pthread_mutex_init(&ts->lock, NULL);
	sb->priv = ts;
	sb->posix_acl = true;
	root = tmpfs_new_inode(sb, S_IFDIR | (root_mode & 07777), NULL, NULL);
	root->uid = uid;
	root->gid = gid;
	sb->root = dentry_make_root(sb, root);
	inode_put(root);
	return sb;
}

void tmpfs_set_inode_limit(struct super_block *sb, uint64_t n)
{
	struct tmpfs_sb *ts = sb->priv;

	pthread_mutex_lock(&ts->lock);
	ts->max_inodes = n;
	pthread_mutex_unlock(&ts->lock);
}

void tmpfs_set_size_limit(struct super_block *sb, uint64_t bytes)
{
	struct tmpfs_sb *ts = sb->priv;

	pthread_mutex_lock(&ts->lock);
	ts->limit = ALIGN_UP(bytes, PAGE);
	pthread_mutex_unlock(&ts->lock);
}

bool inode_is_tmpfs(const struct inode *i)
{
	return i->ops == &tmpfs_inode_ops;
}

/* --- seals (Linux's mm/memfd.c) -------------------------------------------------- */

#define SEALS_ALL (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

static bool sealable(const struct file *f)
{
	return f->inode && inode_is_tmpfs(f->inode) && S_ISREG(f->inode->mode);
}

void tmpfs_allow_sealing(struct inode *i)
{
	pthread_mutex_lock(&i->lock);
	TI(i)->seals &= ~(unsigned)F_SEAL_SEAL;
	pthread_mutex_unlock(&i->lock);
}

long tmpfs_get_seals(struct file *f)
{
	long ret;

	if (!sealable(f))
		return -EINVAL;
	pthread_mutex_lock(&f->inode->lock);
	ret = TI(f->inode)->seals;
	pthread_mutex_unlock(&f->inode->lock);
	return ret;
}

long tmpfs_add_seals(struct file *f, unsigned seals)
{
	struct inode *i = f->inode;
	long ret = 0;

	if (!sealable(f))
		return -EINVAL;
	if (seals & ~(unsigned)SEALS_ALL)
		return -EINVAL;
	if (!flags_writable(file_getfl(f)))
		return -EPERM;
	pthread_mutex_lock(&i->lock);
	if (TI(i)->seals & F_SEAL_SEAL)
		ret = -EPERM;
	/* Writable shared mappings could still write (mapping_deny_writable). */
	else if ((seals & F_SEAL_WRITE) && !(TI(i)->seals & F_SEAL_WRITE) &&
		 __atomic_load_n(&i->mmap_writable, __ATOMIC_SEQ_CST) > 0)
		ret = -EBUSY;
	else
		TI(i)->seals |= seals;
	pthread_mutex_unlock(&i->lock);
	return ret;
}

long tmpfs_mmap_seals(struct file *f, int prot, bool shared_writable, bool *nowrite)
{
	unsigned seals;

	if (!sealable(f))
		return 0;
	pthread_mutex_lock(&f->inode->lock);
	seals = TI(f->inode)->seals;
	pthread_mutex_unlock(&f->inode->lock);
	/* 6.1: a write seal refuses every shared mapping of a writable file
	 * (i_mmap_writable denied), whatever its protection. */
	if ((seals & F_SEAL_WRITE) && shared_writable)
		return -EPERM;
	if (seals & F_SEAL_FUTURE_WRITE) {
		if (shared_writable && (prot & PROT_WRITE))
			return -EPERM;
		*nowrite = true; /* no VM_MAYWRITE: mprotect cannot add it */
	}
	return 0;
}
