/*
 * An overlay: a read-only lower filesystem (the rootfs the gofer serves)
 * under a writable upper one (a tmpfs in the sandbox's memory), merged as
 * Linux's overlayfs merges them. Changes never reach the lower layer:
 *  - a file is copied up (with its parent directories) before it is written
 *    or its attributes change;
 *  - a deleted lower name leaves a whiteout in the upper layer (a character
 *    device 0:0, as overlayfs makes them);
 *  - a directory made where a lower one was deleted is opaque (it hides the
 *    lower directory's entries; an xattr marks it, as overlayfs does).
 * Renames happen in the upper layer (RENAME_EXCHANGE too, both sides
 * copied up first). A directory the lower layer shows through (a merged
 * one) cannot move: EXDEV, as overlayfs says without redirect_dir, and mv
 * copies instead; an upper-only or opaque directory can, and becomes
 * opaque where it lands on a lower directory's name. O_TMPFILE makes its
 * file in the upper layer.
 *
 * A copied-up file keeps the lower file's device and inode number (the
 * upper inode takes them: stat, fstat of an open file and readdir agree,
 * and a hard link made across the copy-up, as git clone of a local path
 * makes and checks, names the same file). A lower file with several names
 * is one link group: the first copy-up of any of its names records the
 * upper inode in the overlay's index (overlay_index.h, as overlayfs with
 * index=on), every other name of the group uses that inode from then on,
 * and gets an upper name that links to it when it is changed itself. The
 * upper inode's link count stands for the whole group: its upper names
 * plus the names still only in the lower layer (pending in the index).
 *
 * Opening a file returns the real (upper or lower) layer's file, so reads,
 * writes and mmap go to the real file with no overlay in between.
 */
#include "config.h"
#include "sentry/fs/overlay.h"
#include "sentry/fs/file.h"
#include "sentry/fs/overlay_index.h"
#include "sentry/kernel/creds.h"
#include "sentry/vfs/posix_acl.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#define OPAQUE_XATTR	      "trusted.overlay.opaque"
#define COPY_CHUNK	      65536

struct ovl_inode {
	struct inode *upper; /* NULL until copied up */
	struct inode *lower; /* NULL for files made in the overlay */
	bool opaque;	     /* a directory whose lower part is hidden */
	/* upper is the inode of the lower file's link group, but this name
	 * has no upper entry yet (it is still the lower layer's). */
	bool aliased;
};

struct ovl_sb {
	struct super_block *upper_sb, *lower_sb;
	/* Copy-up and whiteout changes, one at a time: they touch several
	 * directories of the upper layer. */
	pthread_mutex_t copy_lock;
	struct ovl_index index; /* hard-link groups copied up */
};

static const struct inode_ops ovl_inode_ops;
static const struct file_ops ovl_dir_ops;

#define OI(i)  ((struct ovl_inode *)(i)->priv)
#define OSB(s) ((struct ovl_sb *)(s)->priv)

/* A lower non-directory with more names than this one? */
static bool linked_lower(const struct inode *lo)
{
	return lo && !S_ISDIR(lo->mode) && lo->nlink > 1;
}

/* The lower file's identity: the index's key. */
static void lower_id(struct inode *lo, uint64_t *dev, uint64_t *ino)
{
	struct kstat st;

	inode_stat(lo, &st);
	*dev = st.dev;
	*ino = st.ino;
}

/* A name of a hard-linked lower file that is still the lower layer's:
 * when another name of its group has been copied up meanwhile, this one
 * uses that upper inode from now on (its writes are the group's). */
static void join_group(struct inode *i)
{
	struct ovl_inode *oi = OI(i);
	struct ovl_sb *os = OSB(i->sb);
	struct inode *up;
	uint64_t dev, ino;

	if (__atomic_load_n(&oi->upper, __ATOMIC_ACQUIRE) || !linked_lower(oi->lower))
		return;
	lower_id(oi->lower, &dev, &ino);
	up = ovl_index_find(&os->index, dev, ino);
	if (!up)
		return;
	pthread_mutex_lock(&os->copy_lock);
	if (!oi->upper) {
		oi->aliased = true;
		__atomic_store_n(&oi->upper, up, __ATOMIC_RELEASE);
		up = NULL;
	}
	pthread_mutex_unlock(&os->copy_lock);
	if (up)
		inode_put(up);
}

static struct inode *real(struct inode *i)
{
	join_group(i);
	return OI(i)->upper ? OI(i)->upper : OI(i)->lower;
}

/* Mirror the real inode's attributes (the overlay inode keeps its number). */
static void sync_attrs(struct inode *i)
{
	struct inode *r = real(i);
	struct kstat st;

	if (r->ops->getattr)
		r->ops->getattr(r);
	inode_stat(r, &st);
	pthread_mutex_lock(&i->lock);
	i->mode = st.mode;
	i->uid = st.uid;
	i->gid = st.gid;
	i->nlink = st.nlink;
	i->size = st.size;
	i->blocks = st.blocks;
	i->rdev = st.rdev;
	i->atime = st.atime;
	i->mtime = st.mtime;
	i->ctime = st.ctime;
	/* A non-directory shows its real layer's device and number (a copy
	 * has the lower file's: take_identity), so stat and fstat of an open
	 * file agree. */
	if (!S_ISDIR(st.mode)) {
		i->dev = st.dev;
		i->ino = st.ino;
	}
	pthread_mutex_unlock(&i->lock);
}

static struct inode *ovl_new(struct super_block *sb, struct inode *upper, struct inode *lower,
			     bool opaque)
{
	struct inode *r = upper ? upper : lower;
	struct inode *i = inode_new(sb, &ovl_inode_ops, r->mode);
	struct ovl_inode *oi = xzalloc(sizeof(*oi));

	oi->upper = upper ? inode_get(upper) : NULL;
	oi->lower = lower ? inode_get(lower) : NULL;
	oi->opaque = opaque;
	i->priv = oi;
	/* Directories keep the lower layer's number across copy-up. */
	i->ino = lower ? lower->ino : upper->ino;
	sync_attrs(i);
	return i;
}

static bool is_whiteout(const struct inode *i)
{
	return S_ISCHR(i->mode) && i->rdev == 0;
}

static bool upper_opaque(struct inode *u)
{
	char v;

	return u->ops->getxattr && u->ops->getxattr(u, OPAQUE_XATTR, &v, 1) == 1 && v == 'y';
}

/* A name in one real directory (NULL dir: not there). */
static int real_lookup(struct inode *dir, const char *name, struct inode **out)
{
	*out = NULL;
	if (!dir)
		return -ENOENT;
	return dir->ops->lookup ? dir->ops->lookup(dir, name, out) : -ENOENT;
}

static int ovl_lookup(struct inode *dir, const char *name, struct inode **out)
{
	struct ovl_inode *od = OI(dir);
	struct inode *u = NULL, *l = NULL;
	bool opaque = false;
	int ret;

	ret = real_lookup(od->upper, name, &u);
	if (ret && ret != -ENOENT)
		return ret;
	if (u && is_whiteout(u)) {
		inode_put(u);
		return -ENOENT;
	}
	if (u && S_ISDIR(u->mode))
		opaque = upper_opaque(u);
	/* The lower layer shows through unless hidden by the upper entry. */
	if (!od->opaque && (!u || (S_ISDIR(u->mode) && !opaque))) {
		ret = real_lookup(od->lower, name, &l);
		if (ret && ret != -ENOENT) {
			if (u)
				inode_put(u);
			return ret;
		}
		if (l && u && !S_ISDIR(l->mode)) {
			/* An upper directory over a lower non-directory hides it. */
			inode_put(l);
			l = NULL;
		}
	}
	if (!u && !l)
		return -ENOENT;
	*out = ovl_new(dir->sb, u, l, opaque);
	if (u)
		inode_put(u);
	if (l)
		inode_put(l);
	return 0;
}

static int ovl_getattr(struct inode *i)
{
	sync_attrs(i);
	return 0;
}

/* --- copy up -------------------------------------------------------------------- */

static const struct creds *root_creds(void)
{
	static struct creds c;
	static bool done;

	if (!done) {
		creds_init(&c, 0, 0);
		done = true;
	}
	return &c;
}

/* Copy the data of the lower file lo into the new upper file up. */
static int copy_data(struct inode *lo, struct inode *up)
{
	struct file *in = NULL, *out = NULL;
	char *buf;
	int64_t ipos = 0, opos = 0;
	int ret = lo->ops->open(lo, NULL, O_RDONLY, &in);

	if (ret)
		return ret;
	ret = up->ops->open(up, NULL, O_WRONLY, &out);
	if (ret) {
		file_put(in);
		return ret;
	}
	buf = xmalloc(COPY_CHUNK);
	for (;;) {
		long n = in->ops->read(in, buf, COPY_CHUNK, &ipos), w = 0;
		if (n <= 0) {
			ret = (int)n;
			break;
		}
		while (w < n) {
			long k = out->ops->write(out, buf + w, (size_t)(n - w), &opos);
			if (k <= 0) {
				ret = k < 0 ? (int)k : -EIO;
				goto done;
			}
			w += k;
		}
	}
done:
	free(buf);
	file_put(in);
	file_put(out);
	return ret;
}

/* Give the upper copy the lower file's owner, mode, times, user xattrs
 * and POSIX ACLs. */
static void copy_attrs(struct inode *lo, struct inode *up)
{
	struct kstat st;
	struct iattr a;
	char names[4096];
	long n;

	inode_stat(lo, &st);
	a = (struct iattr){.valid = ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_ATIME | ATTR_MTIME,
			   .mode = st.mode & 07777,
			   .uid = st.uid,
			   .gid = st.gid,
			   .atime = st.atime,
			   .mtime = st.mtime};
	if (S_ISLNK(st.mode))
		a.valid &= ~ATTR_MODE;
	up->ops->setattr(up, &a);
	if (!lo->ops->listxattr || !up->ops->setxattr)
		return;
	n = lo->ops->listxattr(lo, names, sizeof(names));
	for (long off = 0; n > 0 && off < n; off += (long)strlen(names + off) + 1) {
		char value[4096];
		long v = lo->ops->getxattr(lo, names + off, value, sizeof(value));
		if (v >= 0 &&
		    (strncmp(names + off, "user.", 5) == 0 || posix_acl_type(names + off) >= 0))
			up->ops->setxattr(up, names + off, value, (size_t)v, 0);
	}
}

/* Make an upper copy of the lower node under upper directory udir. */
static int copy_node(struct inode *udir, const char *name, struct inode *lo, struct inode **out)
{
	const struct creds *c = root_creds();
	struct file *f = NULL;
	int ret;

	switch (lo->mode & S_IFMT) {
	case S_IFDIR:
		ret = udir->ops->mkdir(udir, name, S_IFDIR | (lo->mode & 07777), c, out);
		break;
	case S_IFLNK: {
		char target[VFS_PATH_MAX];
		long n = lo->ops->readlink(lo, target, sizeof(target) - 1);
		if (n < 0)
			return (int)n;
		target[n] = '\0';
		ret = udir->ops->symlink(udir, name, target, c, out);
		break;
	}
	case S_IFREG:
		ret = udir->ops->create(udir, name, S_IFREG | (lo->mode & 07777), c, O_WRONLY, out,
					&f);
		if (f)
			file_put(f);
		if (ret == 0)
			ret = copy_data(lo, *out);
		break;
	default:
		ret = udir->ops->mknod(udir, name, lo->mode, lo->rdev, c, out);
		break;
	}
	if (ret == 0)
		copy_attrs(lo, *out);
	return ret;
}

/* Add delta to the link count of an upper inode that stands for a link
 * group (the upper layer, the overlay's own tmpfs, only reports it). */
static void upper_nlink_add(struct inode *up, int64_t delta)
{
	pthread_mutex_lock(&up->lock);
	up->nlink = (uint64_t)((int64_t)up->nlink + delta);
	pthread_mutex_unlock(&up->lock);
}

/* The new upper copy up of lower file lo becomes lo to the guest: its
 * device and inode number, and the link count of all its names (the
 * ones left in the lower layer are counted in, see the top). */
static void take_identity(struct inode *up, struct inode *lo)
{
	struct kstat st;

	inode_stat(lo, &st);
	pthread_mutex_lock(&up->lock);
	up->dev = st.dev;
	up->ino = st.ino;
	if (linked_lower(lo))
		up->nlink += st.nlink - 1;
	pthread_mutex_unlock(&up->lock);
}

/* Give overlay inode i an upper entry name in the upper directory udir:
 * a link to its group's upper inode, or a copy of the lower file (the
 * group's from now on when the file has other names). Called with
 * copy_lock held. */
static int copy_up_locked(struct ovl_sb *os, struct inode *i, struct inode *udir, const char *name)
{
	struct ovl_inode *oi = OI(i);
	struct inode *lo = oi->lower, *up = NULL;
	uint64_t dev = 0, ino = 0;
	int ret;

	if (oi->upper && !oi->aliased)
		return 0;
	if (linked_lower(lo))
		lower_id(lo, &dev, &ino);
	if (!oi->upper && linked_lower(lo) && (up = ovl_index_find(&os->index, dev, ino))) {
		oi->aliased = true; /* a name of the group went up since real() looked */
		__atomic_store_n(&oi->upper, up, __ATOMIC_RELEASE);
	}
	if (oi->aliased) {
		ret = udir->ops->link(udir, name, oi->upper);
		if (ret)
			return ret;
		upper_nlink_add(oi->upper, -1); /* a pending name became an upper one */
		oi->aliased = false;
		ovl_index_settle(&os->index, dev, ino);
		return 0;
	}
	ret = copy_node(udir, name, lo, &up);
	if (ret)
		return ret;
	take_identity(up, lo);
	if (linked_lower(lo))
		ovl_index_add(&os->index, dev, ino, up, lo->nlink - 1);
	/* The reference goes to the overlay inode. */
	__atomic_store_n(&oi->upper, up, __ATOMIC_RELEASE);
	return 0;
}

/* Copy dentry d's inode (and every ancestor) up. 0 when it has an upper
 * entry of its own. */
static int copy_up(struct dentry *d)
{
	struct inode *i = d->inode;
	struct ovl_sb *os = OSB(i->sb);
	struct dentry *parent;
	int ret;

	join_group(i);
	if (OI(i)->upper && !OI(i)->aliased)
		return 0;
	if (d->parent == d)
		return -EROFS; /* the root always has an upper directory */
	parent = dentry_get_parent(d);
	ret = copy_up(parent);
	if (ret == 0) {
		pthread_mutex_lock(&os->copy_lock);
		ret = copy_up_locked(os, i, OI(parent->inode)->upper, d->name);
		pthread_mutex_unlock(&os->copy_lock);
	}
	dentry_put(parent);
	return ret;
}

/* The upper copy of dir: the VFS had it made (prepare_change) before
 * calling a namespace operation on dir. */
static int dir_upper(struct inode *dir, struct inode **udir)
{
	if (!OI(dir)->upper)
		return -EXDEV;
	*udir = OI(dir)->upper;
	return 0;
}

/* --- merged directory listings -------------------------------------------------- */

struct collect {
	struct dir_emitter e;
	char **names;
	uint64_t *inos;
	uint8_t *types;
	size_t n, cap;
};

static bool collect_one(struct dir_emitter *e, const char *name, size_t len, uint64_t ino,
			unsigned type, int64_t next)
{
	struct collect *c = container_of(e, struct collect, e);

	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->names = xrealloc(c->names, c->cap * sizeof(*c->names));
		c->inos = xrealloc(c->inos, c->cap * sizeof(*c->inos));
		c->types = xrealloc(c->types, c->cap);
	}
	c->names[c->n] = xmalloc(len + 1);
	memcpy(c->names[c->n], name, len);
	c->names[c->n][len] = '\0';
	c->inos[c->n] = ino;
	c->types[c->n] = (uint8_t)type;
	c->n++;
	return true;
}

static int list_real(struct inode *dir, struct collect *c)
{
	struct file *f;
	int ret = dir->ops->open(dir, NULL, O_RDONLY | O_DIRECTORY, &f);

	if (ret)
		return ret;
	do {
		size_t before = c->n;
		ret = f->ops->getdents(f, &c->e);
		if (ret || c->n == before)
			break;
	} while (1);
	file_put(f);
	return ret;
}

static void collect_free(struct collect *c)
{
	for (size_t k = 0; k < c->n; k++)
		free(c->names[k]);
	free(c->names);
	free(c->inos);
	free(c->types);
}

static bool in_list(struct collect *c, size_t upto, const char *name)
{
	for (size_t k = 0; k < upto; k++)
		if (strcmp(c->names[k], name) == 0)
			return true;
	return false;
}

/* --- changing names ---------------------------------------------------------- */

/* Remove a whiteout hiding name in the upper directory (before creating it). */
static bool clear_whiteout(struct inode *udir, const char *name)
{
	struct inode *u = NULL;
	bool was = false;

	if (real_lookup(udir, name, &u) == 0) {
		if (is_whiteout(u)) {
			udir->ops->unlink(udir, name, u);
			was = true;
		}
		inode_put(u);
	}
	return was;
}

/* Does the lower layer under dir have name? */
static bool lower_has(struct inode *dir, const char *name)
{
	struct inode *l = NULL;

	if (OI(dir)->opaque || real_lookup(OI(dir)->lower, name, &l))
		return false;
	inode_put(l);
	return true;
}

static int make_whiteout(struct inode *udir, const char *name)
{
	struct inode *w = NULL;
	int ret = udir->ops->mknod(udir, name, S_IFCHR | 0, 0, root_creds(), &w);

	if (w)
		inode_put(w);
	return ret;
}

static int ovl_create(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
		      int flags, struct inode **out, struct file **file)
{
	struct inode *udir, *u = NULL;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	clear_whiteout(udir, name);
	ret = udir->ops->create(udir, name, mode, c, flags, &u, file);
	if (ret)
		return ret;
	*out = ovl_new(dir->sb, u, NULL, false);
	inode_put(u);
	sync_attrs(dir);
	return 0;
}

/* O_TMPFILE: an unnamed file of the upper layer (Linux's overlayfs has
 * them since 6.6). */
static int ovl_tmpfile(struct inode *dir, uint32_t mode, const struct creds *c, struct inode **out)
{
	struct inode *udir, *u = NULL;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	if (!udir->ops->tmpfile)
		return -EOPNOTSUPP;
	ret = udir->ops->tmpfile(udir, mode, c, &u);
	if (ret)
		return ret;
	*out = ovl_new(dir->sb, u, NULL, false);
	inode_put(u);
	return 0;
}

static int ovl_mkdir(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
		     struct inode **out)
{
	struct inode *udir, *u = NULL;
	bool opaque;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	/* Where a lower directory was deleted, the new one must not show it. */
	opaque = clear_whiteout(udir, name) || lower_has(dir, name);
	ret = udir->ops->mkdir(udir, name, mode, c, &u);
	if (ret)
		return ret;
	if (opaque && u->ops->setxattr)
		u->ops->setxattr(u, OPAQUE_XATTR, "y", 1, 0);
	*out = ovl_new(dir->sb, u, NULL, opaque);
	inode_put(u);
	sync_attrs(dir);
	return 0;
}

static int ovl_mknod(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		     const struct creds *c, struct inode **out)
{
	struct inode *udir, *u = NULL;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	if (S_ISCHR(mode) && rdev == 0)
		return -EPERM; /* that would be a whiteout */
	clear_whiteout(udir, name);
	ret = udir->ops->mknod(udir, name, mode, rdev, c, &u);
	if (ret)
		return ret;
	*out = ovl_new(dir->sb, u, NULL, false);
	inode_put(u);
	return 0;
}

static int ovl_symlink(struct inode *dir, const char *name, const char *target,
		       const struct creds *c, struct inode **out)
{
	struct inode *udir, *u = NULL;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	clear_whiteout(udir, name);
	ret = udir->ops->symlink(udir, name, target, c, &u);
	if (ret)
		return ret;
	*out = ovl_new(dir->sb, u, NULL, false);
	inode_put(u);
	return 0;
}

static int ovl_link(struct inode *dir, const char *name, struct inode *target)
{
	struct inode *udir;
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	if (!OI(target)->upper)
		return -EXDEV; /* the VFS copies the target up first (prepare_change) */
	clear_whiteout(udir, name);
	ret = udir->ops->link(udir, name, OI(target)->upper);
	if (ret == 0)
		sync_attrs(target);
	return ret;
}

static int remove_name(struct inode *dir, const char *name, struct inode *victim, bool isdir)
{
	struct ovl_sb *os = OSB(dir->sb);
	struct inode *udir;
	bool lower = lower_has(dir, name);
	int ret = dir_upper(dir, &udir);

	if (ret)
		return ret;
	if (!isdir && linked_lower(OI(victim)->lower)) {
		/* The group's other names must see one link fewer: the name
		 * goes up first (the group's inode with it), then away. */
		join_group(victim);
		pthread_mutex_lock(&os->copy_lock);
		ret = copy_up_locked(os, victim, udir, name);
		pthread_mutex_unlock(&os->copy_lock);
		if (ret)
			return ret;
	}
	if (OI(victim)->upper) {
		ret = isdir ? udir->ops->rmdir(udir, name, OI(victim)->upper)
			    : udir->ops->unlink(udir, name, OI(victim)->upper);
		if (ret)
			return ret;
	}
	if (lower)
		ret = make_whiteout(udir, name);
	sync_attrs(dir);
	if (OI(victim)->upper)
		sync_attrs(victim); /* one link fewer */
	return ret;
}

static int ovl_unlink(struct inode *dir, const char *name, struct inode *victim)
{
	return remove_name(dir, name, victim, false);
}

/* Emptiness as the merged directory shows it; whiteouts in the upper copy
 * are removed first so that the real rmdir can succeed. */
static int merged_entries(struct inode *dir, char ***names, size_t *n);

/* Remove the whiteouts in an upper directory whose merged view is empty. */
static void drop_whiteouts(struct inode *udir)
{
	struct collect c = {.e.emit = collect_one};

	if (list_real(udir, &c) != 0)
		return;
	for (size_t k = 0; k < c.n; k++) {
		struct inode *w = NULL;
		if (c.types[k] == DT_CHR && real_lookup(udir, c.names[k], &w) == 0 &&
		    is_whiteout(w))
			udir->ops->unlink(udir, c.names[k], w);
		if (w)
			inode_put(w);
	}
	collect_free(&c);
}

static int ovl_rmdir(struct inode *dir, const char *name, struct inode *victim)
{
	char **names;
	size_t n;
	int ret = merged_entries(victim, &names, &n);

	if (ret)
		return ret;
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	if (n)
		return -ENOTEMPTY;
	if (OI(victim)->upper)
		drop_whiteouts(OI(victim)->upper);
	return remove_name(dir, name, victim, true);
}

/* Is the upper entry u, name in dir, a directory the lower layer's
 * directory of that name shows through (a merged one)? */
static bool merged_dir(struct inode *dir, const char *name, struct inode *u)
{
	struct inode *l = NULL;
	bool merged;

	if (!S_ISDIR(u->mode) || OI(dir)->opaque || upper_opaque(u) ||
	    real_lookup(OI(dir)->lower, name, &l))
		return false;
	merged = S_ISDIR(l->mode);
	inode_put(l);
	return merged;
}

/* The upper directory u is about to become name in dir: where the lower
 * layer has a directory of that name, u must hide it (opaque), as
 * overlayfs marks a directory it moves into a merged parent. */
static int hide_lower(struct inode *dir, const char *name, struct inode *u)
{
	struct inode *l = NULL;
	bool lower_dir;

	if (!S_ISDIR(u->mode) || OI(dir)->opaque || upper_opaque(u) ||
	    real_lookup(OI(dir)->lower, name, &l))
		return 0;
	lower_dir = S_ISDIR(l->mode);
	inode_put(l);
	if (!lower_dir)
		return 0;
	return u->ops->setxattr ? u->ops->setxattr(u, OPAQUE_XATTR, "y", 1, 0) : -EXDEV;
}

/* Is name in dir, as the overlay shows it, an empty directory? 0 or -ENOTEMPTY. */
static int merged_empty(struct inode *dir, const char *name)
{
	struct inode *i;
	char **names;
	size_t n = 0;
	int ret = ovl_lookup(dir, name, &i);

	if (ret)
		return ret;
	ret = merged_entries(i, &names, &n);
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	inode_put(i);
	return ret ? ret : n ? -ENOTEMPTY : 0;
}

/*
 * Rename in the upper layer, as overlayfs without redirect_dir does: both
 * names must have upper copies (the VFS copied non-directories up), a
 * directory the lower layer shows through cannot move (EXDEV: mv copies
 * instead), a lower name left behind gets a whiteout, and a directory
 * moved over a lower directory's name becomes opaque. RENAME_EXCHANGE
 * swaps the two upper entries (both names stay, so no whiteouts).
 */
static int ovl_rename(struct inode *olddir, const char *oldname, struct inode *newdir,
		      const char *newname, unsigned flags)
{
	struct inode *uold, *unew, *src = NULL, *dst = NULL;
	bool lower_src = lower_has(olddir, oldname);
	int ret = dir_upper(olddir, &uold);

	if (ret == 0)
		ret = dir_upper(newdir, &unew);
	if (ret)
		return ret;
	if (real_lookup(uold, oldname, &src))
		return -EXDEV; /* not copied up: prepare_change does that */
	if (real_lookup(unew, newname, &dst) == 0 && is_whiteout(dst)) {
		if (flags & RENAME_EXCHANGE) {
			ret = -EXDEV;
			goto out;
		}
		unew->ops->unlink(unew, newname, dst);
		inode_put(dst);
		dst = NULL;
	}
	if (merged_dir(olddir, oldname, src)) {
		ret = -EXDEV; /* a directory with lower contents */
		goto out;
	}
	if (flags & RENAME_EXCHANGE) {
		if (!dst || merged_dir(newdir, newname, dst)) {
			ret = -EXDEV; /* no upper copy, or a directory with lower contents */
			goto out;
		}
		ret = hide_lower(olddir, oldname, dst);
	} else if (S_ISDIR(src->mode)) {
		/* A directory it replaces must be empty as the overlay shows
		 * it; its upper copy may hold whiteouts, which go first. */
		ret = merged_empty(newdir, newname);
		if (ret == -ENOENT)
			ret = 0;
		if (ret == 0 && dst)
			drop_whiteouts(dst);
	}
	if (ret == 0)
		ret = hide_lower(newdir, newname, src);
	if (ret == 0)
		ret = uold->ops->rename(uold, oldname, unew, newname, flags);
	if (ret == 0 && lower_src && !(flags & RENAME_EXCHANGE))
		ret = make_whiteout(uold, oldname);
	sync_attrs(olddir);
	if (newdir != olddir)
		sync_attrs(newdir);
out:
	if (src)
		inode_put(src);
	if (dst)
		inode_put(dst);
	return ret;
}

static long ovl_readlink(struct inode *i, char *buf, size_t size)
{
	struct inode *r = real(i);

	return r->ops->readlink ? r->ops->readlink(r, buf, size) : -EINVAL;
}

static int ovl_setattr(struct inode *i, const struct iattr *a)
{
	int ret;

	if (!OI(i)->upper)
		return -EXDEV; /* copied up by prepare_change */
	ret = OI(i)->upper->ops->setattr(OI(i)->upper, a);
	sync_attrs(i);
	return ret;
}

static long ovl_getxattr(struct inode *i, const char *name, void *buf, size_t size)
{
	struct inode *r = real(i);

	if (strncmp(name, "trusted.overlay.", 16) == 0)
		return -ENODATA; /* the overlay's own bookkeeping */
	if (posix_acl_type(name) >= 0 && !r->sb->posix_acl)
		return -ENODATA; /* (asked at every permission check) */
	return r->ops->getxattr ? r->ops->getxattr(r, name, buf, size) : -EOPNOTSUPP;
}

static int ovl_setxattr(struct inode *i, const char *name, const void *v, size_t size, int flags)
{
	struct inode *u = OI(i)->upper;

	if (strncmp(name, "trusted.overlay.", 16) == 0)
		return -EPERM;
	if (!u)
		return -EXDEV;
	return u->ops->setxattr ? u->ops->setxattr(u, name, v, size, flags) : -EOPNOTSUPP;
}

static long ovl_listxattr(struct inode *i, char *buf, size_t size)
{
	struct inode *r = real(i);

	return r->ops->listxattr ? r->ops->listxattr(r, buf, size) : 0;
}

static int ovl_removexattr(struct inode *i, const char *name)
{
	struct inode *u = OI(i)->upper;

	if (!u)
		return -EXDEV;
	return u->ops->removexattr ? u->ops->removexattr(u, name) : -EOPNOTSUPP;
}

static int ovl_open(struct inode *i, struct dentry *d, int flags, struct file **out)
{
	struct inode *r;
	struct file *f;
	int ret;

	if (S_ISDIR(i->mode)) {
		f = file_alloc(&ovl_dir_ops, flags, NULL);
		f->fmode = FMODE_ATPOS | FMODE_PREAD;
		f->inode = inode_get(i);
		*out = f;
		return 0;
	}
	if (flags_writable(flags) || (flags & O_TRUNC)) {
		if (!d)
			return -EROFS;
		ret = copy_up(d);
		if (ret)
			return ret;
	}
	r = real(i);
	/* The real layer's file: data goes straight to it. */
	ret = r->ops->open(r, NULL, flags, out);
	if (ret == 0 && !(*out)->inode)
		(*out)->inode = inode_get(r);
	return ret;
}

static void ovl_evict(struct inode *i)
{
	struct ovl_inode *oi = OI(i);

	if (oi->upper)
		inode_put(oi->upper);
	if (oi->lower)
		inode_put(oi->lower);
	free(oi);
}

/* The VFS is about to change d or names in it: give it an upper copy. */
static int ovl_prepare_change(struct dentry *d)
{
	return copy_up(d);
}

static const struct inode_ops ovl_inode_ops = {
	.prepare_change = ovl_prepare_change,
	.lookup = ovl_lookup,
	.create = ovl_create,
	.tmpfile = ovl_tmpfile,
	.mkdir = ovl_mkdir,
	.mknod = ovl_mknod,
	.symlink = ovl_symlink,
	.link = ovl_link,
	.unlink = ovl_unlink,
	.rmdir = ovl_rmdir,
	.rename = ovl_rename,
	.readlink = ovl_readlink,
	.getattr = ovl_getattr,
	.setattr = ovl_setattr,
	.open = ovl_open,
	.getxattr = ovl_getxattr,
	.setxattr = ovl_setxattr,
	.listxattr = ovl_listxattr,
	.removexattr = ovl_removexattr,
	.evict = ovl_evict,
};

/* Upper entries (whiteouts removed) then lower ones not hidden. */
static int merge(struct inode *dir, struct collect *out)
{
	struct ovl_inode *od = OI(dir);
	struct collect up = {.e.emit = collect_one}, lo = {.e.emit = collect_one};
	int ret = 0;

	*out = (struct collect){.e.emit = collect_one};
	if (od->upper)
		ret = list_real(od->upper, &up);
	if (ret == 0 && od->lower && !od->opaque)
		ret = list_real(od->lower, &lo);
	for (size_t k = 0; k < up.n; k++) {
		struct inode *u = NULL;
		bool wo = up.types[k] == DT_CHR && real_lookup(od->upper, up.names[k], &u) == 0 &&
			  is_whiteout(u);
		if (u)
			inode_put(u);
		if (!wo)
			collect_one(&out->e, up.names[k], strlen(up.names[k]), up.inos[k],
				    up.types[k], 0);
	}
	for (size_t k = 0; k < lo.n; k++)
		if (!in_list(&up, up.n, lo.names[k]))
			collect_one(&out->e, lo.names[k], strlen(lo.names[k]), lo.inos[k],
				    lo.types[k], 0);
	for (size_t k = 0; k < up.n; k++)
		free(up.names[k]);
	for (size_t k = 0; k < lo.n; k++)
		free(lo.names[k]);
	free(up.names);
	free(up.inos);
	free(up.types);
	free(lo.names);
	free(lo.inos);
	free(lo.types);
	return ret;
}

static int merged_entries(struct inode *dir, char ***names, size_t *n)
{
	struct collect c;
	int ret = merge(dir, &c);

	*names = c.names;
	*n = c.n;
	free(c.inos);
	free(c.types);
	return ret;
}

static int ovl_getdents(struct file *f, struct dir_emitter *e)
{
	struct collect *c = f->priv;
	struct inode *dir = f->inode;
	int ret;

	/* The listing is taken when the walk starts (and again after a rewind). */
	if (f->pos == 0 && c) {
		collect_free(c);
		free(c);
		f->priv = c = NULL;
	}
	if (!c) {
		c = xmalloc(sizeof(*c));
		ret = merge(dir, c);
		if (ret) {
			free(c);
			return ret;
		}
		f->priv = c;
	}
	if (f->pos == 0) {
		if (!e->emit(e, ".", 1, dir->ino, DT_DIR, 1))
			return 0;
		f->pos = 1;
	}
	if (f->pos == 1) {
		struct dentry *p = f->path.dentry ? dentry_get_parent(f->path.dentry) : NULL;
		uint64_t ino = p && p->inode ? p->inode->ino : dir->ino;
		if (p)
			dentry_put(p);
		if (!e->emit(e, "..", 2, ino, DT_DIR, 2))
			return 0;
		f->pos = 2;
	}
	while ((size_t)f->pos - 2 < c->n) {
		size_t k = (size_t)f->pos - 2;
		if (!e->emit(e, c->names[k], strlen(c->names[k]), c->inos[k], c->types[k],
			     f->pos + 1))
			return 0;
		f->pos++;
	}
	return 0;
}

static int64_t ovl_dir_llseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_SET && off >= 0)
		return off;
	if (whence == SEEK_CUR && f->pos + off >= 0)
		return f->pos + off;
	return -EINVAL;
}

static int ovl_dir_fstat(struct file *f, struct kstat *st)
{
	sync_attrs(f->inode);
	inode_stat(f->inode, st);
	return 0;
}

static void ovl_dir_release(struct file *f)
{
	if (f->priv) {
		collect_free(f->priv);
		free(f->priv);
	}
}

static int ovl_dir_fsync(struct file *f, bool datasync)
{
	return 0;
}

static const struct file_ops ovl_dir_ops = {
	.getdents = ovl_getdents,
	.llseek = ovl_dir_llseek,
	.fstat = ovl_dir_fstat,
	.fsync = ovl_dir_fsync,
	.release = ovl_dir_release,
};

static int ovl_statfs(struct super_block *sb, struct statfs_info *out)
{
	struct super_block *u = OSB(sb)->upper_sb;

	return u->ops && u->ops->statfs ? u->ops->statfs(u, out) : 0;
}

static void ovl_release_sb(struct super_block *sb)
{
	struct ovl_sb *os = OSB(sb);

	ovl_index_destroy(&os->index); /* references on upper inodes */
	sb_put(os->upper_sb);
	sb_put(os->lower_sb);
	pthread_mutex_destroy(&os->copy_lock);
	free(os);
}

static const struct super_ops ovl_super_ops = {
	.statfs = ovl_statfs,
	.release = ovl_release_sb,
};

struct super_block *overlay_new(struct super_block *upper, struct super_block *lower)
{
	return overlay_new_at(upper->root->inode, lower->root->inode);
}

struct super_block *overlay_new_at(struct inode *upper_dir, struct inode *lower_dir)
{
	struct super_block *sb = sb_new(&ovl_super_ops, "overlay", OVERLAYFS_SUPER_MAGIC);
	struct ovl_sb *os = xzalloc(sizeof(*os));
	struct inode *root;

	os->upper_sb = sb_get(upper_dir->sb);
	os->lower_sb = sb_get(lower_dir->sb);
	sb->posix_acl = true; /* the real layers' (a lower one without: none) */
	pthread_mutex_init(&os->copy_lock, NULL);
	ovl_index_init(&os->index);
	sb->priv = os;
	root = ovl_new(sb, upper_dir, lower_dir, false);
	sb->root = dentry_make_root(sb, root);
	inode_put(root);
	return sb;
}
