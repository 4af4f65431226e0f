/*
 * Advisory file locks, kept per inode in the sentry:
 *  - POSIX record locks (fcntl F_SETLK...): owned by a process; all of a
 *    process's locks on a file go when it closes any descriptor of it;
 *  - open file description locks (F_OFD_SETLK...): owned by the description;
 *  - BSD locks (flock): whole file, owned by the description, a separate
 *    namespace from the other two.
 * Conflicts: overlapping ranges, different owners, at least one write lock.
 * And leases (fcntl F_SETLEASE), owned by the description, which the sentry
 * grants but never breaks (see locks_setlease).
 */
#include "config.h"
#include "sentry/fs/locks.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/wait.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#define OFFSET_MAX INT64_MAX

struct file_lock {
	struct list_head link;
	const void *owner; /* a struct file * (OFD, flock) or a process tag (POSIX) */
	bool flock;	   /* BSD lock namespace */
	bool ofd;
	short type;	    /* F_RDLCK / F_WRLCK */
	int64_t start, end; /* inclusive */
	int pid;	    /* reported by F_GETLK */
};

/* A lease: the description that holds it and its type. */
struct file_lease {
	struct list_head link;
	struct file *owner;
	short type; /* F_RDLCK / F_WRLCK */
};

struct inode_locks {
	struct list_head locks;
	struct list_head leases;
	struct waitq wq;
};

static pthread_mutex_t locks_lock = PTHREAD_MUTEX_INITIALIZER;

static struct inode_locks *locks_of(struct inode *i, bool create)
{
	if (!i->locks && create) {
		struct inode_locks *l = xzalloc(sizeof(*l));
		list_init(&l->locks);
		list_init(&l->leases);
		waitq_init(&l->wq);
		i->locks = l;
	}
	return i->locks;
}

static bool conflicts(const struct file_lock *a, const struct file_lock *b)
{
	if (a->flock != b->flock || a->owner == b->owner)
		return false;
	if (a->type != F_WRLCK && b->type != F_WRLCK)
		return false;
	return a->start <= b->end && b->start <= a->end;
}

static struct file_lock *find_conflict(struct inode_locks *l, const struct file_lock *want)
{
	struct file_lock *fl;

	list_for_each_entry(fl, &l->locks, link)
		if (conflicts(fl, want))
			return fl;
	return NULL;
}

/* Remove owner's range [start, end] from the list (splitting where needed). */
static void remove_range(struct inode_locks *l, const void *owner, bool flock, int64_t start,
			 int64_t end)
{
	struct file_lock *fl, *n;

	list_for_each_entry_safe(fl, n, &l->locks, link) {
		if (fl->owner != owner || fl->flock != flock || fl->end < start || fl->start > end)
			continue;
		if (fl->start < start && fl->end > end) {
			/* A hole in the middle: keep both sides. */
			struct file_lock *tail = xmalloc(sizeof(*tail));
			*tail = *fl;
			tail->start = end + 1;
			fl->end = start - 1;
			list_add(&tail->link, &fl->link);
		} else if (fl->start < start) {
			fl->end = start - 1;
		} else if (fl->end > end) {
			fl->start = end + 1;
		} else {
			list_del(&fl->link);
			free(fl);
		}
	}
}

/* Set or clear want (type F_UNLCK clears); block when asked to wait. */
static int lock_apply(struct inode *inode, struct file_lock *want, bool wait)
{
	struct task *t = current_task();
	struct inode_locks *l;
	int ret = 0;

	pthread_mutex_lock(&locks_lock);
	l = locks_of(inode, true);
	for (;;) {
		struct waiter w = {0};
		uint32_t snap;
		if (want->type == F_UNLCK || !find_conflict(l, want))
			break;
		if (!wait || !t) {
			ret = -EAGAIN;
			goto out;
		}
		snap = waiter_prepare(&l->wq, &w, t);
		pthread_mutex_unlock(&locks_lock);
		ret = task_block(t, snap, 0);
		waiter_finish(&l->wq, &w);
		pthread_mutex_lock(&locks_lock);
		if (ret < 0) {
			ret = -ERESTARTSYS;
			goto out;
		}
	}
	remove_range(l, want->owner, want->flock, want->start, want->end);
	if (want->type != F_UNLCK) {
		struct file_lock *fl = xmalloc(sizeof(*fl));
		*fl = *want;
		list_add_tail(&fl->link, &l->locks);
	}
	ret = 0;
out:
	pthread_mutex_unlock(&locks_lock);
	if (ret == 0)
		waitq_wake_all(&l->wq);
	return ret;
}

/* Translate a struct flock into an inclusive range. */
static int flock_range(struct file *f, const struct flock *fl, int64_t *start, int64_t *end)
{
	int64_t base;

	switch (fl->l_whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = f->pos;
		break;
	case SEEK_END:
		base = f->inode ? (int64_t)f->inode->size : 0;
		break;
	default:
		return -EINVAL;
	}
	if ((fl->l_start > 0 && base > OFFSET_MAX - fl->l_start) || base + fl->l_start < 0)
		return -EINVAL;
	base += fl->l_start;
	if (fl->l_len > 0) {
		if (fl->l_len - 1 > OFFSET_MAX - base)
			return -EOVERFLOW;
		*start = base;
		*end = base + fl->l_len - 1;
	} else if (fl->l_len < 0) {
		if (base + fl->l_len < 0)
			return -EINVAL;
		*start = base + fl->l_len;
		*end = base - 1;
	} else {
		*start = base;
		*end = OFFSET_MAX;
	}
	return 0;
}

int locks_fcntl(struct file *f, int cmd, struct flock *fl, const void *posix_owner, int pid)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	struct file_lock want = {.owner = ofd ? (const void *)f : posix_owner, .ofd = ofd};
	int flags = file_getfl(f), ret;

	if (!f->inode)
		return -EBADF;
	if (ofd && fl->l_pid != 0)
		return -EINVAL;
	if (fl->l_type != F_RDLCK && fl->l_type != F_WRLCK && fl->l_type != F_UNLCK)
		return -EINVAL;
	ret = flock_range(f, fl, &want.start, &want.end);
	if (ret)
		return ret;
	want.type = fl->l_type;
	want.pid = ofd ? -1 : pid;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		struct file_lock *c = NULL;
		struct inode_locks *l;
		if (want.type == F_UNLCK)
			return -EINVAL;
		pthread_mutex_lock(&locks_lock);
		l = locks_of(f->inode, false);
		if (l)
			c = find_conflict(l, &want);
		if (c) {
			fl->l_type = c->type;
			fl->l_whence = SEEK_SET;
			fl->l_start = c->start;
			fl->l_len = c->end == OFFSET_MAX ? 0 : c->end - c->start + 1;
			fl->l_pid = c->pid;
		} else {
			fl->l_type = F_UNLCK;
		}
		pthread_mutex_unlock(&locks_lock);
		/* The holder as the caller's pid namespace numbers it (0: outside). */
		if (c && fl->l_pid > 0 && current_task()) {
			struct task *me = current_task();
			fl->l_pid = pidns_view(me->k, me->pidns, fl->l_pid);
		}
		return 0;
	}
	if (want.type == F_RDLCK && !flags_readable(flags))
		return -EBADF;
	if (want.type == F_WRLCK && !flags_writable(flags))
		return -EBADF;
	return lock_apply(f->inode, &want, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

int locks_flock(struct file *f, int op)
{
	struct file_lock want = {.owner = f, .flock = true, .start = 0, .end = OFFSET_MAX};

	if (!f->inode)
		return -EBADF;
	switch (op & ~LOCK_NB) {
	case LOCK_SH:
		want.type = F_RDLCK;
		break;
	case LOCK_EX:
		want.type = F_WRLCK;
		break;
	case LOCK_UN:
		want.type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	return lock_apply(f->inode, &want, !(op & LOCK_NB));
}

void locks_remove_posix(struct file *f, const void *owner)
{
	struct inode_locks *l;

	if (!f->inode)
		return;
	pthread_mutex_lock(&locks_lock);
	l = locks_of(f->inode, false);
	if (l)
		remove_range(l, owner, false, 0, OFFSET_MAX);
	pthread_mutex_unlock(&locks_lock);
	if (l)
		waitq_wake_all(&l->wq);
}

/* The lease f holds in l, or NULL. */
static struct file_lease *lease_of(struct inode_locks *l, struct file *f)
{
	struct file_lease *le;

	list_for_each_entry(le, &l->leases, link)
		if (le->owner == f)
			return le;
	return NULL;
}

/*
 * Linux's generic_add_lease and generic_delete_lease for one description.
 * The sentry does not count a file's opens, so F_WRLCK is refused only for
 * another lease, not for another open, and no lease is ever broken (no
 * SIGIO, a conflicting open neither waits nor fails): table.c says so.
 */
int locks_setlease(struct file *f, long type, bool may_lease)
{
	struct inode_locks *l;
	struct file_lease *mine, *le;
	int ret = 0;

	if (type != F_RDLCK && type != F_WRLCK && type != F_UNLCK)
		return -EINVAL;
	if (!may_lease)
		return -EACCES;
	if (!f->inode || !S_ISREG(f->inode->mode))
		return -EINVAL;
	/* A read lease is for a file nobody writes, this description neither. */
	if (type == F_RDLCK && flags_writable(file_getfl(f)))
		return -EAGAIN;
	pthread_mutex_lock(&locks_lock);
	l = locks_of(f->inode, type != F_UNLCK);
	mine = l ? lease_of(l, f) : NULL;
	if (type == F_UNLCK) {
		if (mine) {
			list_del(&mine->link);
			free(mine);
		} else {
			ret = -EAGAIN;
		}
		pthread_mutex_unlock(&locks_lock);
		return ret;
	}
	list_for_each_entry(le, &l->leases, link)
		if (le != mine && (type == F_WRLCK || le->type == F_WRLCK))
			ret = -EAGAIN;
	if (ret == 0 && !mine) {
		mine = xzalloc(sizeof(*mine));
		mine->owner = f;
		list_add_tail(&mine->link, &l->leases);
	}
	if (ret == 0)
		mine->type = (short)type;
	pthread_mutex_unlock(&locks_lock);
	return ret;
}

int locks_getlease(struct file *f)
{
	struct inode_locks *l;
	struct file_lease *le;
	int type = F_UNLCK;

	if (!f->inode)
		return F_UNLCK;
	pthread_mutex_lock(&locks_lock);
	l = locks_of(f->inode, false);
	le = l ? lease_of(l, f) : NULL;
	if (le)
		type = le->type;
	pthread_mutex_unlock(&locks_lock);
	return type;
}

void locks_remove_file(struct file *f)
{
	struct inode_locks *l;
	struct file_lease *le;

	if (!f->inode)
		return;
	pthread_mutex_lock(&locks_lock);
	l = locks_of(f->inode, false);
	if (l) {
		remove_range(l, f, false, 0, OFFSET_MAX);
		remove_range(l, f, true, 0, OFFSET_MAX);
		le = lease_of(l, f);
		if (le) {
			list_del(&le->link);
			free(le);
		}
	}
	pthread_mutex_unlock(&locks_lock);
	if (l)
		waitq_wake_all(&l->wq);
}

void locks_inode_release(struct inode *inode)
{
	struct inode_locks *l = inode->locks;
	struct file_lock *fl, *n;

	if (!l)
		return;
	struct file_lease *le, *ln;

	list_for_each_entry_safe(fl, n, &l->locks, link)
		free(fl);
	list_for_each_entry_safe(le, ln, &l->leases, link)
		free(le);
	free(l);
	inode->locks = NULL;
}
