/*
 * Pipes: a ring buffer, reader and writer counts, and two wait queues.
 * Anonymous pipes get an inode and a (nameless) dentry on an internal
 * "pipefs" mount so fstat and /proc/pid/fd see them as Linux shows them
 * (pipe:[ino]), and opening /proc/pid/fd/N opens the pipe again as a fifo
 * (Linux's pipefifo_fops); fifos keep their pipe on their own inode.
 */
#include "config.h"
#include "sentry/fs/pipe.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIPEFS_MAGIC 0x50495045

struct pipe {
	int refs;
	pthread_mutex_t lock;
	/* The ring, made by the first write and charged to the sandbox's
	 * memory account (acct, NULL outside a task) until the pipe goes. */
	struct memacct *acct;
	char *buf;
	size_t cap, head, len; /* ring: data at [head, head+len) mod cap */
	/* Room promised to splices filling the pipe from another file, and
	 * whether a splice is draining it into one: the data stays in the
	 * ring until written there, and other readers wait. */
	size_t reserved;
	bool draining;
	unsigned readers, writers;
	unsigned r_opens, w_opens; /* opens for reading/writing (Linux's r/w_counter) */
	struct waitq rq, wq;	   /* waiting to read (or for a partner in open), to write */
};

/* The bytes a write may still add. */
static size_t pipe_room(struct pipe *p)
{
	return p->cap - p->len - p->reserved;
}

/* Linux's pipe_full() in bytes: less than a page of room. */
static bool pipe_full(struct pipe *p)
{
	return pipe_room(p) < PIPE_BUF_ATOMIC;
}

/* Copy n bytes from the head of the ring (n <= p->len), leaving them there. */
static void ring_peek(struct pipe *p, void *buf, size_t n)
{
	size_t at = p->head;

	for (size_t done = 0; done < n;) {
		size_t k = MIN(n - done, p->cap - at);
		memcpy((char *)buf + done, p->buf + at, k);
		at = (at + k) % p->cap;
		done += k;
	}
}

/* Drop n bytes from the head of the ring. */
static void ring_consume(struct pipe *p, size_t n)
{
	p->head = (p->head + n) % p->cap;
	p->len -= n;
	if (p->len == 0)
		p->head = 0;
}

/* Append n bytes (n <= the room) at the tail of the ring. */
static void ring_put(struct pipe *p, const void *buf, size_t n)
{
	for (size_t done = 0; done < n;) {
		size_t tail = (p->head + p->len) % p->cap;
		size_t k = MIN(n - done, p->cap - tail);
		memcpy(p->buf + tail, (const char *)buf + done, k);
		p->len += k;
		done += k;
	}
}

/* The ring's pages, made by the first write (as Linux allocates a pipe's
 * pages when written) and charged: 0, or -ENOMEM when the sandbox's
 * memory is used up. */
static int ring_alloc(struct pipe *p)
{
	if (p->buf)
		return 0;
	if (p->acct && memacct_charge(p->acct, p->cap) < 0)
		return -ENOMEM;
	p->buf = xmalloc(p->cap);
	return 0;
}

static struct pipe *pipe_new(void)
{
	struct pipe *p = xzalloc(sizeof(*p));
	struct task *t = current_task();

	p->refs = 1;
	p->cap = PIPE_DEFAULT_SIZE;
	p->acct = t ? &t->k->mf->acct : NULL;
	pthread_mutex_init(&p->lock, NULL);
	waitq_init(&p->rq);
	waitq_init(&p->wq);
	return p;
}

static void pipe_put(struct pipe *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (p->buf && p->acct)
		memacct_uncharge(p->acct, p->cap);
	free(p->buf);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* Sleep on wq with p->lock held; returns with it held. 0, or -ERESTARTSYS. */
static int pipe_wait(struct pipe *p, struct waitq *wq)
{
	struct task *t = current_task();
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (!t)
		return -ERESTARTSYS;
	snap = waiter_prepare(wq, &w, t);
	pthread_mutex_unlock(&p->lock);
	ret = task_block(t, snap, 0);
	waiter_finish(wq, &w);
	pthread_mutex_lock(&p->lock);
	return ret < 0 ? -ERESTARTSYS : 0;
}

/*
 * Wait, p->lock held, until the pipe holds data no splice is draining:
 * 1, or 0 at end of file (no writer), -EAGAIN (nonblock), -ERESTARTSYS.
 */
static int pipe_wait_data(struct pipe *p, bool nonblock)
{
	int ret;

	for (;;) {
		if (p->len && !p->draining)
			return 1;
		/* A drain in progress ends soon: wait for it even when
		 * nonblocking, as Linux's readers wait on the pipe's mutex. */
		if (!p->draining) {
			if (p->writers == 0)
				return 0;
			if (nonblock)
				return -EAGAIN;
		}
		ret = pipe_wait(p, &p->rq);
		if (ret < 0)
			return ret;
	}
}

/*
 * Wait, p->lock held, for a page of room (Linux's wait_for_space): 0, or
 * -EPIPE (no reader; the caller raises SIGPIPE), -EAGAIN, -ERESTARTSYS.
 */
static int pipe_wait_room(struct pipe *p, bool nonblock)
{
	int ret;

	for (;;) {
		if (p->readers == 0)
			return -EPIPE;
		if (!pipe_full(p))
			return 0;
		if (nonblock)
			return -EAGAIN;
		ret = pipe_wait(p, &p->wq);
		if (ret < 0)
			return ret;
	}
}

static long pipe_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct pipe *p = f->priv;
	size_t done;
	bool was_full;
	int ret;

	if (len == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	ret = pipe_wait_data(p, f->flags & O_NONBLOCK);
	if (ret <= 0) {
		pthread_mutex_unlock(&p->lock);
		return ret;
	}
	was_full = pipe_full(p);
	done = MIN(len, p->len);
	ring_peek(p, buf, done);
	ring_consume(p, done);
	pthread_mutex_unlock(&p->lock);
	/* As Linux: writers (and their epoll edges) hear of room only when the
	 * pipe was full; a blocked writer always waits for a full pipe. */
	if (was_full)
		waitq_wake_events(&p->wq, POLLOUT | POLLWRNORM);
	return (long)done;
}

/* A write the last reader's close cut short still earns SIGPIPE on Linux;
 * one that wrote nothing gets it with its -EPIPE in the syscall layer. */
static void sigpipe_partial(void)
{
	struct task *t = current_task();
	siginfo_t info;

	if (!t)
		return;
	siginfo_kernel(&info, SIGPIPE);
	info.si_code = SI_USER; /* Linux's send_sig: from the kernel, as kill() */
	info.si_pid = 0;
	signal_send(t, &info, false);
}

static long pipe_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct pipe *p = f->priv;
	size_t done = 0;
	int ret;

	if (len == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t space;
		if (p->readers == 0) {
			pthread_mutex_unlock(&p->lock);
			if (done)
				sigpipe_partial();
			return done ? (long)done : -EPIPE;
		}
		ret = ring_alloc(p);
		if (ret < 0) {
			pthread_mutex_unlock(&p->lock);
			return done ? (long)done : ret;
		}
		space = pipe_room(p);
		/* Up to PIPE_BUF bytes go in at once or not at all. */
		if (space && (len - done > PIPE_BUF_ATOMIC || space >= len - done)) {
			size_t n = MIN(len - done, space);
			ring_put(p, (const char *)buf + done, n);
			done += n;
			/* Every write wakes readers: epoll's edge-triggered
			 * users see one event per write, as on Linux. */
			waitq_wake_events(&p->rq, POLLIN | POLLRDNORM);
			if (done == len)
				break;
		}
		if (f->flags & O_NONBLOCK) {
			pthread_mutex_unlock(&p->lock);
			return done ? (long)done : -EAGAIN;
		}
		ret = pipe_wait(p, &p->wq);
		if (ret < 0) {
			pthread_mutex_unlock(&p->lock);
			return done ? (long)done : ret;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return (long)done;
}

static long pipe_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	struct pipe *p = f->priv;

	if (cmd != FIONREAD)
		return -ENOTTY;
	pthread_mutex_lock(&p->lock);
	*(int *)arg = (int)p->len;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int pipe_fstat(struct file *f, struct kstat *st)
{
	if (!f->inode)
		return -EBADF;
	inode_stat(f->inode, st);
	st->size = 0;
	return 0;
}

static int pipe_setfl(struct file *f, int flags)
{
	f->flags = flags;
	return 0;
}

/*
 * Readers: data is POLLIN; no writer left (once one was seen) is POLLHUP.
 * Writers: a page of room is POLLOUT; no reader left is POLLERR.
 */
static unsigned pipe_poll(struct file *f, struct poll_table *pt)
{
	struct pipe *p = f->priv;
	bool rd = flags_readable(f->flags), wr = flags_writable(f->flags);
	unsigned mask = 0;

	if (rd)
		poll_wait(pt, &p->rq);
	if (wr)
		poll_wait(pt, &p->wq);
	pthread_mutex_lock(&p->lock);
	if (rd) {
		if (p->len)
			mask |= POLLIN | POLLRDNORM;
		if (!p->writers && f->version != p->w_opens)
			mask |= POLLHUP;
	}
	if (wr) {
		if (!pipe_full(p))
			mask |= POLLOUT | POLLWRNORM;
		if (!p->readers)
			mask |= POLLERR;
	}
	pthread_mutex_unlock(&p->lock);
	return mask;
}

static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;
	bool wake;

	pthread_mutex_lock(&p->lock);
	if (flags_readable(f->flags))
		p->readers--;
	if (flags_writable(f->flags))
		p->writers--;
	/* The last reader or writer went, but not the other side. */
	wake = !p->readers != !p->writers;
	pthread_mutex_unlock(&p->lock);
	if (wake) {
		waitq_wake_all(&p->rq);
		waitq_wake_all(&p->wq);
	}
	pipe_put(p);
}

static int64_t pipe_llseek(struct file *f, int64_t off, int whence)
{
	return -ESPIPE;
}

static const struct file_ops pipe_ops = {
	.read = pipe_read,
	.write = pipe_write,
	.llseek = pipe_llseek,
	.fstat = pipe_fstat,
	.ioctl = pipe_ioctl,
	.setfl = pipe_setfl,
	.poll = pipe_poll,
	.release = pipe_release,
};

static struct file *pipe_file(struct pipe *p, struct inode *inode, int flags)
{
	struct file *f = file_alloc(&pipe_ops, flags, p);

	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	f->inode = inode_get(inode);
	if (flags_readable(flags))
		p->readers++;
	if (flags_writable(flags))
		p->writers++;
	return f;
}

/* --- splice, tee, vmsplice, F_SETPIPE_SZ ------------------------------------ */

bool file_is_pipe(struct file *f)
{
	return f->ops == &pipe_ops;
}

long pipe_splice_in(struct file *f, size_t len, bool nonblock, pipe_xfer_fn fill, void *arg)
{
	struct pipe *p = f->priv;
	size_t n;
	char *buf;
	long got;
	int ret;

	pthread_mutex_lock(&p->lock);
	ret = pipe_wait_room(p, nonblock);
	if (ret == 0)
		ret = ring_alloc(p);
	if (ret < 0) {
		pthread_mutex_unlock(&p->lock);
		return ret;
	}
	n = MIN(MIN(len, pipe_room(p)), (size_t)PIPE_SPLICE_CHUNK);
	p->reserved += n;
	pthread_mutex_unlock(&p->lock);

	buf = xmalloc(n);
	got = fill(arg, buf, n);
	pthread_mutex_lock(&p->lock);
	p->reserved -= n;
	if (got > 0)
		ring_put(p, buf, (size_t)got);
	pthread_mutex_unlock(&p->lock);
	free(buf);
	if (got > 0)
		waitq_wake_events(&p->rq, POLLIN | POLLRDNORM);
	/* The room held back but not used may be what a writer waits for. */
	if ((size_t)MAX(got, 0) < n)
		waitq_wake_events(&p->wq, POLLOUT | POLLWRNORM);
	return got;
}

long pipe_splice_out(struct file *f, size_t len, bool nonblock, pipe_xfer_fn drain, void *arg)
{
	struct pipe *p = f->priv;
	char *buf = NULL;
	size_t done = 0;
	long ret = 0;

	pthread_mutex_lock(&p->lock);
	while (done < len) {
		size_t n;
		long w;
		bool was_full;
		/* Once some went out, only what is already there (Linux's
		 * splice_from_pipe_next). */
		if (done && (p->len == 0 || p->draining))
			break;
		ret = pipe_wait_data(p, nonblock);
		if (ret <= 0)
			break;
		n = MIN(MIN(len - done, p->len), (size_t)PIPE_SPLICE_CHUNK);
		if (!buf)
			buf = xmalloc(MIN(len, (size_t)PIPE_SPLICE_CHUNK));
		ring_peek(p, buf, n);
		p->draining = true;
		pthread_mutex_unlock(&p->lock);

		w = drain(arg, buf, n);
		pthread_mutex_lock(&p->lock);
		p->draining = false;
		was_full = pipe_full(p);
		if (w > 0)
			ring_consume(p, (size_t)w);
		if (p->len)
			waitq_wake_all(&p->rq); /* readers that waited for the drain */
		if (w > 0 && was_full)
			waitq_wake_events(&p->wq, POLLOUT | POLLWRNORM);
		ret = w;
		if (w <= 0)
			break;
		done += (size_t)w;
		if ((size_t)w < n)
			break;
	}
	pthread_mutex_unlock(&p->lock);
	free(buf);
	return done ? (long)done : ret;
}

/* Lock two pipes in address order (Linux's pipe_double_lock). */
static void pipe_lock_two(struct pipe *a, struct pipe *b)
{
	if (a > b) {
		struct pipe *c = a;
		a = b;
		b = c;
	}
	pthread_mutex_lock(&a->lock);
	pthread_mutex_lock(&b->lock);
}

long pipe_splice_pipe(struct file *in, struct file *out, size_t len, bool nonblock, bool keep)
{
	struct pipe *ip = in->priv, *op = out->priv;
	bool was_full;
	size_t n;
	int ret;

	for (;;) {
		/* Linux's ipipe_prep and opipe_prep, then both locked. */
		pthread_mutex_lock(&ip->lock);
		ret = pipe_wait_data(ip, nonblock);
		pthread_mutex_unlock(&ip->lock);
		if (ret <= 0)
			return ret;
		pthread_mutex_lock(&op->lock);
		ret = pipe_wait_room(op, nonblock);
		if (ret == 0)
			ret = ring_alloc(op);
		pthread_mutex_unlock(&op->lock);
		if (ret < 0)
			return ret;
		pipe_lock_two(ip, op);
		if (op->readers == 0) {
			ret = -EPIPE;
			break;
		}
		if (ip->len && !ip->draining && !pipe_full(op))
			break;
		/* Raced with another reader or writer. */
		ret = nonblock ? -EAGAIN : 0;
		pthread_mutex_unlock(&op->lock);
		pthread_mutex_unlock(&ip->lock);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		pthread_mutex_unlock(&op->lock);
		pthread_mutex_unlock(&ip->lock);
		return ret;
	}
	n = MIN(MIN(len, ip->len), pipe_room(op));
	was_full = pipe_full(ip);
	for (size_t done = 0; done < n;) {
		size_t at = (ip->head + done) % ip->cap;
		size_t k = MIN(n - done, ip->cap - at);
		ring_put(op, ip->buf + at, k);
		done += k;
	}
	if (!keep)
		ring_consume(ip, n);
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&ip->lock);
	waitq_wake_events(&op->rq, POLLIN | POLLRDNORM);
	if (!keep && was_full)
		waitq_wake_events(&ip->wq, POLLOUT | POLLWRNORM);
	return (long)n;
}

long pipe_get_size(struct file *f)
{
	struct pipe *p = f->priv;
	long size;

	pthread_mutex_lock(&p->lock);
	size = (long)p->cap;
	pthread_mutex_unlock(&p->lock);
	return size;
}

long pipe_set_size(struct file *f, uint64_t size, bool privileged)
{
	struct pipe *p = f->priv;
	size_t cap;
	char *buf;

	/* Linux's round_pipe_size: a power of two of at least a page. */
	if (size > (1ull << 31))
		return -EINVAL;
	for (cap = PAGE_SIZE; cap < size; cap <<= 1)
		;
	pthread_mutex_lock(&p->lock);
	if (cap > p->cap && cap > PIPE_MAX_SIZE && !privileged) {
		pthread_mutex_unlock(&p->lock);
		return -EPERM;
	}
	if (p->len + p->reserved > cap) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	if (p->buf) {
		/* The new ring is charged before the old one is given back. */
		if (p->acct && memacct_charge(p->acct, cap) < 0) {
			pthread_mutex_unlock(&p->lock);
			return -ENOMEM;
		}
		buf = xmalloc(cap);
		ring_peek(p, buf, p->len);
		free(p->buf);
		if (p->acct)
			memacct_uncharge(p->acct, p->cap);
		p->buf = buf;
	}
	p->cap = cap;
	p->head = 0;
	pthread_mutex_unlock(&p->lock);
	waitq_wake_events(&p->wq, POLLOUT | POLLWRNORM);
	return (long)cap;
}

/* --- anonymous pipes ------------------------------------------------------- */

static struct super_block *pipefs;
static struct mount *pipefs_mnt;
static pthread_once_t pipefs_once = PTHREAD_ONCE_INIT;

/* Reopening an anonymous pipe (through /proc/self/fd): a new end of it. */
static int pipefs_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	return fifo_open(inode, flags, out);
}

static const struct inode_ops pipefs_inode_ops = {
	.open = pipefs_open,
};
static const struct inode_ops pipefs_root_ops = {0};

static void pipefs_init(void)
{
	struct inode *root;

	pipefs = sb_new(NULL, "pipefs", PIPEFS_MAGIC);
	root = inode_new(pipefs, &pipefs_root_ops, S_IFDIR | 0500);
	pipefs->root = dentry_make_root(pipefs, root);
	inode_put(root);
	pipefs_mnt = mount_internal(pipefs);
}

static struct super_block *pipefs_sb(void)
{
	pthread_once(&pipefs_once, pipefs_init);
	return pipefs;
}

int pipe_create(int flags, struct file **rd, struct file **wr)
{
	struct inode *inode = inode_new(pipefs_sb(), &pipefs_inode_ops, S_IFIFO | 0600);
	struct pipe *p = pipe_new();
	struct task *t = current_task();
	struct path path;
	char name[32];

	if (t) {
		inode->uid = t->creds.fsuid;
		inode->gid = t->creds.fsgid;
	}
	inode->pipe = p;
	pthread_mutex_lock(&p->lock);
	/* Each end was opened once: a reader sees POLLHUP once the writer goes. */
	p->r_opens = p->w_opens = 1;
	*rd = pipe_file(p, inode, O_RDONLY | (flags & O_NONBLOCK));
	*wr = pipe_file(p, inode, O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT)));
	pthread_mutex_unlock(&p->lock);
	snprintf(name, sizeof(name), "pipe:[%llu]", (unsigned long long)inode->ino);
	path.mnt = pipefs_mnt;
	path.dentry = dentry_alloc_anon(pipefs->root, name, inode);
	file_set_path(*rd, &path);
	file_set_path(*wr, &path);
	dentry_put(path.dentry);
	inode_put(inode);
	return 0;
}

/* --- fifos ------------------------------------------------------------------ */

static pthread_mutex_t fifo_lock = PTHREAD_MUTEX_INITIALIZER;

int fifo_open(struct inode *inode, int flags, struct file **out)
{
	/* An anonymous pipe reopened through /proc/pid/fd never waits. */
	bool is_pipe = inode->sb->magic == PIPEFS_MAGIC;
	struct pipe *p;
	struct file *f;
	unsigned seen;
	int ret = 0;

	pthread_mutex_lock(&fifo_lock);
	if (!inode->pipe)
		inode->pipe = pipe_new();
	p = inode->pipe;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fifo_lock);

	/* Opens wait for their partner on rq, as Linux's wait_for_partner. */
	pthread_mutex_lock(&p->lock);
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		p->r_opens++;
		f = pipe_file(p, inode, flags);
		if (p->readers == 1)
			waitq_wake_all(&p->rq);
		if (!is_pipe && !p->writers) {
			if (flags & O_NONBLOCK) {
				/* No POLLHUP until a writer has come. */
				f->version = p->w_opens;
			} else {
				seen = p->w_opens;
				while (p->w_opens == seen && ret == 0)
					ret = pipe_wait(p, &p->rq);
			}
		}
		break;
	case O_WRONLY:
		if (!is_pipe && !p->readers && (flags & O_NONBLOCK)) {
			pthread_mutex_unlock(&p->lock);
			pipe_put(p);
			return -ENXIO;
		}
		p->w_opens++;
		f = pipe_file(p, inode, flags);
		if (p->writers == 1)
			waitq_wake_all(&p->rq);
		if (!is_pipe && !p->readers) {
			seen = p->r_opens;
			while (p->r_opens == seen && ret == 0)
				ret = pipe_wait(p, &p->rq);
		}
		break;
	default:
		p->r_opens++;
		p->w_opens++;
		f = pipe_file(p, inode, flags);
		if (p->readers == 1 || p->writers == 1)
			waitq_wake_all(&p->rq);
		break;
	}
	pthread_mutex_unlock(&p->lock);
	pipe_put(p);
	if (ret < 0) {
		file_put(f);
		return ret;
	}
	*out = f;
	return 0;
}

void pipe_inode_release(struct inode *inode)
{
	pipe_put(inode->pipe);
	inode->pipe = NULL;
}
