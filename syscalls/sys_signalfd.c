/* signalfd, signalfd4. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/signalfd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/signalfd.h>

static long do_signalfd(struct task *t, int fd, uint64_t umask, uint64_t size, int flags)
{
	struct file *f;
	uint64_t mask;
	long ret;

	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	if (size != sizeof(mask))
		return -EINVAL;
	if (mm_copy_in(t->mm, &mask, umask, sizeof(mask)) < 0)
		return -EFAULT;
	if (fd == -1) {
		f = signalfd_new(mask, flags);
		ret = fd_install(t->files, f, 0, flags & SFD_CLOEXEC, task_nofile(t));
		file_put(f);
		return ret;
	}
	f = fd_get(t->files, fd);
	if (!f)
		return -EBADF;
	ret = signalfd_set_mask(f, mask) ? fd : -EINVAL;
	file_put(f);
	return ret;
}

SYSCALL(signalfd)
{
	return do_signalfd(t, (int)a->a[0], a->a[1], a->a[2], 0);
}

SYSCALL(signalfd4)
{
	return do_signalfd(t, (int)a->a[0], a->a[1], a->a[2], (int)a->a[3]);
}
