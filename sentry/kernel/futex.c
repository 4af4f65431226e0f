/*
 * Futexes, implemented in the sentry: the host's futexes are never used on
 * guest memory. A futex is named by a key: (mm, address) for private ones,
 * and for shared ones in shared memory (memory object, offset), so that two
 * processes mapping the same pages meet on the same key.
 *
 * Waiters hang in a hash table of buckets; each bucket's lock orders the
 * check of the futex word against wakes, as the kernel's hash bucket lock
 * does. A waiter sleeps on its task's wake word (sentry/kernel/wait.h).
 */
#include "config.h"
#include "platform/platform.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/futex_priv.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/memfile.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <time.h>

struct bucket buckets[FUTEX_BUCKETS];
pthread_once_t buckets_once = PTHREAD_ONCE_INIT;

void buckets_init(void)
{
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		pthread_mutex_init(&buckets[i].lock, NULL);
		list_init(&buckets[i].waiters);
	}
}

struct bucket *bucket_of(const struct futex_key *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->obj * 0x9e3779b97f4a7c15ull ^
		     k->off * 0xff51afd7ed558ccdull;

	return &buckets[(h >> 32) % FUTEX_BUCKETS];
}

bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->obj == b->obj && a->off == b->off;
}

/*
 * The key of the futex at addr and a sentry pointer to its word (checked for
 * alignment and access). Shared futexes in shared memory key on the memory.
 * The caller holds the mm's read lock until it is done with the word: the
 * page cannot move (copy on write) or go meanwhile. A word to be written
 * must be the guest's own page (KEY_COW: mm_prepare_write, then again).
 */
int get_key(struct task *t, uint64_t addr, bool private, bool write, struct futex_key *key,
	    uint32_t **word)
{
	struct mm *mm = t->mm;
	struct vma *v;
	int ret = 0;

	if (addr & 3)
		return -EINVAL;
	v = mm_find_vma(mm, addr);
	if (!v || !v->mobj || !(v->prot & (write ? PROT_WRITE : (PROT_READ | PROT_WRITE)))) {
		ret = -EFAULT;
	} else {
		uint64_t moff = v->mobj_off + (addr - v->start), len = sizeof(uint32_t);
		bool shared = false;
		/* The sentry writes the word: a page a fork shares is copied first. */
		if (write && !v->mobj->shared)
			mobj_run(v->mobj, moff, len, &shared);
		if (shared)
			return KEY_COW;
		*word = memfile_ptr(mm->mf, mobj_frame(v->mobj, moff, &len));
		if (!private && (v->flags & VMA_SHARED)) {
			key->obj = v->mobj;
			key->off = v->mobj_off + (addr - v->start);
		} else {
			/* A shared futex in private memory is not the private one
			 * at the same address (Linux's FUT_OFF_MMSHARED). */
			key->obj = mm;
			key->off = addr | (private ? 0 : 1);
		}
	}
	return ret;
}

/* The key of a private futex that is only woken (Linux's get_futex_key
 * without FLAGS_SHARED: an aligned user address, mapped or not; nothing
 * reads its word). */
static int private_wake_key(struct task *t, uint64_t addr, struct futex_key *key)
{
	if (addr & 3)
		return -EINVAL;
	if (addr > HOST_TASK_SIZE - sizeof(uint32_t))
		return -EFAULT;
	key->obj = t->mm;
	key->off = addr;
	return 0;
}

/* Lock the bucket w is queued in: a requeue may move it (and change its key)
 * under both buckets' locks, so check again once locked. */
struct bucket *lock_waiter_bucket(struct futex_waiter *w)
{
	for (;;) {
		struct futex_key k;
		struct bucket *b;
		__atomic_load(&w->key.obj, &k.obj, __ATOMIC_ACQUIRE);
		k.off = __atomic_load_n(&w->key.off, __ATOMIC_ACQUIRE);
		b = bucket_of(&k);
		pthread_mutex_lock(&b->lock);
		if (key_eq(&w->key, &k))
			return b;
		pthread_mutex_unlock(&b->lock);
	}
}

/* Wait on the futex at addr while it holds val; deadline is an absolute
 * CLOCK_MONOTONIC time in ns (0: none). */
static long futex_wait(struct task *t, uint64_t addr, bool private, uint32_t val, uint32_t bitset,
		       uint64_t deadline)
{
	struct futex_waiter w = {.bitset = bitset, .t = t};
	struct bucket *b;
	uint32_t *word, snap;
	int ret;

	if (!bitset)
		return -EINVAL;
	/* Until queued: a waker's write cannot land in a copy we do not read. */
	pthread_rwlock_rdlock(&t->mm->lock);
	ret = get_key(t, addr, private, false, &w.key, &word);
	if (ret) {
		pthread_rwlock_unlock(&t->mm->lock);
		return ret;
	}
	b = bucket_of(&w.key);
	pthread_mutex_lock(&b->lock);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != val) {
		pthread_mutex_unlock(&b->lock);
		pthread_rwlock_unlock(&t->mm->lock);
		return -EAGAIN;
	}
	snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
	list_add_tail(&w.link, &b->waiters);
	pthread_mutex_unlock(&b->lock);
	pthread_rwlock_unlock(&t->mm->lock);
	for (;;) {
		ret = task_block(t, snap, deadline);
		b = lock_waiter_bucket(&w);
		if (w.woken) {
			pthread_mutex_unlock(&b->lock);
			return 0;
		}
		if (ret < 0) {
			list_del(&w.link);
			pthread_mutex_unlock(&b->lock);
			return ret == -ETIMEDOUT ? -ETIMEDOUT : -ERESTARTSYS;
		}
		snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&b->lock);
	}
}

/* Wake up to n waiters on key with a matching bitset (bucket locked). As
 * Linux counts after waking, an n of 0 or less wakes one. A PI futex's
 * waiters are not woken this way: -EINVAL, as Linux's futex_wake. */
static int wake_locked(struct bucket *b, const struct futex_key *key, int n, uint32_t bitset)
{
	struct futex_waiter *w, *nw;
	int woken = 0;

	list_for_each_entry_safe(w, nw, &b->waiters, link) {
		if (!key_eq(&w->key, key))
			continue;
		if (w->pi || w->requeue_pi)
			return -EINVAL;
		if (!(w->bitset & bitset))
			continue;
		list_del(&w->link);
		w->woken = true;
		task_wake(w->t);
		if (++woken >= n)
			break;
	}
	return woken;
}

static long futex_wake(struct task *t, uint64_t addr, bool private, int n, uint32_t bitset)
{
	struct futex_key key;
	struct bucket *b;
	uint32_t *word;
	int ret;

	if (!bitset)
		return -EINVAL;
	ret = private ? private_wake_key(t, addr, &key)
		      : get_key(t, addr, false, false, &key, &word);
	if (ret)
		return ret;
	b = bucket_of(&key);
	pthread_mutex_lock(&b->lock);
	ret = wake_locked(b, &key, n, bitset);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

/* Lock two buckets in a fixed order. */
void lock2(struct bucket *a, struct bucket *b)
{
	if (a == b) {
		pthread_mutex_lock(&a->lock);
	} else if (a < b) {
		pthread_mutex_lock(&a->lock);
		pthread_mutex_lock(&b->lock);
	} else {
		pthread_mutex_lock(&b->lock);
		pthread_mutex_lock(&a->lock);
	}
}

void unlock2(struct bucket *a, struct bucket *b)
{
	pthread_mutex_unlock(&a->lock);
	if (a != b)
		pthread_mutex_unlock(&b->lock);
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE: wake n, move up to n2 to addr2. */
static long futex_requeue(struct task *t, uint64_t addr, uint64_t addr2, bool private,
			  bool private2, int n, int n2, bool cmp, uint32_t val)
{
	struct futex_key k1, k2;
	struct futex_waiter *w, *nw;
	struct list_head moving = LIST_HEAD_INIT(moving);
	struct bucket *b1, *b2;
	uint32_t *word, *word2;
	int ret, woken, moved = 0;

	if (n < 0 || n2 < 0)
		return -EINVAL;
	ret = get_key(t, addr, private, false, &k1, &word);
	if (ret == 0)
		ret = get_key(t, addr2, private2, false, &k2, &word2);
	if (ret)
		return ret;
	b1 = bucket_of(&k1);
	b2 = bucket_of(&k2);
	lock2(b1, b2);
	if (cmp && __atomic_load_n(word, __ATOMIC_SEQ_CST) != val) {
		unlock2(b1, b2);
		return -EAGAIN;
	}
	woken = n ? wake_locked(b1, &k1, n, FUTEX_BITSET_MATCH_ANY) : 0;
	if (woken < 0) {
		unlock2(b1, b2);
		return woken;
	}
	/* Off b1 first, then onto b2: b2 may be b1 (and k2 k1). */
	list_for_each_entry_safe(w, nw, &b1->waiters, link) {
		if (moved >= n2)
			break;
		if (!key_eq(&w->key, &k1))
			continue;
		if (w->pi || w->requeue_pi) {
			woken = -EINVAL; /* only FUTEX_CMP_REQUEUE_PI moves these */
			break;
		}
		list_del(&w->link);
		list_add_tail(&w->link, &moving);
		moved++;
	}
	list_for_each_entry_safe(w, nw, &moving, link) {
		list_del(&w->link);
		w->key = k2;
		list_add_tail(&w->link, &b2->waiters);
	}
	unlock2(b1, b2);
	return woken < 0 ? woken : woken + moved;
}

/* FUTEX_WAKE_OP: *addr2 = *addr2 OP arg (atomically); wake n at addr, and
 * n2 at addr2 if the old value compares as asked. */
/* *cow: the word at addr2 is in a page a fork shares; nothing was done
 * (mm_prepare_write, then call again). */
static long futex_wake_op(struct task *t, uint64_t addr, uint64_t addr2, bool private, int n,
			  int n2, uint32_t encoded, bool *cow)
{
	unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int32_t oparg = (int32_t)((encoded >> 12) & 0xfff), cmparg = (int32_t)(encoded & 0xfff);
	struct futex_key k1, k2;
	struct bucket *b1, *b2;
	uint32_t *word, *word2, old, new;
	bool cond;
	int ret, woken;

	if (encoded & (8u << 28)) /* FUTEX_OP_OPARG_SHIFT */
		oparg = 1 << (oparg & 31);
	/* Sign-extend the 12-bit fields. */
	oparg = (oparg << 20) >> 20;
	cmparg = (cmparg << 20) >> 20;
	ret = private ? private_wake_key(t, addr, &k1) : get_key(t, addr, false, false, &k1, &word);
	if (ret == 0)
		ret = get_key(t, addr2, private, true, &k2, &word2);
	*cow = ret == KEY_COW;
	if (ret)
		return *cow ? 0 : ret;
	b1 = bucket_of(&k1);
	b2 = bucket_of(&k2);
	lock2(b1, b2);
	old = __atomic_load_n(word2, __ATOMIC_SEQ_CST);
	do {
		switch (op) {
		case FUTEX_OP_SET:
			new = (uint32_t)oparg;
			break;
		case FUTEX_OP_ADD:
			new = old + (uint32_t)oparg;
			break;
		case FUTEX_OP_OR:
			new = old | (uint32_t)oparg;
			break;
		case FUTEX_OP_ANDN:
			new = old & ~(uint32_t)oparg;
			break;
		case FUTEX_OP_XOR:
			new = old ^ (uint32_t)oparg;
			break;
		default:
			unlock2(b1, b2);
			return -ENOSYS;
		}
	} while (!__atomic_compare_exchange_n(word2, &old, new, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	switch (cmp) {
	case FUTEX_OP_CMP_EQ:
		cond = (int32_t)old == cmparg;
		break;
	case FUTEX_OP_CMP_NE:
		cond = (int32_t)old != cmparg;
		break;
	case FUTEX_OP_CMP_LT:
		cond = (int32_t)old < cmparg;
		break;
	case FUTEX_OP_CMP_LE:
		cond = (int32_t)old <= cmparg;
		break;
	case FUTEX_OP_CMP_GT:
		cond = (int32_t)old > cmparg;
		break;
	case FUTEX_OP_CMP_GE:
		cond = (int32_t)old >= cmparg;
		break;
	default:
		unlock2(b1, b2);
		return -ENOSYS;
	}
	woken = wake_locked(b1, &k1, n, FUTEX_BITSET_MATCH_ANY);
	if (cond && woken >= 0) {
		int woken2 = wake_locked(b2, &k2, n2, FUTEX_BITSET_MATCH_ANY);
		woken = woken2 < 0 ? woken2 : woken + woken2;
	}
	unlock2(b1, b2);
	return woken;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The timeout argument as an absolute CLOCK_MONOTONIC deadline (0: none). */
int futex_deadline(struct task *t, uint64_t utime, bool absolute, bool realtime, uint64_t *deadline)
{
	struct {
		int64_t sec, nsec;
	} ts;
	uint64_t v;

	*deadline = 0;
	if (!utime)
		return 0;
	if (mm_copy_in(t->mm, &ts, utime, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	v = (uint64_t)ts.sec > UINT64_MAX / 4000000000ull
		    ? UINT64_MAX / 4
		    : (uint64_t)ts.sec * 1000000000ull + (uint64_t)ts.nsec;
	if (!absolute) {
		*deadline = now_ns(CLOCK_MONOTONIC) + v;
	} else if (realtime) {
		uint64_t rnow = now_ns(CLOCK_REALTIME), mnow = now_ns(CLOCK_MONOTONIC);
		*deadline = v > rnow ? mnow + (v - rnow) : mnow;
	} else {
		*deadline = v;
	}
	if (*deadline == 0)
		*deadline = 1;
	return 0;
}

long do_futex(struct task *t, uint64_t addr, int op, uint32_t val, uint64_t utime, uint64_t addr2,
	      uint32_t val3)
{
	bool private = op & FUTEX_PRIVATE_FLAG, realtime = op & FUTEX_CLOCK_REALTIME;
	int cmd = op & FUTEX_CMD_MASK;
	uint64_t deadline;
	int ret;

	pthread_once(&buckets_once, buckets_init);
	if (realtime && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		ret = futex_deadline(t, utime, false, false, &deadline);
		if (ret)
			return ret;
		return futex_wait(t, addr, private, val, FUTEX_BITSET_MATCH_ANY, deadline);
	case FUTEX_WAIT_BITSET:
		ret = futex_deadline(t, utime, true, realtime, &deadline);
		if (ret)
			return ret;
		return futex_wait(t, addr, private, val, val3, deadline);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
		break;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_UNLOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI:
		return futex_pi_op(t, cmd, addr, private, realtime, val, utime, addr2, val3);
	default:
		return -ENOSYS;
	}
	/* These do not block: under the mm's read lock (see get_key). */
	for (;;) {
		bool cow = false;

		if (cmd == FUTEX_WAKE_OP)
			mm_prepare_write(t->mm, addr2,
					 sizeof(uint32_t)); /* get_key reports errors */
		pthread_rwlock_rdlock(&t->mm->lock);
		if (cmd == FUTEX_WAKE)
			ret = (int)futex_wake(t, addr, private, (int)val, FUTEX_BITSET_MATCH_ANY);
		else if (cmd == FUTEX_WAKE_BITSET)
			ret = (int)futex_wake(t, addr, private, (int)val, val3);
		else if (cmd == FUTEX_REQUEUE)
			ret = (int)futex_requeue(t, addr, addr2, private, private, (int)val,
						 (int)utime, false, 0);
		else if (cmd == FUTEX_CMP_REQUEUE)
			ret = (int)futex_requeue(t, addr, addr2, private, private, (int)val,
						 (int)utime, true, val3);
		else
			ret = (int)futex_wake_op(t, addr, addr2, private, (int)val, (int)utime,
						 val3, &cow);
		pthread_rwlock_unlock(&t->mm->lock);
		if (!cow)
			return ret;
	}
}

void futex_wake_addr(struct task *t, uint64_t addr)
{
	pthread_once(&buckets_once, buckets_init);
	pthread_rwlock_rdlock(&t->mm->lock);
	futex_wake(t, addr, false, 1, FUTEX_BITSET_MATCH_ANY);
	pthread_rwlock_unlock(&t->mm->lock);
}

void futex_owner_died(struct task *t, uint64_t addr, bool pi)
{
	struct futex_key key;
	uint32_t *word, old;
	int ret;

	pthread_once(&buckets_once, buckets_init);
	for (;;) {
		mm_prepare_write(t->mm, addr, sizeof(uint32_t)); /* get_key reports errors */
		pthread_rwlock_rdlock(&t->mm->lock);
		ret = get_key(t, addr, false, true, &key, &word);
		if (ret != KEY_COW)
			break;
		pthread_rwlock_unlock(&t->mm->lock);
	}
	if (ret < 0) {
		pthread_rwlock_unlock(&t->mm->lock);
		return;
	}
	old = __atomic_load_n(word, __ATOMIC_SEQ_CST);
	for (;;) {
		uint32_t nval;
		/* Only a lock this thread holds (its tid in the word) is released. */
		if ((old & FUTEX_TID_MASK) != (uint32_t)task_tid_nr(t, t->pidns))
			break;
		nval = (old & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (__atomic_compare_exchange_n(word, &old, nval, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			/* A PI futex's waiter is woken by futex_pi_owner_exit. */
			if ((old & FUTEX_WAITERS) && !pi)
				futex_wake(t, addr, false, 1, FUTEX_BITSET_MATCH_ANY);
			break;
		}
	}
	pthread_rwlock_unlock(&t->mm->lock);
}

/*
 * futex2: the calls of Linux 6.7 (futex_wait, futex_wake, futex_requeue) and
 * futex_waitv. Their argument checks are in syscalls/sys_futex2.c.
 */

long futex2_wait(struct task *t, uint64_t addr, bool private, uint32_t val, uint32_t bitset,
		 uint64_t deadline)
{
	pthread_once(&buckets_once, buckets_init);
	return futex_wait(t, addr, private, val, bitset, deadline);
}

long futex2_wake(struct task *t, uint64_t addr, bool private, int n, uint32_t bitset)
{
	struct futex_key key;
	uint32_t *word;
	long ret;

	if (!bitset)
		return -EINVAL;
	pthread_once(&buckets_once, buckets_init);
	pthread_rwlock_rdlock(&t->mm->lock);
	ret = get_key(t, addr, private, false, &key, &word);
	/* Unlike futex(FUTEX_WAKE), a count of 0 wakes nobody. */
	if (ret == 0 && n != 0)
		ret = futex_wake(t, addr, private, n, bitset);
	pthread_rwlock_unlock(&t->mm->lock);
	return ret;
}

long futex2_requeue(struct task *t, const struct futex_vec v[2], int nr_wake, int nr_requeue)
{
	long ret;

	pthread_once(&buckets_once, buckets_init);
	pthread_rwlock_rdlock(&t->mm->lock);
	ret = futex_requeue(t, v[0].uaddr, v[1].uaddr, v[0].private, v[1].private, nr_wake,
			    nr_requeue, true, v[0].val);
	pthread_rwlock_unlock(&t->mm->lock);
	return ret;
}

/* Take every waiter of w[0..n) off its queue. The index of the last one a
 * wake took off, or -1 if none was woken. */
static int unqueue_multiple(struct futex_waiter *w, unsigned n)
{
	int woken = -1;

	for (unsigned i = 0; i < n; i++) {
		struct bucket *b = lock_waiter_bucket(&w[i]);
		if (w[i].woken)
			woken = (int)i;
		else
			list_del(&w[i].link);
		pthread_mutex_unlock(&b->lock);
	}
	return woken;
}

/*
 * Queue a waiter on each futex of v while it holds its value (Linux's
 * futex_wait_multiple_setup). 0: all queued, sleep from *snap on; 1: one
 * was woken already, *woken its index; -EAGAIN: a value differed; or the
 * error of a bad address.
 */
static long wait_multiple_setup(struct task *t, const struct futex_vec *v, unsigned n,
				struct futex_waiter *w, uint32_t **words, uint32_t *snap,
				int *woken)
{
	long ret = 0;

	pthread_rwlock_rdlock(&t->mm->lock);
	for (unsigned i = 0; i < n && !ret; i++) {
		w[i] = (struct futex_waiter){.bitset = FUTEX_BITSET_MATCH_ANY, .t = t};
		ret = get_key(t, v[i].uaddr, v[i].private, false, &w[i].key, &words[i]);
	}
	if (ret) {
		pthread_rwlock_unlock(&t->mm->lock);
		return ret;
	}
	*snap = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < n; i++) {
		struct bucket *b = bucket_of(&w[i].key);
		pthread_mutex_lock(&b->lock);
		if (__atomic_load_n(words[i], __ATOMIC_SEQ_CST) == v[i].val) {
			list_add_tail(&w[i].link, &b->waiters);
			pthread_mutex_unlock(&b->lock);
			continue;
		}
		pthread_mutex_unlock(&b->lock);
		/* A futex woken meanwhile is the answer, not the mismatch. */
		*woken = unqueue_multiple(w, i);
		ret = *woken >= 0 ? 1 : -EAGAIN;
		break;
	}
	pthread_rwlock_unlock(&t->mm->lock);
	return ret;
}

long futex2_wait_multiple(struct task *t, const struct futex_vec *v, unsigned n, uint64_t deadline)
{
	struct futex_waiter *w = xmalloc(n * sizeof(*w));
	uint32_t **words = xmalloc(n * sizeof(*words));
	long ret;

	pthread_once(&buckets_once, buckets_init);
	for (;;) {
		uint32_t snap;
		int woken = -1, bret;

		ret = wait_multiple_setup(t, v, n, w, words, &snap, &woken);
		if (ret) {
			if (ret > 0)
				ret = woken;
			break;
		}
		bret = task_block(t, snap, deadline);
		woken = unqueue_multiple(w, n);
		if (woken >= 0) {
			ret = woken;
			break;
		}
		if (bret < 0) {
			ret = bret == -ETIMEDOUT ? -ETIMEDOUT : -ERESTARTSYS;
			break;
		}
		/* A wake of the task for something else: look at the values again. */
	}
	free(w);
	free(words);
	return ret;
}
