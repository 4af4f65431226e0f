/* Scheduling attributes with Linux's rules (see sched.h). */
#include "config.h"
#include "sentry/kernel/sched.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* The tick behind jiffies-based answers (Debian's HZ=250). */
#define TICK_NS 4000000ull

void sched_fork(struct task_sched *child, const struct task_sched *parent)
{
	*child = *parent;
	child->default_slack_ns = parent->timer_slack_ns;
	if (child->reset_on_fork) {
		if (child->policy == SCHED_FIFO || child->policy == SCHED_RR) {
			child->policy = SCHED_OTHER;
			child->rt_priority = 0;
			child->nice = 0;
		} else if (child->nice < 0) {
			child->nice = 0;
		}
		child->reset_on_fork = false;
	}
}

uint64_t sched_timer_slack(const struct task_sched *s)
{
	return s->timer_slack_ns ? s->timer_slack_ns : TIMER_SLACK_NS;
}

uint64_t sched_timer_slack_default(const struct task_sched *s)
{
	return s->default_slack_ns ? s->default_slack_ns : TIMER_SLACK_NS;
}

static bool capable(struct task *t, int cap)
{
	return creds_capable(&t->creds, cap);
}

/* May p's nice go down to nice (can_nice: RLIMIT_NICE, or CAP_SYS_NICE)? */
static bool can_nice(struct task *t, struct task *p, int nice)
{
	return (rlim_t)(20 - nice) <= p->tg->rlim[RLIMIT_NICE].rlim_cur ||
	       capable(t, KCAP_SYS_NICE);
}

/* cap_safe_nice: a task with capabilities the caller lacks is off limits
 * without CAP_SYS_NICE. */
static int safe_nice(struct task *t, struct task *p)
{
	if ((p->creds.cap_permitted & ~t->creds.cap_permitted) && !capable(t, KCAP_SYS_NICE))
		return -EPERM;
	return 0;
}

/* check_same_owner: the caller's euid is p's euid or uid. */
static bool same_owner(struct task *t, struct task *p)
{
	return t->creds.euid == p->creds.euid || t->creds.euid == p->creds.uid;
}

int sched_may_set_nice_locked(struct task *t, struct task *p, int nice)
{
	if (p->creds.uid != t->creds.euid && p->creds.euid != t->creds.euid &&
	    !capable(t, KCAP_SYS_NICE))
		return -EPERM;
	if (nice < p->sched.nice && !can_nice(t, p, nice))
		return -EACCES;
	return safe_nice(t, p);
}

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

int sched_setscheduler_locked(struct task *t, struct task *p, int policy, int prio)
{
	struct task_sched *s = &p->sched;
	bool reset;
	int ret;

	if (policy == -1) {
		reset = s->reset_on_fork;
		policy = s->policy;
	} else {
		reset = policy & SCHED_RESET_FLAG;
		policy &= ~SCHED_RESET_FLAG;
		if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE &&
		    !rt_policy(policy) && policy != SCHED_DEADLINE)
			return -EINVAL;
	}
	/* Real-time priorities are 1..99, the others 0; SCHED_DEADLINE needs
	 * sched_setattr's parameters (so this call cannot set it). */
	if ((uint32_t)prio > RT_PRIO_MAX || policy == SCHED_DEADLINE ||
	    rt_policy(policy) != (prio != 0))
		return -EINVAL;
	if (!capable(t, KCAP_SYS_NICE)) {
		if (rt_policy(policy)) {
			rlim_t rlim = p->tg->rlim[RLIMIT_RTPRIO].rlim_cur;
			if (policy != s->policy && !rlim)
				return -EPERM;
			if (prio > s->rt_priority && (rlim_t)prio > rlim)
				return -EPERM;
		}
		/* Leaving SCHED_IDLE is like lowering the nice value to its own. */
		if (s->policy == SCHED_IDLE && policy != SCHED_IDLE && !can_nice(t, p, s->nice))
			return -EPERM;
		if (!same_owner(t, p))
			return -EPERM;
		if (s->reset_on_fork && !reset)
			return -EPERM;
	}
	ret = safe_nice(t, p);
	if (ret < 0)
		return ret;
	s->policy = policy;
	s->rt_priority = prio;
	s->reset_on_fork = reset;
	return 0;
}

void sched_all_cpus(const struct kernel *k, uint64_t mask[SCHED_MASK_WORDS])
{
	unsigned n = MIN(k->ncpus, (unsigned)SCHED_MAX_CPUS);

	memset(mask, 0, SCHED_MASK_WORDS * sizeof(uint64_t));
	for (unsigned i = 0; i < n; i++)
		mask[i / 64] |= 1ull << (i % 64);
}

void sched_get_affinity(const struct task *t, uint64_t mask[SCHED_MASK_WORDS])
{
	uint64_t all[SCHED_MASK_WORDS], any = 0;

	sched_all_cpus(t->k, all);
	for (unsigned i = 0; i < SCHED_MASK_WORDS; i++) {
		mask[i] = t->sched.affinity[i] & all[i];
		any |= mask[i];
	}
	if (!any)
		memcpy(mask, all, sizeof(all));
}

uint64_t sched_rr_interval_ns(const struct task *p)
{
	unsigned n = MIN(p->k->ncpus, 8u), factor = 1;

	if (p->sched.policy == SCHED_RR)
		return RR_TIMESLICE_NS;
	if (p->sched.policy == SCHED_FIFO)
		return 0;
	/* CFS's slice of a lone task: sched_latency (6 ms scaled by
	 * 1 + log2(CPUs), up to 8), in whole ticks. */
	while (n >>= 1)
		factor++;
	return 6000000ull * factor / TICK_NS * TICK_NS;
}

/* A task the barrier waits for: its guest_seq when it was running guest code. */
struct mb_wait {
	struct task *t;
	uint32_t seq;
};

void sched_membarrier(struct task *t, bool mm_only)
{
	struct kernel *k = t->k;
	struct mb_wait *w = NULL;
	size_t n = 0, cap = 0;
	struct task *o;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(o, &k->tasks, knode) {
		uint32_t seq;
		if (o == t || o->exited || (mm_only && o->mm != t->mm))
			continue;
		seq = __atomic_load_n(&o->guest_seq, __ATOMIC_SEQ_CST);
		if (!(seq & 1))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			w = xrealloc(w, cap * sizeof(*w));
		}
		w[n].t = task_get(o);
		w[n++].seq = seq;
		task_interrupt(o);
	}
	pthread_mutex_unlock(&k->lock);
	for (size_t i = 0; i < n; i++) {
		unsigned spins = 0;
		while (__atomic_load_n(&w[i].t->guest_seq, __ATOMIC_SEQ_CST) == w[i].seq &&
		       !__atomic_load_n(&w[i].t->exited, __ATOMIC_SEQ_CST) &&
		       !(__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_KILL)) {
			if (++spins < 64) {
				sched_yield();
			} else {
				struct timespec ts = {0, 20000};
				nanosleep(&ts, NULL);
			}
		}
		task_put(w[i].t);
	}
	free(w);
}
