/* /dev/null, zero, full, random, urandom, tty and console. */
#include "config.h"
#include "sentry/fs/devices.h"
#include "lib/strbuf.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hosttty.h"
#include "sentry/fs/tty.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static long null_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	return 0;
}

static long sink_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	return (long)len;
}

static long zero_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	memset(buf, 0, len);
	return (long)len;
}

static long full_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	return -ENOSPC;
}

static long random_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	ssize_t n = getrandom(buf, len, 0);

	return n < 0 ? -errno : n;
}

static int64_t dev_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* Linux: seeking a memory device succeeds and means nothing */
}

static int dev_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	return 0;
}

static int dev_setfl(struct file *f, int flags)
{
	f->flags = flags;
	return 0;
}

static const struct file_ops null_ops = {
	.read = null_read,
	.write = sink_write,
	.llseek = dev_llseek,
	.fstat = dev_fstat,
	.setfl = dev_setfl,
};
static const struct file_ops zero_ops = {
	.read = zero_read,
	.write = sink_write,
	.llseek = dev_llseek,
	.fstat = dev_fstat,
	.setfl = dev_setfl,
};
static const struct file_ops full_ops = {
	.read = zero_read,
	.write = full_write,
	.llseek = dev_llseek,
	.fstat = dev_fstat,
	.setfl = dev_setfl,
};
/* /dev/random: Linux's random_poll once the pool is ready (always, here).
 * The other memory devices have no poll op: always ready, and epoll
 * refuses them (EPERM), as on Linux. */
static unsigned random_poll(struct file *f, struct poll_table *pt)
{
	return POLLIN | POLLRDNORM;
}

static const struct file_ops random_ops = {
	.read = random_read,
	.write = sink_write,
	.llseek = dev_llseek,
	.fstat = dev_fstat,
	.setfl = dev_setfl,
	.poll = random_poll,
};
static const struct file_ops urandom_ops = {
	.read = random_read,
	.write = sink_write,
	.llseek = dev_llseek,
	.fstat = dev_fstat,
	.setfl = dev_setfl,
};

bool file_is_dev_zero(struct file *f)
{
	return f->ops == &zero_ops;
}

void chrdev_show(struct strbuf *o)
{
	/* What chrdev_open serves (the mem devices, the terminals), and ptmx,
	 * which devpts serves. */
	strbuf_printf(o, "%3d mem\n%3d /dev/tty\n%3d /dev/console\n%3d /dev/ptmx\n",
		      (int)(DEV_MEM_NULL >> 8), (int)(DEV_TTY >> 8), (int)(DEV_CONSOLE >> 8),
		      (int)(DEV_PTMX >> 8));
}

int chrdev_open(struct inode *inode, int flags, struct file **out)
{
	const struct file_ops *ops;
	struct file *f;

	switch (inode->rdev) {
	case DEV_MEM_NULL:
		ops = &null_ops;
		break;
	case DEV_MEM_ZERO:
		ops = &zero_ops;
		break;
	case DEV_MEM_FULL:
		ops = &full_ops;
		break;
	case DEV_MEM_RANDOM:
		ops = &random_ops;
		break;
	case DEV_MEM_URANDOM:
		ops = &urandom_ops;
		break;
	case DEV_TTY:
		return tty_open_current(inode, flags, out); /* the caller's terminal */
	case DEV_CONSOLE:
		return hosttty_open_console(inode, flags, out);
	default:
		return -ENXIO;
	}
	f = file_alloc(ops, flags, NULL);
	f->inode = inode_get(inode);
	f->fmode = FMODE_PREAD;
	*out = f;
	return 0;
}
