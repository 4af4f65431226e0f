#include "config.h"
#include "sentry/fs/fsize.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

static uint64_t fsize_limit(struct task *t)
{
	return t->tg->rlim[RLIMIT_FSIZE].rlim_cur;
}

/* Past the limit: SIGXFSZ to the thread (Linux's send_sig, as from itself). */
static long too_big(struct task *t)
{
	siginfo_t info;

	siginfo_user(&info, SIGXFSZ, t);
	signal_send(t, &info, false);
	return -EFBIG;
}

/* The size of inode now (shared filesystems refresh it first). */
static uint64_t inode_size(struct inode *inode)
{
	if (inode->ops->getattr)
		inode->ops->getattr(inode);
	return inode->size;
}

long fsize_write_check(struct task *t, struct file *f, int64_t pos, size_t *len)
{
	uint64_t limit = fsize_limit(t), at;

	if (limit == RLIM_INFINITY || !f->inode || !S_ISREG(f->inode->mode))
		return 0;
	if (pos >= 0)
		at = (uint64_t)pos;
	else if (file_getfl(f) & O_APPEND)
		at = inode_size(f->inode);
	else
		at = (uint64_t)__atomic_load_n(&f->pos, __ATOMIC_RELAXED);
	if (at >= limit)
		return *len ? too_big(t) : 0;
	if (*len > limit - at)
		*len = (size_t)(limit - at);
	return 0;
}

long fsize_writev_check(struct task *t, struct file *f, int64_t pos, struct iovec *iov,
			uint64_t *cnt)
{
	size_t total = 0;
	uint64_t i;
	long ret;

	for (i = 0; i < *cnt; i++)
		total += iov[i].iov_len; /* (iov_import kept the sum in range) */
	ret = fsize_write_check(t, f, pos, &total);
	if (ret)
		return ret;
	for (i = 0; i < *cnt && total; i++) {
		if (iov[i].iov_len > total)
			iov[i].iov_len = total;
		total -= iov[i].iov_len;
	}
	*cnt = i;
	return 0;
}

long fsize_grow_check(struct task *t, struct inode *inode, uint64_t size)
{
	uint64_t limit = fsize_limit(t);

	if (limit == RLIM_INFINITY || size <= limit || size <= inode_size(inode))
		return 0;
	return too_big(t);
}
