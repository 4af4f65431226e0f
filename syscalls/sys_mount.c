/*
 * Mounts and namespaces from inside the sandbox: mount, umount2,
 * pivot_root, unshare and setns. The mount tree is sentry/vfs/mount.c's,
 * the namespaces sentry/kernel/nsproxy.c's; the checks are Linux's
 * (fs/namespace.c, kernel/fork.c). Only the sandbox's own filesystems can
 * be mounted (tmpfs, proc, sysfs, devpts, an overlay of directories in the
 * tree: mount_overlay.c; and binds of what is already in the tree): a
 * guest names no host device or path here.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/sys_mount.h"
#include "syscalls/util.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/devpts.h"
#include "sentry/fs/file.h"
#include "sentry/fs/nsfs.h"
#include "sentry/fs/procfs.h"
#include "sentry/fs/sysfs.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 0x8
#endif

struct mnt_namespace *may_mount(struct task *t, long *err)
{
	struct mnt_namespace *ns = task_ns(t)->mnt;

	if (!creds_ns_capable(&t->creds, ns->owner, KCAP_SYS_ADMIN)) {
		*err = -EPERM;
		return NULL;
	}
	/* A landlocked task may change no mount (Linux's sb_mount and
	 * sb_umount hooks, after the capability check). */
	*err = landlock_check_mount(t);
	return *err ? NULL : ns;
}

/* Step onto whatever is mounted on p (the topmost mount). */
static void onto_mounts(struct path *p)
{
	struct mount *m;

	while ((m = mount_lookup(p->mnt, p->dentry))) {
		path_put(p);
		p->mnt = m;
		p->dentry = dentry_get(m->root);
	}
}

static long lookup_user(struct task *t, uint64_t upath, unsigned flags, struct path *out)
{
	char path[VFS_PATH_MAX];
	int ret = path_in(t, upath, path);

	if (ret)
		return ret;
	return vfs_lookup(t, AT_FDCWD, path, flags, out);
}

unsigned mnt_flags_of(unsigned long ms)
{
	unsigned f = 0;

	if (ms & MS_RDONLY)
		f |= MNT_RDONLY;
	if (ms & MS_NOSUID)
		f |= MNT_NOSUID;
	if (ms & MS_NODEV)
		f |= MNT_NODEV;
	if (ms & MS_NOEXEC)
		f |= MNT_NOEXEC;
	if (ms & MS_NOSYMFOLLOW)
		f |= MNT_NOSYMFOLLOW;
	if (ms & MS_NOATIME)
		f |= MNT_NOATIME;
	if (ms & MS_NODIRATIME)
		f |= MNT_NODIRATIME;
	/* The atime mode: relatime unless another is asked for (Linux's
	 * default); strictatime wins over noatime. */
	if (ms & MS_STRICTATIME)
		f = (f & ~MNT_NOATIME) | MNT_STRICTATIME;
	else if (!(ms & MS_NOATIME))
		f |= MNT_RELATIME;
	return f;
}

/* --- new filesystems -------------------------------------------------------------- */

struct fs_opts {
	uint32_t mode, uid, gid;
	uint64_t size, nr_inodes;
	bool has_mode, has_uid, has_gid, has_size, has_nr_inodes;
};

static int tmpfs_parse_size(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	switch (*end) {
	case 'k':
	case 'K':
		n <<= 10, end++;
		break;
	case 'm':
	case 'M':
		n <<= 20, end++;
		break;
	case 'g':
	case 'G':
		n <<= 30, end++;
		break;
	default:
		break;
	}
	if (end == v || *end)
		return -EINVAL;
	*out = n;
	return 0;
}

/* tmpfs's options (mode, size, uid, gid; nr_inodes and the like accepted). */
static int parse_tmpfs(struct task *t, char *data, struct fs_opts *o)
{
	char *opt, *save = NULL;

	for (opt = strtok_r(data, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *v = strchr(opt, '='), *end;
		unsigned long n;
		if (v)
			*v++ = '\0';
		if (strcmp(opt, "mode") == 0 && v) {
			n = strtoul(v, &end, 8);
			if (*end || end == v)
				return -EINVAL;
			o->mode = (uint32_t)n & 07777;
			o->has_mode = true;
		} else if (strcmp(opt, "size") == 0 && v) {
			if (tmpfs_parse_size(v, &o->size) < 0)
				return -EINVAL;
			o->has_size = true;
		} else if ((strcmp(opt, "uid") == 0 || strcmp(opt, "gid") == 0) && v) {
			bool gid = opt[0] == 'g';
			int64_t k;
			n = strtoul(v, &end, 10);
			if (*end || end == v || n > UINT32_MAX)
				return -EINVAL;
			k = gid ? ns_make_kgid(t->creds.user_ns, (uint32_t)n)
				: ns_make_kuid(t->creds.user_ns, (uint32_t)n);
			if (k < 0)
				return -EINVAL;
			if (gid)
				o->gid = (uint32_t)k, o->has_gid = true;
			else
				o->uid = (uint32_t)k, o->has_uid = true;
		} else if (strcmp(opt, "nr_inodes") == 0 && v) {
			if (tmpfs_parse_size(v, &o->nr_inodes) < 0)
				return -EINVAL;
			o->has_nr_inodes = true;
		} else if (strcmp(opt, "inode64") == 0 || strcmp(opt, "inode32") == 0 ||
			   strcmp(opt, "huge") == 0 || strcmp(opt, "mpol") == 0 ||
			   strcmp(opt, "nr_blocks") == 0) {
			/* accepted, no effect here */
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* What /proc/mounts shows for tmpfs's options (shmem_show_options). */
static char *tmpfs_opts_text(const struct fs_opts *o)
{
	char buf[128] = "";
	int n = 0;

	if (o->has_size)
		n += snprintf(buf + n, sizeof(buf) - n, ",size=%lluk",
			      (unsigned long long)(ALIGN_UP(o->size, 4096) >> 10));
	if (o->has_nr_inodes && o->nr_inodes)
		n += snprintf(buf + n, sizeof(buf) - n, ",nr_inodes=%llu",
			      (unsigned long long)o->nr_inodes);
	if (o->mode != 01777)
		n += snprintf(buf + n, sizeof(buf) - n, ",mode=%o", o->mode);
	if (o->uid)
		n += snprintf(buf + n, sizeof(buf) - n, ",uid=%u", o->uid);
	if (o->gid)
		snprintf(buf + n, sizeof(buf) - n, ",gid=%u", o->gid);
	return buf[0] ? xstrdup(buf) : NULL;
}

bool mount_fs_type_known(const char *fstype)
{
	return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "proc") == 0 ||
	       strcmp(fstype, "sysfs") == 0 || strcmp(fstype, "devpts") == 0 ||
	       strcmp(fstype, "overlay") == 0;
}

long mount_new_fs(struct task *t, const char *fstype, char *data, struct super_block **sb,
		  char **opts)
{
	*opts = NULL;
	if (strcmp(fstype, "tmpfs") == 0) {
		struct fs_opts o = {.mode = 01777, .uid = t->creds.fsuid, .gid = t->creds.fsgid};
		int ret = parse_tmpfs(t, data, &o);
		if (ret < 0)
			return ret;
		*sb = tmpfs_new(t->k->mf, o.mode, o.uid, o.gid);
		if (o.has_size && o.size)
			tmpfs_set_size_limit(*sb, o.size);
		if (o.has_nr_inodes && o.nr_inodes)
			tmpfs_set_inode_limit(*sb, o.nr_inodes);
		*opts = tmpfs_opts_text(&o);
		return 0;
	}
	if (strcmp(fstype, "proc") == 0) {
		*sb = procfs_new(t->k, t->pidns);
		return 0;
	}
	if (strcmp(fstype, "sysfs") == 0) {
		*sb = sysfs_new(t->k->mf, t->k->ncpus);
		return 0;
	}
	if (strcmp(fstype, "devpts") == 0) {
		*sb = devpts_new();
		return 0;
	}
	if (strcmp(fstype, "overlay") == 0)
		return mount_overlay_new(t, data, sb, opts);
	return -ENODEV;
}

static long do_new_mount(struct task *t, struct mnt_namespace *ns, const struct path *at,
			 const char *fstype, char *data, unsigned long flags, const char *source)
{
	struct super_block *sb = NULL;
	char *opts = NULL;
	long ret = mount_new_fs(t, fstype, data, &sb, &opts);

	if (ret < 0)
		return ret;
	ret = mount_attach_fs(ns, at, sb, mnt_flags_of(flags), source, opts);
	free(opts);
	sb_put(sb);
	return ret;
}

/* MS_REMOUNT: the mount's flags (a superblock's own flags are the mount's
 * here: one remount changes both, as for a filesystem mounted once). */
static long do_remount(struct task *t, const struct path *at, unsigned long flags)
{
	struct mount *m = at->mnt;
	unsigned nf, keep = MNT_UNBINDABLE | MNT_INTERNAL;

	if (at->dentry != m->root)
		return -EINVAL;
	nf = mnt_flags_of(flags);
	/* Without a new atime mode the old one stays (MS_REMOUNT|MS_BIND). */
	if (!(flags & (MS_NOATIME | MS_STRICTATIME | MS_RELATIME)))
		nf = (nf & ~(MNT_RELATIME | MNT_STRICTATIME | MNT_NOATIME)) |
		     (m->flags & (MNT_RELATIME | MNT_STRICTATIME | MNT_NOATIME));
	/* Flags locked by a more privileged namespace cannot be cleared. */
	if ((m->locked & MNT_LOCKABLE & ~nf & (MNT_RDONLY | MNT_NOSUID | MNT_NODEV | MNT_NOEXEC)) ||
	    ((m->locked & MNT_NOATIME) && !(nf & MNT_NOATIME)))
		return -EPERM;
	__atomic_store_n(&m->flags, (m->flags & keep) | nf, __ATOMIC_RELEASE);
	mount_touch(m);
	return 0;
}

static long do_propagation(const struct path *at, unsigned long flags)
{
	unsigned long type = flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE);

	/* Exactly one type, with nothing but MS_REC and MS_SILENT beside it. */
	if ((type & (type - 1)) || (flags & ~(type | MS_REC | MS_SILENT)))
		return -EINVAL;
	if (at->dentry != at->mnt->root)
		return -EINVAL;
	mount_set_propagation(at->mnt, type, flags & MS_REC);
	return 0;
}

SYSCALL(mount)
{
	unsigned long flags = a->a[3];
	char fstype[64] = "", source[VFS_PATH_MAX] = "none", *data;
	struct mnt_namespace *ns;
	struct path at;
	long ret;

	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	ns = may_mount(t, &ret);
	if (!ns)
		return ret;
	if (a->a[2]) {
		long n = mm_strncpy_in(t->mm, fstype, a->a[2], sizeof(fstype));
		if (n < 0)
			return n == -ENAMETOOLONG ? -ENODEV : n;
	}
	if (a->a[0] && mm_strncpy_in(t->mm, source, a->a[0], sizeof(source)) < 0)
		return -EFAULT;
	data = xzalloc(4096);
	/* A page of options at most, as Linux copies (copy_mount_options). */
	if (a->a[4] && mm_strncpy_in(t->mm, data, a->a[4], 4096) < 0) {
		if (mm_copy_in(t->mm, data, a->a[4], 1) < 0) {
			free(data);
			return -EFAULT;
		}
		data[4095] = '\0';
	}
	ret = lookup_user(t, a->a[1], LOOKUP_FOLLOW, &at);
	if (ret < 0)
		goto out;
	/* The target must be in the caller's namespace (check_mnt). */
	if (!mount_in_ns(at.mnt, ns)) {
		ret = -EINVAL;
		goto put;
	}
	if (flags & MS_REMOUNT) {
		ret = do_remount(t, &at, flags);
	} else if (flags & MS_BIND) {
		struct path from;
		ret = lookup_user(t, a->a[0], LOOKUP_FOLLOW, &from);
		if (ret == 0) {
			ret = mount_in_ns(from.mnt, ns) ? 0 : -EINVAL;
			if (ret == 0)
				ret = mount_bind(ns, &at, &from, flags & MS_REC);
			path_put(&from);
		}
	} else if (flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) {
		ret = do_propagation(&at, flags);
	} else if (flags & MS_MOVE) {
		struct path from;
		ret = lookup_user(t, a->a[0], LOOKUP_FOLLOW, &from);
		if (ret == 0) {
			if (!mount_in_ns(from.mnt, ns) || from.dentry != from.mnt->root)
				ret = -EINVAL;
			else
				ret = mount_move(ns, from.mnt, &at);
			path_put(&from);
		}
	} else if (!fstype[0]) {
		ret = -EINVAL;
	} else {
		ret = do_new_mount(t, ns, &at, fstype, data, flags, source);
	}
put:
	path_put(&at);
out:
	free(data);
	return ret;
}

SYSCALL(umount2)
{
	int flags = (int)a->a[1];
	struct mnt_namespace *ns;
	struct path p;
	long ret;

	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	/* MNT_EXPIRE with MNT_FORCE or MNT_DETACH: EINVAL (and expiry is
	 * never armed here: EAGAIN as Linux's first call). */
	if ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH)))
		return -EINVAL;
	ns = may_mount(t, &ret);
	if (!ns)
		return ret;
	ret = lookup_user(t, a->a[0], (flags & UMOUNT_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, &p);
	if (ret < 0)
		return ret;
	/* The mount on "." or ".." too (Linux's LOOKUP_MOUNTPOINT). */
	onto_mounts(&p);
	if (p.dentry != p.mnt->root || !mount_in_ns(p.mnt, ns))
		ret = -EINVAL;
	else if (flags & MNT_EXPIRE)
		ret = -EAGAIN;
	else
		ret = mount_umount(ns, p.mnt, flags & MNT_DETACH);
	path_put(&p);
	return ret;
}

/* Move every task's root and cwd that is old to new (chroot_fs_refs). */
static void move_fs_refs(struct kernel *k, const struct path *old, const struct path *new)
{
	struct task *o;
	struct fs_struct **fss = NULL;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(o, &k->tasks, knode) {
		if (!o->fs)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			fss = xrealloc(fss, cap * sizeof(*fss));
		}
		fss[n++] = fs_struct_get(o->fs);
	}
	pthread_mutex_unlock(&k->lock);
	for (size_t i = 0; i < n; i++) {
		struct path r, c;
		fs_get_root(fss[i], &r);
		fs_get_cwd(fss[i], &c);
		if (path_equal(&r, old))
			fs_set_root(fss[i], new);
		if (path_equal(&c, old))
			fs_set_cwd(fss[i], new);
		path_put(&r);
		path_put(&c);
		fs_struct_put(fss[i]);
	}
	free(fss);
}

SYSCALL(pivot_root)
{
	struct path nr, old, root;
	struct mnt_namespace *ns;
	long ret;

	ns = may_mount(t, &ret);
	if (!ns)
		return ret;
	ret = lookup_user(t, a->a[0], LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &nr);
	if (ret < 0)
		return ret;
	ret = lookup_user(t, a->a[1], LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &old);
	if (ret < 0) {
		path_put(&nr);
		return ret;
	}
	/* put_old's place is on whatever is mounted there, as Linux's lock_mount. */
	onto_mounts(&old);
	fs_get_root(t->fs, &root);
	ret = mount_pivot(ns, &nr, &old, &root);
	if (ret == 0) {
		struct path nroot = {nr.mnt, nr.dentry};
		move_fs_refs(t->k, &root, &nroot);
	}
	path_put(&root);
	path_put(&old);
	path_put(&nr);
	return ret;
}

/* --- unshare and setns -------------------------------------------------------------- */

#define UNSHARE_NS                                                                                 \
	(CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID | \
	 CLONE_NEWCGROUP)

/* A private fs_struct for t (unshare_fs). */
static void unshare_fs(struct task *t)
{
	struct path root, cwd;
	struct fs_struct *fs, *old = t->fs;

	if (__atomic_load_n(&old->refs, __ATOMIC_ACQUIRE) == 1)
		return;
	fs_get_root(old, &root);
	fs_get_cwd(old, &cwd);
	fs = fs_struct_new(&root, &cwd);
	fs->umask = old->umask;
	path_put(&root);
	path_put(&cwd);
	pthread_mutex_lock(&t->k->lock);
	t->fs = fs;
	pthread_mutex_unlock(&t->k->lock);
	fs_struct_put(old);
}

SYSCALL(unshare)
{
	uint64_t flags = a->a[0];

	if (flags & ~(UNSHARE_NS | CLONE_NEWTIME | CLONE_THREAD | CLONE_FS | CLONE_FILES |
		      CLONE_SIGHAND | CLONE_VM | CLONE_SYSVSEM))
		return -EINVAL;
	if (flags & CLONE_NEWTIME)
		return -EINVAL; /* no time namespaces (as without CONFIG_TIME_NS) */
	/* A new user namespace implies CLONE_THREAD and CLONE_FS; CLONE_NEWNS CLONE_FS. */
	if (flags & CLONE_NEWUSER)
		flags |= CLONE_THREAD | CLONE_FS;
	if (flags & CLONE_NEWNS)
		flags |= CLONE_FS;
	/* Sharing these with other threads cannot be undone here: only a
	 * single-threaded process may ask (Linux's check_unshare_flags). */
	if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) &&
	    __atomic_load_n(&t->tg->nr_threads, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	if ((flags & CLONE_VM) && __atomic_load_n(&t->mm->users, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	/* CLONE_FILES and CLONE_SYSVSEM: not taken apart here; accepted when
	 * nothing is shared (the only case that changes nothing). */
	if ((flags & CLONE_FILES) && __atomic_load_n(&t->files->refs, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	if (!(flags & UNSHARE_NS))
		return 0;
	if (flags & CLONE_FS)
		unshare_fs(t);
	return nsproxy_unshare(t, flags & UNSHARE_NS);
}

/* setns(fd, nstype): into the namespace an open /proc/PID/ns file holds
 * (a pidfd's several namespaces at once are not supported: EINVAL). */
SYSCALL(setns)
{
	int fd = (int)a->a[0], nstype = (int)a->a[1];
	const struct ns_ref *r;
	struct file *f;
	long ret;

	if (nstype & ~(UNSHARE_NS | CLONE_NEWTIME))
		return -EINVAL;
	f = fd_get(t->files, fd);
	if (!f)
		return -EBADF;
	r = nsfs_file_ns(f);
	if (!r) {
		file_put(f);
		return -EINVAL;
	}
	ret = nsproxy_setns(t, r, nstype);
	file_put(f);
	return ret;
}
