/*
 * The file-descriptor mount API (Linux 5.2): fsopen, fsconfig, fsmount,
 * fspick, open_tree, move_mount and mount_setattr, on the mount tree of
 * sentry/vfs/mount.c. A filesystem context is a file that gathers a type's
 * parameters until FSCONFIG_CMD_CREATE makes the superblock; fsmount and
 * open_tree(OPEN_TREE_CLONE) hand back a detached tree (an anonymous
 * namespace owned by an O_PATH file) that move_mount grafts into the
 * caller's namespace. Checks and errors are fs/fsopen.c's and
 * fs/namespace.c's. The filesystems are mount(2)'s: tmpfs, proc, sysfs,
 * devpts.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/sys_mount.h"
#include "syscalls/util.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

/* linux/mount.h's, which glibc 2.36's sys/mount.h may or may not carry. */
#define K_FSOPEN_CLOEXEC	  0x1
#define K_FSPICK_CLOEXEC	  0x1
#define K_FSPICK_SYMLINK_NOFOLLOW 0x2
#define K_FSPICK_NO_AUTOMOUNT	  0x4
#define K_FSPICK_EMPTY_PATH	  0x8
#define K_FSMOUNT_CLOEXEC	  0x1
#define K_OPEN_TREE_CLONE	  0x1
#define K_MOVE_MOUNT_F_SYMLINKS	  0x1
#define K_MOVE_MOUNT_F_AUTOMOUNTS 0x2
#define K_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define K_MOVE_MOUNT_T_SYMLINKS	  0x10
#define K_MOVE_MOUNT_T_AUTOMOUNTS 0x20
#define K_MOVE_MOUNT_T_EMPTY_PATH 0x40
#define K_MOVE_MOUNT_SET_GROUP	  0x100
#define K_MOVE_MOUNT_MASK	  0x177

enum {
	K_FSCONFIG_SET_FLAG,
	K_FSCONFIG_SET_STRING,
	K_FSCONFIG_SET_BINARY,
	K_FSCONFIG_SET_PATH,
	K_FSCONFIG_SET_PATH_EMPTY,
	K_FSCONFIG_SET_FD,
	K_FSCONFIG_CMD_CREATE,
	K_FSCONFIG_CMD_RECONFIGURE,
};

#define K_MOUNT_ATTR_RDONLY	 0x00000001
#define K_MOUNT_ATTR_NOSUID	 0x00000002
#define K_MOUNT_ATTR_NODEV	 0x00000004
#define K_MOUNT_ATTR_NOEXEC	 0x00000008
#define K_MOUNT_ATTR__ATIME	 0x00000070
#define K_MOUNT_ATTR_RELATIME	 0x00000000
#define K_MOUNT_ATTR_NOATIME	 0x00000010
#define K_MOUNT_ATTR_STRICTATIME 0x00000020
#define K_MOUNT_ATTR_NODIRATIME	 0x00000080
#define K_MOUNT_ATTR_IDMAP	 0x00100000
#define K_MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#define K_MOUNT_ATTR_VALID                                                                      \
	(K_MOUNT_ATTR_RDONLY | K_MOUNT_ATTR_NOSUID | K_MOUNT_ATTR_NODEV | K_MOUNT_ATTR_NOEXEC | \
	 K_MOUNT_ATTR__ATIME | K_MOUNT_ATTR_NODIRATIME | K_MOUNT_ATTR_IDMAP |                   \
	 K_MOUNT_ATTR_NOSYMFOLLOW)
#define MNT_ATIME_MASK (MNT_RELATIME | MNT_NOATIME | MNT_STRICTATIME)

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* --- filesystem contexts ------------------------------------------------------------ */

enum fc_phase { FC_CREATE_PARAMS, FC_AWAITING_MOUNT, FC_RECONF_PARAMS, FC_FAILED };

/* Parameters are kept as mount(2)'s option string; a page of them, as
 * mount(2) copies. */
#define FC_DATA_MAX 4096

struct fs_context {
	pthread_mutex_t lock;
	enum fc_phase phase;
	char fstype[32];
	char *source;
	char data[FC_DATA_MAX];
	size_t len;
	int ro;			/* "ro" 1, "rw" 0, neither -1 */
	struct super_block *sb; /* after FSCONFIG_CMD_CREATE */
	char *opts;		/* the options /proc/mounts shows for sb */
	struct path picked;	/* fspick's mount */
};

static long fscontext_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	(void)f, (void)buf, (void)len, (void)pos;
	return -ENODATA; /* no messages are logged */
}

static void fscontext_release(struct file *f)
{
	struct fs_context *fc = f->priv;

	if (fc->sb)
		sb_put(fc->sb);
	if (fc->picked.mnt)
		path_put(&fc->picked);
	free(fc->opts);
	free(fc->source);
	pthread_mutex_destroy(&fc->lock);
	free(fc);
}

static const struct file_ops fscontext_ops = {
	.read = fscontext_read,
	.release = fscontext_release,
};

static long fc_install(struct task *t, struct fs_context *fc, bool cloexec)
{
	struct file *f = anon_file_new("[fscontext]", &fscontext_ops, O_RDWR, fc);
	long ret = fd_install(t->files, f, 0, cloexec, task_nofile(t));

	file_put(f);
	return ret;
}

static struct fs_context *fc_new(enum fc_phase phase, const char *fstype)
{
	struct fs_context *fc = xzalloc(sizeof(*fc));

	pthread_mutex_init(&fc->lock, NULL);
	fc->phase = phase;
	fc->ro = -1;
	snprintf(fc->fstype, sizeof(fc->fstype), "%s", fstype);
	return fc;
}

SYSCALL(fsopen)
{
	unsigned flags = (unsigned)a->a[1];
	char fstype[32];
	long ret, n;

	if (!creds_ns_capable(&t->creds, task_ns(t)->mnt->owner, KCAP_SYS_ADMIN))
		return -EPERM;
	if (flags & ~K_FSOPEN_CLOEXEC)
		return -EINVAL;
	n = mm_strncpy_in(t->mm, fstype, a->a[0], sizeof(fstype));
	if (n < 0)
		return n == -ENAMETOOLONG ? -ENODEV : n;
	if (!mount_fs_type_known(fstype))
		return -ENODEV;
	ret = fc_install(t, fc_new(FC_CREATE_PARAMS, fstype), flags & K_FSOPEN_CLOEXEC);
	return ret;
}

/* The context behind fd, with a file reference in *fp; NULL and *err. */
static struct fs_context *fc_of(struct task *t, int fd, struct file **fp, long *err)
{
	struct file *f = fd_get(t->files, fd);

	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	if (f->ops != &fscontext_ops) {
		file_put(f);
		*err = -EINVAL;
		return NULL;
	}
	*fp = f;
	return f->priv;
}

/* Add "key" or "key=value" to the context's option string. */
static long fc_add_param(struct fs_context *fc, const char *key, const char *value)
{
	size_t need = strlen(key) + (value ? strlen(value) + 1 : 0) + (fc->len ? 1 : 0);

	/* The string is split at commas later: a value may not hold one. */
	if (strchr(key, ',') || strchr(key, '=') || (value && strchr(value, ',')))
		return -EINVAL;
	if (fc->len + need >= FC_DATA_MAX)
		return -ENOMEM;
	fc->len += (size_t)snprintf(fc->data + fc->len, FC_DATA_MAX - fc->len, "%s%s%s%s",
				    fc->len ? "," : "", key, value ? "=" : "", value ? value : "");
	return 0;
}

/* A flag or string parameter: the generic ones first (vfs_parse_sb_flag,
 * "source"), then the filesystem's, checked when the superblock is made. */
static long fc_param(struct fs_context *fc, const char *key, const char *value)
{
	static const char *const generic[] = {"sync",	    "async", "dirsync", "lazytime",
					      "nolazytime", "mand",  "nomand"};

	if (strcmp(key, "source") == 0) {
		if (!value)
			return -EINVAL;
		if (fc->source)
			return -EINVAL; /* "VFS: Multiple sources" */
		fc->source = xstrdup(value);
		return 0;
	}
	if (!value && (strcmp(key, "ro") == 0 || strcmp(key, "rw") == 0)) {
		fc->ro = key[1] == 'o';
		return 0;
	}
	for (size_t i = 0; !value && i < ARRAY_SIZE(generic); i++)
		if (strcmp(key, generic[i]) == 0)
			return 0;
	if (fc->phase == FC_RECONF_PARAMS)
		return 0; /* a remount keeps the filesystem's own options here */
	return fc_add_param(fc, key, value);
}

static long fc_create(struct task *t, struct fs_context *fc)
{
	char data[FC_DATA_MAX];
	long ret;

	if (fc->phase != FC_CREATE_PARAMS)
		return -EBUSY;
	memcpy(data, fc->data, fc->len + 1);
	ret = mount_new_fs(t, fc->fstype, data, &fc->sb, &fc->opts);
	fc->phase = ret < 0 ? FC_FAILED : FC_AWAITING_MOUNT;
	return ret;
}

/* The superblock's flags are its mount's here: ro/rw change the picked mount. */
static long fc_reconfigure(struct fs_context *fc)
{
	long ret = 0;

	if (fc->phase != FC_RECONF_PARAMS)
		return -EBUSY;
	if (fc->ro >= 0 && fc->picked.mnt)
		ret = mount_change_flags(fc->picked.mnt, fc->ro ? MNT_RDONLY : 0,
					 fc->ro ? 0 : MNT_RDONLY, false);
	fc->ro = -1; /* the next reconfiguration starts afresh */
	if (ret)
		fc->phase = FC_FAILED;
	return ret;
}

SYSCALL(fsconfig)
{
	int fd = (int)a->a[0], aux = (int)a->a[4];
	unsigned cmd = (unsigned)a->a[1];
	uint64_t ukey = a->a[2], uvalue = a->a[3];
	char key[256], *value = NULL;
	struct fs_context *fc;
	struct file *f;
	long ret = 0, n;

	if (fd < 0)
		return -EINVAL;
	/* Which of key, value and aux each command takes (Linux's order of checks). */
	switch (cmd) {
	case K_FSCONFIG_SET_FLAG:
		if (!ukey || uvalue || aux)
			return -EINVAL;
		break;
	case K_FSCONFIG_SET_STRING:
		if (!ukey || !uvalue || aux)
			return -EINVAL;
		break;
	case K_FSCONFIG_SET_BINARY:
		if (!ukey || !uvalue || aux <= 0 || aux > 1024 * 1024)
			return -EINVAL;
		break;
	case K_FSCONFIG_SET_PATH:
	case K_FSCONFIG_SET_PATH_EMPTY:
		if (!ukey || !uvalue || (aux != AT_FDCWD && aux < 0))
			return -EINVAL;
		break;
	case K_FSCONFIG_SET_FD:
		if (!ukey || uvalue || aux < 0)
			return -EINVAL;
		break;
	case K_FSCONFIG_CMD_CREATE:
	case K_FSCONFIG_CMD_RECONFIGURE:
		if (ukey || uvalue || aux)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	fc = fc_of(t, fd, &f, &ret);
	if (!fc)
		return ret;
	if (ukey) {
		n = mm_strncpy_in(t->mm, key, ukey, sizeof(key));
		if (n < 0) {
			ret = n == -ENAMETOOLONG ? -EINVAL : n;
			goto out;
		}
	}
	if (cmd == K_FSCONFIG_SET_STRING) {
		value = xzalloc(256);
		n = mm_strncpy_in(t->mm, value, uvalue, 256);
		if (n < 0) {
			ret = n == -ENAMETOOLONG ? -EINVAL : n;
			goto out;
		}
	}
	pthread_mutex_lock(&fc->lock);
	if (cmd == K_FSCONFIG_CMD_CREATE) {
		ret = fc_create(t, fc);
	} else if (cmd == K_FSCONFIG_CMD_RECONFIGURE) {
		ret = fc_reconfigure(fc);
	} else if (fc->phase != FC_CREATE_PARAMS && fc->phase != FC_RECONF_PARAMS) {
		ret = -EBUSY;
	} else if (cmd == K_FSCONFIG_SET_FLAG || cmd == K_FSCONFIG_SET_STRING) {
		ret = fc_param(fc, key, value);
	} else {
		/* Binary, path and fd values: none of these filesystems takes one. */
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&fc->lock);
out:
	free(value);
	file_put(f);
	return ret;
}

/* --- detached trees ----------------------------------------------------------------- */

static void tree_release(struct file *f)
{
	mntns_put(f->priv); /* unmounts what move_mount did not graft */
}

static const struct file_ops tree_ops = {.release = tree_release};

/* An O_PATH file on the root of the detached tree ns, installed; the file
 * owns ns. */
static long tree_install(struct task *t, struct mnt_namespace *ns, bool cloexec)
{
	struct file *f = file_alloc(&tree_ops, O_PATH, ns);
	struct path root = {ns->root, ns->root->root};
	long ret;

	f->fmode = FMODE_PATH;
	file_set_path(f, &root);
	ret = fd_install(t->files, f, 0, cloexec, task_nofile(t));
	file_put(f);
	return ret;
}

/* MOUNT_ATTR_* to MNT_* (the atime mode included); -EINVAL for a bad one. */
static long attr_to_mnt(uint64_t attr, unsigned *out)
{
	unsigned f = 0;

	if (attr & K_MOUNT_ATTR_RDONLY)
		f |= MNT_RDONLY;
	if (attr & K_MOUNT_ATTR_NOSUID)
		f |= MNT_NOSUID;
	if (attr & K_MOUNT_ATTR_NODEV)
		f |= MNT_NODEV;
	if (attr & K_MOUNT_ATTR_NOEXEC)
		f |= MNT_NOEXEC;
	if (attr & K_MOUNT_ATTR_NODIRATIME)
		f |= MNT_NODIRATIME;
	if (attr & K_MOUNT_ATTR_NOSYMFOLLOW)
		f |= MNT_NOSYMFOLLOW;
	switch (attr & K_MOUNT_ATTR__ATIME) {
	case K_MOUNT_ATTR_RELATIME:
		f |= MNT_RELATIME;
		break;
	case K_MOUNT_ATTR_NOATIME:
		f |= MNT_NOATIME;
		break;
	case K_MOUNT_ATTR_STRICTATIME:
		f |= MNT_STRICTATIME;
		break;
	default:
		return -EINVAL;
	}
	*out = f;
	return 0;
}

SYSCALL(fsmount)
{
	unsigned flags = (unsigned)a->a[1], attr = (unsigned)a->a[2], mflags;
	struct mnt_namespace *ns;
	struct fs_context *fc;
	struct file *f;
	long ret;

	if (flags & ~K_FSMOUNT_CLOEXEC)
		return -EINVAL;
	if (attr & ~(K_MOUNT_ATTR_VALID & ~K_MOUNT_ATTR_IDMAP))
		return -EINVAL;
	if (attr_to_mnt(attr, &mflags) < 0)
		return -EINVAL;
	if (!may_mount(t, &ret))
		return ret;
	fc = fc_of(t, (int)a->a[0], &f, &ret);
	if (!fc)
		return ret;
	pthread_mutex_lock(&fc->lock);
	ret = !fc->sb ? -EINVAL : fc->phase != FC_AWAITING_MOUNT ? -EBUSY : 0;
	if (ret) {
		pthread_mutex_unlock(&fc->lock);
		file_put(f);
		return ret;
	}
	if (fc->ro == 1)
		mflags |= MNT_RDONLY;
	ns = mntns_anon_new(fc->sb, mflags, fc->source ? fc->source : "none");
	if (fc->opts)
		ns->root->opts = xstrdup(fc->opts);
	/* The context may reconfigure now, but holds no mount (Linux's holds
	 * the superblock only): its ro and rw change nothing here. */
	fc->phase = FC_RECONF_PARAMS;
	fc->ro = -1;
	pthread_mutex_unlock(&fc->lock);
	file_put(f);
	return tree_install(t, ns, flags & K_FSMOUNT_CLOEXEC);
}

/* Look up a path the fd mount API names: dfd and path, "" meaning dfd
 * itself when empty (AT_EMPTY_PATH and its kin), symlinks followed when
 * follow. */
static long lookup_at(struct task *t, int dfd, uint64_t upath, bool empty, bool follow,
		      struct path *out)
{
	char path[VFS_PATH_MAX];
	long ret = empty ? path_in_empty_ok(t, upath, path) : path_in(t, upath, path);

	if (ret)
		return ret;
	return vfs_lookup(t, dfd, path, (follow ? LOOKUP_FOLLOW : 0) | (empty ? LOOKUP_EMPTY : 0),
			  out);
}

SYSCALL(fspick)
{
	unsigned flags = (unsigned)a->a[2];
	struct fs_context *fc;
	struct path p;
	long ret;

	if (flags & ~(K_FSPICK_CLOEXEC | K_FSPICK_SYMLINK_NOFOLLOW | K_FSPICK_NO_AUTOMOUNT |
		      K_FSPICK_EMPTY_PATH))
		return -EINVAL;
	if (!creds_ns_capable(&t->creds, task_ns(t)->mnt->owner, KCAP_SYS_ADMIN))
		return -EPERM;
	ret = lookup_at(t, (int)a->a[0], a->a[1], flags & K_FSPICK_EMPTY_PATH,
			!(flags & K_FSPICK_SYMLINK_NOFOLLOW), &p);
	if (ret)
		return ret;
	if (p.dentry != p.mnt->root) {
		path_put(&p);
		return -EINVAL;
	}
	fc = fc_new(FC_RECONF_PARAMS, p.mnt->sb->fstype);
	fc->picked = p; /* the context takes the reference */
	return fc_install(t, fc, flags & K_FSPICK_CLOEXEC);
}

SYSCALL(open_tree)
{
	unsigned flags = (unsigned)a->a[2];
	bool clone = flags & K_OPEN_TREE_CLONE;
	struct mnt_namespace *ns = NULL;
	struct path p;
	int err;
	long ret;

	if (flags & ~(AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW |
		      K_OPEN_TREE_CLONE | O_CLOEXEC))
		return -EINVAL;
	if ((flags & (AT_RECURSIVE | K_OPEN_TREE_CLONE)) == AT_RECURSIVE)
		return -EINVAL;
	if (clone && !may_mount(t, &ret))
		return ret;
	ret = lookup_at(t, (int)a->a[0], a->a[1], flags & AT_EMPTY_PATH,
			!(flags & AT_SYMLINK_NOFOLLOW), &p);
	if (ret)
		return ret;
	if (!clone) {
		struct file *f;
		ret = vfs_open_path(t, &p, O_PATH, &f);
		path_put(&p);
		if (ret)
			return ret;
		ret = fd_install(t->files, f, 0, flags & O_CLOEXEC, task_nofile(t));
		file_put(f);
		return ret;
	}
	/* Only what the caller's namespace shows, or a detached tree, may be
	 * copied (Linux's may_copy_tree). */
	if (!mount_in_ns(p.mnt, task_ns(t)->mnt) && !mount_is_detached(p.mnt))
		err = -EINVAL;
	else
		ns = mntns_anon_clone(&p, flags & AT_RECURSIVE, &err);
	path_put(&p);
	if (!ns)
		return err;
	return tree_install(t, ns, flags & O_CLOEXEC);
}

SYSCALL(move_mount)
{
	unsigned flags = (unsigned)a->a[4];
	struct mnt_namespace *ns, *from_ns, *to_ns;
	struct path from, to;
	long ret;

	if (flags & ~K_MOVE_MOUNT_MASK)
		return -EINVAL;
	ns = may_mount(t, &ret);
	if (!ns)
		return ret;
	ret = lookup_at(t, (int)a->a[0], a->a[1], flags & K_MOVE_MOUNT_F_EMPTY_PATH,
			flags & K_MOVE_MOUNT_F_SYMLINKS, &from);
	if (ret)
		return ret;
	ret = lookup_at(t, (int)a->a[2], a->a[3], flags & K_MOVE_MOUNT_T_EMPTY_PATH,
			flags & K_MOVE_MOUNT_T_SYMLINKS, &to);
	if (ret) {
		path_put(&from);
		return ret;
	}
	from_ns = __atomic_load_n(&from.mnt->ns, __ATOMIC_ACQUIRE);
	to_ns = __atomic_load_n(&to.mnt->ns, __ATOMIC_ACQUIRE);
	/* Onto the caller's namespace, or onto another detached tree. */
	if (flags & K_MOVE_MOUNT_SET_GROUP)
		ret = (from_ns == ns || (from_ns && from_ns->anon)) &&
				      (to_ns == ns || (to_ns && to_ns->anon))
			      ? mount_set_group(&from, &to)
			      : -EINVAL;
	else if (!to_ns || (to_ns != ns && !to_ns->anon) || from.dentry != from.mnt->root)
		ret = -EINVAL;
	else if (from_ns && from_ns->anon)
		ret = from.mnt == from_ns->root && from_ns != to_ns
			      ? mount_graft(to_ns, from_ns, &to)
			      : -EINVAL;
	else if (from_ns == ns && to_ns == ns)
		ret = mount_move(ns, from.mnt, &to);
	else
		ret = -EINVAL;
	path_put(&to);
	path_put(&from);
	return ret;
}

struct k_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* Copy in a struct mount_attr of usize bytes (copy_struct_from_user). */
static long mount_attr_in(struct task *t, uint64_t uattr, size_t usize, struct k_mount_attr *ka)
{
	memset(ka, 0, sizeof(*ka));
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize < sizeof(*ka))
		return -EINVAL;
	if (mm_copy_in(t->mm, ka, uattr, sizeof(*ka)) < 0)
		return -EFAULT;
	for (size_t off = sizeof(*ka); off < usize;) {
		uint8_t buf[256];
		size_t n = MIN(sizeof(buf), usize - off);
		if (mm_copy_in(t->mm, buf, uattr + off, n) < 0)
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (buf[i])
				return -E2BIG;
		off += n;
	}
	return 0;
}

SYSCALL(mount_setattr)
{
	unsigned flags = (unsigned)a->a[2], set, clr;
	struct mnt_namespace *ns, *mns;
	struct k_mount_attr ka;
	uint64_t ptype;
	struct path p;
	long ret;

	if (flags & ~(AT_EMPTY_PATH | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT))
		return -EINVAL;
	ret = mount_attr_in(t, a->a[3], (size_t)a->a[4], &ka);
	if (ret)
		return ret;
	if (!ka.attr_set && !ka.attr_clr && !ka.propagation)
		return 0; /* nothing to do */
	ptype = ka.propagation;
	if ((ptype & ~(uint64_t)(MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) ||
	    (ptype & (ptype - 1)))
		return -EINVAL;
	if ((ka.attr_set | ka.attr_clr) & ~(uint64_t)K_MOUNT_ATTR_VALID)
		return -EINVAL;
	/* No filesystem here takes idmapped mounts. */
	if ((ka.attr_set | ka.attr_clr) & K_MOUNT_ATTR_IDMAP)
		return -EINVAL;
	/* The atime mode is changed as a whole: all its bits cleared, one set. */
	if (ka.attr_clr & K_MOUNT_ATTR__ATIME) {
		if ((ka.attr_clr & K_MOUNT_ATTR__ATIME) != K_MOUNT_ATTR__ATIME ||
		    attr_to_mnt(ka.attr_set, &set) < 0)
			return -EINVAL;
	} else {
		if (ka.attr_set & K_MOUNT_ATTR__ATIME)
			return -EINVAL;
		attr_to_mnt(ka.attr_set, &set);
		set &= ~MNT_ATIME_MASK;
	}
	attr_to_mnt(ka.attr_clr & ~(uint64_t)K_MOUNT_ATTR__ATIME, &clr);
	clr &= ~MNT_ATIME_MASK;
	if (ka.attr_clr & K_MOUNT_ATTR__ATIME)
		clr |= MNT_ATIME_MASK;
	ns = may_mount(t, &ret);
	if (!ns)
		return ret;
	ret = lookup_at(t, (int)a->a[0], a->a[1], flags & AT_EMPTY_PATH,
			!(flags & AT_SYMLINK_NOFOLLOW), &p);
	if (ret)
		return ret;
	mns = __atomic_load_n(&p.mnt->ns, __ATOMIC_ACQUIRE);
	/* A mount root of the caller's namespace or of a detached tree. */
	if (p.dentry != p.mnt->root || !mns || (mns != ns && !mns->anon)) {
		path_put(&p);
		return -EINVAL;
	}
	if (ka.attr_set || ka.attr_clr)
		ret = mount_change_flags(p.mnt, set, clr, flags & AT_RECURSIVE);
	if (ret == 0 && ptype)
		mount_set_propagation(p.mnt, (unsigned long)ptype, flags & AT_RECURSIVE);
	path_put(&p);
	return ret;
}
