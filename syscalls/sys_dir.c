/* Directories: getdents64/getdents, chdir, fchdir, getcwd, chroot, umask. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/vfs/vfs.h"
#include "sentry/vfs/fsnotify.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DIRENT_BUF 65536

struct dirent_buf {
	struct dir_emitter e;
	char *buf;
	size_t size, used;
	bool old; /* struct linux_dirent (getdents) instead of linux_dirent64 */
	bool overflow;
};

static bool emit(struct dir_emitter *e, const char *name, size_t namelen, uint64_t ino,
		 unsigned type, int64_t next)
{
	struct dirent_buf *b = container_of(e, struct dirent_buf, e);
	size_t reclen;
	char *p;

	if (b->old)
		reclen = ALIGN_UP(offsetof(struct linux_dirent_hdr, name) + namelen + 2, 8);
	else
		reclen = ALIGN_UP(offsetof(struct linux_dirent64_hdr, name) + namelen + 1, 8);
	if (b->used + reclen > b->size) {
		b->overflow = true;
		return false;
	}
	p = b->buf + b->used;
	memset(p, 0, reclen);
	if (b->old) {
		struct linux_dirent_hdr *d = (void *)p;
		d->ino = ino;
		d->off = (uint64_t)next;
		d->reclen = (uint16_t)reclen;
		memcpy(d->name, name, namelen);
		p[reclen - 1] = (char)type;
	} else {
		struct linux_dirent64_hdr *d = (void *)p;
		d->ino = ino;
		d->off = next;
		d->reclen = (uint16_t)reclen;
		d->type = (uint8_t)type;
		memcpy(d->name, name, namelen);
	}
	b->used += reclen;
	return true;
}

static long do_getdents(struct task *t, int fd, uint64_t ubuf, uint64_t count, bool old)
{
	struct dirent_buf b = {.e.emit = emit, .old = old};
	struct file *f = fd_get(t->files, fd);
	long ret;

	if (!f)
		return -EBADF;
	if (!f->ops->getdents) {
		file_put(f);
		return -ENOTDIR;
	}
	if (f->inode && inode_has(f->inode, I_DEAD)) {
		file_put(f);
		return -ENOENT; /* a removed directory lists nothing (Linux's IS_DEADDIR) */
	}
	/* count is an unsigned int that Linux keeps in an int: past INT_MAX no
	 * entry fits (EINVAL, or 0 at the end) */
	count = (uint32_t)count;
	b.size = count > INT_MAX ? 0 : MIN((size_t)count, (size_t)DIRENT_BUF);
	b.buf = xmalloc(b.size ? b.size : 1);
	pthread_mutex_lock(&f->pos_lock);
	ret = f->ops->getdents(f, &b.e);
	pthread_mutex_unlock(&f->pos_lock);
	if (ret == 0) {
		if (b.used == 0 && b.overflow)
			ret = -EINVAL; /* not even one entry fits */
		else if (mm_copy_out(t->mm, ubuf, b.buf, b.used) < 0)
			ret = -EFAULT;
		else
			ret = (long)b.used;
	}
	fsnotify_access(f);
	file_accessed(f);
	free(b.buf);
	file_put(f);
	return ret;
}

SYSCALL(getdents64)
{
	return do_getdents(t, (int)a->a[0], a->a[1], a->a[2], false);
}

SYSCALL(getdents)
{
	return do_getdents(t, (int)a->a[0], a->a[1], a->a[2], true);
}

SYSCALL(chdir)
{
	char path[VFS_PATH_MAX];
	struct path p;
	int ret = path_in(t, a->a[0], path);

	if (ret)
		return ret;
	ret = vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p);
	if (ret)
		return ret;
	ret = vfs_chdir(t, &p);
	if (ret == 0)
		fs_set_cwd(t->fs, &p);
	path_put(&p);
	return ret;
}

SYSCALL(fchdir)
{
	struct file *f = fd_get_raw(t->files, (int)a->a[0]);
	int ret;

	if (!f)
		return -EBADF;
	ret = f->path.dentry ? vfs_chdir(t, &f->path) : -ENOTDIR;
	if (ret == 0)
		fs_set_cwd(t->fs, &f->path);
	file_put(f);
	return ret;
}

SYSCALL(getcwd)
{
	struct path cwd, root;
	char *buf = xmalloc(VFS_PATH_MAX);
	long len;

	fs_get_cwd(t->fs, &cwd);
	fs_get_root(t->fs, &root);
	len = path_to_string(&cwd, &root, buf, VFS_PATH_MAX);
	if (len >= 0 && cwd.dentry->deleted)
		len = -ENOENT; /* the working directory was removed */
	path_put(&cwd);
	path_put(&root);
	if (len >= 0) {
		if (a->a[1] < (uint64_t)len + 1)
			len = -ERANGE;
		else if (mm_copy_out(t->mm, a->a[0], buf, (size_t)len + 1) < 0)
			len = -EFAULT;
		else
			len++;
	}
	free(buf);
	return len;
}

SYSCALL(chroot)
{
	char path[VFS_PATH_MAX];
	struct path p;
	int ret;

	if (!creds_own_capable(&t->creds, KCAP_SYS_CHROOT))
		return -EPERM;
	ret = path_in(t, a->a[0], path);
	if (ret)
		return ret;
	ret = vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p);
	if (ret)
		return ret;
	ret = vfs_chdir(t, &p);
	if (ret == 0)
		fs_set_root(t->fs, &p);
	path_put(&p);
	return ret;
}

SYSCALL(umask)
{
	uint32_t old;

	pthread_mutex_lock(&t->fs->lock);
	old = t->fs->umask;
	t->fs->umask = (uint32_t)a->a[0] & 0777;
	pthread_mutex_unlock(&t->fs->lock);
	return old;
}
