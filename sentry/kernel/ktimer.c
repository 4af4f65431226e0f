/*
 * Kernel timers: one queue (a red-black tree by deadline) per clock and one
 * thread per sandbox that runs the callbacks of expired timers. See
 * ktimer.h for the rules; the thread's loop is: find the earliest deadline,
 * run what has expired (with k->lock), else sleep on a futex until that
 * deadline or until an earlier timer is armed.
 */
#include "config.h"
#include "sentry/kernel/ktimer.h"
#include "sentry/kernel/kernel.h"
#include "lib/log.h"
#include "lib/util.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

#define NCLOCKS 4
/* Callbacks one pass runs at most before the deadlines are looked at again. */
#define MAX_PER_PASS 256
/* The thread runs callbacks that send signals: a modest stack is plenty. */
#define THREAD_STACK (256u << 10)

static const int clock_ids[NCLOCKS] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI};

struct ktimer_base {
	struct kernel *k;
	pthread_mutex_t lock; /* the queues and the fields below; taken after k->lock */
	struct rb_root queue[NCLOCKS];
	uint64_t seq;
	/* The thread sleeps on this word; bumped to wake it early. */
	uint32_t futex;
	/* The CLOCK_MONOTONIC deadline the thread sleeps until (UINT64_MAX: no
	 * timer), or 0 while it is awake (it looks at the queues before it
	 * sleeps again, so nobody needs to wake it). */
	uint64_t sleep_until;
	bool started, stop;
	pthread_t thread;
};

static int clock_index(int clock)
{
	for (int i = 0; i < NCLOCKS; i++)
		if (clock_ids[i] == clock)
			return i;
	abort(); /* callers only use the clocks above */
}

uint64_t ktimer_clock_now(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ktimer_init(struct ktimer *kt, ktimer_fn fn)
{
	memset(kt, 0, sizeof(*kt));
	kt->clock = CLOCK_MONOTONIC;
	kt->fn = fn;
}

static bool earlier(const struct ktimer *a, const struct ktimer *b)
{
	return a->expires < b->expires || (a->expires == b->expires && a->seq < b->seq);
}

static void enqueue(struct ktimer_base *b, struct ktimer *kt)
{
	struct rb_root *root = &b->queue[clock_index(kt->clock)];
	struct rb_node **link = &root->node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = earlier(kt, rb_entry(parent, struct ktimer, node)) ? &parent->left
									  : &parent->right;
	}
	rb_link(&kt->node, parent, link);
	rb_insert_fixup(root, &kt->node);
	kt->queued = true;
}

static void dequeue(struct ktimer_base *b, struct ktimer *kt)
{
	rb_erase(&b->queue[clock_index(kt->clock)], &kt->node);
	kt->queued = false;
}

/* When (CLOCK_MONOTONIC, mono_now being now) the first timer of queue i is
 * due: UINT64_MAX when the queue is empty, mono_now when it is due already. */
static uint64_t queue_due(struct ktimer_base *b, int i, uint64_t mono_now)
{
	struct rb_node *first = rb_first(&b->queue[i]);
	struct ktimer *kt;
	uint64_t now;

	if (!first)
		return UINT64_MAX;
	kt = rb_entry(first, struct ktimer, node);
	now = i == 0 ? mono_now : ktimer_clock_now(clock_ids[i]);
	if (kt->expires <= now)
		return mono_now;
	if (kt->expires - now > UINT64_MAX - mono_now)
		return UINT64_MAX - 1;
	return mono_now + (kt->expires - now);
}

/* The earliest deadline over every queue, on CLOCK_MONOTONIC. */
static uint64_t next_due(struct ktimer_base *b, uint64_t mono_now)
{
	uint64_t due = UINT64_MAX;

	for (int i = 0; i < NCLOCKS; i++)
		due = MIN(due, queue_due(b, i, mono_now));
	return due;
}

/* Run the callbacks of expired timers; k->lock and b->lock held (b->lock
 * is dropped around each callback, which may arm timers). */
static void run_expired(struct ktimer_base *b)
{
	unsigned n = 0;

	for (int i = 0; i < NCLOCKS; i++) {
		uint64_t now = ktimer_clock_now(clock_ids[i]);
		struct rb_node *first;

		while ((first = rb_first(&b->queue[i])) && n++ < MAX_PER_PASS) {
			struct ktimer *kt = rb_entry(first, struct ktimer, node);
			if (kt->expires > now)
				break;
			dequeue(b, kt);
			pthread_mutex_unlock(&b->lock);
			kt->fn(kt);
			pthread_mutex_lock(&b->lock);
		}
	}
}

static void futex_wake_word(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *timer_thread(void *arg)
{
	struct ktimer_base *b = arg;
	struct kernel *k = b->k;
	sigset_t all;

	/* Host signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "timers");
	pthread_mutex_lock(&b->lock);
	while (!b->stop) {
		uint64_t now = monotonic_ns(), due = next_due(b, now);
		struct timespec ts;
		uint32_t seq;

		if (due <= now) {
			pthread_mutex_unlock(&b->lock);
			pthread_mutex_lock(&k->lock);
			pthread_mutex_lock(&b->lock);
			run_expired(b);
			pthread_mutex_unlock(&k->lock);
			continue;
		}
		b->sleep_until = due;
		seq = b->futex;
		pthread_mutex_unlock(&b->lock);
		ts.tv_sec = (time_t)(due / 1000000000ull);
		ts.tv_nsec = (long)(due % 1000000000ull);
		syscall(SYS_futex, &b->futex, FUTEX_WAIT_BITSET_PRIVATE, seq,
			due == UINT64_MAX ? NULL : &ts, NULL, FUTEX_BITSET_MATCH_ANY);
		pthread_mutex_lock(&b->lock);
		b->sleep_until = 0;
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* The sandbox's timer base, made (with its thread) on first use. k->lock held. */
static struct ktimer_base *base_get_locked(struct kernel *k)
{
	struct ktimer_base *b = k->ktimers;

	if (b)
		return b;
	b = xzalloc(sizeof(*b));
	b->k = k;
	pthread_mutex_init(&b->lock, NULL);
	k->ktimers = b;
	return b;
}

/* Start the thread; when the host refuses (out of threads), the timers
 * stay queued and the next arm tries again. */
static void start_thread_locked(struct ktimer_base *b)
{
	pthread_attr_t attr;
	int ret;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	ret = pthread_create(&b->thread, &attr, timer_thread, b);
	pthread_attr_destroy(&attr);
	if (ret == 0)
		b->started = true;
	else
		log_warning("cannot start the timer thread (timers wait): %s", strerror(ret));
}

void ktimer_arm_locked(struct kernel *k, struct ktimer *kt, int clock, uint64_t expires)
{
	struct ktimer_base *b = base_get_locked(k);
	bool wake = false;

	pthread_mutex_lock(&b->lock);
	if (kt->queued)
		dequeue(b, kt);
	kt->clock = clock;
	kt->expires = expires;
	kt->seq = b->seq++;
	enqueue(b, kt);
	if (!b->started) {
		b->sleep_until = 0;
		start_thread_locked(b);
	} else if (b->sleep_until) {
		uint64_t now = monotonic_ns();
		if (queue_due(b, clock_index(clock), now) < b->sleep_until) {
			b->futex++;
			wake = true;
		}
	}
	pthread_mutex_unlock(&b->lock);
	if (wake)
		futex_wake_word(&b->futex);
}

bool ktimer_cancel_locked(struct kernel *k, struct ktimer *kt)
{
	struct ktimer_base *b = k->ktimers;

	if (!b || !kt->queued)
		return false;
	pthread_mutex_lock(&b->lock);
	dequeue(b, kt);
	pthread_mutex_unlock(&b->lock);
	return true;
}

void ktimer_base_destroy(struct kernel *k)
{
	struct ktimer_base *b = k->ktimers;

	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	b->futex++;
	pthread_mutex_unlock(&b->lock);
	futex_wake_word(&b->futex);
	if (b->started)
		pthread_join(b->thread, NULL);
	pthread_mutex_destroy(&b->lock);
	free(b);
	k->ktimers = NULL;
}
