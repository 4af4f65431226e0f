/* Descriptor operations: close, dup*, fcntl, ioctl, fstat. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fasync.h"
#include "sentry/fs/inotify.h"
#include "lib/util.h"
#include "syscalls/util.h"
#include "sentry/fs/locks.h"
#include "sentry/fs/pipe.h"
#include "sentry/fs/pty.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/tty.h"
#include "sentry/net/ifioctl.h"
#include "sentry/net/socket.h"

#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

SYSCALL(close)
{
	return fd_close(t->files, (int)a->a[0]);
}

static long dup_to(struct task *t, int oldfd, int newfd, bool cloexec)
{
	struct file *f = fd_get_raw(t->files, oldfd);
	long ret;

	if (!f)
		return -EBADF;
	if (newfd < 0 || (unsigned)newfd >= task_nofile(t))
		ret = -EBADF;
	else
		ret = fd_install_at(t->files, f, newfd, cloexec, task_nofile(t));
	file_put(f);
	return ret;
}

SYSCALL(dup)
{
	struct file *f = fd_get_raw(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = fd_install(t->files, f, 0, false, task_nofile(t));
	file_put(f);
	return ret;
}

SYSCALL(dup2)
{
	int oldfd = (int)a->a[0], newfd = (int)a->a[1];

	if (oldfd == newfd) {
		struct file *f = fd_get_raw(t->files, oldfd);
		if (!f)
			return -EBADF;
		file_put(f);
		return newfd;
	}
	return dup_to(t, oldfd, newfd, false);
}

SYSCALL(dup3)
{
	int oldfd = (int)a->a[0], newfd = (int)a->a[1];
	uint64_t flags = a->a[2];

	if (flags & ~(uint64_t)O_CLOEXEC)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	return dup_to(t, oldfd, newfd, flags & O_CLOEXEC);
}

/* The status flags fcntl(F_SETFL) may change, as on Linux. */
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME)

/* F_SETFL (and FIONBIO, FIOASYNC): the settable flags; O_ASYNC on or off
 * makes pipes and sockets start or stop sending SIGIO. */
static long setfl(struct file *f, int fd, int flags)
{
	int old = file_getfl(f);
	long ret = 0;

	if (old < 0)
		return old;
	flags = (old & ~SETFL_MASK) | (flags & SETFL_MASK);
	if (!f->ops->setfl)
		f->flags = flags;
	else
		ret = f->ops->setfl(f, flags);
	if (ret == 0 && ((old ^ flags) & O_ASYNC))
		fasync_set(f, fd, (flags & O_ASYNC) != 0);
	return ret;
}

/* F_SETOWN (and FIOSETOWN, SIOCSPGRP): a process, or a group when negative. */
static long setown(struct task *t, struct file *f, int pid)
{
	if (pid == INT_MIN)
		return -EINVAL;
	return pid < 0 ? fasync_setown(t, f, FOWN_PGRP, -pid) : fasync_setown(t, f, FOWN_PID, pid);
}

static long getown(struct file *f)
{
	int type, pid;

	fasync_getown(f, &type, &pid);
	return type == FOWN_PGRP ? -pid : pid;
}

SYSCALL(fcntl)
{
	int fd = (int)a->a[0], cmd = (int)a->a[1];
	uint64_t arg = a->a[2];
	struct file *f = fd_get_raw(t->files, fd);
	long ret;

	if (!f)
		return -EBADF;
	/* An O_PATH descriptor allows the descriptor commands only (Linux's
	 * check_fcntl_cmd). */
	if ((f->fmode & FMODE_PATH) && cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC && cmd != F_GETFD &&
	    cmd != F_SETFD && cmd != F_GETFL) {
		file_put(f);
		return -EBADF;
	}
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= task_nofile(t))
			ret = -EINVAL;
		else
			ret = fd_install(t->files, f, (int)arg, cmd == F_DUPFD_CLOEXEC,
					 task_nofile(t));
		break;
	case F_GETFD:
		ret = fd_get_cloexec(t->files, fd);
		if (ret > 0)
			ret = FD_CLOEXEC;
		break;
	case F_SETFD:
		ret = fd_set_cloexec(t->files, fd, arg & FD_CLOEXEC);
		break;
	case F_GETFL:
		ret = file_getfl(f);
		break;
	case F_SETFL:
		ret = setfl(f, fd, (int)arg);
		break;
	case F_SETOWN:
		ret = setown(t, f, (int)arg);
		break;
	case F_GETOWN:
		ret = getown(f);
		break;
	case F_SETOWN_EX: {
		struct f_owner_ex ex;
		if (mm_copy_in(t->mm, &ex, arg, sizeof(ex)) < 0) {
			ret = -EFAULT;
			break;
		}
		if (ex.type != F_OWNER_TID && ex.type != F_OWNER_PID && ex.type != F_OWNER_PGRP) {
			ret = -EINVAL;
			break;
		}
		ret = fasync_setown(t, f, ex.type, ex.pid);
		break;
	}
	case F_GETOWN_EX: {
		struct f_owner_ex ex;
		int type, pid;
		fasync_getown(f, &type, &pid);
		ex.type = type;
		ex.pid = pid;
		ret = mm_copy_out(t->mm, arg, &ex, sizeof(ex)) < 0 ? -EFAULT : 0;
		break;
	}
	case F_SETSIG:
		ret = arg > INT_MAX ? -EINVAL : fasync_setsig(f, (int)arg);
		break;
	case F_GETSIG:
		ret = fasync_getsig(f);
		break;
	case F_NOTIFY:
		ret = dnotify_fcntl(t, f, fd, arg);
		break;
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW: {
		struct flock fl;
		if (mm_copy_in(t->mm, &fl, arg, sizeof(fl)) < 0) {
			ret = -EFAULT;
			break;
		}
		ret = locks_fcntl(f, cmd, &fl, task_lock_owner(t), t->tgid);
		if (ret == 0 && (cmd == F_GETLK || cmd == F_OFD_GETLK) &&
		    mm_copy_out(t->mm, arg, &fl, sizeof(fl)) < 0)
			ret = -EFAULT;
		break;
	}
	case F_SETLEASE:
		ret = locks_setlease(f, (long)arg,
				     (f->inode && f->inode->uid == t->creds.fsuid) ||
					     creds_capable(&t->creds, KCAP_LEASE));
		break;
	case F_GETLEASE:
		ret = locks_getlease(f);
		break;
	case F_ADD_SEALS:
		ret = tmpfs_add_seals(f, (unsigned)arg);
		break;
	case F_GET_SEALS:
		ret = tmpfs_get_seals(f);
		break;
	case F_GETPIPE_SZ:
		ret = file_is_pipe(f) ? pipe_get_size(f) : -EBADF;
		break;
	case F_SETPIPE_SZ:
		ret = file_is_pipe(f)
			      ? pipe_set_size(f, arg, creds_capable(&t->creds, KCAP_SYS_RESOURCE))
			      : -EBADF;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	file_put(f);
	return ret;
}

SYSCALL(flock)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	int ret;

	if (!f)
		return -EBADF;
	ret = f->path.dentry ? locks_flock(f, (int)a->a[1]) : -EINVAL;
	file_put(f);
	return ret;
}

/* How an ioctl takes its argument. */
enum ioc_arg {
	ARG_NONE,  /* none */
	ARG_VALUE, /* the argument itself (an int or a long), not a pointer */
	ARG_IN,	   /* a pointer to size bytes the kernel reads */
	ARG_OUT,   /* a pointer to size bytes the kernel writes */
};

/* The ioctls the sentry knows (terminals, FIONREAD): their argument. */
static bool ioctl_shape(unsigned long cmd, enum ioc_arg *kind, size_t *size)
{
	*size = 0;
	switch (cmd) {
	case TIOCNOTTY:
	case TIOCEXCL:
	case TIOCNXCL:
	case TIOCSBRK:
	case TIOCCBRK:
		*kind = ARG_NONE;
		return true;
	case TIOCSCTTY:
	case TCSBRK:
	case TCSBRKP:
	case TCXONC:
	case TCFLSH:
	case _IOW('T', 0x36, int): /* TIOCSIG */
		*kind = ARG_VALUE;
		return true;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		*kind = ARG_IN, *size = KTERMIOS_SIZE;
		return true;
	case _IOW('T', 0x2B, struct ktermios): /* TCSETS2 */
	case _IOW('T', 0x2C, struct ktermios): /* TCSETSW2 */
	case _IOW('T', 0x2D, struct ktermios): /* TCSETSF2 */
		*kind = ARG_IN, *size = KTERMIOS2_SIZE;
		return true;
	case TCSETA:
	case TCSETAW:
	case TCSETAF:
		*kind = ARG_IN, *size = KTERMIO_SIZE;
		return true;
	case TIOCSWINSZ:
		*kind = ARG_IN, *size = sizeof(struct winsize);
		return true;
	case TIOCSPGRP:
	case TIOCSPTLCK:
	case TIOCSETD:
	case TIOCSSOFTCAR:
		*kind = ARG_IN, *size = sizeof(int);
		return true;
	case TIOCSTI:
		*kind = ARG_IN, *size = 1;
		return true;
	case TCGETS:
		*kind = ARG_OUT, *size = KTERMIOS_SIZE;
		return true;
	case _IOR('T', 0x2A, struct ktermios): /* TCGETS2 */
		*kind = ARG_OUT, *size = KTERMIOS2_SIZE;
		return true;
	case TCGETA:
		*kind = ARG_OUT, *size = KTERMIO_SIZE;
		return true;
	case TIOCGWINSZ:
		*kind = ARG_OUT, *size = sizeof(struct winsize);
		return true;
	case SIOCGSTAMP_OLD:
	case SIOCGSTAMPNS_OLD:
	case SIOCGSTAMP_NEW:
	case SIOCGSTAMPNS_NEW:
		*kind = ARG_OUT, *size = sizeof(struct timespec); /* a timeval is as long */
		return true;
	case FIONREAD:
	case TIOCOUTQ:
	case TIOCGPGRP:
	case TIOCGSID:
	case TIOCGPTN:
	case TIOCGPTLCK:
	case TIOCGETD:
	case TIOCGEXCL:
	case TIOCGSOFTCAR:
	case TIOCGDEV:
		*kind = ARG_OUT, *size = sizeof(int);
		return true;
	default:
		return false;
	}
}

/* TIOCGPTPEER: the slave of a pty master, on a new descriptor. */
static long ioctl_open_peer(struct task *t, struct file *f, int flags)
{
	struct file *peer;
	long ret = pty_open_peer(f, flags, &peer);

	if (ret)
		return ret;
	ret = fd_install(t->files, peer, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(peer);
	return ret;
}

SYSCALL(ioctl)
{
	int fd = (int)a->a[0];
	unsigned long cmd = (unsigned)a->a[1];
	uint64_t arg = a->a[2];
	uint64_t buf[8] = {0}; /* aligned for the longs and ints in it */
	enum ioc_arg kind;
	size_t size;
	struct file *f = fd_get(t->files, fd);
	long ret;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		ret = fd_set_cloexec(t->files, fd, cmd == FIOCLEX);
		goto out;
	case FIONBIO:
	case FIOASYNC: { /* ioctl_fionbio, ioctl_fioasync: the flag of F_SETFL */
		int on, old = file_getfl(f), bit = cmd == FIONBIO ? O_NONBLOCK : O_ASYNC;
		ret = mm_copy_in(t->mm, &on, arg, sizeof(on));
		if (ret < 0)
			goto out;
		ret = old < 0 ? old : setfl(f, fd, on ? old | bit : old & ~bit);
		goto out;
	}
	case FIOSETOWN:
	case SIOCSPGRP: { /* sock_ioctl's: sockets only, as Linux's */
		int pid;
		if (!socket_from_file(f)) {
			ret = -ENOTTY;
			goto out;
		}
		ret = mm_copy_in(t->mm, &pid, arg, sizeof(pid));
		if (ret == 0)
			ret = setown(t, f, pid);
		goto out;
	}
	case FIOGETOWN:
	case SIOCGPGRP: {
		int pid;
		if (!socket_from_file(f)) {
			ret = -ENOTTY;
			goto out;
		}
		pid = (int)getown(f);
		ret = mm_copy_out(t->mm, arg, &pid, sizeof(pid));
		goto out;
	}
	case TIOCGPTPEER:
		ret = ioctl_open_peer(t, f, (int)arg);
		goto out;
	default:
		break;
	}
	/* Interface requests on any socket (sentry/net/ifioctl.h). */
	if (ifioctl_is(cmd) && socket_from_file(f)) {
		ret = ifioctl(t, cmd, arg);
		goto out;
	}
	if (!f->ops->ioctl || !ioctl_shape(cmd, &kind, &size)) {
		ret = -ENOTTY;
		goto out;
	}
	if (kind == ARG_VALUE)
		buf[0] = arg;
	if (kind == ARG_IN && mm_copy_in(t->mm, buf, arg, size) < 0) {
		ret = -EFAULT;
		goto out;
	}
	if (kind == ARG_OUT && !mm_access_ok(t->mm, arg, size, true)) {
		ret = -EFAULT;
		goto out;
	}
	ret = f->ops->ioctl(f, cmd, buf);
	if (ret >= 0 && kind == ARG_OUT && mm_copy_out(t->mm, arg, buf, size) < 0)
		ret = -EFAULT;
out:
	file_put(f);
	return ret;
}
