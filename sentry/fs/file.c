#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fasync.h"
#include "sentry/fs/epoll.h"
#include "sentry/fs/locks.h"
#include "sentry/vfs/fsnotify.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

struct file *file_alloc(const struct file_ops *ops, int flags, void *priv)
{
	struct file *f = xzalloc(sizeof(*f));

	f->refs = 1;
	f->ops = ops;
	f->flags = flags;
	f->priv = priv;
	pthread_mutex_init(&f->pos_lock, NULL);
	return f;
}

struct file *file_get(struct file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void file_put(struct file *f)
{
	if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* The last close takes the file out of every epoll set first. */
	if (__atomic_load_n(&f->f_ep, __ATOMIC_ACQUIRE))
		eventpoll_release_file(f);
	fsnotify_close(f);
	dnotify_release(f);
	fasync_release(f);
	if (f->ops->release)
		f->ops->release(f);
	if (f->inode && f->inode->locks)
		locks_remove_file(f);
	if (f->inode)
		inode_put(f->inode);
	path_put(&f->path);
	pthread_mutex_destroy(&f->pos_lock);
	free(f);
}

void file_set_path(struct file *f, const struct path *p)
{
	f->path = *p;
	path_get(&f->path);
	if (p->dentry && p->dentry->inode && !f->inode)
		f->inode = inode_get(p->dentry->inode);
}

int file_getfl(struct file *f)
{
	return f->ops->getfl ? f->ops->getfl(f) : f->flags;
}

/* A second is a lot less than a day: relatime's limit. */
#define RELATIME_LIMIT (24 * 3600)

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

void file_accessed(struct file *f)
{
	struct inode *i = f->inode;
	unsigned mflags;
	struct timespec now;

	if (!i || !f->path.mnt || (f->flags & O_NOATIME))
		return;
	mflags = __atomic_load_n(&f->path.mnt->flags, __ATOMIC_ACQUIRE);
	if ((mflags & MNT_NOATIME) || ((mflags & MNT_NODIRATIME) && S_ISDIR(i->mode)))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&i->lock);
	/* relatime (unless strictatime): only an atime older than the last
	 * change, or than a day, moves. */
	if ((mflags & MNT_STRICTATIME) || ts_cmp(&i->atime, &i->mtime) <= 0 ||
	    ts_cmp(&i->atime, &i->ctime) <= 0 || now.tv_sec - i->atime.tv_sec >= RELATIME_LIMIT)
		i->atime = now;
	pthread_mutex_unlock(&i->lock);
}

long file_read_at(struct file *f, void *buf, size_t len, int64_t *off)
{
	long n;

	if (off || !(f->fmode & FMODE_ATPOS))
		return f->ops->read(f, buf, len, off);
	pthread_mutex_lock(&f->pos_lock);
	n = f->ops->read(f, buf, len, &f->pos);
	pthread_mutex_unlock(&f->pos_lock);
	return n;
}

long file_write_at(struct file *f, const void *buf, size_t len, int64_t *off)
{
	long n;

	if (off || !(f->fmode & FMODE_ATPOS))
		return f->ops->write(f, buf, len, off);
	pthread_mutex_lock(&f->pos_lock);
	n = f->ops->write(f, buf, len, &f->pos);
	pthread_mutex_unlock(&f->pos_lock);
	return n;
}

int64_t generic_llseek(struct file *f, int64_t off, int whence, int64_t size)
{
	int64_t base;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = f->pos;
		break;
	case SEEK_END:
		base = size;
		break;
	case SEEK_DATA:
		if (off < 0 || off >= size)
			return -ENXIO;
		return off;
	case SEEK_HOLE:
		if (off < 0 || off >= size)
			return -ENXIO;
		return size;
	default:
		return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	return base + off;
}

unsigned file_poll(struct file *f, struct poll_table *pt)
{
	if (f->ops->poll)
		return f->ops->poll(f, pt);
	return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
}
