/*
 * kcmp(2) (Linux's kernel/kcmp.c): do two tasks share a kernel object? The
 * answer orders the objects by their addresses scrambled with random
 * values chosen once per sandbox (0 equal, 1 less, 2 greater), so that it
 * can sort but says nothing of the sentry's memory. The caller must be
 * able to reach both tasks as ptrace would (same ids or CAP_SYS_PTRACE,
 * and the landlock scope).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/fs/epoll.h"
#include "sentry/fs/file.h"
#include "sentry/ipc/ipc.h"
#include "sentry/ipc/sem.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <pthread.h>
#include <sys/random.h>

enum {
	KCMP_FILE,
	KCMP_VM,
	KCMP_FILES,
	KCMP_FS,
	KCMP_SIGHAND,
	KCMP_IO,
	KCMP_SYSVSEM,
	KCMP_EPOLL_TFD,
	KCMP_TYPES
};

struct kcmp_epoll_slot {
	uint32_t efd, tfd, toff;
};

static uint64_t cookies[KCMP_TYPES][2];
static pthread_once_t cookies_once = PTHREAD_ONCE_INIT;

static void cookies_init(void)
{
	if (getrandom(cookies, sizeof(cookies), 0) != sizeof(cookies))
		for (int i = 0; i < KCMP_TYPES; i++) /* still a permutation */
			cookies[i][0] = cookies[i][1] = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
	/* An odd multiplier with the top bit set keeps the map one-to-one. */
	for (int i = 0; i < KCMP_TYPES; i++)
		cookies[i][1] |= (1ull << 63) | 1;
}

static long kcmp_ptr(const void *a, const void *b, int type)
{
	int64_t x, y;

	pthread_once(&cookies_once, cookies_init);
	x = (int64_t)(((uintptr_t)a ^ cookies[type][0]) * cookies[type][1]);
	y = (int64_t)(((uintptr_t)b ^ cookies[type][0]) * cookies[type][1]);
	return (x < y) | ((x > y) << 1);
}

/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS), under the task lock. */
static bool may_inspect(struct task *t, struct task *p)
{
	return p->tg == t->tg ||
	       (creds_may_attach(&t->creds, &p->creds, p->dumpable) && landlock_may_ptrace(t, p));
}

/* What kcmp compares for one task: an object's identity, or a file. */
struct side {
	const void *id;
	struct file *file; /* KCMP_FILE, KCMP_EPOLL_TFD: a reference */
	int tgid;	   /* KCMP_SYSVSEM */
};

static long side_of(struct task *p, int type, unsigned long idx, struct side *s)
{
	switch (type) {
	case KCMP_FILE:
	case KCMP_EPOLL_TFD:
		s->file = p->files && idx <= 0x7fffffff ? fd_get_raw(p->files, (int)idx) : NULL;
		return s->file ? 0 : -EBADF;
	case KCMP_VM:
		s->id = p->mm;
		return 0;
	case KCMP_FILES:
		s->id = p->files;
		return 0;
	case KCMP_FS:
		s->id = p->fs;
		return 0;
	case KCMP_SIGHAND:
		s->id = p->sighand;
		return 0;
	case KCMP_IO:
		s->id = p->io;
		return 0;
	case KCMP_SYSVSEM:
		s->tgid = p->tgid;
		s->id = p->tg;
		return 0;
	default:
		return -EINVAL;
	}
}

/* KCMP_EPOLL_TFD: task 1's file idx1 against the file task 2's epoll slot names. */
static long epoll_tfd(struct task *t, struct task *p2, struct side *s1,
		      const struct kcmp_epoll_slot *sl)
{
	struct kcmp_epoll_slot slot = *sl;
	struct file *ep;
	const void *target;

	pthread_mutex_lock(&t->k->lock);
	ep = p2->files && slot.efd <= 0x7fffffff ? fd_get(p2->files, (int)slot.efd) : NULL;
	pthread_mutex_unlock(&t->k->lock);
	if (!ep)
		return -EBADF;
	target = file_is_epoll(ep) ? epoll_target_id(ep, (int)slot.tfd, slot.toff) : NULL;
	if (!file_is_epoll(ep)) {
		file_put(ep);
		return -EINVAL;
	}
	file_put(ep);
	return target ? kcmp_ptr(s1->file, target, KCMP_FILE) : -ENOENT;
}

SYSCALL(kcmp)
{
	int pid1 = (int)a->a[0], pid2 = (int)a->a[1], type = (int)a->a[2];
	struct side s1 = {0}, s2 = {0};
	struct kcmp_epoll_slot slot = {0};
	struct task *p1, *p2;
	bool slot_fault = false;
	long ret;

	/* (Read first, reported where Linux reads it: after the permission.) */
	if (type == KCMP_EPOLL_TFD)
		slot_fault = mm_copy_in(t->mm, &slot, a->a[4], sizeof(slot)) < 0;
	pthread_mutex_lock(&t->k->lock);
	p1 = kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid1));
	p2 = kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid2));
	if (!p1 || !p2)
		ret = -ESRCH;
	else if (!may_inspect(t, p1) || !may_inspect(t, p2))
		ret = -EPERM;
	else if (slot_fault)
		ret = -EFAULT;
	else if ((ret = side_of(p1, type, a->a[3], &s1)) == 0 && type != KCMP_EPOLL_TFD)
		ret = side_of(p2, type, a->a[4], &s2);
	if (ret == 0)
		task_get(p2);
	pthread_mutex_unlock(&t->k->lock);
	if (ret)
		goto out;

	switch (type) {
	case KCMP_FILE:
		ret = kcmp_ptr(s1.file, s2.file, KCMP_FILE);
		break;
	case KCMP_EPOLL_TFD:
		ret = epoll_tfd(t, p2, &s1, &slot);
		break;
	case KCMP_SYSVSEM:
		/* A process without SEM_UNDO adjustments has no undo list. */
		if (!sem_has_undo(ipc_ns_of(t->k), s1.tgid))
			s1.id = NULL;
		if (!sem_has_undo(ipc_ns_of(t->k), s2.tgid))
			s2.id = NULL;
		__attribute__((fallthrough));
	default:
		ret = kcmp_ptr(s1.id, s2.id, type);
	}
	task_put(p2);
out:
	if (s1.file)
		file_put(s1.file);
	if (s2.file)
		file_put(s2.file);
	return ret;
}
