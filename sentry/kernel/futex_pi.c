/*
 * Priority-inheritance futexes (FUTEX_LOCK_PI and friends) with Linux's
 * protocol on the futex word: the owner's number (its tid as its namespace
 * calls it) in FUTEX_TID_MASK, FUTEX_WAITERS while the sentry holds waiters,
 * FUTEX_OWNER_DIED after a robust owner died.
 *
 * Ownership is handed over in the sentry: an unlock with waiters writes the
 * first waiter's number into the word and wakes it as the owner (FIFO, as
 * Linux among equal priorities). No priority is boosted: guest threads run
 * on host threads the host schedules, and the sentry has no priorities to
 * lend. A waiter remembers the owner it waits for; the owner's exit
 * (futex_pi_owner_exit) wakes it to take the lock over, as Linux's
 * exit_pi_state_list hands the rt_mutex on.
 */
#include "config.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/futex_priv.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <linux/futex.h>

/* PI waiters anywhere (and tasks about to become one): an exiting thread
 * looks for the ones waiting for it only when there are some. */
static int pi_waiters;

/* The number t's futex words hold for it. */
static uint32_t pi_tid(const struct task *t)
{
	return (uint32_t)task_tid_nr(t, t->pidns);
}

/* The live task that t's namespace calls tid, not yet past
 * futex_pi_owner_exit (compared only), or NULL. */
static const struct task *pi_owner_lookup(struct task *t, uint32_t tid)
{
	struct kernel *k = t->k;
	struct task *o;

	pthread_mutex_lock(&k->lock);
	o = kernel_find_task_locked(k, pidns_global_locked(k, t->pidns, (int)tid));
	if (o && (o->exited || o->futex_pi_exited))
		o = NULL;
	pthread_mutex_unlock(&k->lock);
	return o;
}

/* The first PI waiter on key in b (locked), or NULL. */
static struct futex_waiter *pi_top_waiter(struct bucket *b, const struct futex_key *key)
{
	struct futex_waiter *w;

	list_for_each_entry(w, &b->waiters, link)
		if (w->pi && key_eq(&w->key, key))
			return w;
	return NULL;
}

/* The key of the PI futex at addr and its word, writable, under t's mm read
 * lock (held on success, as get_key wants). */
static int pi_get_key(struct task *t, uint64_t addr, bool private, struct futex_key *key,
		      uint32_t **word)
{
	int ret;

	for (;;) {
		mm_prepare_write(t->mm, addr, sizeof(uint32_t)); /* get_key reports errors */
		pthread_rwlock_rdlock(&t->mm->lock);
		ret = get_key(t, addr, private, true, key, word);
		if (ret == 0)
			return 0;
		pthread_rwlock_unlock(&t->mm->lock);
		if (ret != KEY_COW)
			return ret;
	}
}

/*
 * Take the PI futex (word, in bucket b, locked) for task o (Linux's
 * futex_lock_pi_atomic): 1 when o owns it now; 0 when it is another's (the
 * word has FUTEX_WAITERS, w->owner who), or -EDEADLK, -ESRCH (the owner's
 * number names no live thread). gone_tid: an owner whose exit woke o; its
 * number left in the word is taken over. set_waiters: the word keeps
 * FUTEX_WAITERS once taken (requeued waiters follow).
 */
static int pi_acquire(struct task *o, struct bucket *b, const struct futex_key *key, uint32_t *word,
		      uint32_t gone_tid, bool set_waiters, struct futex_waiter *w)
{
	uint32_t me = pi_tid(o), uval = __atomic_load_n(word, __ATOMIC_SEQ_CST);

	for (;;) {
		uint32_t tid = uval & FUTEX_TID_MASK, nval;
		const struct task *owner;

		if (tid == me)
			return -EDEADLK;
		if (tid == 0 || (gone_tid && tid == gone_tid)) {
			/* Free (or its owner gone): ours, FUTEX_OWNER_DIED kept. */
			nval = (uval & FUTEX_OWNER_DIED) | me;
			if (set_waiters || pi_top_waiter(b, key))
				nval |= FUTEX_WAITERS;
			if (__atomic_compare_exchange_n(word, &uval, nval, false, __ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST))
				return 1;
			continue;
		}
		owner = pi_owner_lookup(o, tid);
		if (!owner)
			return -ESRCH;
		nval = uval | FUTEX_WAITERS;
		if (!__atomic_compare_exchange_n(word, &uval, nval, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		w->owner = owner;
		w->owner_tid = tid;
		return 0;
	}
}

/*
 * Sleep as PI waiter w (queued from snap on) until it owns the lock (0), its
 * owner exits (1: w is off the queue), the deadline passes (-ETIMEDOUT) or a
 * signal comes (-EINTR).
 */
static int pi_sleep(struct task *t, struct futex_waiter *w, uint32_t snap, uint64_t deadline)
{
	for (;;) {
		int ret = task_block(t, snap, deadline);
		struct bucket *b = lock_waiter_bucket(w);

		if (w->woken) {
			pthread_mutex_unlock(&b->lock);
			return 0;
		}
		if (w->owner_gone || ret < 0) {
			list_del(&w->link);
			pthread_mutex_unlock(&b->lock);
			return w->owner_gone ? 1 : ret == -ETIMEDOUT ? -ETIMEDOUT : -EINTR;
		}
		snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&b->lock);
	}
}

/* FUTEX_LOCK_PI, LOCK_PI2 (deadline: absolute CLOCK_MONOTONIC ns, 0 for
 * none) and TRYLOCK_PI. gone_tid: see pi_acquire. */
static long pi_lock(struct task *t, uint64_t addr, bool private, uint64_t deadline, bool trylock,
		    uint32_t gone_tid)
{
	long ret;

	__atomic_add_fetch(&pi_waiters, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		struct futex_waiter w = {.bitset = FUTEX_BITSET_MATCH_ANY, .t = t, .pi = true};
		struct bucket *b;
		uint32_t *word, snap = 0;

		ret = pi_get_key(t, addr, private, &w.key, &word);
		if (ret)
			break;
		b = bucket_of(&w.key);
		pthread_mutex_lock(&b->lock);
		ret = pi_acquire(t, b, &w.key, word, gone_tid, false, &w);
		if (ret == 0 && !trylock) {
			snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
			list_add_tail(&w.link, &b->waiters);
		}
		pthread_mutex_unlock(&b->lock);
		pthread_rwlock_unlock(&t->mm->lock);
		if (ret != 0 || trylock) {
			/* A contended trylock leaves FUTEX_WAITERS set, as Linux's. */
			ret = ret > 0 ? 0 : ret == 0 ? -EAGAIN : ret;
			break;
		}
		ret = pi_sleep(t, &w, snap, deadline);
		if (ret != 1)
			break;
		gone_tid = w.owner_tid;
	}
	__atomic_sub_fetch(&pi_waiters, 1, __ATOMIC_SEQ_CST);
	/* A signal restarts the lock, as Linux's futex_lock_pi. */
	return ret == -EINTR ? -ERESTARTNOINTR : ret;
}

/* FUTEX_UNLOCK_PI: to the first waiter (the word its number and
 * FUTEX_WAITERS), or free. -EPERM unless t owns it. */
static long pi_unlock(struct task *t, uint64_t addr, bool private)
{
	struct futex_key key;
	struct bucket *b;
	uint32_t *word, uval, me = pi_tid(t);
	long ret;

	ret = pi_get_key(t, addr, private, &key, &word);
	if (ret)
		return ret;
	b = bucket_of(&key);
	pthread_mutex_lock(&b->lock);
	uval = __atomic_load_n(word, __ATOMIC_SEQ_CST);
	for (;;) {
		struct futex_waiter *top, *w;
		uint32_t nval = 0;

		if ((uval & FUTEX_TID_MASK) != me) {
			ret = -EPERM;
			break;
		}
		top = pi_top_waiter(b, &key);
		if (top)
			nval = FUTEX_WAITERS | pi_tid(top->t);
		if (!__atomic_compare_exchange_n(word, &uval, nval, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		if (top) {
			list_del(&top->link);
			top->woken = true;
			/* The others wait for the new owner now. */
			list_for_each_entry(w, &b->waiters, link)
				if (w->pi && key_eq(&w->key, &key)) {
					w->owner = top->t;
					w->owner_tid = nval & FUTEX_TID_MASK;
				}
			task_wake(top->t);
		}
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&b->lock);
	pthread_rwlock_unlock(&t->mm->lock);
	return ret;
}

/*
 * FUTEX_WAIT_REQUEUE_PI: wait on the futex at addr while it holds val, until
 * FUTEX_CMP_REQUEUE_PI hands over (or queues us for) the PI futex at addr2.
 * 0: we own addr2.
 */
static long pi_wait_requeue(struct task *t, uint64_t addr, bool private, uint32_t val,
			    uint64_t deadline, uint64_t addr2)
{
	struct futex_waiter w = {.bitset = FUTEX_BITSET_MATCH_ANY, .t = t, .requeue_pi = true};
	struct bucket *b;
	uint32_t *word, *word2, snap;
	long ret;

	if (addr == addr2)
		return -EINVAL;
	ret = pi_get_key(t, addr2, private, &w.pi_key, &word2);
	if (ret)
		return ret;
	ret = get_key(t, addr, private, false, &w.key, &word);
	if (ret == 0 && key_eq(&w.key, &w.pi_key))
		ret = -EINVAL;
	if (ret) {
		pthread_rwlock_unlock(&t->mm->lock);
		return ret;
	}
	w.pi_addr = addr2;
	b = bucket_of(&w.key);
	pthread_mutex_lock(&b->lock);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != val) {
		pthread_mutex_unlock(&b->lock);
		pthread_rwlock_unlock(&t->mm->lock);
		return -EAGAIN;
	}
	__atomic_add_fetch(&pi_waiters, 1, __ATOMIC_SEQ_CST);
	snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
	list_add_tail(&w.link, &b->waiters);
	pthread_mutex_unlock(&b->lock);
	pthread_rwlock_unlock(&t->mm->lock);
	for (;;) {
		int bret = task_block(t, snap, deadline);
		bool requeued;

		b = lock_waiter_bucket(&w);
		requeued = w.pi;
		if (w.woken) {
			pthread_mutex_unlock(&b->lock);
			ret = 0;
			break;
		}
		if (w.owner_gone || bret < 0) {
			list_del(&w.link);
			pthread_mutex_unlock(&b->lock);
			if (w.owner_gone) /* its owner exited: take it over */
				ret = pi_lock(t, addr2, private, deadline, false, w.owner_tid);
			else if (bret == -ETIMEDOUT)
				ret = -ETIMEDOUT;
			else /* Linux: once requeued, a signal ends it with EAGAIN */
				ret = requeued ? -EAGAIN : -ERESTARTNOINTR;
			break;
		}
		snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&b->lock);
	}
	__atomic_sub_fetch(&pi_waiters, 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* FUTEX_CMP_REQUEUE_PI (nr_wake must be 1): if the futex at addr holds
 * val3, its first waiter takes the PI futex at addr2 if free, and up to
 * nr_requeue others (one more if it was not free) move to wait for it. */
static long pi_cmp_requeue(struct task *t, uint64_t addr, bool private, int nr_wake, int nr_requeue,
			   uint64_t addr2, uint32_t val3)
{
	struct futex_key k1, k2;
	struct futex_waiter *w, *nw;
	struct bucket *b1, *b2;
	uint32_t *word, *word2;
	const struct task *owner = NULL;
	uint32_t owner_tid = 0;
	int count = 0;
	long ret;

	if (nr_wake < 0 || nr_requeue < 0 || addr == addr2 || nr_wake != 1)
		return -EINVAL;
	ret = pi_get_key(t, addr2, private, &k2, &word2);
	if (ret)
		return ret;
	ret = get_key(t, addr, private, false, &k1, &word);
	if (ret == 0 && key_eq(&k1, &k2))
		ret = -EINVAL;
	if (ret) {
		pthread_rwlock_unlock(&t->mm->lock);
		return ret;
	}
	b1 = bucket_of(&k1);
	b2 = bucket_of(&k2);
	lock2(b1, b2);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != val3) {
		ret = -EAGAIN;
		goto out;
	}
	list_for_each_entry_safe(w, nw, &b1->waiters, link) {
		if (!key_eq(&w->key, &k1))
			continue;
		if (!w->requeue_pi || !key_eq(&w->pi_key, &k2)) {
			ret = -EINVAL;
			goto out;
		}
		if (count == 0 && !owner) {
			/* The first waiter: the lock for it, if free. */
			ret = pi_acquire(w->t, b2, &k2, word2, 0, true, w);
			if (ret < 0)
				goto out;
			if (ret == 1) {
				list_del(&w->link);
				w->woken = true;
				task_wake(w->t);
				owner = w->t;
				owner_tid = pi_tid(w->t);
				count++;
				continue;
			}
			owner = w->owner;
			owner_tid = w->owner_tid;
		}
		if (count - nr_wake >= nr_requeue)
			break;
		list_del(&w->link);
		w->key = k2;
		w->pi = true;
		w->requeue_pi = false;
		w->owner = owner;
		w->owner_tid = owner_tid;
		list_add_tail(&w->link, &b2->waiters);
		count++;
	}
	ret = count;
out:
	unlock2(b1, b2);
	pthread_rwlock_unlock(&t->mm->lock);
	return ret;
}

long futex_pi_op(struct task *t, int cmd, uint64_t addr, bool private, bool realtime, uint32_t val,
		 uint64_t utime, uint64_t addr2, uint32_t val3)
{
	uint64_t deadline;
	long ret;

	switch (cmd) {
	case FUTEX_LOCK_PI: /* an absolute CLOCK_REALTIME timeout */
	case FUTEX_LOCK_PI2:
		ret = futex_deadline(t, utime, true, cmd == FUTEX_LOCK_PI || realtime, &deadline);
		return ret ? ret : pi_lock(t, addr, private, deadline, false, 0);
	case FUTEX_TRYLOCK_PI:
		return pi_lock(t, addr, private, 0, true, 0);
	case FUTEX_UNLOCK_PI:
		return pi_unlock(t, addr, private);
	case FUTEX_WAIT_REQUEUE_PI:
		ret = futex_deadline(t, utime, true, realtime, &deadline);
		return ret ? ret : pi_wait_requeue(t, addr, private, val, deadline, addr2);
	case FUTEX_CMP_REQUEUE_PI:
		return pi_cmp_requeue(t, addr, private, (int)val, (int)utime, addr2, val3);
	}
	return -ENOSYS;
}

void futex_pi_owner_exit(struct task *t)
{
	pthread_mutex_lock(&t->k->lock);
	t->futex_pi_exited = true;
	pthread_mutex_unlock(&t->k->lock);
	/* A waiter that found t alive counted itself in pi_waiters first. */
	if (!__atomic_load_n(&pi_waiters, __ATOMIC_SEQ_CST))
		return;
	pthread_once(&buckets_once, buckets_init);
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		struct futex_waiter *w;

		pthread_mutex_lock(&buckets[i].lock);
		list_for_each_entry(w, &buckets[i].waiters, link)
			if (w->pi && w->owner == t && !w->owner_gone) {
				w->owner_gone = true;
				task_wake(w->t);
			}
		pthread_mutex_unlock(&buckets[i].lock);
	}
}
