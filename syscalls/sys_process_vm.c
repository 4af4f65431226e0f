/* process_vm_readv, process_vm_writev: copies between the caller's memory
 * and another process's of the sandbox, for a caller that may attach to it
 * as ptrace would. Through a bounce buffer: each side is copied once. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#define BOUNCE (64 * 1024)

/* The address space of process pid (a reference), if t may reach it. */
static long remote_mm(struct task *t, int pid, struct mm **out)
{
	struct thread_group *tg;
	struct task *p;
	long ret = 0;

	pthread_mutex_lock(&t->k->lock);
	tg = pid > 0 ? kernel_find_tg_locked(t->k, pidns_global_locked(t->k, t->pidns, pid), false)
		     : NULL;
	p = tg ? list_first_entry_or_null(&tg->threads, struct task, tg_node) : NULL;
	if (!p || !p->mm)
		ret = -ESRCH;
	else if (p->tg != t->tg && (!creds_may_attach(&t->creds, &p->creds, p->dumpable) ||
				    !landlock_may_ptrace(t, p)))
		ret = -EPERM;
	else
		*out = mm_get(p->mm);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

/* One step along an iovec array: the next run of at most max bytes. */
struct iov_cursor {
	const struct iovec *iov;
	size_t cnt, i, off;
};

static size_t cursor_next(struct iov_cursor *c, size_t max, uint64_t *addr)
{
	while (c->i < c->cnt && c->off == c->iov[c->i].iov_len) {
		c->i++;
		c->off = 0;
	}
	if (c->i == c->cnt)
		return 0;
	*addr = (uint64_t)(uintptr_t)c->iov[c->i].iov_base + c->off;
	return MIN(max, c->iov[c->i].iov_len - c->off);
}

static long process_vm(struct task *t, const struct syscall_args *a, bool write)
{
	struct iovec *liov = NULL, *riov = NULL;
	struct iov_cursor lc = {0}, rc = {0};
	struct mm *rmm = NULL;
	char *buf = NULL;
	long ret, done = 0;

	if (a->a[5])
		return -EINVAL;
	if (a->a[2] > GUEST_IOV_MAX || a->a[4] > GUEST_IOV_MAX)
		return -EINVAL;
	liov = xmalloc((a->a[2] + 1) * sizeof(*liov));
	riov = xmalloc((a->a[4] + 1) * sizeof(*riov));
	ret = iov_import(t, a->a[1], a->a[2], liov);
	if (ret >= 0)
		ret = iov_import(t, a->a[3], a->a[4], riov);
	if (ret >= 0)
		ret = remote_mm(t, (int)a->a[0], &rmm);
	if (ret < 0)
		goto out;
	lc = (struct iov_cursor){liov, a->a[2], 0, 0};
	rc = (struct iov_cursor){riov, a->a[4], 0, 0};
	buf = xmalloc(BOUNCE);
	for (;;) {
		uint64_t laddr, raddr;
		size_t n = cursor_next(&lc, BOUNCE, &laddr);
		n = n ? cursor_next(&rc, n, &raddr) : 0;
		if (!n)
			break;
		/* A fault on the remote side ends the transfer (its count, or
		 * EFAULT for none); one on the local side is EFAULT. */
		if (write) {
			if (mm_copy_in(t->mm, buf, laddr, n) < 0) {
				ret = -EFAULT;
				break;
			}
			if (mm_copy_out(rmm, raddr, buf, n) < 0)
				break;
		} else {
			if (mm_copy_in(rmm, buf, raddr, n) < 0)
				break;
			if (mm_copy_out(t->mm, laddr, buf, n) < 0) {
				ret = -EFAULT;
				break;
			}
		}
		lc.off += n;
		rc.off += n;
		done += (long)n;
	}
	if (ret >= 0)
		ret = done ? done : (lc.i < lc.cnt && rc.i < rc.cnt ? -EFAULT : 0);
out:
	if (rmm)
		mm_put(rmm);
	free(buf);
	free(liov);
	free(riov);
	return ret;
}

SYSCALL(process_vm_readv)
{
	return process_vm(t, a, false);
}

SYSCALL(process_vm_writev)
{
	return process_vm(t, a, true);
}
