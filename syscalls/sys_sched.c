/*
 * Scheduling and resource usage: scheduling policies and priorities, nice
 * values, CPU affinity, membarrier, getrusage and times. The attributes
 * follow Linux's rules (sentry/kernel/sched.c) and are recorded per task;
 * the host schedules every task as an ordinary thread (docs/syscalls.md).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/rusage.h"
#include "sentry/kernel/sched.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

#define NSEC_PER_SEC  1000000000ull
#define NSEC_PER_TICK 10000000ull /* USER_HZ = 100 */

/* membarrier registrations (mm->membarrier_reg). */
#define MB_GLOBAL_EXPEDITED  1u
#define MB_PRIVATE_EXPEDITED 2u
#define MB_SYNC_CORE	     4u

/* The commands the sandbox has (no RSEQ ones: rseq is not implemented, so
 * they are EINVAL as on a kernel without CONFIG_RSEQ). */
#define MB_COMMANDS                                                                               \
	(MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_GLOBAL_EXPEDITED |                                \
	 MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED | MEMBARRIER_CMD_PRIVATE_EXPEDITED |            \
	 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED | MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE | \
	 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)

/* find_process_by_pid: the caller for 0, else the live thread with that id.
 * Under k->lock. */
static struct task *find_task_locked(struct task *t, int pid)
{
	return pid == 0 ? t
			: kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid));
}

/* --- nice ---------------------------------------------------------------------------- */

/* Does task p fall under getpriority/setpriority's (which, who)? */
static bool prio_match(struct task *t, struct task *p, int which, uint32_t who)
{
	switch (which) {
	case PRIO_PROCESS:
		return who ? p->tid == (int)who : p == t;
	case PRIO_PGRP:
		return p->tg->pgid == (who ? (int)who : t->tg->pgid);
	default: /* PRIO_USER */
		return p->creds.uid == (who ? who : t->creds.uid);
	}
}

SYSCALL(getpriority)
{
	int which = (int)a->a[0];
	uint32_t who = (uint32_t)a->a[1];
	long ret = -ESRCH;
	struct task *p;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	list_for_each_entry(p, &t->k->tasks, knode)
		if (prio_match(t, p, which, who))
			ret = MAX(ret, 20 - p->sched.nice); /* nice_to_rlimit */
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(setpriority)
{
	int which = (int)a->a[0], nice = (int)a->a[2];
	uint32_t who = (uint32_t)a->a[1];
	long ret = -ESRCH;
	struct task *p;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	nice = MAX(NICE_MIN, MIN(nice, NICE_MAX));
	pthread_mutex_lock(&t->k->lock);
	list_for_each_entry(p, &t->k->tasks, knode) {
		int err;
		if (!prio_match(t, p, which, who))
			continue;
		/* set_one_prio: the last failure wins; success only replaces ESRCH. */
		err = sched_may_set_nice_locked(t, p, nice);
		if (err < 0) {
			ret = err;
			continue;
		}
		if (ret == -ESRCH)
			ret = 0;
		p->sched.nice = nice;
	}
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

/* --- policies -------------------------------------------------------------------------- */

/* sched_setscheduler and sched_setparam (policy -1). */
static long set_scheduler(struct task *t, int pid, int policy, uint64_t param)
{
	struct task *p;
	int prio;
	long ret;

	if (!param || pid < 0)
		return -EINVAL;
	if (mm_copy_in(t->mm, &prio, param, sizeof(prio)) < 0)
		return -EFAULT;
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	ret = p ? sched_setscheduler_locked(t, p, policy, prio) : -ESRCH;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(sched_setscheduler)
{
	int policy = (int)a->a[1];

	if (policy < 0)
		return -EINVAL;
	return set_scheduler(t, (int)a->a[0], policy, a->a[2]);
}

SYSCALL(sched_setparam)
{
	return set_scheduler(t, (int)a->a[0], -1, a->a[1]);
}

SYSCALL(sched_getscheduler)
{
	int pid = (int)a->a[0];
	struct task *p;
	long ret;

	if (pid < 0)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	ret = p ? p->sched.policy | (p->sched.reset_on_fork ? SCHED_RESET_FLAG : 0) : -ESRCH;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(sched_getparam)
{
	int pid = (int)a->a[0], prio = 0;
	struct task *p;

	if (!a->a[1] || pid < 0)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	if (p && (p->sched.policy == SCHED_FIFO || p->sched.policy == SCHED_RR))
		prio = p->sched.rt_priority;
	pthread_mutex_unlock(&t->k->lock);
	if (!p)
		return -ESRCH;
	return mm_copy_out(t->mm, a->a[1], &prio, sizeof(prio));
}

SYSCALL(sched_get_priority_max)
{
	switch ((int)a->a[0]) {
	case SCHED_FIFO:
	case SCHED_RR:
		return RT_PRIO_MAX;
	case SCHED_OTHER:
	case SCHED_BATCH:
	case SCHED_IDLE:
	case SCHED_DEADLINE:
		return 0;
	default:
		return -EINVAL;
	}
}

SYSCALL(sched_get_priority_min)
{
	switch ((int)a->a[0]) {
	case SCHED_FIFO:
	case SCHED_RR:
		return 1;
	case SCHED_OTHER:
	case SCHED_BATCH:
	case SCHED_IDLE:
	case SCHED_DEADLINE:
		return 0;
	default:
		return -EINVAL;
	}
}

SYSCALL(sched_rr_get_interval)
{
	int pid = (int)a->a[0];
	struct task *p;
	uint64_t ns = 0;
	struct {
		int64_t tv_sec, tv_nsec;
	} ts;

	if (pid < 0)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	if (p)
		ns = sched_rr_interval_ns(p);
	pthread_mutex_unlock(&t->k->lock);
	if (!p)
		return -ESRCH;
	ts.tv_sec = (int64_t)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (int64_t)(ns % NSEC_PER_SEC);
	return mm_copy_out(t->mm, a->a[1], &ts, sizeof(ts));
}

/* --- affinity -------------------------------------------------------------------------- */

/* cpumask_size(): the bytes of a mask of the sandbox's CPUs (nr_cpu_ids bits). */
static size_t cpumask_bytes(struct task *t)
{
	unsigned n = MIN(t->k->ncpus, (unsigned)SCHED_MAX_CPUS);

	return ALIGN_UP((size_t)n, 64) / 8;
}

SYSCALL(sched_setaffinity)
{
	int pid = (int)a->a[0];
	size_t len = (uint32_t)a->a[1], size = cpumask_bytes(t);
	uint64_t mask[SCHED_MASK_WORDS] = {0}, all[SCHED_MASK_WORDS], any = 0;
	struct task *p;
	long ret = 0;

	/* A short mask is zero-extended, a long one cut (get_user_cpu_mask). */
	if (mm_copy_in(t->mm, mask, a->a[2], MIN(len, size)) < 0)
		return -EFAULT;
	sched_all_cpus(t->k, all);
	for (unsigned i = 0; i < SCHED_MASK_WORDS; i++) {
		mask[i] &= all[i];
		any |= mask[i];
	}
	pthread_mutex_lock(&t->k->lock);
	p = pid < 0 ? NULL : find_task_locked(t, pid);
	if (!p)
		ret = -ESRCH;
	else if (t->creds.euid != p->creds.euid && t->creds.euid != p->creds.uid &&
		 !creds_capable(&t->creds, KCAP_SYS_NICE))
		ret = -EPERM;
	else if ((p->creds.cap_permitted & ~t->creds.cap_permitted) &&
		 !creds_capable(&t->creds, KCAP_SYS_NICE))
		ret = -EPERM; /* cap_safe_nice */
	else if (!any)
		ret = -EINVAL; /* none of the sandbox's CPUs */
	else
		memcpy(p->sched.affinity, mask, sizeof(mask));
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(sched_getaffinity)
{
	int pid = (int)a->a[0];
	uint64_t len = (uint32_t)a->a[1], mask[SCHED_MASK_WORDS];
	size_t size = cpumask_bytes(t), n;
	struct task *p;

	if (len * 8 < MIN(t->k->ncpus, (unsigned)SCHED_MAX_CPUS) || (len & (sizeof(uint64_t) - 1)))
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	p = pid < 0 ? NULL : find_task_locked(t, pid);
	if (p)
		sched_get_affinity(p, mask);
	pthread_mutex_unlock(&t->k->lock);
	if (!p)
		return -ESRCH;
	n = MIN((size_t)len, size);
	if (mm_copy_out(t->mm, a->a[2], mask, n) < 0)
		return -EFAULT;
	return (long)n;
}

/* --- membarrier ---------------------------------------------------------------------- */

SYSCALL(membarrier)
{
	int cmd = (int)a->a[0];
	unsigned flags = (unsigned)a->a[1];
	unsigned reg = __atomic_load_n(&t->mm->membarrier_reg, __ATOMIC_SEQ_CST);

	if (cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) {
		if (flags && flags != MEMBARRIER_CMD_FLAG_CPU)
			return -EINVAL;
	} else if (flags) {
		return -EINVAL;
	}
	switch (cmd) {
	case MEMBARRIER_CMD_QUERY:
		return MB_COMMANDS;
	case MEMBARRIER_CMD_GLOBAL:
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
		/* Every task running guest code in the sandbox (a superset of
		 * those of registered processes). */
		sched_membarrier(t, false);
		return 0;
	case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
		__atomic_or_fetch(&t->mm->membarrier_reg, MB_GLOBAL_EXPEDITED, __ATOMIC_SEQ_CST);
		return 0;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		if (!(reg & MB_PRIVATE_EXPEDITED))
			return -EPERM;
		sched_membarrier(t, true);
		return 0;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
		if (!(reg & MB_SYNC_CORE))
			return -EPERM;
		sched_membarrier(t, true);
		return 0;
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		__atomic_or_fetch(&t->mm->membarrier_reg, MB_PRIVATE_EXPEDITED, __ATOMIC_SEQ_CST);
		return 0;
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
		__atomic_or_fetch(&t->mm->membarrier_reg, MB_SYNC_CORE, __ATOMIC_SEQ_CST);
		return 0;
	default:
		return -EINVAL;
	}
}

/* --- resource usage ------------------------------------------------------------------- */

static struct timeval ns_to_tv(uint64_t ns)
{
	return (struct timeval){.tv_sec = (time_t)(ns / NSEC_PER_SEC),
				.tv_usec = (suseconds_t)(ns % NSEC_PER_SEC / 1000)};
}

SYSCALL(getrusage)
{
	int who = (int)a->a[0];
	uint64_t utime, stime, maxrss;
	struct rusage ru;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	memset(&ru, 0, sizeof(ru));
	pthread_mutex_lock(&t->k->lock);
	if (who == RUSAGE_CHILDREN) {
		utime = t->tg->child_utime_ns;
		stime = t->tg->child_stime_ns;
		maxrss = t->tg->child_maxrss_kb;
	} else {
		if (who == RUSAGE_THREAD)
			rusage_task_times(t, &utime, &stime);
		else
			rusage_tg_times_locked(t->tg, &utime, &stime);
		maxrss = MAX(t->tg->maxrss_kb, mm_committed_peak(t->mm) / 1024);
	}
	pthread_mutex_unlock(&t->k->lock);
	ru.ru_utime = ns_to_tv(utime);
	ru.ru_stime = ns_to_tv(stime);
	ru.ru_maxrss = (long)maxrss;
	return mm_copy_out(t->mm, a->a[1], &ru, sizeof(ru));
}

SYSCALL(times)
{
	uint64_t utime, stime;
	struct tms tms;

	if (a->a[0]) {
		pthread_mutex_lock(&t->k->lock);
		rusage_tg_times_locked(t->tg, &utime, &stime);
		tms.tms_utime = (clock_t)(utime / NSEC_PER_TICK);
		tms.tms_stime = (clock_t)(stime / NSEC_PER_TICK);
		tms.tms_cutime = (clock_t)(t->tg->child_utime_ns / NSEC_PER_TICK);
		tms.tms_cstime = (clock_t)(t->tg->child_stime_ns / NSEC_PER_TICK);
		pthread_mutex_unlock(&t->k->lock);
		if (mm_copy_out(t->mm, a->a[0], &tms, sizeof(tms)) < 0)
			return -EFAULT;
	}
	/* Clock ticks since the sandbox booted, as /proc/uptime and the start
	 * times in /proc/<pid>/stat count them. */
	return (long)((monotonic_ns() - t->k->boot_ns) / NSEC_PER_TICK);
}

/* --- sched_setattr, sched_getattr ------------------------------------------------------ */

/* struct sched_attr: its first version (48 bytes) and the utilization
 * clamps of the second (56). */
struct sched_attr_guest {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};
#define SCHED_ATTR_SIZE_VER0	 48u
#define SCHED_FLAG_RESET_ON_FORK 0x01ull
#define SCHED_FLAG_KEEP_POLICY	 0x08ull
#define SCHED_FLAG_KEEP_PARAMS	 0x10ull
#define SCHED_FLAG_UTIL_CLAMP	 0x60ull
#define SCHED_FLAG_ALL		 0x7full

/* Linux's sched_copy_attr: a size it does not know is E2BIG (and the size
 * it knows written back), unknown bytes must be zero. */
static long attr_copy_in(struct task *t, uint64_t uattr, struct sched_attr_guest *attr)
{
	uint32_t size;
	long ret;

	if (mm_copy_in(t->mm, &size, uattr, sizeof(size)) < 0)
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	ret = size < SCHED_ATTR_SIZE_VER0 || size > PAGE_SIZE
		      ? -E2BIG
		      : mm_copy_struct_in(t->mm, attr, sizeof(*attr), uattr, size);
	if (ret == -E2BIG) {
		size = sizeof(*attr);
		mm_copy_out(t->mm, uattr, &size, sizeof(size));
	}
	attr->size = size;
	return ret;
}

SYSCALL(sched_setattr)
{
	int pid = (int)a->a[0], policy;
	struct sched_attr_guest attr;
	bool rt;
	struct task *p;
	long ret;

	if (!a->a[1] || pid < 0 || a->a[2])
		return -EINVAL;
	ret = attr_copy_in(t, a->a[1], &attr);
	if (ret)
		return ret;
	if (attr.flags & ~SCHED_FLAG_ALL)
		return -EINVAL;
	if (attr.flags & SCHED_FLAG_UTIL_CLAMP)
		return -EOPNOTSUPP; /* as a kernel without CONFIG_UCLAMP_TASK */
	if (attr.policy == SCHED_DEADLINE && !(attr.flags & SCHED_FLAG_KEEP_POLICY))
		return -EINVAL; /* no deadline scheduling in the sandbox (the table's note) */
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	if (!p) {
		ret = -ESRCH;
		goto out;
	}
	policy = (attr.flags & SCHED_FLAG_KEEP_POLICY) ? p->sched.policy : (int)attr.policy;
	rt = policy == SCHED_FIFO || policy == SCHED_RR;
	if (attr.flags & SCHED_FLAG_RESET_ON_FORK)
		policy |= SCHED_RESET_FLAG;
	if (attr.flags & SCHED_FLAG_KEEP_PARAMS) {
		ret = sched_setscheduler_locked(t, p, policy, rt ? p->sched.rt_priority : 0);
	} else if (rt) {
		ret = sched_setscheduler_locked(t, p, policy, (int)attr.priority);
	} else {
		/* A fair policy: the nice value, clamped as setpriority clamps it. */
		int nice = MAX(NICE_MIN, MIN(NICE_MAX, attr.nice));
		ret = sched_may_set_nice_locked(t, p, nice);
		if (ret == 0)
			ret = sched_setscheduler_locked(t, p, policy, (int)attr.priority);
		if (ret == 0)
			p->sched.nice = nice;
	}
out:
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(sched_getattr)
{
	int pid = (int)a->a[0];
	uint32_t usize = (uint32_t)a->a[2];
	struct sched_attr_guest attr = {0};
	struct task *p;

	if (!a->a[1] || pid < 0 || usize < SCHED_ATTR_SIZE_VER0 || usize > PAGE_SIZE || a->a[3])
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	p = find_task_locked(t, pid);
	if (p) {
		attr.policy = (uint32_t)p->sched.policy;
		attr.flags = p->sched.reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0;
		if (p->sched.policy == SCHED_FIFO || p->sched.policy == SCHED_RR)
			attr.priority = (uint32_t)p->sched.rt_priority;
		else
			attr.nice = p->sched.nice;
		/* Linux reports the clamps' defaults: the whole range. */
		attr.util_max = 1024;
	}
	pthread_mutex_unlock(&t->k->lock);
	if (!p)
		return -ESRCH;
	attr.size = MIN(usize, (uint32_t)sizeof(attr));
	return mm_copy_out(t->mm, a->a[1], &attr, attr.size) < 0 ? -EFAULT : 0;
}
