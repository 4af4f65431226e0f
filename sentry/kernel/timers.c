/*
 * Process timers: alarm and the itimers (Linux's kernel/time/itimer.c),
 * POSIX timers (posix-timers.c), timers on CPU clocks and the CPU clocks
 * (posix-cpu-timers.c), with Linux 6.1's semantics. See timers.h.
 *
 * A POSIX timer's signal behaves as Linux's preallocated sigqueue entry:
 * while one is pending, further expirations count as overruns of it
 * instead of queueing more; a periodic timer is re-armed only when its
 * signal is dequeued (so a blocked signal costs no wake-ups), and the
 * expirations missed meanwhile become si_overrun. The queued siginfo
 * carries two private words where Linux keeps si_sys_private (the requeue
 * count and a per-timer cookie that tells the timer's own entry apart);
 * they are cleared before the guest sees the siginfo. As in Linux 6.1, a
 * deleted timer's pending signal is still delivered, and a periodic timer
 * whose pending signal is discarded (SIG_IGN set meanwhile) stops; later
 * kernels drop the first and re-arm the second.
 */
#include "config.h"
#include "sentry/kernel/timers.h"
#include "sentry/kernel/ktimer.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

#define NSEC_PER_SEC 1000000000ull
/* Linux's tick at HZ=250 (Debian's kernels): CPU timers' resolution, what
 * setitimer adds to a CPU itimer, what getitimer says of one about to fire. */
#define TICK_NSEC 4000000ull
/* The largest ktime_t: later deadlines are clamped to it. */
#define KTIME_MAX ((uint64_t)INT64_MAX)
/* it_requeue_pending's low bit: fired, its signal not yet dequeued. */
#define REQUEUE_PENDING 1u
/* Where a queued timer signal keeps its private words (si_sys_private). */
#define SI_PRIV_OFFSET 32

/* A timer on a CPU clock: armed, it is on timers_kernel->cpu_armed. */
struct cputimer {
	struct list_head link;
	struct thread_group *tg; /* the process whose CPU time (or thread's) counts */
	struct task *task;	 /* a thread's clock, or NULL for the process's */
	uint64_t expires;	 /* CPU ns; 0: not set */
	bool armed;
	void (*fire)(struct cputimer *ct);
};

/* The sandbox-wide part (kernel->timers). */
struct timers_kernel {
	struct kernel *k;
	struct list_head cpu_armed;
	struct ktimer poll; /* when the armed CPU timers are looked at next */
	uint64_t poll_gen;  /* numbers polls (tg_timers->sample_gen) */
	/* POSIX timers per user, for RLIMIT_SIGPENDING. */
	struct uid_charge {
		uint32_t uid;
		unsigned n;
	} * charges;
	unsigned ncharges;
};

/* A thread group's (thread_group->timers). */
struct tg_timers {
	struct thread_group *tg;
	struct ktimer real; /* ITIMER_REAL */
	uint64_t real_incr;
	struct cputimer it[2]; /* ITIMER_VIRTUAL, ITIMER_PROF: process CPU time */
	uint64_t it_incr[2];
	struct rb_root ids; /* POSIX timers by id */
	int next_id;
	uint32_t next_cookie;
	/* Threads running guest code now, and "no thread ran guest code when
	 * the CPU timers on this process were last looked at" (atomics). */
	int in_guest;
	int parked;
	/* The process's CPU time as sampled by poll number sample_gen. */
	uint64_t sample_gen, sample_cpu;
};

struct ptimer {
	struct rb_node node; /* in owner->ids */
	struct tg_timers *owner;
	int id;
	int notify; /* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD, SIGEV_SIGNAL|SIGEV_THREAD_ID */
	int signo;
	uint64_t value;	     /* sigev_value */
	struct task *target; /* SIGEV_THREAD_ID: the thread (a reference) */
	uint32_t uid;	     /* charged for RLIMIT_SIGPENDING */
	uint32_t cookie;
	uint64_t interval;
	int64_t overrun, overrun_last;
	uint32_t requeue; /* Linux's it_requeue_pending */
	bool active;
	bool cpu;   /* on a CPU clock (ct, whose tg and task are references) */
	int clock;  /* a wall clock: the one it was made on */
	int kclock; /* the clock its ktimer runs on */
	struct ktimer kt;
	struct cputimer ct;
};

static void cpu_poll(struct ktimer *kt);
static void ptimer_wall_fire(struct ktimer *kt);
static void ptimer_cpu_fire_ct(struct cputimer *ct);

/* --- arithmetic ----------------------------------------------------------------- */

/* a + b, clamped to KTIME_MAX (ktime_add_safe). */
static uint64_t add_safe(uint64_t a, uint64_t b)
{
	a = MIN(a, KTIME_MAX);
	b = MIN(b, KTIME_MAX);
	return a + b > KTIME_MAX ? KTIME_MAX : a + b;
}

/* Move *expires past now by whole intervals; returns how many (Linux's
 * hrtimer_forward, 0 when it is still in the future). */
static uint64_t forward(uint64_t *expires, uint64_t now, uint64_t interval)
{
	uint64_t delta, orun = 1;

	if (now < *expires)
		return 0;
	delta = now - *expires;
	if (interval < 1)
		interval = 1;
	if (delta >= interval) {
		orun = delta / interval;
		*expires = add_safe(*expires, orun * interval);
		if (*expires > now)
			return orun;
		orun++;
	}
	*expires = add_safe(*expires, interval);
	return orun;
}

static uint32_t *si_priv(siginfo_t *si)
{
	return (uint32_t *)((char *)si + SI_PRIV_OFFSET);
}

/* --- state ----------------------------------------------------------------------- */

static struct timers_kernel *tk_get_locked(struct kernel *k)
{
	struct timers_kernel *tk = k->timers;

	if (!tk) {
		tk = xzalloc(sizeof(*tk));
		tk->k = k;
		list_init(&tk->cpu_armed);
		ktimer_init(&tk->poll, cpu_poll);
		k->timers = tk;
	}
	return tk;
}

static void cputimer_init(struct cputimer *ct, struct thread_group *tg, struct task *task,
			  void (*fire)(struct cputimer *ct))
{
	list_init(&ct->link);
	ct->tg = tg;
	ct->task = task;
	ct->expires = 0;
	ct->armed = false;
	ct->fire = fire;
}

static void itimer_real_fire(struct ktimer *kt);
static void itimer_virt_fire(struct cputimer *ct);
static void itimer_prof_fire(struct cputimer *ct);

/* tg's timer state, made on first use. */
static struct tg_timers *tt_get_locked(struct thread_group *tg)
{
	struct tg_timers *tt = tg->timers;
	struct task *p, *me = current_task();

	if (tt)
		return tt;
	tt = xzalloc(sizeof(*tt));
	tt->tg = tg;
	ktimer_init(&tt->real, itimer_real_fire);
	cputimer_init(&tt->it[0], tg, NULL, itimer_virt_fire);
	cputimer_init(&tt->it[1], tg, NULL, itimer_prof_fire);
	__atomic_store_n(&tg->timers, tt, __ATOMIC_RELEASE);
	/* Threads running guest code now were not counted in in_guest: they
	 * come back through timers_guest_enter. */
	list_for_each_entry(p, &tg->threads, tg_node)
		if (p != me && p->ctx)
			p->ctx->ops->interrupt(p->ctx);
	return tt;
}

/* --- CPU time --------------------------------------------------------------------- */

uint64_t task_cpu_time_ns(struct task *t)
{
	return t->ctx ? t->ctx->ops->cpu_time_ns(t->ctx) : 0;
}

static uint64_t tg_cpu_time_locked(struct thread_group *tg)
{
	uint64_t sum = tg->dead_utime_ns;
	struct task *p;

	list_for_each_entry(p, &tg->threads, tg_node)
		sum += task_cpu_time_ns(p);
	return sum;
}

/*
 * The thread or process CPU clock clk names for t (Linux's pid_for_clock):
 * 0 with *tgp (and *taskp for a thread's clock, else NULL), or -EINVAL.
 * gettime: a thread id names its own process (clock_gettime only).
 */
static int cpu_clock_resolve_locked(struct task *t, clockid_t clk, bool gettime,
				    struct thread_group **tgp, struct task **taskp)
{
	struct thread_group *tg;
	struct task *p;
	bool thread;
	int pid;

	*tgp = t->tg;
	*taskp = NULL;
	if (clk == CLOCK_PROCESS_CPUTIME_ID)
		return 0;
	if (clk == CLOCK_THREAD_CPUTIME_ID) {
		*taskp = t;
		return 0;
	}
	if (clk >= 0 || (clk & 3) == 3) /* CPUCLOCK_WHICH 3: no such clock */
		return -EINVAL;
	pid = (int)~(clk >> 3); /* CPUCLOCK_PID */
	thread = clk & 4;	/* CPUCLOCK_PERTHREAD_MASK */
	if (pid == 0) {
		*taskp = thread ? t : NULL;
		return 0;
	}
	if (thread) {
		list_for_each_entry(p, &t->tg->threads, tg_node)
			if (p->tid == pid) {
				*taskp = p;
				return 0;
			}
		return -EINVAL; /* only threads of the caller's own process */
	}
	if (gettime && pid == t->tid)
		return 0;
	tg = kernel_find_tg_locked(t->k, pid, true);
	if (!tg)
		return -EINVAL;
	*tgp = tg;
	return 0;
}

int cpu_clock_read(struct task *t, clockid_t clk, uint64_t *ns)
{
	struct thread_group *tg;
	struct task *task;
	int ret;

	if (clk == CLOCK_THREAD_CPUTIME_ID) {
		*ns = task_cpu_time_ns(t);
		return 0;
	}
	pthread_mutex_lock(&t->k->lock);
	ret = cpu_clock_resolve_locked(t, clk, true, &tg, &task);
	if (ret == 0)
		*ns = task ? task_cpu_time_ns(task) : tg_cpu_time_locked(tg);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

int cpu_clock_getres(struct task *t, clockid_t clk, uint64_t *ns)
{
	struct thread_group *tg;
	struct task *task;
	int ret;

	pthread_mutex_lock(&t->k->lock);
	ret = cpu_clock_resolve_locked(t, clk, false, &tg, &task);
	pthread_mutex_unlock(&t->k->lock);
	/* CPUCLOCK_SCHED has 1 ns; the tick-counted PROF and VIRT one tick. */
	if (ret == 0)
		*ns = clk >= 0 || (clk & 3) == 2 ? 1 : TICK_NSEC;
	return ret;
}

/* --- CPU-clock timers ------------------------------------------------------------- */

/* Can ct's clock still move (its thread or process lives)? */
static bool cputimer_alive(const struct cputimer *ct)
{
	if (ct->task)
		return !ct->task->exited;
	return ct->tg->nr_threads > 0 && !(ct->tg->flags & (TG_ZOMBIE | TG_REAPED));
}

/* ct's clock now; false when its thread or process is gone. */
static bool cputimer_sample(const struct cputimer *ct, uint64_t *now)
{
	if (ct->task ? ct->task->exited : (ct->tg->flags & TG_REAPED))
		return false;
	*now = ct->task ? task_cpu_time_ns(ct->task) : tg_cpu_time_locked(ct->tg);
	return true;
}

/* The same within poll number gen, a process's clock read once for all
 * the timers on it. */
static bool cputimer_sample_poll(const struct cputimer *ct, uint64_t gen, uint64_t *now)
{
	struct tg_timers *tt = ct->tg->timers;

	if (ct->task || !tt)
		return cputimer_sample(ct, now);
	if (tt->sample_gen != gen) {
		if (!cputimer_sample(ct, &tt->sample_cpu))
			return false;
		tt->sample_gen = gen;
	}
	*now = tt->sample_cpu;
	return true;
}

static void cputimer_disarm(struct cputimer *ct)
{
	if (ct->armed) {
		list_del_init(&ct->link);
		ct->armed = false;
	}
}

/* Does a thread of tt's process run guest code? If not, the process is
 * parked: the next thread to enter the guest asks for a poll. */
static bool target_running(struct tg_timers *tt)
{
	if (__atomic_load_n(&tt->in_guest, __ATOMIC_SEQ_CST) > 0)
		return true;
	__atomic_store_n(&tt->parked, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tt->in_guest, __ATOMIC_SEQ_CST) > 0) {
		__atomic_store_n(&tt->parked, 0, __ATOMIC_SEQ_CST);
		return true;
	}
	return false;
}

/* When (CLOCK_MONOTONIC) armed ct must be looked at: its CPU time left
 * spread over the threads that could be using it, so never too late;
 * UINT64_MAX when its process runs no guest code. */
static uint64_t cputimer_next_poll(struct kernel *k, struct cputimer *ct, uint64_t mono,
				   uint64_t gen)
{
	uint64_t now, left;
	unsigned n;

	if (!ct->tg->timers || !target_running(ct->tg->timers) ||
	    !cputimer_sample_poll(ct, gen, &now))
		return UINT64_MAX;
	if (now >= ct->expires)
		return mono;
	left = ct->expires - now;
	n = ct->task ? 1 : MIN((unsigned)ct->tg->nr_threads, k->ncpus);
	left /= MAX(n, 1u);
	return add_safe(mono, MAX(left, TICK_NSEC));
}

/* See that the poll runs by when. */
static void poll_by_locked(struct timers_kernel *tk, uint64_t when)
{
	if (when == UINT64_MAX)
		return;
	if (ktimer_queued(&tk->poll) && tk->poll.expires <= when)
		return;
	ktimer_arm_locked(tk->k, &tk->poll, CLOCK_MONOTONIC, when);
}

/* Arm ct (its expires set) if its clock can still move. */
static void cputimer_arm_locked(struct kernel *k, struct cputimer *ct)
{
	struct timers_kernel *tk = tk_get_locked(k);

	if (!ct->expires || !cputimer_alive(ct))
		return;
	tt_get_locked(ct->tg); /* its in_guest count */
	if (!ct->armed) {
		list_add_tail(&ct->link, &tk->cpu_armed);
		ct->armed = true;
	}
	poll_by_locked(tk, cputimer_next_poll(k, ct, monotonic_ns(), ++tk->poll_gen));
}

/* The poll (on the timer thread): fire what expired, then plan the next. */
static void cpu_poll(struct ktimer *kt)
{
	struct timers_kernel *tk = container_of(kt, struct timers_kernel, poll);
	struct cputimer *ct, *n;
	struct list_head firing;
	uint64_t mono, gen = ++tk->poll_gen, next = UINT64_MAX;

	list_init(&firing);
	list_for_each_entry_safe(ct, n, &tk->cpu_armed, link) {
		uint64_t now;
		if (!cputimer_sample_poll(ct, gen, &now)) {
			cputimer_disarm(ct);
		} else if (now >= ct->expires) {
			cputimer_disarm(ct);
			list_add_tail(&ct->link, &firing);
		}
	}
	while (!list_empty(&firing)) {
		ct = list_first_entry(&firing, struct cputimer, link);
		list_del_init(&ct->link);
		ct->fire(ct); /* may arm it again */
	}
	mono = monotonic_ns();
	gen = ++tk->poll_gen;
	list_for_each_entry(ct, &tk->cpu_armed, link)
		next = MIN(next, cputimer_next_poll(tk->k, ct, mono, gen));
	if (next == UINT64_MAX)
		ktimer_cancel_locked(tk->k, &tk->poll);
	else
		ktimer_arm_locked(tk->k, &tk->poll, CLOCK_MONOTONIC, MAX(next, mono + TICK_NSEC));
}

/* A thread of a parked process runs guest code again: plan a poll for the
 * CPU timers on it. */
static void unpark(struct task *t)
{
	struct kernel *k = t->k;
	struct timers_kernel *tk;
	struct cputimer *ct;
	uint64_t mono = monotonic_ns();

	pthread_mutex_lock(&k->lock);
	tk = k->timers;
	if (tk) {
		uint64_t gen = ++tk->poll_gen;
		list_for_each_entry(ct, &tk->cpu_armed, link)
			if (ct->tg == t->tg)
				poll_by_locked(tk, cputimer_next_poll(k, ct, mono, gen));
	}
	pthread_mutex_unlock(&k->lock);
}

struct tg_timers *timers_guest_enter(struct task *t)
{
	struct tg_timers *tt = __atomic_load_n(&t->tg->timers, __ATOMIC_ACQUIRE);

	if (!tt)
		return NULL;
	__atomic_add_fetch(&tt->in_guest, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tt->parked, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&tt->parked, 0, __ATOMIC_SEQ_CST))
		unpark(t);
	return tt;
}

void timers_guest_leave(struct tg_timers *tt)
{
	if (tt)
		__atomic_sub_fetch(&tt->in_guest, 1, __ATOMIC_RELEASE);
}

/* --- sleeping on a CPU clock ------------------------------------------------------- */

struct cpu_sleeper {
	struct cputimer ct;
	struct task *t;
	bool fired;
};

static void cpu_sleeper_fire(struct cputimer *ct)
{
	struct cpu_sleeper *s = container_of(ct, struct cpu_sleeper, ct);

	s->fired = true;
	task_wake(s->t);
}

long cpu_clock_sleep(struct task *t, clockid_t clk, bool abs, uint64_t req, uint64_t *expires,
		     uint64_t *left)
{
	struct kernel *k = t->k;
	struct cpu_sleeper s = {.t = t};
	struct thread_group *tg;
	struct task *task;
	uint64_t now;
	long ret;

	pthread_mutex_lock(&k->lock);
	ret = cpu_clock_resolve_locked(t, clk, false, &tg, &task);
	if (ret == 0 && task == t)
		ret = -EINVAL; /* its own clock stands still while it sleeps */
	if (ret < 0)
		goto out;
	cputimer_init(&s.ct, tg_get(tg), task ? task_get(task) : NULL, cpu_sleeper_fire);
	if (!cputimer_sample(&s.ct, &now)) {
		ret = -EINVAL;
		goto put;
	}
	*expires = abs ? req : add_safe(req, now);
	if (now >= *expires)
		goto put;
	s.ct.expires = *expires;
	cputimer_arm_locked(k, &s.ct);
	for (;;) {
		uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		if (s.fired)
			break;
		if (task_signal_pending(t)) {
			ret = -EINTR;
			break;
		}
		pthread_mutex_unlock(&k->lock);
		task_wait_wake(t, seq);
		pthread_mutex_lock(&k->lock);
	}
	cputimer_disarm(&s.ct);
	if (ret == -EINTR) {
		if (cputimer_sample(&s.ct, &now) && now < *expires)
			*left = *expires - now;
		else
			ret = 0; /* it got there meanwhile */
	}
put:
	if (s.ct.task)
		task_put(s.ct.task);
	tg_put(s.ct.tg);
out:
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* --- itimers ---------------------------------------------------------------------- */

/* ITIMER_REAL expired: SIGALRM to the process (re-armed when it is dequeued). */
static void itimer_real_fire(struct ktimer *kt)
{
	struct tg_timers *tt = container_of(kt, struct tg_timers, real);
	siginfo_t info;

	siginfo_kernel(&info, SIGALRM);
	signal_send_tg_locked(tt->tg, &info);
}

/* ITIMER_VIRTUAL (i 0) or ITIMER_PROF (i 1) expired (check_cpu_itimer). */
static void itimer_cpu_fire(struct tg_timers *tt, int i)
{
	struct cputimer *ct = &tt->it[i];
	siginfo_t info;

	if (!ct->expires)
		return;
	if (tt->it_incr[i]) {
		ct->expires = add_safe(ct->expires, tt->it_incr[i]);
		cputimer_arm_locked(tt->tg->k, ct);
	} else {
		ct->expires = 0;
	}
	siginfo_kernel(&info, i ? SIGPROF : SIGVTALRM);
	signal_send_tg_locked(tt->tg, &info);
}

static void itimer_virt_fire(struct cputimer *ct)
{
	itimer_cpu_fire(container_of(ct, struct tg_timers, it[0]), 0);
}

static void itimer_prof_fire(struct cputimer *ct)
{
	itimer_cpu_fire(container_of(ct, struct tg_timers, it[1]), 1);
}

/* What is left of ITIMER_REAL (itimer_get_remtime: 1 us when overdue). */
static uint64_t real_remaining(struct tg_timers *tt)
{
	uint64_t now;

	if (!tt || !ktimer_queued(&tt->real))
		return 0;
	now = monotonic_ns();
	return tt->real.expires > now ? tt->real.expires - now : 1000;
}

long itimer_get(struct task *t, int which, struct timer_setting *cur)
{
	struct tg_timers *tt;

	memset(cur, 0, sizeof(*cur));
	if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF)
		return -EINVAL;
	pthread_mutex_lock(&t->k->lock);
	tt = t->tg->timers;
	if (tt && which == ITIMER_REAL) {
		cur->value = real_remaining(tt);
		cur->interval = tt->real_incr;
	} else if (tt) {
		int i = which == ITIMER_PROF;
		uint64_t val = tt->it[i].expires;
		if (val) {
			uint64_t now = tg_cpu_time_locked(t->tg);
			val = val < now ? TICK_NSEC : val - now;
		}
		cur->value = val;
		cur->interval = tt->it_incr[i];
	}
	pthread_mutex_unlock(&t->k->lock);
	return 0;
}

long itimer_set(struct task *t, int which, const struct timer_setting *set,
		struct timer_setting *old)
{
	struct kernel *k = t->k;
	struct tg_timers *tt;

	if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF)
		return -EINVAL;
	if (old)
		memset(old, 0, sizeof(*old));
	pthread_mutex_lock(&k->lock);
	if (!t->tg->timers && !set->value) {
		pthread_mutex_unlock(&k->lock);
		return 0; /* nothing was armed, nothing will be */
	}
	tt = tt_get_locked(t->tg);
	if (which == ITIMER_REAL) {
		if (old) {
			old->value = real_remaining(tt);
			old->interval = tt->real_incr;
		}
		ktimer_cancel_locked(k, &tt->real);
		tt->real_incr = set->value ? set->interval : 0;
		if (set->value)
			ktimer_arm_locked(k, &tt->real, CLOCK_MONOTONIC,
					  add_safe(monotonic_ns(), set->value));
	} else {
		/* set_cpu_itimer: CPU itimers are kept as absolute process CPU
		 * times, and a new one gets an extra tick, as Linux does. */
		int i = which == ITIMER_PROF;
		struct cputimer *ct = &tt->it[i];
		uint64_t nval = set->value, oval = ct->expires, ointerval = tt->it_incr[i];
		if (oval || nval) {
			uint64_t now = tg_cpu_time_locked(t->tg);
			if (nval)
				nval = add_safe(add_safe(nval, TICK_NSEC), now);
			if (oval)
				oval = oval <= now ? TICK_NSEC : oval - now;
		}
		cputimer_disarm(ct);
		ct->expires = nval;
		tt->it_incr[i] = set->interval;
		cputimer_arm_locked(k, ct);
		if (old) {
			old->value = oval;
			old->interval = ointerval;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return 0;
}

unsigned itimer_alarm(struct task *t, unsigned seconds)
{
	struct timer_setting set = {.value = (uint64_t)seconds * NSEC_PER_SEC}, old;
	uint64_t sec, nsec;

	itimer_set(t, ITIMER_REAL, &set, &old);
	sec = old.value / NSEC_PER_SEC;
	nsec = old.value % NSEC_PER_SEC;
	/* Never 0 while an alarm is pending; better too much than too little. */
	if ((!sec && nsec) || nsec >= NSEC_PER_SEC / 2)
		sec++;
	return (unsigned)sec;
}

/* --- POSIX timers: ids, limits, signals -------------------------------------------- */

static struct ptimer *ptimer_find(struct tg_timers *tt, int id)
{
	struct rb_node *n = tt ? tt->ids.node : NULL;

	while (n) {
		struct ptimer *pt = rb_entry(n, struct ptimer, node);
		if (id == pt->id)
			return pt;
		n = id < pt->id ? n->left : n->right;
	}
	return NULL;
}

static void ptimer_insert(struct tg_timers *tt, struct ptimer *pt)
{
	struct rb_node **link = &tt->ids.node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = pt->id < rb_entry(parent, struct ptimer, node)->id ? &parent->left
									  : &parent->right;
	}
	rb_link(&pt->node, parent, link);
	rb_insert_fixup(&tt->ids, &pt->node);
}

/* The next free id: increasing, wrapping within the positive ints (Linux). */
static int ptimer_alloc_id(struct tg_timers *tt)
{
	for (unsigned n = 0; n <= INT_MAX; n++) {
		int id = tt->next_id;
		tt->next_id = (id + 1) & INT_MAX;
		if (!ptimer_find(tt, id))
			return id;
	}
	return -EAGAIN;
}

static struct uid_charge *charge_of(struct timers_kernel *tk, uint32_t uid, bool make)
{
	for (unsigned i = 0; i < tk->ncharges; i++)
		if (tk->charges[i].uid == uid)
			return &tk->charges[i];
	if (!make)
		return NULL;
	tk->charges = xrealloc(tk->charges, (tk->ncharges + 1) * sizeof(*tk->charges));
	tk->charges[tk->ncharges] = (struct uid_charge){.uid = uid, .n = 0};
	return &tk->charges[tk->ncharges++];
}

/* A timer holds a queued signal's worth of RLIMIT_SIGPENDING for its user. */
static bool charge(struct timers_kernel *tk, uint32_t uid, uint64_t limit)
{
	struct uid_charge *c = charge_of(tk, uid, true);

	if ((uint64_t)c->n + 1 > limit)
		return false;
	c->n++;
	return true;
}

static void uncharge(struct timers_kernel *tk, uint32_t uid)
{
	struct uid_charge *c = charge_of(tk, uid, false);

	if (c && c->n)
		c->n--;
}

/* The thread a process-directed signal is given to (the leader while it lives). */
static struct task *tg_signal_target(struct thread_group *tg)
{
	if (tg->leader && !tg->leader->exited)
		return tg->leader;
	return list_first_entry_or_null(&tg->threads, struct task, tg_node);
}

/* pt's own signal, if it is still queued on p. */
static struct sigqueue *queued_entry(struct sigpending *p, struct ptimer *pt)
{
	struct sigqueue *q;

	list_for_each_entry(q, &p->list, link)
		if (q->info.si_code == SI_TIMER && q->info.si_timerid == pt->id &&
		    q->info.si_signo == pt->signo && si_priv(&q->info)[1] == pt->cookie)
			return q;
	return NULL;
}

/*
 * Send pt's signal with requeue word priv (posix_timer_event and
 * send_sigqueue). Returns 1 when it is ignored (the timer then re-arms
 * itself), 0 when it was queued or counted as an overrun of the one still
 * queued, -1 when its thread is gone.
 */
static int ptimer_send_locked(struct ptimer *pt, uint32_t priv)
{
	struct thread_group *tg = pt->owner->tg;
	bool group = !(pt->notify & SIGEV_THREAD_ID);
	struct task *t = group ? tg_signal_target(tg) : pt->target;
	struct sigqueue *q;
	siginfo_t info;

	if (!t || t->exited)
		return -1;
	if (!signal_prepare_locked(t, pt->signo))
		return 1;
	q = queued_entry(group ? &tg->shared : &t->pending, pt);
	if (q) {
		q->info.si_overrun++;
		si_priv(&q->info)[0] = priv;
		return 0;
	}
	memset(&info, 0, sizeof(info));
	info.si_signo = pt->signo;
	info.si_code = SI_TIMER;
	info.si_timerid = pt->id;
	info.si_overrun = 0;
	info.si_value.sival_ptr = (void *)(uintptr_t)pt->value;
	si_priv(&info)[0] = priv;
	si_priv(&info)[1] = pt->cookie;
	signal_enqueue_locked(t, &info, group);
	return 0;
}

/* The overrun count as an int (timer_overrun_to_int: DELAYTIMER_MAX at most). */
static int overrun_to_int(struct ptimer *pt, int base)
{
	int64_t sum = pt->overrun_last + (int64_t)base;

	return sum > INT_MAX ? INT_MAX : (int)sum;
}

/* --- POSIX timers on wall clocks (common_timer_*) ------------------------------------ */

static void ptimer_wall_fire(struct ktimer *kt)
{
	struct ptimer *pt = container_of(kt, struct ptimer, kt);
	uint32_t priv = 0;

	pt->active = false;
	if (pt->interval)
		priv = ++pt->requeue;
	if (ptimer_send_locked(pt, priv) > 0 && pt->interval) {
		/* Ignored: no dequeue will re-arm it, but a handler may come. */
		uint64_t now = ktimer_clock_now(pt->kclock);
		if (pt->interval < TICK_NSEC)
			now += TICK_NSEC;
		pt->overrun += (int64_t)forward(&pt->kt.expires, now, pt->interval);
		ktimer_arm_locked(pt->owner->tg->k, &pt->kt, pt->kclock, pt->kt.expires);
		++pt->requeue;
		pt->active = true;
	}
}

static void ptimer_wall_get(struct ptimer *pt, struct timer_setting *cur)
{
	bool sig_none = pt->notify == SIGEV_NONE;
	uint64_t now;

	if (pt->interval)
		cur->interval = pt->interval;
	else if (!pt->active && !sig_none)
		return;
	now = ktimer_clock_now(pt->kclock);
	/* A periodic timer waiting for its signal to be taken (or one that
	 * sends none) moves on meanwhile, counting overruns. */
	if (pt->interval && ((pt->requeue & REQUEUE_PENDING) || sig_none) &&
	    !ktimer_queued(&pt->kt))
		pt->overrun += (int64_t)forward(&pt->kt.expires, now, pt->interval);
	if (pt->kt.expires > now)
		cur->value = pt->kt.expires - now;
	else if (!sig_none)
		cur->value = 1; /* expired, its signal pending: not "disarmed" */
}

static void ptimer_wall_set(struct ptimer *pt, int flags, const struct timer_setting *set,
			    struct timer_setting *old)
{
	struct kernel *k = pt->owner->tg->k;
	bool abs = flags & TIMER_ABSTIME;
	uint64_t expires;

	if (old)
		ptimer_wall_get(pt, old);
	pt->interval = 0;
	ktimer_cancel_locked(k, &pt->kt);
	pt->active = false;
	pt->requeue = (pt->requeue + 2) & ~REQUEUE_PENDING;
	pt->overrun_last = 0;
	if (!set->value) {
		pt->kt.expires = 0; /* a disarmed SIGEV_NONE timer shows 0 too */
		return;
	}
	pt->interval = set->interval;
	/* A relative CLOCK_REALTIME timer ignores clock changes: it runs on
	 * CLOCK_MONOTONIC (as Linux's hrtimer does). */
	if (pt->clock == CLOCK_REALTIME)
		pt->kclock = abs ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	expires = abs ? MIN(set->value, KTIME_MAX)
		      : add_safe(set->value, ktimer_clock_now(pt->kclock));
	pt->kt.expires = expires;
	if (pt->notify != SIGEV_NONE)
		ktimer_arm_locked(k, &pt->kt, pt->kclock, expires);
	pt->active = pt->notify != SIGEV_NONE;
}

/* --- POSIX timers on CPU clocks (posix_cpu_timer_*) ---------------------------------- */

/* Move a periodic CPU timer's expiry past now, counting overruns. */
static uint64_t bump_cpu_timer(struct ptimer *pt, uint64_t now)
{
	uint64_t delta, incr, expires = pt->ct.expires;
	int i;

	if (!pt->interval || now < expires)
		return expires;
	incr = pt->interval;
	delta = now + incr - expires;
	for (i = 0; incr < delta - incr; i++)
		incr <<= 1;
	for (; i >= 0; incr >>= 1, i--) {
		if (delta < incr)
			continue;
		pt->ct.expires += incr;
		pt->overrun += 1ll << i;
		delta -= incr;
	}
	return pt->ct.expires;
}

static void ptimer_cpu_rearm(struct ptimer *pt)
{
	uint64_t now;

	if (!cputimer_sample(&pt->ct, &now))
		return;
	bump_cpu_timer(pt, now);
	cputimer_arm_locked(pt->owner->tg->k, &pt->ct);
}

static void ptimer_cpu_fire(struct ptimer *pt)
{
	if (pt->notify == SIGEV_NONE) {
		pt->ct.expires = 0;
	} else if (!pt->interval) {
		ptimer_send_locked(pt, 0);
		pt->ct.expires = 0;
	} else if (ptimer_send_locked(pt, ++pt->requeue) > 0) {
		ptimer_cpu_rearm(pt); /* ignored: keep it ticking */
		++pt->requeue;
	}
}

static void ptimer_cpu_fire_ct(struct cputimer *ct)
{
	ptimer_cpu_fire(container_of(ct, struct ptimer, ct));
}

static void ptimer_cpu_get(struct ptimer *pt, struct timer_setting *cur)
{
	uint64_t now;

	if (!cputimer_sample(&pt->ct, &now))
		return;
	cur->interval = pt->interval;
	if (!pt->ct.expires)
		return;
	cur->value = now < pt->ct.expires ? pt->ct.expires - now : 1;
}

static long ptimer_cpu_set(struct ptimer *pt, int flags, const struct timer_setting *set,
			   struct timer_setting *old)
{
	uint64_t val, old_expires = pt->ct.expires, new_expires = set->value;

	if (!cputimer_sample(&pt->ct, &val))
		return -ESRCH;
	cputimer_disarm(&pt->ct);
	if (old) {
		if (old_expires) {
			uint64_t exp = bump_cpu_timer(pt, val);
			old->value = val < exp ? exp - val : 1;
		}
		old->interval = pt->interval;
	}
	if (new_expires && !(flags & TIMER_ABSTIME))
		new_expires = add_safe(new_expires, val);
	pt->ct.expires = new_expires;
	pt->interval = set->interval;
	pt->requeue = (pt->requeue + 2) & ~REQUEUE_PENDING;
	pt->overrun_last = 0;
	pt->overrun = -1;
	if (new_expires && val < new_expires)
		cputimer_arm_locked(pt->owner->tg->k, &pt->ct);
	else if (new_expires)
		ptimer_cpu_fire(pt); /* already expired */
	return 0;
}

/* --- POSIX timers: the calls ------------------------------------------------------- */

/* Linux's good_sigevent: 0 with the target thread of SIGEV_THREAD_ID, or -EINVAL. */
static int check_sigevent_locked(struct task *t, const struct ksigevent *ev, struct task **target)
{
	struct task *p;

	*target = NULL;
	switch (ev->notify) {
	case SIGEV_SIGNAL | SIGEV_THREAD_ID:
		list_for_each_entry(p, &t->tg->threads, tg_node)
			if (p->tid == ev->tid)
				*target = p;
		if (!*target)
			return -EINVAL;
		/* fall through */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (ev->signo <= 0 || ev->signo > GUEST_NSIG)
			return -EINVAL;
		/* fall through */
	case SIGEV_NONE:
		return 0;
	default:
		return -EINVAL;
	}
}

static void ptimer_free_locked(struct kernel *k, struct ptimer *pt)
{
	if (pt->cpu) {
		cputimer_disarm(&pt->ct);
		if (pt->ct.task)
			task_put(pt->ct.task);
		tg_put(pt->ct.tg);
	} else {
		ktimer_cancel_locked(k, &pt->kt);
	}
	if (pt->target)
		task_put(pt->target);
	uncharge(tk_get_locked(k), pt->uid);
	rb_erase(&pt->owner->ids, &pt->node);
	free(pt);
}

long ptimer_create(struct task *t, clockid_t clk, const struct ksigevent *ev, int *id)
{
	struct kernel *k = t->k;
	struct thread_group *ctg = NULL;
	struct task *target = NULL, *ctask = NULL;
	struct tg_timers *tt;
	struct ptimer *pt;
	bool cpu = false;
	long ret;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		cpu = true;
		break;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		return -EOPNOTSUPP; /* clocks without timers */
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		return -EOPNOTSUPP; /* no RTC to wake a suspended sandbox (as Linux without one) */
	default:
		if (clk >= 0)
			return -EINVAL;
		if ((clk & 7) == 3)
			return -EOPNOTSUPP; /* a clock of a file descriptor: no timers */
		cpu = true;
	}

	pthread_mutex_lock(&k->lock);
	if (!charge(tk_get_locked(k), t->creds.uid, t->tg->rlim[RLIMIT_SIGPENDING].rlim_cur)) {
		ret = -EAGAIN;
		goto out;
	}
	if (ev) {
		ret = check_sigevent_locked(t, ev, &target);
		if (ret < 0)
			goto uncharge;
	}
	if (cpu) {
		ret = cpu_clock_resolve_locked(t, clk, false, &ctg, &ctask);
		if (ret < 0)
			goto uncharge;
	}
	tt = tt_get_locked(t->tg);
	ret = ptimer_alloc_id(tt);
	if (ret < 0)
		goto uncharge;

	pt = xzalloc(sizeof(*pt));
	pt->owner = tt;
	pt->id = (int)ret;
	pt->uid = t->creds.uid;
	pt->overrun = -1;
	pt->cookie = ++tt->next_cookie ? tt->next_cookie : ++tt->next_cookie;
	if (ev) {
		pt->notify = ev->notify;
		pt->signo = ev->signo;
		pt->value = ev->value;
		pt->target = target ? task_get(target) : NULL;
	} else {
		pt->notify = SIGEV_SIGNAL;
		pt->signo = SIGALRM;
		pt->value = (uint32_t)pt->id;
	}
	pt->cpu = cpu;
	if (cpu) {
		cputimer_init(&pt->ct, tg_get(ctg), ctask ? task_get(ctask) : NULL,
			      ptimer_cpu_fire_ct);
	} else {
		ktimer_init(&pt->kt, ptimer_wall_fire);
		pt->clock = clk;
		pt->kclock = clk;
	}
	ptimer_insert(tt, pt);
	*id = pt->id;
	ret = 0;
	goto out;
uncharge:
	uncharge(k->timers, t->creds.uid);
out:
	pthread_mutex_unlock(&k->lock);
	return ret;
}

long ptimer_settime(struct task *t, int id, int flags, const struct timer_setting *set,
		    struct timer_setting *old)
{
	struct ptimer *pt;
	long ret = 0;

	if (old)
		memset(old, 0, sizeof(*old));
	pthread_mutex_lock(&t->k->lock);
	pt = ptimer_find(t->tg->timers, id);
	if (!pt)
		ret = -EINVAL;
	else if (pt->cpu)
		ret = ptimer_cpu_set(pt, flags, set, old);
	else
		ptimer_wall_set(pt, flags, set, old);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

long ptimer_gettime(struct task *t, int id, struct timer_setting *cur)
{
	struct ptimer *pt;
	long ret = 0;

	memset(cur, 0, sizeof(*cur));
	pthread_mutex_lock(&t->k->lock);
	pt = ptimer_find(t->tg->timers, id);
	if (!pt)
		ret = -EINVAL;
	else if (pt->cpu)
		ptimer_cpu_get(pt, cur);
	else
		ptimer_wall_get(pt, cur);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

long ptimer_getoverrun(struct task *t, int id)
{
	struct ptimer *pt;
	long ret;

	pthread_mutex_lock(&t->k->lock);
	pt = ptimer_find(t->tg->timers, id);
	ret = pt ? overrun_to_int(pt, 0) : -EINVAL;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

long ptimer_delete(struct task *t, int id)
{
	struct ptimer *pt;
	long ret = 0;

	pthread_mutex_lock(&t->k->lock);
	pt = ptimer_find(t->tg->timers, id);
	if (pt)
		ptimer_free_locked(t->k, pt);
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

/* --- hooks ------------------------------------------------------------------------ */

/* posixtimer_rearm: pt's signal was taken; a periodic timer goes on. */
static void ptimer_rearm_locked(struct ptimer *pt, siginfo_t *info, uint32_t priv)
{
	if (!pt->interval || pt->requeue != priv)
		return;
	if (pt->cpu) {
		ptimer_cpu_rearm(pt);
	} else {
		uint64_t now = ktimer_clock_now(pt->kclock);
		pt->overrun += (int64_t)forward(&pt->kt.expires, now, pt->interval);
		ktimer_arm_locked(pt->owner->tg->k, &pt->kt, pt->kclock, pt->kt.expires);
	}
	pt->active = true;
	pt->overrun_last = pt->overrun;
	pt->overrun = -1;
	++pt->requeue;
	info->si_overrun = overrun_to_int(pt, info->si_overrun);
}

void timers_dequeued_locked(struct task *t, siginfo_t *info)
{
	struct tg_timers *tt = t->tg->timers;

	/* Any SIGALRM taken re-arms a periodic ITIMER_REAL that is not armed. */
	if (info->si_signo == SIGALRM && tt && tt->real_incr && !ktimer_queued(&tt->real)) {
		forward(&tt->real.expires, monotonic_ns(), tt->real_incr);
		ktimer_arm_locked(t->k, &tt->real, CLOCK_MONOTONIC, tt->real.expires);
	}
	if (info->si_code == SI_TIMER) {
		uint32_t *priv = si_priv(info);
		struct ptimer *pt = priv[0] ? ptimer_find(tt, info->si_timerid) : NULL;
		if (pt && pt->cookie == priv[1])
			ptimer_rearm_locked(pt, info, priv[0]);
		priv[0] = priv[1] = 0; /* the guest never sees them */
	}
}

/* Drop queued timer signals from p (__flush_itimer_signals). */
static void flush_timer_signals(struct sigpending *p)
{
	struct sigqueue *q, *n;
	uint64_t keep = 0, drop = 0;

	list_for_each_entry_safe(q, n, &p->list, link) {
		if (q->info.si_code == SI_TIMER) {
			drop |= SIGBIT(q->info.si_signo);
			list_del(&q->link);
			sigqueue_free(q);
		} else {
			keep |= SIGBIT(q->info.si_signo);
		}
	}
	p->set = (p->set & ~drop) | keep;
}

static void delete_ptimers_locked(struct kernel *k, struct tg_timers *tt)
{
	struct rb_node *n;

	while ((n = rb_first(&tt->ids)))
		ptimer_free_locked(k, rb_entry(n, struct ptimer, node));
}

void timers_exec(struct task *t)
{
	struct kernel *k = t->k;

	pthread_mutex_lock(&k->lock);
	if (t->tg->timers)
		delete_ptimers_locked(k, t->tg->timers);
	flush_timer_signals(&t->pending);
	flush_timer_signals(&t->tg->shared);
	recalc_sigpending_locked(t);
	pthread_mutex_unlock(&k->lock);
}

void timers_thread_exit_locked(struct task *t)
{
	struct timers_kernel *tk = t->k->timers;
	struct cputimer *ct, *n;

	if (!tk)
		return;
	list_for_each_entry_safe(ct, n, &tk->cpu_armed, link)
		if (ct->task == t)
			cputimer_disarm(ct);
}

void timers_group_exit_locked(struct thread_group *tg)
{
	struct kernel *k = tg->k;
	struct timers_kernel *tk = k->timers;
	struct tg_timers *tt = tg->timers;
	struct cputimer *ct, *n;

	if (tk)
		list_for_each_entry_safe(ct, n, &tk->cpu_armed, link)
			if (ct->tg == tg)
				cputimer_disarm(ct);
	if (!tt)
		return;
	ktimer_cancel_locked(k, &tt->real);
	delete_ptimers_locked(k, tt);
	tg->timers = NULL;
	free(tt);
}

void timers_kernel_destroy(struct kernel *k)
{
	struct timers_kernel *tk = k->timers;

	if (!tk)
		return;
	free(tk->charges);
	free(tk);
	k->timers = NULL;
}
