/* pidfd_open, pidfd_getfd (pidfd_send_signal is with the signals, in
 * sys_signal.c; waitid's P_PIDFD in sys_process.c; sentry/fs/pidfd.c). */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/file.h"
#include "sentry/fs/pidfd.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"

#include <errno.h>
#include <fcntl.h>

SYSCALL(pidfd_open)
{
	int pid = (int)a->a[0];
	struct kernel *k = t->k;
	struct thread_group *tg;
	struct file *f = NULL;
	long ret = -ESRCH;

	if ((unsigned)a->a[1] & ~(unsigned)O_NONBLOCK) /* PIDFD_NONBLOCK */
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	pid = pidns_global_locked(k, t->pidns, pid); /* a number of the caller's namespace */
	tg = kernel_find_tg_locked(k, pid, true);
	if (tg)
		f = pidfd_file_new(tg, (int)a->a[1]);
	else if (kernel_find_task_locked(k, pid))
		ret = -EINVAL; /* a thread that does not lead its process (Linux 6.1) */
	pthread_mutex_unlock(&k->lock);
	if (!f)
		return ret;
	ret = fd_install(t->files, f, 0, true, task_nofile(t));
	file_put(f);
	return ret;
}

/* pidfd_getfd: a copy of another process's descriptor, close-on-exec, if
 * the caller may attach to it as ptrace would. */
SYSCALL(pidfd_getfd)
{
	struct file *pf, *f = NULL;
	struct thread_group *tg;
	struct task *p;
	long ret;

	if (a->a[2])
		return -EINVAL;
	pf = pidfd_fget(t->files, (int)a->a[0], &tg);
	if (!pf)
		return -EBADF;
	pthread_mutex_lock(&t->k->lock);
	p = list_first_entry_or_null(&tg->threads, struct task, tg_node);
	if (!p || (tg->flags & (TG_ZOMBIE | TG_REAPED)))
		ret = -ESRCH;
	else if (!creds_may_attach(&t->creds, &p->creds, p->dumpable) || !landlock_may_ptrace(t, p))
		ret = -EPERM;
	else if (!p->files || !(f = fd_get(p->files, (int)a->a[1])))
		ret = -EBADF;
	else
		ret = 0;
	pthread_mutex_unlock(&t->k->lock);
	file_put(pf);
	if (ret)
		return ret;
	ret = fd_install(t->files, f, 0, true, task_nofile(t));
	file_put(f);
	return ret;
}
