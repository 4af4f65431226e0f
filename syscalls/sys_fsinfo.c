/*
 * sysfs(2) and ustat(2): the old calls that tell about filesystems, as
 * Linux's fs/filesystems.c and fs/statfs.c answer them (sysfs numbers the
 * types of /proc/filesystems; ustat finds a mounted filesystem by its
 * device number).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/fstypes.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"

#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>

SYSCALL(sysfs)
{
	const struct fs_type_name *ft;
	char name[VFS_PATH_MAX];
	unsigned i;
	int err;

	switch ((int)a->a[0]) {
	case 1:					 /* the index of a type name */
		err = path_in(t, a->a[1], name); /* Linux's getname: EFAULT, ENOENT, ENAMETOOLONG */
		if (err)
			return err;
		for (i = 0; (ft = fs_type_at(i)); i++)
			if (!strcmp(ft->name, name))
				return i;
		return -EINVAL;
	case 2: /* the name of an index */
		if (a->a[1] > UINT32_MAX || !(ft = fs_type_at((unsigned)a->a[1])))
			return -EINVAL;
		return mm_copy_out(t->mm, a->a[2], ft->name, strlen(ft->name) + 1) < 0 ? -EFAULT
										       : 0;
	case 3: /* how many */
		for (i = 0; fs_type_at(i); i++)
			;
		return i;
	default:
		return -EINVAL;
	}
}

struct ustat_find {
	unsigned major, minor;
	struct path root; /* the filesystem's, referenced, once found */
};

static void ustat_one(struct mount *m, void *arg)
{
	struct ustat_find *u = arg;

	if (u->root.mnt || major(m->sb->dev) != u->major || minor(m->sb->dev) != u->minor)
		return;
	u->root.mnt = m;
	u->root.dentry = m->root;
	path_get(&u->root);
}

/* struct ustat on x86-64 */
struct kustat {
	int32_t f_tfree;
	uint64_t f_tinode;
	char f_fname[6];
	char f_fpack[6];
};

SYSCALL(ustat)
{
	uint32_t dev = (uint32_t)a->a[0];
	struct ustat_find u = {
		.major = (dev & 0xfff00) >> 8,
		.minor = (dev & 0xff) | ((dev >> 12) & 0xfff00),
	};
	struct statfs_info s;
	struct kustat out;
	struct nsproxy *n;
	int ret;

	n = task_ns_get(t);
	mntns_for_each(n->mnt, ustat_one, &u);
	nsproxy_put(n);
	if (!u.root.mnt)
		return -EINVAL; /* no mounted filesystem has that device */
	ret = vfs_statfs(&u.root, &s);
	path_put(&u.root);
	if (ret)
		return ret;
	memset(&out, 0, sizeof(out));
	out.f_tfree = (int32_t)s.bfree;
	out.f_tinode = s.ffree;
	return mm_copy_out(t->mm, a->a[1], &out, sizeof(out)) < 0 ? -EFAULT : 0;
}
