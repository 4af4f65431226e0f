/* The sandbox's out-of-memory monitor (oom.h). */
#include "config.h"
#include "sentry/kernel/oom.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mm.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How fast a guest could fill memory (a memset on this kind of machine
 * runs at a few GiB/s): the monitor looks again before the room left
 * could be gone at that rate, but never more often than every 10 ms nor
 * less often than every second. */
#define FILL_RATE     (4ull << 30)
#define PERIOD_MIN_NS 10000000ull
#define PERIOD_MAX_NS 1000000000ull
/* A victim has this long to go before another one is chosen. */
#define VICTIM_GRACE_NS 1000000000ull

struct oom_monitor {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	int victim;	    /* tgid of the process last ended, while it lives */
	uint64_t victim_ns; /* when */
	unsigned kills;
};

/* A process that could be ended, with a reference on its memory. */
struct candidate {
	int tgid;
	int adj; /* its oom_score_adj */
	char comm[TASK_COMM_LEN];
	struct mm *mm;
};

/* Every live process that has an address space of its own (k->lock is
 * taken here; the caller puts the references). */
static size_t candidates(struct kernel *k, struct candidate **out)
{
	struct thread_group *tg;
	size_t n = 0, cap = 0;
	struct candidate *c = NULL;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(tg, &k->groups, knode) {
		struct task *t;
		if (tg->flags & (TG_ZOMBIE | TG_REAPED | TG_EXITING))
			continue;
		t = list_first_entry_or_null(&tg->threads, struct task, tg_node);
		if (!t || !t->mm)
			continue;
		if (n == cap)
			c = xrealloc(c, (cap = cap ? cap * 2 : 16) * sizeof(*c));
		c[n].tgid = tg->tgid;
		c[n].adj = tg->oom.adj;
		memcpy(c[n].comm, t->comm, sizeof(c[n].comm));
		c[n].mm = mm_get(t->mm);
		n++;
	}
	pthread_mutex_unlock(&k->lock);
	*out = c;
	return n;
}

/* Is the process ended last still alive (then nothing else is ended yet)? */
static bool victim_pending(struct kernel *k, struct oom_monitor *m, uint64_t now)
{
	struct thread_group *tg;
	bool alive;

	if (!m->victim)
		return false;
	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, m->victim, false);
	alive = tg && !(tg->flags & (TG_ZOMBIE | TG_REAPED));
	pthread_mutex_unlock(&k->lock);
	if (alive && now - m->victim_ns < VICTIM_GRACE_NS)
		return true;
	m->victim = 0;
	return false;
}

int64_t oom_badness(uint64_t rss, int adj, uint64_t total)
{
	if (adj <= OOM_SCORE_ADJ_MIN)
		return INT64_MIN;
	return (int64_t)(rss / PAGE_SIZE) + (int64_t)adj * (int64_t)(total / PAGE_SIZE / 1000);
}

/* End the process with the largest resident set, weighed by its
 * oom_score_adj, as Linux's OOM killer chooses (a sandbox's init too: a
 * container's init is no exception). */
static void kill_largest(struct kernel *k, struct oom_monitor *m, uint64_t used)
{
	struct candidate *c;
	size_t n = candidates(k, &c), best = n;
	uint64_t best_rss = 0;
	int64_t best_points = INT64_MIN;

	for (size_t i = 0; i < n; i++) {
		uint64_t rss = mm_resident(c[i].mm);
		int64_t points = oom_badness(rss, c[i].adj, k->mf->acct.limit);
		if (points != INT64_MIN && (best == n || points > best_points)) {
			best_points = points;
			best_rss = rss;
			best = i;
		}
	}
	if (best < n) {
		struct thread_group *tg;
		siginfo_t si;
		siginfo_kernel(&si, SIGKILL);
		pthread_mutex_lock(&k->lock);
		tg = kernel_find_tg_locked(k, c[best].tgid, false);
		if (tg)
			signal_send_tg_locked(tg, &si);
		pthread_mutex_unlock(&k->lock);
		m->victim = c[best].tgid;
		m->victim_ns = monotonic_ns();
		m->kills++;
		log_warning("out of memory: the sandbox holds %llu MiB of its %llu MiB limit: "
			    "killed process %d (%s), %llu MiB resident",
			    (unsigned long long)(used >> 20),
			    (unsigned long long)(k->mf->acct.limit >> 20), c[best].tgid,
			    c[best].comm, (unsigned long long)(best_rss >> 20));
	}
	for (size_t i = 0; i < n; i++)
		mm_put(c[i].mm);
	free(c);
}

/* How long to wait before looking again, with room bytes left. */
static uint64_t period_ns(uint64_t room)
{
	if (room == 0)
		return PERIOD_MIN_NS;
	return MAX(PERIOD_MIN_NS, MIN(PERIOD_MAX_NS, room / (FILL_RATE / 1000000000ull)));
}

static void *monitor_main(void *arg)
{
	struct kernel *k = arg;
	struct oom_monitor *m = k->oom;
	struct memacct *a = &k->mf->acct;

	pthread_mutex_lock(&m->lock);
	while (!m->stop) {
		uint64_t used = memacct_usage(a), limit = a->limit, now = monotonic_ns();
		uint64_t wait = period_ns(used < limit ? limit - used : 0);
		struct timespec ts;
		/* Over the limit, not at it: the kernel's own buffers and tmpfs
		 * may fill it to the byte (and then get ENOSPC or ENOMEM). */
		if (used > limit && !victim_pending(k, m, now)) {
			pthread_mutex_unlock(&m->lock);
			kill_largest(k, m, used);
			pthread_mutex_lock(&m->lock);
			wait = PERIOD_MIN_NS;
		}
		now += wait;
		ts.tv_sec = (time_t)(now / 1000000000ull);
		ts.tv_nsec = (long)(now % 1000000000ull);
		if (!m->stop)
			pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

void oom_start(struct kernel *k)
{
	struct oom_monitor *m;
	pthread_condattr_t ca;
	pthread_attr_t attr;

	pthread_mutex_lock(&k->lock);
	if (k->oom || k->mf->acct.limit == UINT64_MAX) {
		pthread_mutex_unlock(&k->lock);
		return;
	}
	m = xzalloc(sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	k->oom = m;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	if (pthread_create(&m->thread, &attr, monitor_main, k) != 0) {
		log_warning("cannot start the out-of-memory monitor: the host cgroup is the only "
			    "bound on guest memory");
		k->oom = NULL;
		pthread_cond_destroy(&m->cond);
		pthread_mutex_destroy(&m->lock);
		free(m);
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_unlock(&k->lock);
}

void oom_stop(struct kernel *k)
{
	struct oom_monitor *m = k->oom;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
	k->oom = NULL;
}

unsigned oom_kills(const struct kernel *k)
{
	return k->oom ? k->oom->kills : 0;
}
