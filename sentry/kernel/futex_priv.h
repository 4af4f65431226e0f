/* The futex hash table, shared by futex.c and the priority-inheritance
 * futexes of futex_pi.c. Not for other users. */
#ifndef RUNG_FUTEX_PRIV_H
#define RUNG_FUTEX_PRIV_H

#include "lib/list.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct task;

#define FUTEX_BUCKETS 256

struct futex_key {
	const void *obj; /* mm (private) or mobj (shared) */
	uint64_t off;	 /* address, or offset in the memory object */
};

struct futex_waiter {
	struct list_head link;
	struct futex_key key;
	uint32_t bitset;
	struct task *t;
	bool woken; /* a PI waiter: woken as the lock's new owner */
	/* A waiter for a PI futex's ownership (FUTEX_LOCK_PI, or requeued). */
	bool pi;
	/* FUTEX_WAIT_REQUEUE_PI, not yet requeued: it waits on key, and is
	 * only to be requeued to pi_key. */
	bool requeue_pi;
	struct futex_key pi_key;
	uint64_t pi_addr; /* the PI futex's address (requeue_pi) */
	/* PI waiters: the owner they wait for (compared, never followed), its
	 * number in the word, and whether its exit woke them. */
	const struct task *owner;
	uint32_t owner_tid;
	bool owner_gone;
};

struct bucket {
	pthread_mutex_t lock;
	struct list_head waiters;
};

extern struct bucket buckets[FUTEX_BUCKETS];
extern pthread_once_t buckets_once;
void buckets_init(void);
struct bucket *bucket_of(const struct futex_key *k);
bool key_eq(const struct futex_key *a, const struct futex_key *b);

/* get_key, and get_key only (never a count of woken waiters): the sentry is
 * to write a word whose page a fork shares. */
#define KEY_COW 1
int get_key(struct task *t, uint64_t addr, bool private, bool write, struct futex_key *key,
	    uint32_t **word);
struct bucket *lock_waiter_bucket(struct futex_waiter *w);
void lock2(struct bucket *a, struct bucket *b);
void unlock2(struct bucket *a, struct bucket *b);

/* futex_pi.c: FUTEX_LOCK_PI, LOCK_PI2, TRYLOCK_PI, UNLOCK_PI,
 * WAIT_REQUEUE_PI and CMP_REQUEUE_PI (cmd); -errno on failure. */
long futex_pi_op(struct task *t, int cmd, uint64_t addr, bool private, bool realtime, uint32_t val,
		 uint64_t utime, uint64_t addr2, uint32_t val3);

#endif
