/* Resource usage accounting (see rusage.h). */
#include "config.h"
#include "sentry/kernel/rusage.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/timers.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <time.h>

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rusage_self_sentry_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void rusage_task_times(struct task *t, uint64_t *utime, uint64_t *stime)
{
	int tid = __atomic_load_n(&t->host_tid, __ATOMIC_ACQUIRE);

	*utime = task_cpu_time_ns(t);
	if (t == current_task())
		*stime = rusage_self_sentry_ns();
	else if (tid > 0 && !t->exited)
		/* The kernel's CPU clock id of a thread: ~tid << 3 | CPUCLOCK_SCHED | PERTHREAD. */
		*stime = clock_ns((clockid_t)((~(unsigned)tid << 3) | 2 | 4));
	else
		*stime = 0;
}

void rusage_tg_times_locked(struct thread_group *tg, uint64_t *utime, uint64_t *stime)
{
	struct task *t;

	*utime = tg->dead_utime_ns;
	*stime = tg->dead_stime_ns;
	list_for_each_entry(t, &tg->threads, tg_node) {
		uint64_t u, s;
		rusage_task_times(t, &u, &s);
		*utime += u;
		*stime += s;
	}
}

void rusage_note_mm_locked(struct thread_group *tg, struct mm *mm)
{
	tg->maxrss_kb = MAX(tg->maxrss_kb, mm_committed_peak(mm) / 1024);
}

void rusage_note_mm(struct task *t, struct mm *mm)
{
	pthread_mutex_lock(&t->k->lock);
	rusage_note_mm_locked(t->tg, mm);
	pthread_mutex_unlock(&t->k->lock);
}
