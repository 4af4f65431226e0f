/* inotify_init, inotify_init1, inotify_add_watch, inotify_rm_watch (sentry/fs/inotify.h). */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/file.h"
#include "sentry/fs/inotify.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/inotify.h>

#ifndef IN_MASK_CREATE
#define IN_MASK_CREATE 0x10000000
#endif

/* Linux's ALL_INOTIFY_BITS: what a watch mask may hold. */
#define INOTIFY_BITS                                                                             \
	(IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED | IN_ONLYDIR | IN_DONT_FOLLOW | \
	 IN_EXCL_UNLINK | IN_MASK_ADD | IN_MASK_CREATE | IN_ISDIR | IN_ONESHOT)

static long do_inotify_init(struct task *t, int flags)
{
	struct file *f;
	long ret;

	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	ret = inotify_file_new(t->creds.euid, flags, &f);
	if (ret)
		return ret;
	ret = fd_install(t->files, f, 0, flags & IN_CLOEXEC, task_nofile(t));
	file_put(f);
	return ret;
}

SYSCALL(inotify_init)
{
	return do_inotify_init(t, 0);
}

SYSCALL(inotify_init1)
{
	return do_inotify_init(t, (int)a->a[0]);
}

/* inotify_add_watch(fd, pathname, mask): the checks in Linux's order. */
SYSCALL(inotify_add_watch)
{
	uint32_t mask = (uint32_t)a->a[2];
	struct file *f;
	struct path p;
	char *path;
	long ret;

	if ((mask & ~INOTIFY_BITS) || !mask)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	if (((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE)) || !inotify_file_is(f)) {
		file_put(f);
		return -EINVAL;
	}
	path = xmalloc(VFS_PATH_MAX);
	ret = path_in(t, a->a[1], path);
	if (ret == 0)
		ret = vfs_lookup(t, AT_FDCWD, path,
				 ((mask & IN_DONT_FOLLOW) ? 0 : LOOKUP_FOLLOW) |
					 ((mask & IN_ONLYDIR) ? LOOKUP_DIRECTORY : 0),
				 &p);
	free(path);
	if (ret == 0) {
		ret = inode_permission(&t->creds, p.dentry->inode, MAY_READ);
		if (ret == 0)
			ret = inotify_watch_add(f, &p, mask);
		path_put(&p);
	}
	file_put(f);
	return ret;
}

SYSCALL(inotify_rm_watch)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = inotify_file_is(f) ? inotify_watch_remove(f, (int)a->a[1]) : -EINVAL;
	file_put(f);
	return ret;
}
