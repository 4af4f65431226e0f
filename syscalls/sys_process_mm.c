/*
 * process_madvise, process_mrelease: another process's address space
 * through a pidfd (Linux 6.1's mm/madvise.c and mm/oom_kill.c). The
 * caller must be able to attach to it as ptrace would (PTRACE_MODE_READ).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/file.h"
#include "sentry/fs/pidfd.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <sys/mman.h>

#define MADV_COLD_     20
#define MADV_PAGEOUT_  21
#define MADV_COLLAPSE_ 25

/* A thread of tg that still has its address space (Linux's
 * find_lock_task_mm), under the kernel lock; NULL when none. */
static struct task *task_with_mm(struct thread_group *tg)
{
	struct task *p;

	if (tg->flags & (TG_ZOMBIE | TG_REAPED))
		return NULL;
	list_for_each_entry(p, &tg->threads, tg_node)
		if (p->mm)
			return p;
	return NULL;
}

SYSCALL(process_madvise)
{
	struct iovec iov[GUEST_IOV_MAX];
	int advice = (int)a->a[3];
	struct thread_group *tg;
	struct mm *mm = NULL;
	uint64_t done = 0;
	struct file *pf;
	struct task *p;
	long ret;

	if ((unsigned)a->a[4])
		return -EINVAL;
	ret = iov_import(t, a->a[1], a->a[2], iov);
	if (ret < 0)
		return ret;
	pf = pidfd_fget(t->files, (int)a->a[0], &tg);
	if (!pf)
		return -EBADF;
	if (advice != MADV_COLD_ && advice != MADV_PAGEOUT_ && advice != MADV_WILLNEED &&
	    advice != MADV_COLLAPSE_) {
		file_put(pf);
		return -EINVAL;
	}
	pthread_mutex_lock(&t->k->lock);
	p = task_with_mm(tg);
	if (!p)
		ret = -ESRCH;
	else if (p->mm != t->mm && (!creds_may_attach(&t->creds, &p->creds, p->dumpable) ||
				    !landlock_may_ptrace(t, p)))
		ret = -EACCES;
	else
		mm = mm_get(p->mm);
	pthread_mutex_unlock(&t->k->lock);
	file_put(pf);
	if (!mm)
		return ret;
	/* Linux 6.1 asks CAP_SYS_NICE even of a caller that names itself. */
	if (!creds_capable(&t->creds, KCAP_SYS_NICE)) {
		mm_put(mm);
		return -EPERM;
	}
	ret = 0;
	for (size_t i = 0; i < (size_t)a->a[2]; i++) {
		if (!iov[i].iov_len)
			continue;
		ret = mm_madvise(mm, (uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len, advice);
		if (ret < 0)
			break;
		done += iov[i].iov_len;
	}
	mm_put(mm);
	return done ? (long)done : ret;
}

SYSCALL(process_mrelease)
{
	struct thread_group *tg;
	struct file *pf;
	long ret;

	if ((unsigned)a->a[1])
		return -EINVAL;
	pf = pidfd_fget(t->files, (int)a->a[0], &tg);
	if (!pf)
		return -EBADF;
	pthread_mutex_lock(&t->k->lock);
	if (!task_with_mm(tg))
		ret = -ESRCH;
	else if (tg->flags & TG_EXITING)
		ret = 0; /* its memory goes as its threads exit: nothing is left to reap early */
	else
		ret = -EINVAL; /* not dying: Linux reaps only an exiting process */
	pthread_mutex_unlock(&t->k->lock);
	file_put(pf);
	return ret;
}
