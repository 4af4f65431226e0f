/*
 * ioprio_set, ioprio_get (Linux's block/ioprio.c): priorities are checked
 * and recorded per task (sentry/kernel/ioprio.h) and read back; nothing in
 * the sandbox schedules I/O by them.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/ioprio.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"

#include <errno.h>

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP	   2
#define IOPRIO_WHO_USER	   3

/* Linux 6.1's ioprio_check_cap. */
int ioprio_check_cap(struct task *t, int ioprio)
{
	int data = IOPRIO_DATA(ioprio);

	switch (IOPRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
		if (!creds_capable(&t->creds, KCAP_SYS_ADMIN) &&
		    !creds_capable(&t->creds, KCAP_SYS_NICE))
			return -EPERM;
		__attribute__((fallthrough)); /* RT has levels too */
	case IOPRIO_CLASS_BE:
		return data >= IOPRIO_NR_LEVELS ? -EINVAL : 0;
	case IOPRIO_CLASS_IDLE:
		return 0;
	case IOPRIO_CLASS_NONE:
		return data ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* set_task_ioprio: the target's real uid is the caller's real or
 * effective one, or CAP_SYS_NICE. */
static int set_one(struct task *t, struct task *p, int ioprio)
{
	if (p->creds.uid != t->creds.euid && p->creds.uid != t->creds.uid &&
	    !creds_capable(&t->creds, KCAP_SYS_NICE))
		return -EPERM;
	ioprio_task_set(p, ioprio);
	return 0;
}

/* Does task p belong to the set which/who names (who already resolved)? */
static bool selected(struct task *p, int which, int who)
{
	return which == IOPRIO_WHO_PGRP ? p->tg->pgid == who : p->creds.uid == (uint32_t)who;
}

SYSCALL(ioprio_set)
{
	int which = (int)a->a[0], who = (int)a->a[1], ioprio = (int)a->a[2];
	struct kernel *k = t->k;
	struct task *p;
	int ret = ioprio_check_cap(t, ioprio);

	if (ret)
		return ret;
	if (which != IOPRIO_WHO_PROCESS && which != IOPRIO_WHO_PGRP && which != IOPRIO_WHO_USER)
		return -EINVAL;
	ret = -ESRCH;
	pthread_mutex_lock(&k->lock);
	if (which == IOPRIO_WHO_PROCESS) {
		p = who ? kernel_find_task_locked(k, pidns_global_locked(k, t->pidns, who)) : t;
		if (p)
			ret = set_one(t, p, ioprio);
	} else {
		/* (IOPRIO_WHO_USER with who 0 is uid 0 here, as in Linux.) */
		if (which == IOPRIO_WHO_PGRP && !who)
			who = t->tg->pgid;
		list_for_each_entry(p, &k->tasks, knode) {
			if (!selected(p, which, who))
				continue;
			ret = set_one(t, p, ioprio);
			if (ret)
				break;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

SYSCALL(ioprio_get)
{
	int which = (int)a->a[0], who = (int)a->a[1];
	struct kernel *k = t->k;
	struct task *p;
	int ret = -ESRCH;

	if (which != IOPRIO_WHO_PROCESS && which != IOPRIO_WHO_PGRP && which != IOPRIO_WHO_USER)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	if (which == IOPRIO_WHO_PROCESS) {
		p = who ? kernel_find_task_locked(k, pidns_global_locked(k, t->pidns, who)) : t;
		if (p)
			ret = ioprio_task_get(p);
	} else {
		if (!who)
			who = which == IOPRIO_WHO_PGRP ? t->tg->pgid : (int)t->creds.uid;
		/* The best (numerically least) of the set's effective priorities. */
		list_for_each_entry(p, &k->tasks, knode) {
			int prio;
			if (!selected(p, which, who))
				continue;
			prio = ioprio_task_effective(p);
			if (ret == -ESRCH || prio < ret)
				ret = prio;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}
