/*
 * inotify instances, watches and event queues (Linux's inotify_user.c and
 * inotify_fsnotify.c). inotify_lock guards every watch list (an inode's
 * and an instance's), every queue and the per-user counts. A watch holds
 * a reference on its inode and on the dentry it was found by: a layered
 * filesystem makes a new inode when a dentry is looked up again, and the
 * pinned dentry keeps lookups on the watched one.
 *
 * The queue is read without inotify_lock by poll (its length is atomic),
 * so that waking pollers under the lock cannot invert an epoll lock.
 */
#include "config.h"
#include "sentry/fs/inotify.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/fasync.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* What a guest read returns per event: struct inotify_event, then the name
 * padded with NULs to a multiple of its size. */
#define EVENT_HEAD sizeof(struct inotify_event)

struct kevent {
	struct list_head link;
	int32_t wd;
	uint32_t mask, cookie;
	uint32_t namelen; /* strlen(name); 0: no name */
	char name[];
};

struct inotify_instance {
	struct list_head events; /* struct kevent, oldest first */
	unsigned nevents;	 /* read by poll without the lock */
	bool overflowed;	 /* the IN_Q_OVERFLOW event is queued */
	struct list_head watches;
	int last_wd; /* wds go up (Linux's idr_alloc_cyclic) */
	struct user_counts *user;
	struct waitq wq;
};

/* A watch of an instance, or (in NULL) a dnotify registration: the file f
 * the process id registered on directory inode, signalling through dn. */
struct inotify_watch {
	struct list_head on_inode, on_instance;
	struct inotify_instance *in;
	struct inode *inode;
	struct dentry *dentry;
	int wd;
	uint32_t mask; /* IN_ALL_EVENTS bits and IN_ONESHOT/IN_EXCL_UNLINK */
	/* dnotify: */
	struct fown *dn;
	const struct file *dn_file;
	const void *dn_id;
	int dn_fd;
	bool dn_multishot;
};

/* inode->inotify: the watches on an inode. */
struct inotify_marks {
	struct list_head watches;
	bool gone_pending; /* unlinked while open: gone at the last close */
};

/* What one user has (Linux's ucounts, for the limits). */
struct user_counts {
	struct list_head link;
	uint32_t uid;
	unsigned instances, watches;
};

static pthread_mutex_t inotify_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head users = LIST_HEAD_INIT(users);
static uint32_t cookie_counter;
unsigned long inotify_watches;

static const struct file_ops inotify_ops;

/* Linux's rule: watches may take 1% of the memory, each charged about
 * 1.3 KiB (a mark and two inodes), and at least 8192, at most 2^20. */
#define WATCH_COST 1312

unsigned inotify_max_user_watches(void)
{
	static unsigned max;
	unsigned m = __atomic_load_n(&max, __ATOMIC_RELAXED);

	if (!m) {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		uint64_t n = pages > 0 && size > 0
				     ? (uint64_t)(pages / 100) * (uint64_t)size / WATCH_COST
				     : 0;
		m = (unsigned)(n < 8192 ? 8192 : n > 1048576 ? 1048576 : n);
		__atomic_store_n(&max, m, __ATOMIC_RELAXED);
	}
	return m;
}

uint32_t inotify_next_cookie(void)
{
	return __atomic_add_fetch(&cookie_counter, 1, __ATOMIC_RELAXED);
}

static size_t kevent_size(const struct kevent *e)
{
	return EVENT_HEAD + (e->namelen ? ALIGN_UP(e->namelen + 1, EVENT_HEAD) : 0);
}

/* Under inotify_lock: uid's counts, made on first use. */
static struct user_counts *user_find(uint32_t uid)
{
	struct user_counts *u;

	list_for_each_entry(u, &users, link)
		if (u->uid == uid)
			return u;
	u = xzalloc(sizeof(*u));
	u->uid = uid;
	list_add(&u->link, &users);
	return u;
}

static void user_drop_if_unused(struct user_counts *u)
{
	if (!u->instances && !u->watches) {
		list_del(&u->link);
		free(u);
	}
}

/* Under inotify_lock: queue an event (Linux's fsnotify_add_event with
 * inotify_merge): one identical to the last queued is dropped, and past
 * max_queued_events a single IN_Q_OVERFLOW stands for all that are lost. */
static void queue_event(struct inotify_instance *in, int32_t wd, uint32_t mask, uint32_t cookie,
			const char *name)
{
	size_t namelen = name ? strlen(name) : 0;
	struct kevent *e;

	if (in->nevents >= INOTIFY_MAX_QUEUED_EVENTS) {
		if (in->overflowed)
			return;
		wd = -1, mask = IN_Q_OVERFLOW, cookie = 0, namelen = 0;
		in->overflowed = true;
	} else if (!list_empty(&in->events)) {
		struct kevent *last = list_entry(in->events.prev, struct kevent, link);
		if (!(last->mask & IN_IGNORED) && last->mask == mask && last->wd == wd &&
		    last->namelen == namelen && (!namelen || !strcmp(last->name, name)))
			return;
	}
	e = xmalloc(sizeof(*e) + namelen + 1);
	e->wd = wd;
	e->mask = mask;
	e->cookie = cookie;
	e->namelen = (uint32_t)namelen;
	memcpy(e->name, namelen ? name : "", namelen + 1);
	list_add_tail(&e->link, &in->events);
	__atomic_store_n(&in->nevents, in->nevents + 1, __ATOMIC_RELEASE);
	waitq_wake_events(&in->wq, POLLIN | POLLRDNORM);
}

/* Under inotify_lock: free inode's marks once no watch is left in them. */
static void marks_trim(struct inode *inode)
{
	struct inotify_marks *m = inode->inotify;

	if (m && list_empty(&m->watches)) {
		__atomic_store_n(&inode->inotify, NULL, __ATOMIC_RELEASE);
		free(m);
	}
}

/*
 * Under inotify_lock: take w off its inode and instance, queueing
 * IN_IGNORED (the caller trims the inode's marks). Its references go to
 * *dead, for watches_free() after the lock is dropped (a dentry's last
 * put may reach the filesystem).
 */
static void watch_unlink(struct inotify_watch *w, struct list_head *dead)
{
	list_del(&w->on_inode);
	if (w->in) {
		queue_event(w->in, w->wd, IN_IGNORED, 0, NULL);
		list_del(&w->on_instance);
		w->in->user->watches--;
	}
	__atomic_sub_fetch(&inotify_watches, 1, __ATOMIC_RELEASE);
	list_add_tail(&w->on_instance, dead);
}

/* watch_unlink, then trim: for a watch taken off by itself. */
static void watch_drop(struct inotify_watch *w, struct list_head *dead)
{
	struct inode *inode = w->inode; /* alive: *dead holds its reference */

	watch_unlink(w, dead);
	marks_trim(inode);
}

static void watches_free(struct list_head *dead)
{
	struct inotify_watch *w, *n;

	list_for_each_entry_safe(w, n, dead, on_instance) {
		dentry_put(w->dentry);
		inode_put(w->inode);
		if (w->dn)
			fasync_owner_put(w->dn);
		free(w);
	}
}

/* Under inotify_lock: a dnotify registration hears mask: its owner is
 * signalled, and a one-shot registration ends. */
static void dnotify_event(struct inotify_watch *w, uint32_t mask, struct list_head *dead)
{
	if (!(w->mask & mask & ~IN_ISDIR))
		return;
	fasync_owner_msg(w->dn, w->dn_fd);
	if (!w->dn_multishot)
		watch_unlink(w, dead);
}

void inotify_event(struct inode *inode, uint32_t mask, uint32_t cookie, const char *name,
		   bool unlinked)
{
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct inotify_watch *w, *n;
	struct inotify_marks *m;

	pthread_mutex_lock(&inotify_lock);
	m = inode->inotify;
	if (m) {
		list_for_each_entry_safe(w, n, &m->watches, on_inode) {
			if (!w->in) {
				dnotify_event(w, mask, &dead);
				continue;
			}
			if (!(w->mask & mask & IN_ALL_EVENTS))
				continue;
			if (unlinked && (w->mask & IN_EXCL_UNLINK))
				continue;
			queue_event(w->in, w->wd, mask, cookie, name);
			if (w->mask & IN_ONESHOT)
				watch_unlink(w, &dead);
		}
		marks_trim(inode);
	}
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
}

/* Under inotify_lock: IN_DELETE_SELF, then every watch on inode goes. */
static void inode_gone(struct inode *inode, struct list_head *dead)
{
	struct inotify_marks *m = inode->inotify;
	struct inotify_watch *w, *n;

	list_for_each_entry_safe(w, n, &m->watches, on_inode) {
		if (w->mask & IN_DELETE_SELF)
			queue_event(w->in, w->wd, IN_DELETE_SELF, 0, NULL);
		watch_unlink(w, dead);
	}
	marks_trim(inode);
}

/*
 * Both under inotify_lock, with nopen counted down before the close's
 * check: whichever of the unlink and the last close comes second sees
 * the other and ends the watches.
 */
void inotify_inode_unlinked(struct inode *inode)
{
	struct list_head dead = LIST_HEAD_INIT(dead);

	pthread_mutex_lock(&inotify_lock);
	if (inode->inotify && __atomic_load_n(&inode->nopen, __ATOMIC_ACQUIRE))
		inode->inotify->gone_pending = true;
	else if (inode->inotify)
		inode_gone(inode, &dead);
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
}

void inotify_inode_closed(struct inode *inode)
{
	struct list_head dead = LIST_HEAD_INIT(dead);

	pthread_mutex_lock(&inotify_lock);
	if (inode->inotify && inode->inotify->gone_pending &&
	    !__atomic_load_n(&inode->nopen, __ATOMIC_ACQUIRE))
		inode_gone(inode, &dead);
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
}

/* The mask a watch keeps of what add_watch was given. */
static uint32_t watch_mask(uint32_t arg)
{
	return arg & (IN_ALL_EVENTS | IN_ONESHOT | IN_EXCL_UNLINK);
}

int inotify_watch_add(struct file *f, const struct path *p, uint32_t mask)
{
	struct inotify_instance *in = f->priv;
	struct inode *inode = p->dentry->inode;
	struct inotify_marks *m;
	struct inotify_watch *w;
	int ret;

	pthread_mutex_lock(&inotify_lock);
	m = inode->inotify;
	if (m) {
		list_for_each_entry(w, &m->watches, on_inode) {
			if (w->in != in)
				continue;
			if (mask & IN_MASK_CREATE) {
				ret = -EEXIST;
			} else {
				w->mask = watch_mask(mask) | ((mask & IN_MASK_ADD) ? w->mask : 0);
				ret = w->wd;
			}
			pthread_mutex_unlock(&inotify_lock);
			return ret;
		}
	}
	if (in->user->watches >= inotify_max_user_watches() || in->last_wd == INT32_MAX) {
		pthread_mutex_unlock(&inotify_lock);
		return -ENOSPC;
	}
	if (!m) {
		m = xzalloc(sizeof(*m));
		list_init(&m->watches);
		__atomic_store_n(&inode->inotify, m, __ATOMIC_RELEASE);
	}
	w = xzalloc(sizeof(*w));
	w->in = in;
	w->inode = inode_get(inode);
	w->dentry = dentry_get(p->dentry);
	w->wd = ++in->last_wd;
	w->mask = watch_mask(mask);
	list_add_tail(&w->on_inode, &m->watches);
	list_add_tail(&w->on_instance, &in->watches);
	in->user->watches++;
	__atomic_add_fetch(&inotify_watches, 1, __ATOMIC_RELEASE);
	ret = w->wd;
	pthread_mutex_unlock(&inotify_lock);
	return ret;
}

int inotify_watch_remove(struct file *f, int wd)
{
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct inotify_instance *in = f->priv;
	struct inotify_watch *w;
	int ret = -EINVAL;

	pthread_mutex_lock(&inotify_lock);
	list_for_each_entry(w, &in->watches, on_instance) {
		if (w->wd == wd) {
			watch_drop(w, &dead);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
	return ret;
}

/* --- the instance's file ------------------------------------------------------ */

/* Under inotify_lock: move whole events that fit in len into buf. */
static size_t take_events(struct inotify_instance *in, char *buf, size_t len)
{
	size_t done = 0;

	while (!list_empty(&in->events)) {
		struct kevent *e = list_first_entry(&in->events, struct kevent, link);
		size_t size = kevent_size(e);
		struct inotify_event head = {.wd = e->wd,
					     .mask = e->mask,
					     .cookie = e->cookie,
					     .len = (uint32_t)(size - EVENT_HEAD)};

		if (size > len - done)
			break;
		memcpy(buf + done, &head, EVENT_HEAD);
		memset(buf + done + EVENT_HEAD, 0, size - EVENT_HEAD);
		memcpy(buf + done + EVENT_HEAD, e->name, e->namelen);
		done += size;
		if (e->mask == IN_Q_OVERFLOW && e->wd == -1)
			in->overflowed = false;
		list_del(&e->link);
		free(e);
		__atomic_store_n(&in->nevents, in->nevents - 1, __ATOMIC_RELEASE);
	}
	return done;
}

static long inotify_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct inotify_instance *in = f->priv;
	struct task *t = current_task();

	pthread_mutex_lock(&inotify_lock);
	for (;;) {
		struct waiter w = {0};
		uint32_t snap;
		size_t n;
		int ret;

		if (!list_empty(&in->events)) {
			n = take_events(in, buf, len);
			pthread_mutex_unlock(&inotify_lock);
			return n ? (long)n : -EINVAL; /* the next event does not fit */
		}
		if (f->flags & O_NONBLOCK) {
			pthread_mutex_unlock(&inotify_lock);
			return -EAGAIN;
		}
		if (!t) {
			pthread_mutex_unlock(&inotify_lock);
			return -ERESTARTSYS;
		}
		snap = waiter_prepare(&in->wq, &w, t);
		pthread_mutex_unlock(&inotify_lock);
		ret = task_block(t, snap, 0);
		waiter_finish(&in->wq, &w);
		if (ret < 0)
			return -ERESTARTSYS;
		pthread_mutex_lock(&inotify_lock);
	}
}

static unsigned inotify_poll(struct file *f, struct poll_table *pt)
{
	struct inotify_instance *in = f->priv;

	poll_wait(pt, &in->wq);
	return __atomic_load_n(&in->nevents, __ATOMIC_ACQUIRE) ? POLLIN | POLLRDNORM : 0;
}

static long inotify_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	struct inotify_instance *in = f->priv;
	struct kevent *e;
	size_t bytes = 0;

	if (cmd != FIONREAD)
		return -ENOTTY;
	pthread_mutex_lock(&inotify_lock);
	list_for_each_entry(e, &in->events, link)
		bytes += kevent_size(e);
	pthread_mutex_unlock(&inotify_lock);
	*(int *)arg = (int)bytes;
	return 0;
}

static int64_t inotify_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* noop_llseek */
}

static void inotify_release(struct file *f)
{
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct inotify_instance *in = f->priv;
	struct inotify_watch *w, *n;
	struct kevent *e, *en;

	pthread_mutex_lock(&inotify_lock);
	list_for_each_entry_safe(w, n, &in->watches, on_instance)
		watch_drop(w, &dead);
	list_for_each_entry_safe(e, en, &in->events, link)
		free(e);
	in->user->instances--;
	user_drop_if_unused(in->user);
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
	free(in);
}

/* One line per watch, newest first as Linux lists the group's marks
 * (without the file handle Linux appends where the filesystem exports one). */
static void inotify_show_fdinfo(struct file *f, struct strbuf *o)
{
	struct inotify_instance *in = f->priv;
	struct list_head *p;

	pthread_mutex_lock(&inotify_lock);
	for (p = in->watches.prev; p != &in->watches; p = p->prev) {
		struct inotify_watch *w = container_of(p, struct inotify_watch, on_instance);
		struct kstat st = {0};

		inode_stat(w->inode, &st);
		strbuf_printf(o, "inotify wd:%x ino:%llx sdev:%x mask:%x ignored_mask:0 \n", w->wd,
			      (unsigned long long)st.ino, kdev_of(st.dev),
			      w->mask & (IN_ALL_EVENTS | IN_ONESHOT | IN_EXCL_UNLINK));
	}
	pthread_mutex_unlock(&inotify_lock);
}

static const struct file_ops inotify_ops = {
	.show_fdinfo = inotify_show_fdinfo,
	.read = inotify_read,
	.ioctl = inotify_ioctl,
	.llseek = inotify_llseek,
	.poll = inotify_poll,
	.release = inotify_release,
};

bool inotify_file_is(struct file *f)
{
	return f->ops == &inotify_ops;
}

int inotify_file_new(uint32_t uid, int flags, struct file **out)
{
	struct inotify_instance *in;
	struct user_counts *u;

	pthread_mutex_lock(&inotify_lock);
	u = user_find(uid);
	if (u->instances >= INOTIFY_MAX_USER_INSTANCES) {
		user_drop_if_unused(u);
		pthread_mutex_unlock(&inotify_lock);
		return -EMFILE;
	}
	u->instances++;
	pthread_mutex_unlock(&inotify_lock);
	in = xzalloc(sizeof(*in));
	list_init(&in->events);
	list_init(&in->watches);
	waitq_init(&in->wq);
	in->user = u;
	*out = anon_file_new("inotify", &inotify_ops, O_RDONLY | (flags & O_NONBLOCK), in);
	return 0;
}

/* --- dnotify ------------------------------------------------------------------ */

/* DN_* as the events it hears (Linux's convert_arg). */
static uint32_t dnotify_mask(unsigned long arg)
{
	uint32_t m = 0;

	if (arg & DN_ACCESS)
		m |= IN_ACCESS;
	if (arg & DN_MODIFY)
		m |= IN_MODIFY;
	if (arg & DN_CREATE)
		m |= IN_CREATE | IN_MOVED_TO;
	if (arg & DN_DELETE)
		m |= IN_DELETE | IN_MOVED_FROM;
	if (arg & DN_RENAME)
		m |= FSNOTIFY_RENAME;
	if (arg & DN_ATTRIB)
		m |= IN_ATTRIB;
	return m;
}

/* Under inotify_lock: the registration of file f by id on inode, if any. */
static struct inotify_watch *dnotify_find(struct inode *inode, const struct file *f, const void *id)
{
	struct inotify_watch *w;

	if (!inode->inotify)
		return NULL;
	list_for_each_entry(w, &inode->inotify->watches, on_inode)
		if (!w->in && w->dn_file == f && (!id || w->dn_id == id))
			return w;
	return NULL;
}

/* Take off every registration of f (by id; NULL: by anyone). */
static void dnotify_remove(struct file *f, const void *id)
{
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct inode *inode = f->path.dentry ? f->path.dentry->inode : NULL;
	struct inotify_watch *w;

	if (!inode || !S_ISDIR(inode->mode) || !__atomic_load_n(&inode->inotify, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&inotify_lock);
	while ((w = dnotify_find(inode, f, id)))
		watch_unlink(w, &dead);
	marks_trim(inode);
	pthread_mutex_unlock(&inotify_lock);
	watches_free(&dead);
}

long dnotify_fcntl(struct task *t, struct file *f, int fd, unsigned long arg)
{
	const void *id = task_lock_owner(t);
	struct inode *inode = f->path.dentry ? f->path.dentry->inode : NULL;
	struct inotify_marks *m;
	struct inotify_watch *w;
	struct fown *o;

	if (!(arg & ~(unsigned long)DN_MULTISHOT)) {
		dnotify_remove(f, id);
		return 0;
	}
	if (!inode || !S_ISDIR(inode->mode))
		return -ENOTDIR;
	/* Linux makes the registering process the owner (__f_setown). */
	if (fasync_setown(t, f, FOWN_PID, t->tgid) < 0)
		return -ESRCH;
	o = fasync_owner_hold(f);
	pthread_mutex_lock(&inotify_lock);
	w = dnotify_find(inode, f, id);
	if (w) { /* more events for the same registration (attach_dn) */
		w->mask |= dnotify_mask(arg);
		w->dn_multishot = w->dn_multishot || (arg & DN_MULTISHOT);
		w->dn_fd = fd;
		pthread_mutex_unlock(&inotify_lock);
		fasync_owner_put(o);
		return 0;
	}
	m = inode->inotify;
	if (!m) {
		m = xzalloc(sizeof(*m));
		list_init(&m->watches);
		__atomic_store_n(&inode->inotify, m, __ATOMIC_RELEASE);
	}
	w = xzalloc(sizeof(*w));
	list_init(&w->on_instance);
	w->inode = inode_get(inode);
	w->dentry = dentry_get(f->path.dentry);
	w->mask = dnotify_mask(arg);
	w->dn = o;
	w->dn_file = f;
	w->dn_id = id;
	w->dn_fd = fd;
	w->dn_multishot = (arg & DN_MULTISHOT) != 0;
	list_add_tail(&w->on_inode, &m->watches);
	__atomic_add_fetch(&inotify_watches, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&inotify_lock);
	return 0;
}

void dnotify_flush(struct file *f, const void *id)
{
	dnotify_remove(f, id);
}

void dnotify_release(struct file *f)
{
	dnotify_remove(f, NULL);
}
