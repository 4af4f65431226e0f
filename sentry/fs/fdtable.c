/* Guest descriptor tables: a growable array of (file, close-on-exec). */
#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/fs/inotify.h"
#include "sentry/fs/locks.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A process closing any descriptor of a file drops its POSIX locks and its
 * dnotify registration on it (Linux's filp_close). */
static void fd_closed(struct file *f)
{
	struct task *t = current_task();

	if (t && f->inode && f->inode->locks)
		locks_remove_posix(f, task_lock_owner(t));
	if (t && !(f->fmode & FMODE_PATH))
		dnotify_flush(f, task_lock_owner(t));
}

struct fdtable *fdtable_new(void)
{
	struct fdtable *t = xzalloc(sizeof(*t));

	t->refs = 1;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

struct fdtable *fdtable_get(struct fdtable *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void fdtable_put(struct fdtable *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (unsigned i = 0; i < t->size; i++)
		file_put(t->fds[i].file);
	free(t->fds);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Make room for fd (lock held). */
static void grow(struct fdtable *t, unsigned fd)
{
	unsigned n = t->size ? t->size : 64;

	if (fd < t->size)
		return;
	while (n <= fd)
		n *= 2;
	t->fds = xrealloc(t->fds, n * sizeof(*t->fds));
	memset(t->fds + t->size, 0, (n - t->size) * sizeof(*t->fds));
	t->size = n;
}

struct fdtable *fdtable_dup(struct fdtable *t)
{
	struct fdtable *n = fdtable_new();

	pthread_mutex_lock(&t->lock);
	if (t->size) {
		grow(n, t->size - 1);
		for (unsigned i = 0; i < t->size; i++) {
			n->fds[i] = t->fds[i];
			if (n->fds[i].file)
				file_get(n->fds[i].file);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

int fd_install(struct fdtable *t, struct file *f, int minfd, bool cloexec, unsigned limit)
{
	int ret = -EMFILE;

	if (minfd < 0)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	for (unsigned fd = (unsigned)minfd; fd < limit; fd++) {
		if (fd < t->size && t->fds[fd].file)
			continue;
		grow(t, fd);
		t->fds[fd].file = file_get(f);
		t->fds[fd].cloexec = cloexec;
		ret = (int)fd;
		break;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int fd_install_at(struct fdtable *t, struct file *f, int fd, bool cloexec, unsigned limit)
{
	struct file *old = NULL;

	if (fd < 0 || (unsigned)fd >= limit)
		return -EBADF;
	pthread_mutex_lock(&t->lock);
	grow(t, (unsigned)fd);
	old = t->fds[fd].file;
	t->fds[fd].file = file_get(f);
	t->fds[fd].cloexec = cloexec;
	pthread_mutex_unlock(&t->lock);
	if (old) {
		fd_closed(old);
		file_put(old);
	}
	return fd;
}

static struct file *get_file(struct fdtable *t, int fd, bool raw)
{
	struct file *f = NULL, *e;

	if (fd < 0)
		return NULL;
	pthread_mutex_lock(&t->lock);
	if ((unsigned)fd < t->size && (e = t->fds[fd].file) && (raw || !(e->fmode & FMODE_PATH)))
		f = file_get(e);
	pthread_mutex_unlock(&t->lock);
	return f;
}

struct file *fd_get(struct fdtable *t, int fd)
{
	return get_file(t, fd, false);
}

struct file *fd_get_raw(struct fdtable *t, int fd)
{
	return get_file(t, fd, true);
}

int fd_close(struct fdtable *t, int fd)
{
	struct file *f = NULL;

	if (fd < 0)
		return -EBADF;
	pthread_mutex_lock(&t->lock);
	if ((unsigned)fd < t->size) {
		f = t->fds[fd].file;
		t->fds[fd].file = NULL;
		t->fds[fd].cloexec = false;
	}
	pthread_mutex_unlock(&t->lock);
	if (!f)
		return -EBADF;
	fd_closed(f);
	file_put(f);
	return 0;
}

void fd_close_range(struct fdtable *t, unsigned lo, unsigned hi, bool cloexec_only)
{
	for (;;) {
		struct file *f = NULL;
		pthread_mutex_lock(&t->lock);
		for (; lo <= hi && lo < t->size; lo++) {
			if (!t->fds[lo].file)
				continue;
			if (cloexec_only) {
				t->fds[lo].cloexec = true;
				continue;
			}
			f = t->fds[lo].file;
			t->fds[lo].file = NULL;
			t->fds[lo].cloexec = false;
			break;
		}
		pthread_mutex_unlock(&t->lock);
		if (!f)
			return;
		/* Release outside the lock: a release may block (gofer, pipes). */
		fd_closed(f);
		file_put(f);
	}
}

void fd_close_on_exec(struct fdtable *t)
{
	for (unsigned fd = 0;; fd++) {
		struct file *f = NULL;
		pthread_mutex_lock(&t->lock);
		for (; fd < t->size; fd++) {
			if (t->fds[fd].file && t->fds[fd].cloexec) {
				f = t->fds[fd].file;
				t->fds[fd].file = NULL;
				t->fds[fd].cloexec = false;
				break;
			}
		}
		pthread_mutex_unlock(&t->lock);
		if (!f)
			return;
		fd_closed(f);
		file_put(f);
	}
}

int fd_get_cloexec(struct fdtable *t, int fd)
{
	int ret = -EBADF;

	if (fd < 0)
		return ret;
	pthread_mutex_lock(&t->lock);
	if ((unsigned)fd < t->size && t->fds[fd].file)
		ret = t->fds[fd].cloexec;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int fd_set_cloexec(struct fdtable *t, int fd, bool cloexec)
{
	int ret = -EBADF;

	if (fd < 0)
		return ret;
	pthread_mutex_lock(&t->lock);
	if ((unsigned)fd < t->size && t->fds[fd].file) {
		t->fds[fd].cloexec = cloexec;
		ret = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

void fd_for_each(struct fdtable *t, void (*fn)(int fd, struct file *f, void *arg), void *arg)
{
	pthread_mutex_lock(&t->lock);
	for (unsigned i = 0; i < t->size; i++)
		if (t->fds[i].file)
			fn((int)i, t->fds[i].file, arg);
	pthread_mutex_unlock(&t->lock);
}
