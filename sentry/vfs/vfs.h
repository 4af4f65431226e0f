/*
 * The sentry's virtual filesystem: inodes, dentries, mounts, path
 * resolution and the operations every filesystem implements.
 *
 * Objects and ownership (all reference counted with _get/_put):
 *  - struct super_block: one mounted filesystem instance;
 *  - struct inode: one file; owned by its filesystem, pinned by dentries
 *    and open files;
 *  - struct dentry: a name in a directory, positive (an inode) or negative
 *    (a cached "does not exist"). A dentry holds a reference on its parent;
 *    a parent's child table holds none, so unused dentries stay cached until
 *    pruned;
 *  - struct mount: a filesystem attached at a dentry of its parent mount;
 *  - struct path: (mount, dentry), the position of a file in the tree.
 *
 * Locking: dcache_lock (one mutex) protects every child table, parent
 * pointer and zero/non-zero reference transition of dentries; a
 * directory's inode->dir_lock serialises the namespace operations
 * (lookup-and-fill, create, unlink, rename) in that directory, and is held
 * across calls into the filesystem, which may block (the gofer); rename
 * additionally takes the superblock's rename_lock. mount_lock protects the
 * mount tree. Lock order: rename_lock, dir_lock (parent before child, else
 * by address), dcache_lock / mount_lock, inode->lock.
 *
 * Kernel paths return -errno.
 */
#ifndef RUNG_VFS_H
#define RUNG_VFS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "lib/list.h"
#include "lib/rbtree.h"

struct creds;
struct file;
struct file_ops;
struct inode;
struct dentry;
struct mount;
struct super_block;
struct task;
struct pipe;
struct inode_locks;
struct inotify_marks;
struct path;
struct waitq;

/* Linux's limits. */
#define VFS_MAXSYMLINKS 40
#define VFS_NAME_MAX	255
#define VFS_PATH_MAX	4096

/* Permission masks (as Linux's MAY_*). */
#define MAY_EXEC   0x01
#define MAY_WRITE  0x02
#define MAY_READ   0x04
#define MAY_APPEND 0x08
#define MAY_ACCESS 0x10
#define MAY_OPEN   0x20

/* The attributes of a file, as stat/statx report them. */
struct kstat {
	uint64_t ino;
	uint64_t dev;
	uint32_t mode;
	uint32_t uid, gid;
	uint64_t nlink;
	uint64_t rdev;
	uint64_t size;
	uint64_t blocks; /* 512-byte units */
	uint32_t blksize;
	struct timespec atime, mtime, ctime, btime;
};

/* A change of attributes (chmod, chown, truncate, utimes): what is in valid. */
#define ATTR_MODE      0x001
#define ATTR_UID       0x002
#define ATTR_GID       0x004
#define ATTR_SIZE      0x008
#define ATTR_ATIME     0x010
#define ATTR_MTIME     0x020
#define ATTR_CTIME     0x040
#define ATTR_ATIME_NOW 0x080 /* with ATTR_ATIME: the current time */
#define ATTR_MTIME_NOW 0x100 /* with ATTR_MTIME: the current time */

struct iattr {
	unsigned valid;
	uint32_t mode;
	uint32_t uid, gid;
	uint64_t size;
	struct timespec atime, mtime;
};

/* What a filesystem does with names in a directory and with its inodes. */
struct inode_ops {
	/* The VFS is about to change d (its attributes, data, or names in it):
	 * a layered filesystem copies it up now. May be NULL. */
	int (*prepare_change)(struct dentry *d);
	/* Find name in dir: *out gets a new reference, or -ENOENT. */
	int (*lookup)(struct inode *dir, const char *name, struct inode **out);
	/* Create a regular file and open it with flags (O_* access mode etc.). */
	int (*create)(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
		      int flags, struct inode **out, struct file **file);
	/* O_TMPFILE: a regular file in dir's filesystem with no name (nlink 0). */
	int (*tmpfile)(struct inode *dir, uint32_t mode, const struct creds *c, struct inode **out);
	int (*mkdir)(struct inode *dir, const char *name, uint32_t mode, const struct creds *c,
		     struct inode **out);
	int (*mknod)(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		     const struct creds *c, struct inode **out);
	int (*symlink)(struct inode *dir, const char *name, const char *target,
		       const struct creds *c, struct inode **out);
	int (*link)(struct inode *dir, const char *name, struct inode *target);
	int (*unlink)(struct inode *dir, const char *name, struct inode *victim);
	int (*rmdir)(struct inode *dir, const char *name, struct inode *victim);
	/* flags: RENAME_NOREPLACE / RENAME_EXCHANGE (the VFS checked the rules). */
	int (*rename)(struct inode *olddir, const char *oldname, struct inode *newdir,
		      const char *newname, unsigned flags);
	/* The target of a symlink: its length, copied into buf (truncated). */
	long (*readlink)(struct inode *inode, char *buf, size_t size);
	/* A "magic" link (/proc/pid/fd/N, exe, cwd, root): following it goes to
	 * the file itself, not to a path string. *out gets references. */
	int (*get_link)(struct inode *inode, struct task *t, struct path *out);
	/* Refresh inode's cached attributes (shared filesystems); may be NULL. */
	int (*getattr)(struct inode *inode);
	int (*setattr)(struct inode *inode, const struct iattr *attr);
	/* Open inode with flags: a new file description in *out. */
	int (*open)(struct inode *inode, struct dentry *dentry, int flags, struct file **out);
	long (*getxattr)(struct inode *inode, const char *name, void *buf, size_t size);
	int (*setxattr)(struct inode *inode, const char *name, const void *value, size_t size,
			int flags);
	long (*listxattr)(struct inode *inode, char *buf, size_t size);
	int (*removexattr)(struct inode *inode, const char *name);
	/* Free the filesystem's part of the inode. */
	void (*evict)(struct inode *inode);
};

struct inode {
	int refs;
	struct super_block *sb;
	const struct inode_ops *ops;
	pthread_mutex_t lock;	  /* attributes */
	pthread_mutex_t dir_lock; /* namespace operations in this directory */
	uint64_t ino;
	uint64_t dev; /* st_dev when it is not the superblock's (0) */
	uint32_t mode;
	uint32_t uid, gid;
	uint64_t nlink;
	uint64_t rdev;
	uint64_t size;
	uint64_t blocks;
	struct timespec atime, mtime, ctime;
	unsigned flags;		   /* I_*, changed atomically */
	void *priv;		   /* the filesystem's */
	struct pipe *pipe;	   /* a fifo's pipe, once opened */
	struct inode_locks *locks; /* advisory locks, once used */
	struct rb_node hash_node;  /* in sb->inodes, when the fs keys them */
	uint64_t hash_key;
	struct inotify_marks *inotify; /* watches on it (sentry/fs/inotify.c), or NULL */
	unsigned nopen;		       /* open files that report their close (fsnotify.h) */
	int mmap_writable;	       /* shared mappings of it through writable files (atomic) */
	int mmapped;		       /* VMAs that map it (atomic): a shrink must reach them */
};

/* inode->flags */
#define I_DEAD	   0x1 /* a removed directory: nothing can be found or made in it */
#define I_LINKABLE 0x2 /* an O_TMPFILE file (no O_EXCL): linkat may give it a name */

static inline bool inode_has(const struct inode *i, unsigned flag)
{
	return __atomic_load_n(&i->flags, __ATOMIC_ACQUIRE) & flag;
}

static inline void inode_set(struct inode *i, unsigned flag)
{
	__atomic_or_fetch(&i->flags, flag, __ATOMIC_RELEASE);
}

static inline void inode_clear(struct inode *i, unsigned flag)
{
	__atomic_and_fetch(&i->flags, ~flag, __ATOMIC_RELEASE);
}

struct statfs_info {
	uint64_t type, bsize, blocks, bfree, bavail, files, ffree, namelen, frsize, flags;
};

struct super_ops {
	int (*statfs)(struct super_block *sb, struct statfs_info *out);
	/* Is a cached dentry still right? 0 yes, -ESTALE no (look it up again). */
	int (*revalidate)(struct dentry *d);
	void (*release)(struct super_block *sb);
};

struct super_block {
	int refs;
	const struct super_ops *ops;
	const char *fstype; /* "tmpfs", "proc" ... for /proc/mounts */
	uint64_t dev;	    /* st_dev of every inode here */
	uint64_t magic;	    /* statfs f_type */
	bool cached;	    /* dentries may be cached without revalidation */
	bool posix_acl;	    /* keeps POSIX ACLs (sentry/vfs/posix_acl.h) */
	pthread_mutex_t rename_lock;
	pthread_mutex_t inodes_lock;
	struct rb_root inodes; /* by hash_key, for filesystems that dedupe inodes */
	struct dentry *root;
	void *priv;
};

struct dentry {
	int refs;
	char *name;
	struct dentry *parent; /* holds a reference; the root points at itself */
	struct inode *inode;   /* NULL: negative */
	struct super_block *sb;
	struct rb_root children; /* by name, under dcache_lock */
	struct rb_node node;	 /* in parent->children */
	struct list_head lru;	 /* unused dentries, oldest first */
	unsigned nmounts;	 /* mounts on top of this dentry */
	bool hashed;		 /* in its parent's children */
	bool deleted;		 /* unlinked: never found by lookup again */
};

#define MNT_RDONLY 0x01
#define MNT_NOEXEC 0x02
#define MNT_NOSUID 0x04
#define MNT_NODEV  0x08
/* Not in any namespace: the home of anonymous files (pipes, memfds), so
 * that /proc/self/fd can reopen them. Paths through it name no place. */
#define MNT_INTERNAL	0x10
#define MNT_NOATIME	0x20
#define MNT_NODIRATIME	0x40
#define MNT_RELATIME	0x80
#define MNT_STRICTATIME 0x100
#define MNT_NOSYMFOLLOW 0x200
/* Cannot be bound elsewhere (MS_UNBINDABLE); the other propagation types
 * are struct mount's group and master (sentry/vfs/propagation.h). */
#define MNT_UNBINDABLE 0x4000
#define MNT_LOCKED     0x8000 /* in mount->locked only */
#define MNT_LOCKABLE                                                                       \
	(MNT_RDONLY | MNT_NOEXEC | MNT_NOSUID | MNT_NODEV | MNT_NOATIME | MNT_NODIRATIME | \
	 MNT_RELATIME | MNT_STRICTATIME)

struct mount {
	int refs;
	struct mount *parent; /* NULL for the namespace root */
	struct dentry *mountpoint;
	struct dentry *root;
	struct super_block *sb;
	unsigned flags;
	unsigned id;
	char *source;		  /* for /proc/mounts */
	struct mnt_namespace *ns; /* NULL once detached (umount) */
	struct mount *copy;	  /* mount_copy_tree's work: this mount's copy (mount_lock) */
	/* Propagation (sentry/vfs/propagation.c), under mount_lock. */
	unsigned group;		 /* its peer group's id when shared, else 0 */
	struct list_head peers;	 /* the ring of its peer group */
	struct mount *master;	 /* a slave: the mount whose events it receives */
	struct list_head slaves; /* the mounts whose master it is */
	struct list_head slave;	 /* in master->slaves */
	unsigned walk, seen;	 /* propagation.c's marks */
	bool umounting;		 /* in the unmount being done */
	/* Unmounted submounts that still hold a reference on it (so that
	 * their ".." reads): not counted when it is checked for being busy. */
	int gone_children;
	bool gone_from_parent; /* counted in its parent's gone_children */
	bool connected;	       /* unmounted, but kept on its unmounted parent */
	char *opts;	       /* the filesystem's options for /proc/mounts (",size=4k"), or NULL */
	/* Copied into a namespace of a less privileged user namespace: these
	 * MNT_ flags cannot be cleared, and (MNT_LOCKED) it cannot be
	 * unmounted on its own to show what it covers (Linux's MNT_LOCK_*). */
	unsigned locked;
	struct list_head children;
	struct list_head sibling;
	struct list_head all; /* in the namespace's list */
};

struct path {
	struct mount *mnt;
	struct dentry *dentry;
};

/* The mount tree of a sandbox. */
struct mnt_namespace {
	int refs;
	struct mount *root;
	struct list_head mounts;
	uint64_t ino; /* the id /proc/PID/ns/mnt shows */
	void *owner;  /* the user namespace that owns it (sentry/kernel/nsproxy.h) */
	unsigned nr_mounts;
	unsigned pending; /* mounts an operation is about to add (mount_count_add) */
	unsigned event;	  /* changes so far (a poll of /proc/PID/mounts sees them) */
	/* A detached tree (open_tree's clone, fsmount's mount), held by one
	 * file until move_mount grafts it into a task's namespace; no owner. */
	bool anon;
};

/* A task's filesystem context (shared by CLONE_FS). */
struct fs_struct {
	int refs;
	pthread_mutex_t lock;
	struct path root, cwd;
	uint32_t umask;
};

/* --- objects ---------------------------------------------------------------- */

void vfs_init(void);
struct inode *inode_new(struct super_block *sb, const struct inode_ops *ops, uint32_t mode);
struct inode *inode_get(struct inode *i);
void inode_put(struct inode *i);
void inode_stat(struct inode *i, struct kstat *st);
/* Touch times with the current time (which: ATTR_ATIME|ATTR_MTIME|ATTR_CTIME). */
void inode_touch(struct inode *i, unsigned which);
/* A superblock's inode by key (reference taken), or NULL; insert a new one. */
struct inode *sb_find_inode(struct super_block *sb, uint64_t key);
struct inode *sb_insert_inode(struct super_block *sb, struct inode *i, uint64_t key);
void sb_forget_inode(struct inode *i);

struct super_block *sb_new(const struct super_ops *ops, const char *fstype, uint64_t magic);
struct super_block *sb_get(struct super_block *sb);
void sb_put(struct super_block *sb);
/* A fresh device number for a new superblock (st_dev). */
uint64_t vfs_new_dev(void);

struct dentry *dentry_get(struct dentry *d);
void dentry_put(struct dentry *d);
/* The root dentry of a new superblock, holding root inode (reference taken). */
struct dentry *dentry_make_root(struct super_block *sb, struct inode *root);
/* The cached child name of dir (reference taken), or NULL. */
struct dentry *dentry_lookup_cached(struct dentry *dir, const char *name);
/* Insert a child of dir with inode (NULL: negative); replaces a cached one. */
struct dentry *dentry_add(struct dentry *dir, const char *name, struct inode *inode);
/* A dentry for inode under dir that no lookup finds (deleted from the
 * start): the name of an anonymous or O_TMPFILE file. Reference returned. */
struct dentry *dentry_alloc_anon(struct dentry *dir, const char *name, struct inode *inode);
/* Make d negative / deleted (after unlink or rmdir). */
void dentry_delete(struct dentry *d);
/* Move d under newdir as newname (after rename); drops a dentry it replaces. */
void dentry_move(struct dentry *d, struct dentry *newdir, const char *newname);
/* d's parent with a reference (d itself for a root). */
struct dentry *dentry_get_parent(struct dentry *d);
/* The same, with d's name at that moment copied to name (a rename may
 * change it as soon as the call returns). */
struct dentry *dentry_get_parent_name(struct dentry *d, char name[VFS_NAME_MAX + 1]);
/* Drop unused cached dentries beyond the cache's size. */
void dcache_prune(void);
/* Drop every unused cached dentry (a filesystem short of what its
 * dentries hold); returns how many went. */
unsigned long dcache_shrink(void);
/* Keep at most max unused dentries from now on (the smallest limit any
 * caller asked for wins). */
void dcache_limit(unsigned long max);
/* The path of d from the root of its filesystem, into buf; returns its length. */
long dentry_path(struct dentry *d, char *buf, size_t size);
/* Prepend "/name" components of d and its ancestors to buf (ending at *pos)
 * until stop or a filesystem root. Returns 1 if it reached stop, 0 if a root,
 * or -ENAMETOOLONG. */
int dentry_prepend_path(struct dentry *d, struct dentry *stop, char *buf, size_t *pos);

static inline void path_get(const struct path *p)
{
	extern struct mount *mount_get(struct mount * m);
	if (p->mnt)
		mount_get(p->mnt);
	if (p->dentry)
		dentry_get(p->dentry);
}
void path_put(struct path *p);
static inline bool path_equal(const struct path *a, const struct path *b)
{
	return a->mnt == b->mnt && a->dentry == b->dentry;
}

/* --- mounts ----------------------------------------------------------------- */

/* The most mounts a namespace may hold (/proc/sys/fs/mount-max). */
extern unsigned vfs_mount_max;

struct mount *mount_get(struct mount *m);
void mount_put(struct mount *m);
/* A namespace whose root is sb's root. */
struct mnt_namespace *mntns_new(struct super_block *sb, unsigned flags, const char *source);
/* Attach sb at path (a directory, or a non-directory when sb's root is one) with flags. */
int mount_attach(struct mnt_namespace *ns, const struct path *at, struct super_block *sb,
		 unsigned flags, const char *source);
/* Attach the subtree at root (a dentry of a mounted filesystem: a bind
 * mount) at path; a directory goes on a directory, a non-directory on a
 * non-directory (else -ENOTDIR / -EISDIR). */
int mount_attach_root(struct mnt_namespace *ns, const struct path *at, struct dentry *root,
		      unsigned flags, const char *source);
/* A mount of sb in no namespace (MNT_INTERNAL); the reference is the caller's. */
struct mount *mount_internal(struct super_block *sb);
/* The mount on top of (mnt, dentry), with a reference, or NULL. */
struct mount *mount_lookup(struct mount *mnt, struct dentry *dentry);
/* Write the full path of p as seen from root into buf; returns the length or -errno. */
long path_to_string(const struct path *p, const struct path *root, char *buf, size_t size);
/* The count of ns's changes, and the queue woken at each (any namespace's). */
unsigned mntns_event(struct mnt_namespace *ns);
struct waitq *mntns_waitq(void);
/* m's flags changed (a remount): its namespace's readers learn of it. */
void mount_touch(struct mount *m);
/* Call fn for each mount (for /proc/mounts), each held by a reference. */
void mntns_for_each(struct mnt_namespace *ns, void (*fn)(struct mount *m, void *arg), void *arg);

/* Mount namespaces of guests (unshare, clone, setns). */
struct mnt_namespace *mntns_get(struct mnt_namespace *ns);
/* The root of ns's tree (what setns gives as root and cwd), with references. */
void mntns_root(struct mnt_namespace *ns, struct path *out);
void mntns_put(struct mnt_namespace *ns);
/* A copy of ns's tree (CLONE_NEWNS); each of the n paths (a root, a cwd)
 * is moved to the copy's mount that corresponds to its own. lock: the new
 * namespace belongs to a less privileged user namespace (mount->locked). */
struct mnt_namespace *mntns_copy(struct mnt_namespace *ns, struct path **paths, size_t n,
				 bool lock);
/* Is m the root of a mount (p->dentry == m->root) in ns? */
bool mount_in_ns(const struct mount *m, const struct mnt_namespace *ns);
/* A new mount of sb at path, with the filesystem's options for /proc/mounts
 * (",size=4k"; may be NULL). */
int mount_attach_fs(struct mnt_namespace *ns, const struct path *at, struct super_block *sb,
		    unsigned flags, const char *source, const char *opts);
/* Bind the subtree at from (recursive: with its submounts) onto at, in ns. */
int mount_bind(struct mnt_namespace *ns, const struct path *at, const struct path *from, bool rec);
/* umount2: detach m (a mount root in ns) and everything under it; busy
 * (without lazy) when it has submounts. */
int mount_umount(struct mnt_namespace *ns, struct mount *m, bool lazy);
/* pivot_root: new_root (a mount root in ns) takes the place of the mount
 * at root (the caller's root), which goes on put_old; Linux's checks and
 * errors. */
int mount_pivot(struct mnt_namespace *ns, const struct path *new_root, const struct path *put_old,
		const struct path *root);
/* MS_MOVE: move m (a mount root) onto at. */
int mount_move(struct mnt_namespace *ns, struct mount *m, const struct path *at);
/* mount(2)'s propagation type (MS_SHARED, MS_SLAVE, MS_PRIVATE or
 * MS_UNBINDABLE) on m, or on its subtree. */
void mount_set_propagation(struct mount *m, unsigned long ms_type, bool rec);
bool mount_is_shared(struct mount *m);
/* MOVE_MOUNT_SET_GROUP: the private mount root to joins the peer group
 * and master of the mount root from (one filesystem; Linux's checks). */
int mount_set_group(const struct path *from, const struct path *to);
/* mountinfo's optional fields of m (" shared:N master:N ..."), seen from root. */
void mount_propagation_text(struct mount *m, const struct path *root, char *buf, size_t size);
/* mount_setattr: set and clear MNT_ flags on m (or its subtree); -EPERM,
 * and nothing changed, where a locked flag would be cleared. */
int mount_change_flags(struct mount *m, unsigned set, unsigned clr, bool rec);

/* Detached trees (the fd mount API): an anonymous namespace owned by a
 * file. One of sb's root, or a private copy of the subtree at from (with
 * its submounts if rec; -EINVAL for an unbindable mount). */
struct mnt_namespace *mntns_anon_new(struct super_block *sb, unsigned flags, const char *source);
struct mnt_namespace *mntns_anon_clone(const struct path *from, bool rec, int *err);
/* Is m in a detached tree? */
bool mount_is_detached(const struct mount *m);
/* Move every mount of the detached tree anon into ns, its root onto at;
 * anon is left empty. -EINVAL if anon was grafted already. */
int mount_graft(struct mnt_namespace *ns, struct mnt_namespace *anon, const struct path *at);
/* Is d at or under ancestor (in one filesystem)? */
bool dentry_is_under(struct dentry *d, struct dentry *ancestor);
/* Is p under (or at) the subtree of the mount root r? */
bool mount_path_under(const struct path *p, const struct path *r);

/* --- path resolution --------------------------------------------------------- */

/* Lookup flags. */
#define LOOKUP_FOLLOW	     0x0001 /* follow a symlink in the last component */
#define LOOKUP_DIRECTORY     0x0002 /* the result must be a directory */
#define LOOKUP_EMPTY	     0x0004 /* "" means the dirfd itself (AT_EMPTY_PATH) */
#define LOOKUP_NO_SYMLINKS   0x0008 /* no symlink anywhere (openat2 RESOLVE_NO_SYMLINKS) */
#define LOOKUP_BENEATH	     0x0010 /* never leave the starting directory (RESOLVE_BENEATH) */
#define LOOKUP_IN_ROOT	     0x0020 /* treat the start as the root (RESOLVE_IN_ROOT) */
#define LOOKUP_NO_XDEV	     0x0040 /* never cross a mount (RESOLVE_NO_XDEV) */
#define LOOKUP_NO_MAGICLINKS 0x0080

/*
 * Resolve path relative to dirfd (AT_FDCWD: the cwd) for task t. *out is a
 * positive path with references. Errors as Linux: ENOENT, ENOTDIR, ELOOP,
 * EACCES (search permission), ENAMETOOLONG, EFAULT is the caller's.
 */
int vfs_lookup(struct task *t, int dirfd, const char *path, unsigned flags, struct path *out);

/*
 * Resolve everything but the last component: *parent is the directory
 * (referenced) and *last points into a buffer owned by the caller's nd (the
 * last name, "" when path ends in "/" or is "/", "." or ".."). last_type says
 * which. Trailing slashes are reported in *trailing_slash.
 */
enum last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };
struct parent_lookup {
	struct path parent;
	char last[VFS_NAME_MAX + 1];
	enum last_type type;
	bool trailing_slash;
};
int vfs_lookup_parent(struct task *t, int dirfd, const char *path, unsigned flags,
		      struct parent_lookup *out);
/* The same, starting from the directory from (when not NULL) instead of dirfd. */
int vfs_lookup_parent_from(struct task *t, int dirfd, const struct path *from, const char *path,
			   unsigned flags, struct parent_lookup *out);
/* Find (or cache as negative) name in the directory path dir; reference taken. */
int vfs_lookup_child(struct task *t, const struct path *dir, const char *name, struct dentry **out);
/* The same with dir's inode->dir_lock already held. */
int vfs_lookup_child_locked(const struct path *dir, const char *name, struct dentry **out);

static inline int vfs_prepare_change(struct dentry *d)
{
	return d && d->inode && d->inode->ops && d->inode->ops->prepare_change
		       ? d->inode->ops->prepare_change(d)
		       : 0;
}

/* --- permission -------------------------------------------------------------- */

int inode_permission(const struct creds *c, struct inode *inode, int mask);
bool inode_owner_or_capable(const struct creds *c, struct inode *inode);
/* May c delete (unlink/rmdir/rename away) victim from dir (sticky bit rules)? */
int may_delete(const struct creds *c, struct inode *dir, struct inode *victim, bool isdir);

/* --- operations used by the syscalls (sentry/vfs/ops.c) ----------------------- */

/* Open with the semantics of openat2 (flags O_*, mode for O_CREAT, resolve LOOKUP_*). */
int vfs_open(struct task *t, int dirfd, const char *path, int flags, uint32_t mode,
	     unsigned resolve, struct file **out);
/* Open an already resolved path (exec, /proc/self/fd reopen). */
int vfs_open_path(struct task *t, const struct path *p, int flags, struct file **out);
int vfs_mkdir(struct task *t, int dirfd, const char *path, uint32_t mode);
int vfs_mknod(struct task *t, int dirfd, const char *path, uint32_t mode, uint64_t dev);
/* mknod of a socket or fifo whose new path (references taken) goes to *out: unix bind. */
int vfs_mknod_path(struct task *t, int dirfd, const char *path, uint32_t mode, struct path *out);
int vfs_symlink(struct task *t, const char *target, int dirfd, const char *path);
int vfs_link(struct task *t, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	     int flags);
int vfs_unlink(struct task *t, int dirfd, const char *path, bool rmdir);
int vfs_rename(struct task *t, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	       unsigned flags);
long vfs_readlink(struct task *t, int dirfd, const char *path, char *buf, size_t size);
int vfs_stat(struct task *t, int dirfd, const char *path, unsigned flags, struct kstat *st);
int vfs_setattr(struct task *t, struct path *p, struct iattr *attr);
int vfs_access(struct task *t, int dirfd, const char *path, int mode, int flags);
int vfs_statfs(struct path *p, struct statfs_info *out);
/* chdir/chroot targets: must be searchable directories. */
int vfs_chdir(struct task *t, const struct path *p);

/* The task's fs_struct helpers. */
struct fs_struct *fs_struct_new(const struct path *root, const struct path *cwd);
struct fs_struct *fs_struct_get(struct fs_struct *fs);
void fs_struct_put(struct fs_struct *fs);
void fs_get_root(struct fs_struct *fs, struct path *out);
void fs_get_cwd(struct fs_struct *fs, struct path *out);
void fs_set_cwd(struct fs_struct *fs, const struct path *p);
void fs_set_root(struct fs_struct *fs, const struct path *p);

#endif
