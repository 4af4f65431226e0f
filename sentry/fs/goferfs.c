/*
 * goferfs: the container's files, served by the gofer. Every inode names a
 * gofer handle; lookups are WALKs, changes are gofer requests, and file data
 * moves either through host descriptors the gofer donates (the default: the
 * sentry preads and pwrites them itself) or, with --file-access=gofer,
 * through READ and WRITE requests so that the sentry holds no host file at all.
 *
 * Inodes are deduplicated by the host's (device, inode) so that hard links
 * share one inode. Attributes come with every reply that touches a node; in
 * exclusive mode (the rootfs: nobody else changes it) they are trusted, in
 * shared mode every lookup revalidates and every stat asks the gofer.
 *
 * A file mapped MAP_SHARED gets a page cache (sentry/mm/pagecache.h); from
 * then on its reads and writes go through that cache too, so that they and
 * the mappings see the same bytes.
 */
#include "config.h"
#include "sentry/fs/goferfs.h"
#include "sentry/fs/file.h"
#include "sentry/fs/filemap.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/mm/pagecache.h"
#include "sentry/kernel/creds.h"
#include "gofer/client.h"
#include "lib/log.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* What statfs reports as the type: a 9p-like network filesystem. */
#define V9FS_MAGIC 0x01021997

struct goferfs_sb {
	struct gofer_client *c;
	struct memfile *mf;
	bool donate;
	/* Host devices seen, folded into sandbox device numbers. */
	pthread_mutex_t devs_lock;
	uint64_t host_dev[32], our_dev[32];
	unsigned ndevs;
};

struct goferfs_inode {
	uint64_t handle;
	uint64_t host_dev, host_ino;
	pthread_mutex_t lock;
	int ro_fd;	 /* a donated read-only descriptor kept for exec and reads */
	uint64_t ro_fid; /* the same in gofer file-access mode */
	char *link;	 /* the symlink target, cached */
	/* Set (under lock) when the file is first mapped shared; then fixed. */
	struct pagecache *pc;
};

struct goferfs_file {
	int fd;	      /* donated host descriptor, or -1 */
	uint64_t fid; /* gofer-side open file, or 0 */
	/* directories */
	bool dots_done;
	uint64_t cookie;
	bool eof;
};

static const struct inode_ops goferfs_inode_ops;
static const struct file_ops goferfs_file_ops;
static const struct file_ops goferfs_donated_ops;
static const struct file_ops goferfs_dir_ops;

#define GSB(sb) ((struct goferfs_sb *)(sb)->priv)
#define GI(i)	((struct goferfs_inode *)(i)->priv)
#define GF(f)	((struct goferfs_file *)(f)->priv)

/* The page cache of i, if it has one (set once, so read without the lock). */
static struct pagecache *cache_of(struct inode *i)
{
	return __atomic_load_n(&GI(i)->pc, __ATOMIC_ACQUIRE);
}

static uint64_t size_of(struct inode *i)
{
	uint64_t size;

	pthread_mutex_lock(&i->lock);
	size = i->size;
	pthread_mutex_unlock(&i->lock);
	return size;
}

static uint64_t fold_dev(struct goferfs_sb *gs, uint64_t host_dev, uint64_t fallback)
{
	uint64_t dev = fallback;

	pthread_mutex_lock(&gs->devs_lock);
	for (unsigned i = 0; i < gs->ndevs; i++)
		if (gs->host_dev[i] == host_dev) {
			dev = gs->our_dev[i];
			goto out;
		}
	if (gs->ndevs < ARRAY_SIZE(gs->host_dev)) {
		/* The first host device is the superblock's own number. */
		dev = gs->ndevs == 0 ? fallback : vfs_new_dev();
		gs->host_dev[gs->ndevs] = host_dev;
		gs->our_dev[gs->ndevs++] = dev;
	}
out:
	pthread_mutex_unlock(&gs->devs_lock);
	return dev;
}

/* Copy the gofer's view of a node into the inode (inode->lock held or new). */
static void set_attrs(struct inode *i, const struct gofer_stat *st)
{
	i->mode = st->mode;
	i->uid = st->uid;
	i->gid = st->gid;
	i->nlink = st->nlink;
	i->size = st->size;
	i->blocks = st->blocks;
	i->rdev = st->rdev;
	i->atime = (struct timespec){st->atime_sec, st->atime_nsec};
	i->mtime = (struct timespec){st->mtime_sec, st->mtime_nsec};
	i->ctime = (struct timespec){st->ctime_sec, st->ctime_nsec};
}

static void refresh_attrs(struct inode *i, const struct gofer_stat *st)
{
	pthread_mutex_lock(&i->lock);
	set_attrs(i, st);
	pthread_mutex_unlock(&i->lock);
}

static void close_handle(struct super_block *sb, uint64_t handle)
{
	gofer_close(GSB(sb)->c, &handle, 1, NULL, 0);
}

/* The inode for a node the gofer handed out: an existing one for the same
 * host file (then the new handle is given back), or a new one. */
static struct inode *node_inode(struct super_block *sb, const struct gofer_node *n)
{
	struct inode *i = sb_find_inode(sb, n->stat.ino ^ (n->stat.dev << 40));
	struct goferfs_inode *gi;

	if (i && GI(i)->host_ino == n->stat.ino && GI(i)->host_dev == n->stat.dev) {
		refresh_attrs(i, &n->stat);
		close_handle(sb, n->handle);
		return i;
	}
	if (i)
		inode_put(i); /* a different file with a colliding key: not deduplicated */
	i = inode_new(sb, &goferfs_inode_ops, n->stat.mode);
	gi = xzalloc(sizeof(*gi));
	gi->handle = n->handle;
	gi->host_dev = n->stat.dev;
	gi->host_ino = n->stat.ino;
	gi->ro_fd = -1;
	pthread_mutex_init(&gi->lock, NULL);
	i->priv = gi;
	set_attrs(i, &n->stat);
	i->ino = n->stat.ino;
	i->dev = fold_dev(GSB(sb), n->stat.dev, sb->dev);
	{
		struct inode *winner = sb_insert_inode(sb, i, n->stat.ino ^ (n->stat.dev << 40));
		if (winner != i) {
			/* Another thread inserted the same file meanwhile: use theirs. */
			inode_put(i);
			i = winner;
		}
	}
	return i;
}

/*
 * Every node the sentry caches holds a descriptor in the gofer (its
 * handle), and the dentry cache is sized to keep them well below the
 * gofer's limit (goferfs_new). Should the gofer still run out (EMFILE,
 * ENFILE: many names in use at once, or open files in gofer file-access
 * mode), the unused cached names go, their handles with them, and the
 * request is made once more.
 */
static bool out_of_fds(int err)
{
	return err == -EMFILE || err == -ENFILE;
}

static void free_handles(void)
{
	unsigned long n = dcache_shrink();

	log_debug("goferfs: the gofer is out of descriptors; dropped %lu cached names", n);
}

#define GOFER_RETRY(ret, call)          \
	do {                            \
		(ret) = (call);         \
		if (out_of_fds(ret)) {  \
			free_handles(); \
			(ret) = (call); \
		}                       \
	} while (0)

static int goferfs_lookup(struct inode *dir, const char *name, struct inode **out)
{
	struct gofer_node node;
	unsigned nwalked = 0;
	int status = 0;
	const char *names[1] = {name};
	int ret = gofer_walk(GSB(dir->sb)->c, GI(dir)->handle, names, 1, &node, &nwalked, &status);

	if (ret == 0 && nwalked == 0 && out_of_fds(-status)) {
		free_handles();
		ret = gofer_walk(GSB(dir->sb)->c, GI(dir)->handle, names, 1, &node, &nwalked,
				 &status);
	}
	if (ret)
		return ret;
	if (nwalked == 0)
		return status ? -status : -ENOENT;
	*out = node_inode(dir->sb, &node);
	return 0;
}

static int goferfs_revalidate(struct dentry *d)
{
	struct gofer_node node;
	unsigned nwalked = 0;
	int status = 0;
	const char *names[1] = {d->name};
	struct dentry *parent;
	int ret;

	if (d->parent == d)
		return 0;
	parent = dentry_get_parent(d);
	ret = parent->inode ? gofer_walk(GSB(d->sb)->c, GI(parent->inode)->handle, names, 1, &node,
					 &nwalked, &status)
			    : -ESTALE;
	dentry_put(parent);
	if (ret || (nwalked == 0) != (d->inode == NULL))
		return -ESTALE;
	if (nwalked == 0)
		return 0; /* still negative */
	close_handle(d->sb, node.handle);
	if (GI(d->inode)->host_ino != node.stat.ino || GI(d->inode)->host_dev != node.stat.dev)
		return -ESTALE;
	refresh_attrs(d->inode, &node.stat);
	return 0;
}

static int goferfs_getattr(struct inode *i)
{
	struct gofer_stat st;
	int ret;

	if (i->sb->cached)
		return 0; /* exclusive: what we have is right */
	ret = gofer_stat(GSB(i->sb)->c, GI(i)->handle, &st);

	if (ret == 0)
		refresh_attrs(i, &st);
	return ret;
}

/* --- creating names ------------------------------------------------------------- */

static uint32_t new_gid(const struct inode *dir, const struct creds *c)
{
	return (dir->mode & S_ISGID) ? dir->gid : c->fsgid;
}

static void touch_dir(struct inode *dir)
{
	inode_touch(dir, ATTR_MTIME | ATTR_CTIME);
}

/* The flags of a guest open that the host file is opened with. The rest
 * is the sentry's: the path walk (O_NOFOLLOW, O_DIRECTORY: the VFS has
 * resolved the name), where writes go (O_APPEND), the description's own
 * flags (O_CLOEXEC, O_LARGEFILE, O_ASYNC). */
static uint32_t host_open_flags(int flags)
{
	return (uint32_t)(flags &
			  (O_ACCMODE | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | O_NOATIME));
}

static int goferfs_create(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
			  int flags, struct inode **out, struct file **file)
{
	struct goferfs_sb *gs = GSB(dir->sb);
	struct gofer_node node;
	uint64_t fid = 0;
	int fd = -1, ret;
	struct file *f;

	GOFER_RETRY(ret,
		    gofer_create(gs->c, GI(dir)->handle, name, host_open_flags(flags), mode & 07777,
				 c->fsuid, new_gid(dir, c), gs->donate, &node, &fid, &fd));
	if (ret)
		return ret;
	*out = node_inode(dir->sb, &node);
	f = file_alloc(fd >= 0 ? &goferfs_donated_ops : &goferfs_file_ops, flags, NULL);
	f->priv = xzalloc(sizeof(struct goferfs_file));
	GF(f)->fd = fd;
	GF(f)->fid = fid;
	f->fmode = FMODE_ATPOS | FMODE_PREAD;
	f->inode = inode_get(*out);
	*file = f;
	touch_dir(dir);
	return 0;
}

static int goferfs_mkdir(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
			 struct inode **out)
{
	struct gofer_node node;
	int ret;

	GOFER_RETRY(ret, gofer_mkdir(GSB(dir->sb)->c, GI(dir)->handle, name, mode & 07777, c->fsuid,
				     new_gid(dir, c), &node));
	if (ret)
		return ret;
	*out = node_inode(dir->sb, &node);
	pthread_mutex_lock(&dir->lock);
	dir->nlink++;
	pthread_mutex_unlock(&dir->lock);
	return 0;
}

static int goferfs_mknod(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
			 const struct creds *c, struct inode **out)
{
	struct gofer_node node;
	int ret;

	GOFER_RETRY(ret, gofer_mknod(GSB(dir->sb)->c, GI(dir)->handle, name, mode, rdev, c->fsuid,
				     new_gid(dir, c), &node));
	if (ret)
		return ret;
	*out = node_inode(dir->sb, &node);
	return 0;
}

static int goferfs_symlink(struct inode *dir, const char *name, const char *target,
			   const struct creds *c, struct inode **out)
{
	struct gofer_node node;
	int ret;

	GOFER_RETRY(ret, gofer_symlink(GSB(dir->sb)->c, GI(dir)->handle, name, target, c->fsuid,
				       new_gid(dir, c), &node));
	if (ret)
		return ret;
	*out = node_inode(dir->sb, &node);
	return 0;
}

static int goferfs_link(struct inode *dir, const char *name, struct inode *target)
{
	struct gofer_node node;
	struct inode *i;
	int ret;

	if (target->sb != dir->sb)
		return -EXDEV;
	GOFER_RETRY(ret,
		    gofer_link(GSB(dir->sb)->c, GI(dir)->handle, name, GI(target)->handle, &node));
	if (ret)
		return ret;
	i = node_inode(dir->sb, &node); /* the same host file: refreshes nlink */
	inode_put(i);
	return 0;
}

static int goferfs_unlink(struct inode *dir, const char *name, struct inode *victim)
{
	int ret = gofer_unlink(GSB(dir->sb)->c, GI(dir)->handle, name, 0);

	if (ret == 0) {
		pthread_mutex_lock(&victim->lock);
		if (victim->nlink)
			victim->nlink--;
		pthread_mutex_unlock(&victim->lock);
	}
	return ret;
}

static int goferfs_rmdir(struct inode *dir, const char *name, struct inode *victim)
{
	int ret = gofer_unlink(GSB(dir->sb)->c, GI(dir)->handle, name, AT_REMOVEDIR);

	if (ret == 0) {
		pthread_mutex_lock(&dir->lock);
		if (dir->nlink > 2)
			dir->nlink--;
		pthread_mutex_unlock(&dir->lock);
		victim->nlink = 0;
	}
	return ret;
}

static int goferfs_rename(struct inode *olddir, const char *oldname, struct inode *newdir,
			  const char *newname, unsigned flags)
{
	return gofer_rename(GSB(olddir->sb)->c, GI(olddir)->handle, oldname, GI(newdir)->handle,
			    newname, flags);
}

static long goferfs_readlink(struct inode *i, char *buf, size_t size)
{
	struct goferfs_inode *gi = GI(i);
	char tmp[VFS_PATH_MAX];
	long n;

	pthread_mutex_lock(&gi->lock);
	if (!gi->link || !i->sb->cached) {
		n = gofer_readlink(GSB(i->sb)->c, gi->handle, tmp, sizeof(tmp));
		if (n < 0) {
			pthread_mutex_unlock(&gi->lock);
			return n;
		}
		free(gi->link);
		gi->link = xmalloc((size_t)n + 1);
		memcpy(gi->link, tmp, (size_t)n);
		gi->link[n] = '\0';
	}
	n = (long)strlen(gi->link);
	memcpy(buf, gi->link, MIN((size_t)n, size));
	pthread_mutex_unlock(&gi->lock);
	return (long)MIN((size_t)n, size);
}

static int goferfs_setattr(struct inode *i, const struct iattr *a)
{
	struct gofer_setattr_req req = {.handle = GI(i)->handle};
	struct gofer_stat st;
	uint64_t old_size;
	int ret;

	if (a->valid & ATTR_MODE) {
		req.mask |= GOFER_SETATTR_MODE;
		req.mode = a->mode & 07777;
	}
	if (a->valid & ATTR_UID) {
		req.mask |= GOFER_SETATTR_UID;
		req.uid = a->uid;
	}
	if (a->valid & ATTR_GID) {
		req.mask |= GOFER_SETATTR_GID;
		req.gid = a->gid;
	}
	if (a->valid & ATTR_SIZE) {
		req.mask |= GOFER_SETATTR_SIZE;
		req.size = a->size;
	}
	if (a->valid & ATTR_ATIME) {
		req.mask |=
			(a->valid & ATTR_ATIME_NOW) ? GOFER_SETATTR_ATIME_NOW : GOFER_SETATTR_ATIME;
		req.atime_sec = a->atime.tv_sec;
		req.atime_nsec = (uint32_t)a->atime.tv_nsec;
	}
	if (a->valid & ATTR_MTIME) {
		req.mask |=
			(a->valid & ATTR_MTIME_NOW) ? GOFER_SETATTR_MTIME_NOW : GOFER_SETATTR_MTIME;
		req.mtime_sec = a->mtime.tv_sec;
		req.mtime_nsec = (uint32_t)a->mtime.tv_nsec;
	}
	if (!req.mask)
		return 0; /* only ctime: the host keeps its own */
	old_size = size_of(i);
	/* (a truncation opens the file in the gofer for a moment) */
	GOFER_RETRY(ret, gofer_setattr(GSB(i->sb)->c, &req, &st));
	if (ret == 0)
		refresh_attrs(i, &st);
	if (ret == 0 && (a->valid & ATTR_SIZE) && cache_of(i))
		pc_resize(cache_of(i), old_size, a->size);
	if (ret == 0 && (a->valid & ATTR_SIZE) && a->size < old_size)
		file_mappings_shrunk(i, a->size);
	return ret;
}

/* (the gofer opens the file for a moment for each of these) */
static long goferfs_getxattr(struct inode *i, const char *name, void *buf, size_t size)
{
	long ret;

	GOFER_RETRY(ret, gofer_getxattr(GSB(i->sb)->c, GI(i)->handle, name, buf, size));
	return ret;
}

static int goferfs_setxattr(struct inode *i, const char *name, const void *value, size_t size,
			    int flags)
{
	int ret;

	GOFER_RETRY(ret, gofer_setxattr(GSB(i->sb)->c, GI(i)->handle, name, value, size,
					(uint32_t)flags));
	return ret;
}

static long goferfs_listxattr(struct inode *i, char *buf, size_t size)
{
	long ret;

	GOFER_RETRY(ret, gofer_listxattr(GSB(i->sb)->c, GI(i)->handle, buf, size));
	return ret;
}

static int goferfs_removexattr(struct inode *i, const char *name)
{
	int ret;

	GOFER_RETRY(ret, gofer_removexattr(GSB(i->sb)->c, GI(i)->handle, name));
	return ret;
}

static void goferfs_evict(struct inode *i)
{
	struct goferfs_inode *gi = GI(i);
	uint64_t fid = gi->ro_fid;

	gofer_close(GSB(i->sb)->c, &gi->handle, 1, fid ? &fid : NULL, fid ? 1 : 0);
	if (gi->ro_fd >= 0)
		close(gi->ro_fd);
	pc_free(gi->pc);
	pthread_mutex_destroy(&gi->lock);
	free(gi->link);
	free(gi);
}

/* --- open files -------------------------------------------------------------- */

static int goferfs_open(struct inode *i, struct dentry *d, int flags, struct file **out)
{
	struct goferfs_sb *gs = GSB(i->sb);
	struct goferfs_file *gf;
	struct file *f;
	uint64_t fid = 0;
	int fd = -1, ret;

	if (!S_ISREG(i->mode) && !S_ISDIR(i->mode))
		return special_open(i, d, flags, out);
	if (S_ISDIR(i->mode)) {
		GOFER_RETRY(ret, gofer_open(gs->c, GI(i)->handle, O_RDONLY | O_DIRECTORY, false,
					    &fid, &fd));
		if (ret)
			return ret;
		f = file_alloc(&goferfs_dir_ops, flags, NULL);
	} else {
		GOFER_RETRY(ret, gofer_open(gs->c, GI(i)->handle, host_open_flags(flags),
					    gs->donate, &fid, &fd));
		if (ret)
			return ret;
		f = file_alloc(fd >= 0 ? &goferfs_donated_ops : &goferfs_file_ops, flags, NULL);
	}
	gf = xzalloc(sizeof(*gf));
	gf->fd = fd;
	gf->fid = fid;
	f->priv = gf;
	f->fmode = FMODE_ATPOS | FMODE_PREAD;
	f->inode = inode_get(i);
	*out = f;
	return 0;
}

/* Host I/O at an offset through f's descriptor or gofer file (arg: f). */
static long host_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	struct file *f = arg;
	struct goferfs_file *gf = GF(f);
	long n;

	if (gf->fd < 0)
		return gofer_read(GSB(f->inode->sb)->c, gf->fid, off, buf,
				  MIN(len, (size_t)GOFER_MAX_IO));
	do {
		n = pread(gf->fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static long host_pwrite(void *arg, void *buf, size_t len, uint64_t off)
{
	struct file *f = arg;
	struct goferfs_file *gf = GF(f);
	long n;

	if (gf->fd < 0)
		return gofer_write(GSB(f->inode->sb)->c, gf->fid, off, buf,
				   MIN(len, (size_t)GOFER_MAX_IO));
	do {
		n = pwrite(gf->fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Shared-mapped pages of [off, off+len) back to the host, through f when f
 * may write (a read-only f cannot have dirtied anything). */
static int goferfs_writeback(struct file *f, uint64_t off, uint64_t len)
{
	struct pagecache *pc = cache_of(f->inode);

	if (!pc || !flags_writable(f->flags))
		return 0;
	return pc_writeback(pc, off, len, size_of(f->inode), host_pwrite, f);
}

static void goferfs_release(struct file *f)
{
	struct goferfs_file *gf = GF(f);

	goferfs_writeback(f, 0, UINT64_MAX);
	if (gf->fd >= 0)
		close(gf->fd);
	if (gf->fid)
		gofer_close(GSB(f->inode->sb)->c, NULL, 0, &gf->fid, 1);
	free(gf);
}

/* After a write: the file is at least this long. */
static void grew(struct inode *i, int64_t end)
{
	pthread_mutex_lock(&i->lock);
	if ((uint64_t)end > i->size)
		i->size = (uint64_t)end;
	clock_gettime(CLOCK_REALTIME, &i->mtime);
	i->ctime = i->mtime;
	pthread_mutex_unlock(&i->lock);
}

static long goferfs_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct pagecache *pc = cache_of(f->inode);
	long n;

	if (pc)
		n = pc_read(pc, buf, len, (uint64_t)*pos, size_of(f->inode), host_pread, f);
	else
		n = host_pread(f, buf, len, (uint64_t)*pos);
	if (n > 0)
		*pos += n;
	return n;
}

/* O_APPEND writes go at the end, wherever the position is. */
static int64_t write_pos(struct file *f, int64_t *pos)
{
	if (!(f->flags & O_APPEND))
		return *pos;
	goferfs_getattr(f->inode);
	return (int64_t)f->inode->size;
}

static long goferfs_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct pagecache *pc = cache_of(f->inode);
	int64_t at = write_pos(f, pos);
	uint64_t old_size = size_of(f->inode);
	long n;

	if (pc) {
		n = pc_write(pc, buf, len, (uint64_t)at, old_size, host_pwrite, f);
	} else {
		n = host_pwrite(f, (void *)buf, len, (uint64_t)at);
		/* A cache made meanwhile may have been filled before this write. */
		pc = cache_of(f->inode);
		if (n > 0 && pc)
			pc_update(pc, buf, (size_t)n, (uint64_t)at, old_size);
	}
	if (n > 0) {
		*pos = at + n;
		grew(f->inode, *pos);
	}
	return n;
}

/* Vectored I/O through the page cache: one element at a time. */
static long cached_iov(struct file *f, const struct iovec *iov, int cnt, int64_t *pos, bool write)
{
	long total = 0;

	for (int k = 0; k < cnt; k++) {
		long n = write ? goferfs_write(f, iov[k].iov_base, iov[k].iov_len, pos)
			       : goferfs_read(f, iov[k].iov_base, iov[k].iov_len, pos);
		if (n < 0)
			return total ? total : n;
		total += n;
		if ((size_t)n < iov[k].iov_len)
			break;
	}
	return total;
}

static long goferfs_read_iov(struct file *f, const struct iovec *iov, int cnt, int64_t *pos)
{
	long n;

	if (cache_of(f->inode))
		return cached_iov(f, iov, cnt, pos, false);
	do {
		n = preadv(GF(f)->fd, iov, cnt, *pos);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*pos += n;
	return n;
}

static long goferfs_write_iov(struct file *f, const struct iovec *iov, int cnt, int64_t *pos)
{
	int64_t at;
	long n;

	if (cache_of(f->inode))
		return cached_iov(f, iov, cnt, pos, true);
	at = write_pos(f, pos);
	do {
		n = pwritev(GF(f)->fd, iov, cnt, at);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*pos = at + n;
	grew(f->inode, *pos);
	return n;
}

static int64_t goferfs_llseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_END || whence == SEEK_DATA || whence == SEEK_HOLE)
		goferfs_getattr(f->inode);
	return generic_llseek(f, off, whence, (int64_t)f->inode->size);
}

static int goferfs_fstat(struct file *f, struct kstat *st)
{
	goferfs_getattr(f->inode);
	inode_stat(f->inode, st);
	return 0;
}

static int goferfs_fsync(struct file *f, bool datasync)
{
	struct goferfs_file *gf = GF(f);
	int ret = goferfs_writeback(f, 0, UINT64_MAX);

	if (ret < 0)
		return ret;
	if (gf->fd >= 0)
		return (datasync ? fdatasync(gf->fd) : fsync(gf->fd)) < 0 ? -errno : 0;
	return gofer_fsync(GSB(f->inode->sb)->c, gf->fid, datasync);
}

static int goferfs_fallocate(struct file *f, int mode, int64_t off, int64_t len)
{
	struct goferfs_file *gf = GF(f);
	struct pagecache *pc = cache_of(f->inode);
	int ret;

	/* Shifting the file's bytes would leave the cache describing the old layout. */
	if (pc && (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)))
		return -EOPNOTSUPP;
	if (gf->fd >= 0)
		ret = fallocate(gf->fd, mode, off, len) < 0 ? -errno : 0;
	else
		ret = gofer_fallocate(GSB(f->inode->sb)->c, gf->fid, (uint32_t)mode, (uint64_t)off,
				      (uint64_t)len);
	if (ret == 0 && pc && (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
		pc_zero(pc, (uint64_t)off, (uint64_t)off + (uint64_t)len);
	if (ret == 0 && !(mode & FALLOC_FL_KEEP_SIZE))
		grew(f->inode, off + len);
	return ret;
}

/* MAP_SHARED: the file's page cache, made on first use and filled over the range. */
static int goferfs_pages(struct file *f, uint64_t off, uint64_t len, bool writable,
			 struct pagestore **ps, pthread_mutex_t **lock)
{
	struct goferfs_inode *gi = GI(f->inode);
	struct pagecache *pc;
	int ret;

	pthread_mutex_lock(&gi->lock);
	if (!gi->pc)
		__atomic_store_n(&gi->pc, pc_new(GSB(f->inode->sb)->mf), __ATOMIC_RELEASE);
	pc = gi->pc;
	pthread_mutex_unlock(&gi->lock);
	pthread_mutex_lock(&pc->lock);
	ret = pc_fill_locked(pc, off, len, size_of(f->inode), writable, host_pread, f);
	pthread_mutex_unlock(&pc->lock);
	*ps = &pc->ps;
	*lock = &pc->lock;
	return ret;
}

static int goferfs_setfl(struct file *f, int flags)
{
	f->flags = flags;
	return 0;
}

/* --file-access=gofer: data through READ and WRITE requests. */
static const struct file_ops goferfs_file_ops = {
	.pages = goferfs_pages,
	.writeback = goferfs_writeback,
	.read = goferfs_read,
	.write = goferfs_write,
	.llseek = goferfs_llseek,
	.fstat = goferfs_fstat,
	.fsync = goferfs_fsync,
	.fallocate = goferfs_fallocate,
	.setfl = goferfs_setfl,
	.release = goferfs_release,
};

/* Donated descriptors: guest memory goes straight to the host call. */
static const struct file_ops goferfs_donated_ops = {
	.pages = goferfs_pages,
	.writeback = goferfs_writeback,
	.read = goferfs_read,
	.write = goferfs_write,
	.read_iov = goferfs_read_iov,
	.write_iov = goferfs_write_iov,
	.llseek = goferfs_llseek,
	.fstat = goferfs_fstat,
	.fsync = goferfs_fsync,
	.fallocate = goferfs_fallocate,
	.setfl = goferfs_setfl,
	.release = goferfs_release,
};

static int goferfs_getdents(struct file *f, struct dir_emitter *e)
{
	struct goferfs_file *gf = GF(f);
	struct inode *dir = f->inode;
	char *buf;
	int ret = 0;

	if (f->pos == 0) {
		/* A rewind (or the start): "." and "..", then the gofer's entries. */
		gf->dots_done = false;
		gf->cookie = 0;
		gf->eof = false;
	}
	if (!gf->dots_done) {
		struct dentry *parent = f->path.dentry ? dentry_get_parent(f->path.dentry) : NULL;
		uint64_t pino = parent && parent->inode ? parent->inode->ino : dir->ino;
		if (parent)
			dentry_put(parent);
		if (f->pos == 0) {
			if (!e->emit(e, ".", 1, dir->ino, DT_DIR, 1))
				return 0;
			f->pos = 1;
		}
		if (!e->emit(e, "..", 2, pino, DT_DIR, 2))
			return 0;
		f->pos = 2;
		gf->dots_done = true;
	}
	buf = xmalloc(GOFER_MAX_IO);
	while (!gf->eof) {
		long n = gofer_getdents(GSB(dir->sb)->c, gf->fid, gf->cookie, buf, GOFER_MAX_IO);
		long off = 0;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		if (n == 0) {
			gf->eof = true;
			break;
		}
		while (off < n) {
			struct gofer_dirent *d = (struct gofer_dirent *)(buf + off);
			if (!e->emit(e, (char *)(d + 1), d->namelen, d->ino, d->type,
				     (int64_t)(d->next & 0x3fffffffffffffffull) + 3)) {
				free(buf);
				return 0;
			}
			gf->cookie = d->next;
			f->pos = (int64_t)(d->next & 0x3fffffffffffffffull) + 3;
			off += d->reclen;
		}
	}
	free(buf);
	return ret;
}

static int64_t goferfs_dir_llseek(struct file *f, int64_t off, int whence)
{
	struct goferfs_file *gf = GF(f);

	if (whence != SEEK_SET || off < 0)
		return whence == SEEK_CUR && off == 0 ? f->pos : -EINVAL;
	/* Positions past the dots are the gofer's cookies (shifted by three). */
	gf->eof = false;
	if (off >= 3) {
		gf->dots_done = true;
		gf->cookie = (uint64_t)(off - 3);
	} else {
		gf->dots_done = false;
		gf->cookie = 0;
	}
	return off;
}

static const struct file_ops goferfs_dir_ops = {
	.getdents = goferfs_getdents,
	.llseek = goferfs_dir_llseek,
	.fstat = goferfs_fstat,
	.fsync = goferfs_fsync,
	.release = goferfs_release,
};

static const struct inode_ops goferfs_inode_ops = {
	.lookup = goferfs_lookup,
	.create = goferfs_create,
	.mkdir = goferfs_mkdir,
	.mknod = goferfs_mknod,
	.symlink = goferfs_symlink,
	.link = goferfs_link,
	.unlink = goferfs_unlink,
	.rmdir = goferfs_rmdir,
	.rename = goferfs_rename,
	.readlink = goferfs_readlink,
	.getattr = goferfs_getattr,
	.setattr = goferfs_setattr,
	.open = goferfs_open,
	.getxattr = goferfs_getxattr,
	.setxattr = goferfs_setxattr,
	.listxattr = goferfs_listxattr,
	.removexattr = goferfs_removexattr,
	.evict = goferfs_evict,
};

static int goferfs_statfs(struct super_block *sb, struct statfs_info *out)
{
	struct gofer_statfs s;
	int ret = gofer_statfs(GSB(sb)->c, GI(sb->root->inode)->handle, &s);

	if (ret)
		return ret;
	out->bsize = s.bsize;
	out->blocks = s.blocks;
	out->bfree = s.bfree;
	out->bavail = s.bavail;
	out->files = s.files;
	out->ffree = s.ffree;
	out->namelen = s.namelen;
	out->frsize = s.frsize;
	return 0;
}

static void goferfs_release_sb(struct super_block *sb)
{
	struct goferfs_sb *gs = GSB(sb);

	if (!gs)
		return; /* never attached */
	gofer_client_free(gs->c);
	pthread_mutex_destroy(&gs->devs_lock);
	free(gs);
}

static const struct super_ops goferfs_super_ops = {
	.statfs = goferfs_statfs,
	.revalidate = goferfs_revalidate,
	.release = goferfs_release_sb,
};

int goferfs_new_tree(struct gofer_client *c, uint32_t tree, struct memfile *mf, bool donate,
		     bool exclusive, struct super_block **out)
{
	struct super_block *sb = sb_new(&goferfs_super_ops, "9p", V9FS_MAGIC);
	struct goferfs_sb *gs;
	struct gofer_node root;
	struct rlimit rl;
	struct inode *i;
	int ret;

	ret = tree ? gofer_attach_root(c, tree, &root) : gofer_attach(c, &root);
	if (ret) {
		sb_put(sb);
		return ret;
	}
	gs = xzalloc(sizeof(*gs));
	gs->c = gofer_client_get(c);
	gs->mf = mf;
	gs->donate = donate;
	pthread_mutex_init(&gs->devs_lock, NULL);
	sb->priv = gs;
	sb->cached = exclusive;
	i = node_inode(sb, &root);
	sb->root = dentry_make_root(sb, i);
	inode_put(i);
	/* The gofer raises its descriptor limit to the hard one, which it
	 * shares with the sentry: cache at most half as many unused names
	 * (each holds a handle), leaving the rest for names in use and open
	 * files. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
		dcache_limit((unsigned long)rl.rlim_max / 2);
	*out = sb;
	return 0;
}

int goferfs_new(struct gofer_client *c, struct memfile *mf, bool donate, bool exclusive,
		struct super_block **out)
{
	int ret = goferfs_new_tree(c, 0, mf, donate, exclusive, out);

	/* The superblock holds a reference of its own now. */
	if (ret == 0)
		gofer_client_free(c);
	return ret;
}
