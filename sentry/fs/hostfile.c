/*
 * Guest files backed by a host descriptor: the stdio the sandbox inherits.
 * The guest's fd and the host's share one open file description, so the
 * offset and the status flags live on the host, exactly as for a native
 * program that inherited them.
 */
#include "config.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hostpoll.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/uio.h>
#include <stdlib.h>
#include <unistd.h>

struct hostfile {
	int fd;
	struct host_waitq hw; /* pollable host files: where waiters sleep */
};

#define hostfd_of(f) (((struct hostfile *)(f)->priv)->fd)

static long host_result(long r)
{
	return r < 0 ? -errno : r;
}

/* The host keeps the offset of a stream we share with it: no pos means the
 * host's own; a pos is an explicit offset (pread/pwrite). */
static long hf_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	long r;

	do {
		r = pos ? pread(hostfd_of(f), buf, len, *pos) : read(hostfd_of(f), buf, len);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && pos)
		*pos += r;
	return host_result(r);
}

static long hf_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	long r;

	do {
		r = pos ? pwrite(hostfd_of(f), buf, len, *pos) : write(hostfd_of(f), buf, len);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && pos)
		*pos += r;
	return host_result(r);
}

static long hf_read_iov(struct file *f, const struct iovec *iov, int n, int64_t *pos)
{
	long r;

	do {
		r = pos ? preadv(hostfd_of(f), iov, n, *pos) : readv(hostfd_of(f), iov, n);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && pos)
		*pos += r;
	return host_result(r);
}

static long hf_write_iov(struct file *f, const struct iovec *iov, int n, int64_t *pos)
{
	long r;

	do {
		r = pos ? pwritev(hostfd_of(f), iov, n, *pos) : writev(hostfd_of(f), iov, n);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && pos)
		*pos += r;
	return host_result(r);
}

static int64_t hf_llseek(struct file *f, int64_t off, int whence)
{
	return host_result(lseek(hostfd_of(f), off, whence));
}

static int hf_fstat(struct file *f, struct kstat *st)
{
	struct stat hs;

	if (fstat(hostfd_of(f), &hs) < 0)
		return -errno;
	*st = (struct kstat){
		.ino = hs.st_ino,
		.dev = hs.st_dev,
		.mode = hs.st_mode,
		.uid = hs.st_uid,
		.gid = hs.st_gid,
		.nlink = hs.st_nlink,
		.rdev = hs.st_rdev,
		.size = (uint64_t)hs.st_size,
		.blocks = (uint64_t)hs.st_blocks,
		.blksize = (uint32_t)hs.st_blksize,
		.atime = hs.st_atim,
		.mtime = hs.st_mtim,
		.ctime = hs.st_ctim,
	};
	return 0;
}

/* Only requests with a fixed-size argument that cannot reach beyond the
 * terminal or pipe itself are passed on. */
static long hf_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	switch (cmd) {
	case TCGETS:
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
	case TIOCGWINSZ:
	case TIOCSWINSZ:
	case FIONREAD:
		return host_result(ioctl(hostfd_of(f), cmd, arg));
	default:
		return -ENOTTY;
	}
}

static int hf_getfl(struct file *f)
{
	return (int)host_result(fcntl(hostfd_of(f), F_GETFL));
}

static int hf_setfl(struct file *f, int flags)
{
	return (int)host_result(fcntl(hostfd_of(f), F_SETFL, flags));
}

/* Readiness is the host's; waiters sleep on the host poller's queue. */
static unsigned hf_poll(struct file *f, struct poll_table *pt)
{
	struct hostfile *hf = f->priv;

	return host_waitq_poll(&hf->hw, pt);
}

static void hf_release(struct file *f)
{
	struct hostfile *hf = f->priv;

	host_waitq_release(&hf->hw);
	close(hf->fd);
	free(hf);
}

/* Host files the host can poll: pipes, terminals, sockets, most devices. */
static const struct file_ops hostfile_ops = {
	.read = hf_read,
	.write = hf_write,
	.read_iov = hf_read_iov,
	.write_iov = hf_write_iov,
	.llseek = hf_llseek,
	.fstat = hf_fstat,
	.ioctl = hf_ioctl,
	.getfl = hf_getfl,
	.setfl = hf_setfl,
	.poll = hf_poll,
	.release = hf_release,
};

/* The others (regular files, directories, /dev/null ...): no poll op, so
 * always ready, and epoll refuses them with EPERM, as Linux does. */
static const struct file_ops hostfile_nopoll_ops = {
	.read = hf_read,
	.write = hf_write,
	.read_iov = hf_read_iov,
	.write_iov = hf_write_iov,
	.llseek = hf_llseek,
	.fstat = hf_fstat,
	.ioctl = hf_ioctl,
	.getfl = hf_getfl,
	.setfl = hf_setfl,
	.release = hf_release,
};

struct file *hostfile_new(int hostfd)
{
	struct hostfile *hf = xzalloc(sizeof(*hf));
	struct stat st;
	bool pollable;
	struct file *f;

	hf->fd = hostfd;
	host_waitq_init(&hf->hw, hostfd);
	pollable = fstat(hostfd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
		   hostpoll_can_poll(hostfd);
	f = file_alloc(pollable ? &hostfile_ops : &hostfile_nopoll_ops, 0, hf);
	f->fmode = FMODE_PREAD;
	return f;
}

int hostfile_fd(struct file *f)
{
	return f->ops == &hostfile_ops || f->ops == &hostfile_nopoll_ops ? hostfd_of(f) : -1;
}
