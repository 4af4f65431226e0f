/*
 * The socket file: read/write/readv/writev as sendmsg/recvmsg without
 * ancillary data, poll, fstat (S_IFSOCK on sockfs), FIONREAD, and the
 * dispatch of socket() by family. Also the data iterator and the lists of
 * descriptors in flight that every family shares.
 */
#include "config.h"
#include "sentry/net/socket.h"
#include "sentry/net/unix.h"
#include "sentry/net/inet_host.h"
#include "sentry/net/net.h"
#include "sentry/net/netlink.h"
#include "sentry/net/netstack.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define SOCKFS_MAGIC 0x534F434B

/* --- data iterator ------------------------------------------------------------ */

void msg_iter_init(struct msg_iter *it, struct mm *mm, const struct iovec *iov, unsigned nr)
{
	it->mm = mm;
	it->iov = iov;
	it->nr = nr;
	it->idx = 0;
	it->off = 0;
	it->count = 0;
	for (unsigned i = 0; i < nr; i++)
		it->count += iov[i].iov_len;
}

/* Copy between buf and the iterator's current segments; out: towards the iovecs. */
static size_t iter_copy(struct msg_iter *it, void *buf, size_t len, bool out, bool *fault)
{
	size_t done = 0;

	*fault = false;
	while (done < len && it->idx < it->nr) {
		const struct iovec *v = &it->iov[it->idx];
		size_t n = MIN(len - done, v->iov_len - it->off), got;
		uint64_t addr = (uint64_t)(uintptr_t)v->iov_base + it->off;

		if (n == 0) {
			it->idx++;
			it->off = 0;
			continue;
		}
		if (!it->mm) {
			if (out)
				memcpy((void *)(uintptr_t)addr, (char *)buf + done, n);
			else
				memcpy((char *)buf + done, (void *)(uintptr_t)addr, n);
			got = n;
		} else if (out) {
			got = mm_copy_out_partial(it->mm, addr, (char *)buf + done, n);
		} else {
			got = mm_copy_in_partial(it->mm, (char *)buf + done, addr, n);
		}
		done += got;
		it->off += got;
		it->count -= got;
		if (got < n) {
			*fault = true;
			break;
		}
	}
	return done;
}

size_t msg_iter_copy_in(struct msg_iter *it, void *dst, size_t len, bool *fault)
{
	return iter_copy(it, dst, len, false, fault);
}

size_t msg_iter_copy_out(struct msg_iter *it, const void *src, size_t len, bool *fault)
{
	return iter_copy(it, (void *)src, len, true, fault);
}

/* --- timeouts and SIGPIPE ------------------------------------------------------------ */

int sock_timeout_set(uint64_t *out, const void *val, unsigned len)
{
	struct timeval tv;

	if (len < sizeof(tv))
		return -EINVAL;
	memcpy(&tv, val, sizeof(tv));
	if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return -EDOM;
	if (tv.tv_sec < 0)
		*out = 0;
	else if (tv.tv_sec == 0 && tv.tv_usec == 0)
		*out = SOCK_TIMEO_NONE;
	else if ((uint64_t)tv.tv_sec > UINT64_MAX / 2000000000ull)
		*out = SOCK_TIMEO_NONE;
	else
		*out = (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
	return 0;
}

void sock_timeout_get(uint64_t t, struct timeval *tv)
{
	if (t == SOCK_TIMEO_NONE || t == 0) {
		*tv = (struct timeval){0, 0};
		return;
	}
	tv->tv_sec = (time_t)(t / 1000000000ull);
	tv->tv_usec = (suseconds_t)((t % 1000000000ull) / 1000ull);
}

struct sock_timeo sock_timeo_start(uint64_t timeo, bool nonblock)
{
	struct sock_timeo to = {0};

	if (nonblock || timeo == 0)
		to.none_left = true;
	else if (timeo != SOCK_TIMEO_NONE) {
		to.timed = true;
		to.deadline = monotonic_ns() + timeo;
	}
	return to;
}

int sock_timeo_woken(struct sock_timeo *to, int ret)
{
	if (ret == -ETIMEDOUT) {
		to->none_left = true;
		return 0;
	}
	if (ret == -EINTR)
		return to->timed ? -EINTR : -ERESTARTSYS;
	return 0;
}

void sock_sigpipe(struct sock_msg *msg)
{
	siginfo_t info;

	if ((msg->flags & MSG_NOSIGNAL) || !msg->t)
		return;
	siginfo_user(&info, SIGPIPE, msg->t);
	signal_send(msg->t, &info, false);
}

/* --- descriptors in flight ------------------------------------------------------ */

struct scm_fds *scm_fds_dup(const struct scm_fds *fds)
{
	struct scm_fds *n;

	if (!fds)
		return NULL;
	n = xmalloc(sizeof(*n) + (size_t)fds->count * sizeof(n->files[0]));
	n->count = fds->count;
	for (int i = 0; i < fds->count; i++)
		n->files[i] = file_get(fds->files[i]);
	return n;
}

void scm_fds_put(struct scm_fds *fds)
{
	if (!fds)
		return;
	for (int i = fds->count - 1; i >= 0; i--)
		file_put(fds->files[i]);
	free(fds);
}

/* --- sockfs and the socket file --------------------------------------------------- */

static struct super_block *sockfs;
static pthread_once_t sockfs_once = PTHREAD_ONCE_INIT;
static const struct inode_ops sockfs_inode_ops = {0};

static void sockfs_init(void)
{
	sockfs = sb_new(NULL, "sockfs", SOCKFS_MAGIC);
}

static struct socket *SOCK(struct file *f)
{
	return f->priv;
}

/* read/write/readv/writev: a send or receive of the whole request, no
 * ancillary data (a datagram is one message however long). */
static long sock_io(struct file *f, struct task *t, struct mm *mm, const struct iovec *iov, int n,
		    bool send)
{
	struct socket *s = SOCK(f);
	struct sock_msg m = {.t = t};
	long ret;

	msg_iter_init(&m.iter, mm, iov, (unsigned)n);
	if (__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK)
		m.flags |= MSG_DONTWAIT;
	if (send)
		return s->ops->sendmsg(s, &m);
	ret = s->ops->recvmsg(s, &m);
	scm_fds_put(m.scm.fds);
	return ret;
}

static long sock_read_guest(struct file *f, struct task *t, const struct iovec *iov, int n)
{
	return sock_io(f, t, t->mm, iov, n, false);
}

static long sock_write_guest(struct file *f, struct task *t, const struct iovec *iov, int n)
{
	return sock_io(f, t, t->mm, iov, n, true);
}

/* With sentry buffers (sendfile, copy_file_range): no SIGPIPE from here. */
static long sock_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct iovec v = {buf, len};

	return sock_io(f, current_task(), NULL, &v, 1, false);
}

static long sock_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct iovec v = {(void *)buf, len};
	struct socket *s = SOCK(f);
	struct sock_msg m = {.t = current_task(), .flags = MSG_NOSIGNAL};

	msg_iter_init(&m.iter, NULL, &v, 1);
	if (__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK)
		m.flags |= MSG_DONTWAIT;
	return s->ops->sendmsg(s, &m);
}

static int64_t sock_llseek(struct file *f, int64_t off, int whence)
{
	return -ESPIPE;
}

static int sock_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	return 0;
}

static long sock_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	struct socket *s = SOCK(f);
	long n;

	if (cmd != FIONREAD)
		return s->ops->ioctl ? s->ops->ioctl(s, cmd, arg) : -ENOTTY;
	n = s->ops->inq ? s->ops->inq(s) : -ENOTTY;
	if (n < 0)
		return n;
	*(int *)arg = (int)MIN(n, (long)INT32_MAX);
	return 0;
}

static int sock_setfl(struct file *f, int flags)
{
	__atomic_store_n(&f->flags, flags, __ATOMIC_RELAXED);
	return 0;
}

static unsigned sock_poll(struct file *f, struct poll_table *pt)
{
	struct socket *s = SOCK(f);

	return s->ops->poll(s, pt);
}

static void sock_release(struct file *f)
{
	struct socket *s = SOCK(f);

	s->file = NULL;
	s->ops->release(s);
}

static const struct file_ops socket_file_ops = {
	.read = sock_read,
	.write = sock_write,
	.read_guest = sock_read_guest,
	.write_guest = sock_write_guest,
	.llseek = sock_llseek,
	.fstat = sock_fstat,
	.ioctl = sock_ioctl,
	.setfl = sock_setfl,
	.poll = sock_poll,
	.release = sock_release,
};

struct file *socket_file_new(struct socket *s, int flags)
{
	struct inode *inode;
	struct task *t = current_task();
	struct file *f;

	pthread_once(&sockfs_once, sockfs_init);
	inode = inode_new(sockfs, &sockfs_inode_ops, S_IFSOCK | 0777);
	if (t) {
		inode->uid = t->creds.fsuid;
		inode->gid = t->creds.fsgid;
	}
	f = file_alloc(&socket_file_ops, O_RDWR | (flags & O_NONBLOCK), s);
	f->inode = inode;
	s->file = f;
	return f;
}

struct socket *socket_from_file(struct file *f)
{
	return f->ops == &socket_file_ops ? f->priv : NULL;
}

int socket_create(struct task *t, int family, int type, int protocol, struct socket **out)
{
	switch (family) {
	case AF_UNIX:
		return unix_create(t, type, protocol, out);
	case AF_INET:
	case AF_INET6:
		if (!t->k->net)
			return -EAFNOSUPPORT;
		if (t->k->net->mode == NET_MODE_HOST)
			return inet_host_create(t, family, type, protocol, out);
		return netstack_socket_create(t->k, family, type, protocol, out);
	case AF_NETLINK:
		return netlink_create(t, type, protocol, out);
	default:
		/* AF_PACKET, AF_BLUETOOTH, ...: docs/syscalls.md. */
		return -EAFNOSUPPORT;
	}
}

int socket_create_pair(struct task *t, int family, int type, int protocol, struct socket **a,
		       struct socket **b)
{
	struct socket *s;
	int ret;

	if (family == AF_UNIX)
		return unix_create_pair(t, type, protocol, a, b);
	/* Linux makes the socket first (its errors are socket()'s), then asks
	 * the family to pair it: only AF_UNIX can (sock_no_socketpair). */
	ret = socket_create(t, family, type, protocol, &s);
	if (ret)
		return ret;
	file_put(socket_file_new(s, 0));
	return -EOPNOTSUPP;
}
