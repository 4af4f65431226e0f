/*
 * The key table (security/keys): keys, keyrings, their permission mask and
 * the keyrings of tasks and users. One mutex guards everything; keys are
 * reference counted (a link from a keyring, a task's or user's keyring
 * pointer each hold one) and freed without recursion, so a long chain of
 * nested keyrings cannot overflow the sentry's stack.
 */
#include "config.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/keyctl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Permission bits (linux/key.h): possessor, user, group, other. */
#define KP_VIEW	      0x01u
#define KP_READ	      0x02u
#define KP_WRITE      0x04u
#define KP_SEARCH     0x08u
#define KP_LINK	      0x10u
#define KP_SETATTR    0x20u
#define KP_ALL	      0x3fu
#define POS(p)	      ((p) << 24)
#define USR(p)	      ((p) << 16)
#define KEY_PERM_MASK 0x3f3f3f3fu

/* What a sandbox may hold in all (Linux's root quota is per user). */
#define KEYS_MAX_KEYS  20000u
#define KEYS_MAX_BYTES 25000000u
/* Linux's KEYRING_SEARCH_MAX_DEPTH. */
#define SEARCH_DEPTH 6

enum key_type { KT_USER, KT_KEYRING };
static const char *const type_names[] = {"user", "keyring"};

struct key {
	struct list_head node; /* in keys_table->all, or ->dead once freed */
	int32_t serial;
	int refs;
	enum key_type type;
	char *desc;
	uint32_t uid, gid, perm;
	bool revoked, invalid;
	unsigned mark; /* walk generation */
	uint8_t *data; /* KT_USER */
	size_t len;
	struct key **links; /* KT_KEYRING */
	unsigned nlinks, cap;
};

struct key_user {
	struct list_head node;
	uint32_t uid;
	struct key *uid_kr, *ses_kr;
};

struct keys_table {
	pthread_mutex_t lock;
	struct list_head all, dead, users;
	int32_t next_serial;
	unsigned nkeys, gen;
	size_t bytes;
	bool draining;
	bool wrapped; /* serials went round */
};

static struct keys_table *table_of(struct kernel *k)
{
	struct keys_table *tb;

	pthread_mutex_lock(&k->lock);
	if (!k->keys) {
		tb = xzalloc(sizeof(*tb));
		pthread_mutex_init(&tb->lock, NULL);
		list_init(&tb->all);
		list_init(&tb->dead);
		list_init(&tb->users);
		tb->next_serial = 0x10000000;
		k->keys = tb;
	}
	tb = k->keys;
	pthread_mutex_unlock(&k->lock);
	return tb;
}

static size_t key_bytes(const struct key *key)
{
	return strlen(key->desc) + key->len + key->cap * sizeof(struct key *);
}

static void key_free(struct keys_table *tb, struct key *key)
{
	tb->nkeys--;
	tb->bytes -= key_bytes(key);
	free(key->desc);
	free(key->data);
	free(key->links);
	free(key);
}

static struct key *key_get(struct key *key)
{
	if (key)
		key->refs++;
	return key;
}

/* Drop a reference; the last one frees the key and then what it linked. */
static void key_put(struct keys_table *tb, struct key *key)
{
	if (!key || --key->refs > 0)
		return;
	list_del(&key->node);
	list_add_tail(&key->node, &tb->dead);
	if (tb->draining)
		return;
	tb->draining = true;
	while (!list_empty(&tb->dead)) {
		struct key *d = list_first_entry(&tb->dead, struct key, node);

		list_del(&d->node);
		for (unsigned i = 0; i < d->nlinks; i++)
			key_put(tb, d->links[i]);
		d->nlinks = 0;
		key_free(tb, d);
	}
	tb->draining = false;
}

static struct key *key_find(struct keys_table *tb, int32_t serial)
{
	struct key *key = NULL;

	list_for_each_entry(key, &tb->all, node)
		if (key->serial == serial)
			return key;
	return NULL;
}

static long key_new(struct keys_table *tb, enum key_type type, const char *desc, uint32_t uid,
		    uint32_t gid, uint32_t perm, struct key **out)
{
	size_t dl = strlen(desc);
	struct key *key = NULL;

	if (tb->nkeys >= KEYS_MAX_KEYS || tb->bytes + dl > KEYS_MAX_BYTES)
		return -EDQUOT;
	key = xzalloc(sizeof(*key));
	key->refs = 1;
	key->type = type;
	key->desc = xstrdup(desc);
	key->uid = uid;
	key->gid = gid;
	key->perm = perm;
	/* Serials go up; once they have gone round, skip those in use. */
	do {
		key->serial = tb->next_serial++;
		if (tb->next_serial <= 3) {
			tb->next_serial = 0x10000000;
			tb->wrapped = true;
		}
	} while (key->serial <= 3 || (tb->wrapped && key_find(tb, key->serial)));
	list_add_tail(&key->node, &tb->all);
	tb->nkeys++;
	tb->bytes += dl;
	*out = key;
	return 0;
}

/* Replace a user key's data (taken over) under the byte cap. */
static long key_set_data(struct keys_table *tb, struct key *key, uint8_t *data, size_t len)
{
	if (tb->bytes - key->len + len > KEYS_MAX_BYTES) {
		free(data);
		return -EDQUOT;
	}
	tb->bytes = tb->bytes - key->len + len;
	free(key->data);
	key->data = data;
	key->len = len;
	return 0;
}

static void kr_clear(struct keys_table *tb, struct key *kr)
{
	unsigned n = kr->nlinks;
	struct key **l = kr->links;

	kr->links = NULL;
	kr->nlinks = 0;
	tb->bytes -= kr->cap * sizeof(struct key *);
	kr->cap = 0;
	for (unsigned i = 0; i < n; i++)
		key_put(tb, l[i]);
	free(l);
}

static int kr_index(const struct key *kr, const struct key *key)
{
	for (unsigned i = 0; i < kr->nlinks; i++)
		if (kr->links[i] == key)
			return (int)i;
	return -1;
}

static void kr_remove_at(struct keys_table *tb, struct key *kr, unsigned i)
{
	struct key *key = kr->links[i];

	kr->links[i] = kr->links[--kr->nlinks];
	key_put(tb, key);
}

/* Can target be reached from kr through keyrings? (iterative walk) */
static bool kr_reaches(struct keys_table *tb, struct key *kr, const struct key *target)
{
	size_t n = 0, cap = 16;
	struct key **stack = xmalloc(cap * sizeof(*stack));
	bool found = false;
	unsigned gen = ++tb->gen;

	stack[n++] = kr;
	kr->mark = gen;
	while (n && !found) {
		struct key *r = stack[--n];

		for (unsigned i = 0; i < r->nlinks && !found; i++) {
			struct key *c = r->links[i];

			if (c == target) {
				found = true;
			} else if (c->type == KT_KEYRING && c->mark != gen) {
				c->mark = gen;
				if (n == cap)
					stack = xrealloc(stack, (cap *= 2) * sizeof(*stack));
				stack[n++] = c;
			}
		}
	}
	free(stack);
	return found;
}

/* Link key into kr, replacing a link of the same type and description. */
static long kr_link(struct keys_table *tb, struct key *kr, struct key *key)
{
	if (kr_index(kr, key) >= 0)
		return 0;
	if (key->type == KT_KEYRING && (key == kr || kr_reaches(tb, key, kr)))
		return -EDEADLK;
	for (unsigned i = 0; i < kr->nlinks; i++) {
		struct key *o = kr->links[i];

		if (o->type == key->type && strcmp(o->desc, key->desc) == 0) {
			kr->links[i] = key_get(key);
			key_put(tb, o);
			return 0;
		}
	}
	if (kr->nlinks == kr->cap) {
		unsigned ncap = kr->cap ? kr->cap * 2 : 8;
		size_t more = (ncap - kr->cap) * sizeof(struct key *);

		if (tb->bytes + more > KEYS_MAX_BYTES)
			return -EDQUOT;
		tb->bytes += more;
		kr->links = xrealloc(kr->links, ncap * sizeof(struct key *));
		kr->cap = ncap;
	}
	kr->links[kr->nlinks++] = key_get(key);
	return 0;
}

/* --- possession and permission --- */

static struct key *user_session_keyring(struct keys_table *tb, struct task *t);

/* The keyrings a search starts from (Linux's search_cred_keyrings_rcu). */
static unsigned own_keyrings(struct keys_table *tb, struct task *t, struct key **out)
{
	unsigned n = 0;

	if (t->thread_keyring && !t->thread_keyring->invalid)
		out[n++] = t->thread_keyring;
	if (t->tg->process_keyring && !t->tg->process_keyring->invalid)
		out[n++] = t->tg->process_keyring;
	if (t->session_keyring && !t->session_keyring->invalid)
		out[n++] = t->session_keyring;
	else if ((out[n] = user_session_keyring(tb, t)) != NULL)
		n++; /* (none only when the key cap is reached) */
	return n;
}

static uint32_t perm_of(struct task *t, const struct key *key, bool possessed)
{
	uint32_t p;

	if (key->uid == t->creds.fsuid)
		p = (key->perm >> 16) & KP_ALL;
	else if (creds_in_group(&t->creds, key->gid))
		p = (key->perm >> 8) & KP_ALL;
	else
		p = key->perm & KP_ALL;
	if (possessed)
		p |= (key->perm >> 24) & KP_ALL;
	return p;
}

/* A search (depth first, as deep as Linux looks) under the walk generation
 * gen: possessed keyrings make what they hold possessed. match NULL: find
 * the key want itself. */
struct search {
	struct task *t;
	int type;
	const char *desc;
	const struct key *want;
	struct key *found;
	bool saw_revoked;
	unsigned gen;
};

static bool search_kr(struct search *s, struct key *kr, bool possessed, int depth)
{
	for (unsigned i = 0; i < kr->nlinks; i++) {
		struct key *c = kr->links[i];
		uint32_t p = perm_of(s->t, c, possessed);

		if (c->invalid)
			continue;
		if (s->want ? c == s->want
			    : (int)c->type == s->type && strcmp(c->desc, s->desc) == 0) {
			if (!(p & KP_SEARCH) && !s->want)
				continue;
			if (c->revoked && !s->want) {
				s->saw_revoked = true;
				continue;
			}
			s->found = c;
			return true;
		}
	}
	if (depth >= SEARCH_DEPTH)
		return false;
	for (unsigned i = 0; i < kr->nlinks; i++) {
		struct key *c = kr->links[i];

		if (c->type != KT_KEYRING || c->invalid || c->revoked || c->mark == s->gen ||
		    !(perm_of(s->t, c, possessed) & KP_SEARCH))
			continue;
		c->mark = s->gen;
		if (search_kr(s, c, possessed, depth + 1))
			return true;
	}
	return false;
}

static bool possessed(struct keys_table *tb, struct task *t, struct key *key)
{
	struct key *own[3];
	unsigned n = own_keyrings(tb, t, own);
	struct search s = {.t = t, .want = key, .gen = ++tb->gen};

	for (unsigned i = 0; i < n; i++)
		if (own[i] == key)
			return true;
	for (unsigned i = 0; i < n; i++) {
		own[i]->mark = s.gen;
		if (search_kr(&s, own[i], true, 1))
			return true;
	}
	return false;
}

static long key_permission(struct keys_table *tb, struct task *t, struct key *key, uint32_t need)
{
	if ((perm_of(t, key, false) & need) == need)
		return 0;
	if ((perm_of(t, key, possessed(tb, t, key)) & need) == need)
		return 0;
	return -EACCES;
}

/* --- the special keyrings --- */

static struct key *new_keyring(struct keys_table *tb, struct task *t, const char *desc,
			       uint32_t uid, uint32_t perm, long *err)
{
	struct key *kr = NULL;

	*err = key_new(tb, KT_KEYRING, desc, uid, uid == t->creds.fsuid ? t->creds.fsgid : 0, perm,
		       &kr);
	return kr;
}

static struct key_user *key_user_of(struct keys_table *tb, struct task *t)
{
	uint32_t uid = t->creds.uid;
	struct key_user *u;
	char name[32];
	long err;

	list_for_each_entry(u, &tb->users, node)
		if (u->uid == uid)
			return u;
	u = xzalloc(sizeof(*u));
	u->uid = uid;
	snprintf(name, sizeof(name), "_uid.%u", uid);
	u->uid_kr = new_keyring(tb, t, name, uid, POS(KP_ALL) | USR(KP_ALL), &err);
	snprintf(name, sizeof(name), "_uid_ses.%u", uid);
	u->ses_kr = new_keyring(tb, t, name, uid, POS(KP_ALL) | USR(KP_ALL), &err);
	if (!u->uid_kr || !u->ses_kr) {
		key_put(tb, u->uid_kr);
		key_put(tb, u->ses_kr);
		free(u);
		return NULL;
	}
	kr_link(tb, u->ses_kr, u->uid_kr);
	list_add_tail(&u->node, &tb->users);
	return u;
}

static struct key *user_session_keyring(struct keys_table *tb, struct task *t)
{
	struct key_user *u = key_user_of(tb, t);

	return u ? u->ses_kr : NULL;
}

/* Replace *slot (a task's keyring pointer) by kr, taking a reference. */
static void install(struct keys_table *tb, struct key **slot, struct key *kr)
{
	struct key *old = *slot;

	*slot = key_get(kr);
	key_put(tb, old);
}

#define SESSION_PERM (POS(KP_ALL) | USR(KP_VIEW | KP_READ | KP_LINK))

static long special_keyring(struct keys_table *tb, struct task *t, int32_t id, bool create,
			    struct key **out)
{
	struct key **slot = NULL, *kr;
	struct key_user *u;
	const char *name = NULL;
	long err = 0;

	switch (id) {
	case KEY_SPEC_THREAD_KEYRING:
		slot = &t->thread_keyring, name = "_tid";
		break;
	case KEY_SPEC_PROCESS_KEYRING:
		slot = &t->tg->process_keyring, name = "_pid";
		break;
	case KEY_SPEC_SESSION_KEYRING:
		slot = &t->session_keyring, name = "_ses";
		break;
	case KEY_SPEC_USER_KEYRING:
	case KEY_SPEC_USER_SESSION_KEYRING:
		u = key_user_of(tb, t);
		if (!u)
			return -EDQUOT;
		*out = id == KEY_SPEC_USER_KEYRING ? u->uid_kr : u->ses_kr;
		return 0;
	default:
		return -EINVAL;
	}
	if (*slot && (*slot)->invalid)
		install(tb, slot, NULL);
	if (!*slot) {
		if (id == KEY_SPEC_SESSION_KEYRING && !create) {
			/* Linux installs the user session keyring on first use. */
			kr = user_session_keyring(tb, t);
			if (!kr)
				return -EDQUOT;
			install(tb, slot, kr);
		} else if (!create) {
			return -ENOKEY;
		} else {
			kr = new_keyring(tb, t, name, t->creds.fsuid,
					 id == KEY_SPEC_SESSION_KEYRING
						 ? SESSION_PERM
						 : POS(KP_ALL) | USR(KP_VIEW),
					 &err);
			if (!kr)
				return err;
			install(tb, slot, kr);
			key_put(tb, kr);
		}
	}
	*out = *slot;
	return 0;
}

#define LOOKUP_CREATE  0x1u
#define LOOKUP_PARTIAL 0x2u /* revoked keys too (unlink) */
#define LOOKUP_NOPERM  0x4u

/* A key by serial or special id, checked for need (Linux's lookup_user_key). */
static long lookup(struct keys_table *tb, struct task *t, int64_t id, unsigned flags, uint32_t need,
		   struct key **out)
{
	struct key *key = NULL;
	long ret;

	if (id < 1) {
		if (id < INT32_MIN)
			return -EINVAL;
		ret = special_keyring(tb, t, (int32_t)id, flags & LOOKUP_CREATE, &key);
		if (ret < 0)
			return ret;
	} else {
		key = id > INT32_MAX ? NULL : key_find(tb, (int32_t)id);
		if (!key || key->invalid)
			return -ENOKEY;
	}
	if (key->revoked && !(flags & LOOKUP_PARTIAL))
		return -EKEYREVOKED;
	if (!(flags & LOOKUP_NOPERM) && need) {
		ret = key_permission(tb, t, key, need);
		if (ret < 0)
			return ret;
	}
	*out = key;
	return 0;
}

static long lookup_keyring(struct keys_table *tb, struct task *t, int64_t id, unsigned flags,
			   uint32_t need, struct key **out)
{
	long ret = lookup(tb, t, id, flags, need, out);

	if (ret == 0 && (*out)->type != KT_KEYRING)
		ret = -ENOTDIR;
	return ret;
}

static int type_of(const char *type)
{
	for (int i = 0; i < (int)ARRAY_SIZE(type_names); i++)
		if (strcmp(type, type_names[i]) == 0)
			return i;
	return -1;
}

/* --- the calls --- */

long keys_add(struct task *t, const char *type, const char *desc, const void *payload, size_t plen,
	      int32_t ring)
{
	struct keys_table *tb = table_of(t->k);
	int ty = type_of(type);
	struct key *kr, *key = NULL;
	uint8_t *data = NULL;
	long ret;

	if (ty < 0)
		return -ENODEV;
	if (!desc || !*desc)
		return -EINVAL;
	if (ty == KT_KEYRING ? plen != 0 : plen == 0 || plen > KEY_USER_PAYLOAD_MAX)
		return -EINVAL;
	if (plen) {
		data = xmalloc(plen);
		memcpy(data, payload, plen);
	}
	pthread_mutex_lock(&tb->lock);
	ret = lookup_keyring(tb, t, ring, LOOKUP_CREATE, KP_WRITE, &kr);
	if (ret < 0)
		goto out;
	if (ty == KT_USER) {
		for (unsigned i = 0; i < kr->nlinks; i++) {
			struct key *o = kr->links[i];

			if (o->type == KT_USER && !o->revoked && !o->invalid &&
			    strcmp(o->desc, desc) == 0 && key_permission(tb, t, o, KP_WRITE) == 0) {
				ret = key_set_data(tb, o, data, plen);
				data = NULL;
				if (ret == 0)
					ret = o->serial;
				goto out;
			}
		}
	}
	ret = key_new(tb, ty, desc, t->creds.fsuid, t->creds.fsgid, POS(KP_ALL) | USR(KP_VIEW),
		      &key);
	if (ret < 0)
		goto out;
	if (data) {
		ret = key_set_data(tb, key, data, plen);
		data = NULL;
	}
	if (ret == 0)
		ret = kr_link(tb, kr, key);
	if (ret == 0)
		ret = key->serial;
	key_put(tb, key);
out:
	pthread_mutex_unlock(&tb->lock);
	free(data);
	return ret;
}

/* Search from the caller's keyrings (or from kr alone when kr is given). */
static long search_from(struct keys_table *tb, struct task *t, struct key *kr, int ty,
			const char *desc, struct key **out)
{
	struct key *own[3];
	unsigned n = kr ? 1 : own_keyrings(tb, t, own);
	struct search s = {.t = t, .type = ty, .desc = desc, .gen = ++tb->gen};

	if (kr)
		own[0] = kr;
	for (unsigned i = 0; i < n; i++) {
		bool pos = !kr || possessed(tb, t, own[i]);

		s.gen = ++tb->gen;
		own[i]->mark = s.gen;
		if (search_kr(&s, own[i], pos, 1)) {
			*out = s.found;
			return 0;
		}
	}
	return s.saw_revoked ? -EKEYREVOKED : -ENOKEY;
}

static long link_found(struct keys_table *tb, struct task *t, struct key *key, int64_t dest)
{
	struct key *d;
	long ret;

	if (!dest)
		return key->serial;
	ret = lookup_keyring(tb, t, dest, LOOKUP_CREATE, KP_WRITE, &d);
	if (ret == 0)
		ret = key_permission(tb, t, key, KP_LINK);
	if (ret == 0)
		ret = kr_link(tb, d, key);
	return ret < 0 ? ret : key->serial;
}

long keys_request(struct task *t, const char *type, const char *desc, int32_t dest)
{
	struct keys_table *tb = table_of(t->k);
	int ty = type_of(type);
	struct key *key = NULL;
	long ret;

	if (ty < 0)
		return -ENOKEY;
	if (!*desc)
		return -EINVAL;
	pthread_mutex_lock(&tb->lock);
	ret = search_from(tb, t, NULL, ty, desc, &key);
	if (ret == 0)
		ret = link_found(tb, t, key, dest);
	pthread_mutex_unlock(&tb->lock);
	return ret;
}

/* KEYCTL_JOIN_SESSION_KEYRING: name NULL is a new anonymous one. */
static long join_session(struct keys_table *tb, struct task *t, const char *name)
{
	struct key *kr = NULL, *key;
	long ret;

	if (name) {
		list_for_each_entry(key, &tb->all, node) {
			if (key->type == KT_KEYRING && !key->invalid && !key->revoked &&
			    strcmp(key->desc, name) == 0) {
				kr = key;
				break;
			}
		}
		if (kr) {
			ret = key_permission(tb, t, kr, KP_SEARCH);
			if (ret < 0)
				return ret;
			install(tb, &t->session_keyring, kr);
			return kr->serial;
		}
	}
	kr = new_keyring(tb, t, name ? name : "_ses", t->creds.fsuid, SESSION_PERM, &ret);
	if (!kr)
		return ret;
	install(tb, &t->session_keyring, kr);
	key_put(tb, kr);
	return kr->serial;
}

/* DESCRIBE's and READ's answers are made under the lock and copied out
 * after it (*out, *n bytes); the return value is the length Linux gives. */
static long describe(struct key *key, void **out, size_t *n)
{
	size_t cap = strlen(key->desc) + 64;
	char *s = xmalloc(cap);
	long len;

	len = snprintf(s, cap, "%s;%d;%d;%08x;%s", type_names[key->type], (int)key->uid,
		       (int)key->gid, key->perm, key->desc) +
	      1;
	*out = s;
	*n = (size_t)len;
	return len;
}

static long read_key(struct key *key, void **out, size_t *n)
{
	if (key->type == KT_KEYRING) {
		int32_t *ids = xmalloc((key->nlinks + 1) * sizeof(*ids));
		unsigned c = 0;

		for (unsigned i = 0; i < key->nlinks; i++)
			if (!key->links[i]->invalid)
				ids[c++] = key->links[i]->serial;
		*out = ids;
		*n = c * sizeof(*ids);
	} else {
		*out = xmalloc(key->len + 1);
		memcpy(*out, key->data, key->len);
		*n = key->len;
	}
	return (long)*n;
}

/* Invalidation takes the key out of every keyring at once. */
static void invalidate(struct keys_table *tb, struct key *key)
{
	struct key *kr, *n;

	key->invalid = true;
	key_get(key);
	list_for_each_entry_safe(kr, n, &tb->all, node) {
		int i;

		if (kr->type != KT_KEYRING)
			continue;
		key_get(kr);
		while ((i = kr_index(kr, key)) >= 0)
			kr_remove_at(tb, kr, (unsigned)i);
		/* Nothing is freed here (key is held): n stays valid. */
		key_put(tb, kr);
	}
	key_put(tb, key);
}

/* Copy a guest string of at most max bytes (NUL included). */
static long str_in(struct task *t, uint64_t addr, char *buf, size_t max)
{
	long n = mm_strncpy_in(t->mm, buf, addr, max);

	return n == -ENAMETOOLONG ? -EINVAL : n;
}

long keys_keyctl(struct task *t, int op, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct keys_table *tb = table_of(t->k);
	char type[KEY_TYPE_MAX], *desc = NULL;
	uint8_t *data = NULL;
	struct key *key = NULL, *kr = NULL;
	void *answer = NULL;
	size_t alen = 0;
	long ret;
	int ty = -1;

	/* Guest strings and payloads first, outside the table lock. */
	switch (op) {
	case KEYCTL_JOIN_SESSION_KEYRING:
		if (a2) {
			desc = xmalloc(KEY_DESC_MAX);
			ret = str_in(t, a2, desc, KEY_DESC_MAX);
			if (ret < 0)
				goto out_free;
			if (ret == 0) {
				ret = -EINVAL;
				goto out_free;
			}
		}
		break;
	case KEYCTL_SEARCH:
		ret = str_in(t, a3, type, sizeof(type));
		if (ret < 0)
			return ret;
		desc = xmalloc(KEY_DESC_MAX);
		ret = str_in(t, a4, desc, KEY_DESC_MAX);
		if (ret < 0)
			goto out_free;
		ty = type_of(type);
		break;
	case KEYCTL_UPDATE:
		if (a4 > KEY_PAYLOAD_MAX)
			return -EINVAL;
		if (a4) {
			data = xmalloc(a4);
			if (mm_copy_in(t->mm, data, a3, a4) < 0) {
				free(data);
				return -EFAULT;
			}
		}
		break;
	}

	pthread_mutex_lock(&tb->lock);
	switch (op) {
	case KEYCTL_GET_KEYRING_ID:
		ret = lookup(tb, t, (int32_t)a2, a3 ? LOOKUP_CREATE : 0, KP_SEARCH, &key);
		if (ret == 0)
			ret = key->serial;
		break;
	case KEYCTL_JOIN_SESSION_KEYRING:
		ret = join_session(tb, t, desc);
		break;
	case KEYCTL_UPDATE:
		ret = lookup(tb, t, (int32_t)a2, 0, KP_WRITE, &key);
		if (ret < 0)
			break;
		if (key->type != KT_USER) {
			ret = -EOPNOTSUPP;
		} else if (a4 == 0 || a4 > KEY_USER_PAYLOAD_MAX) {
			ret = -EINVAL;
		} else {
			ret = key_set_data(tb, key, data, a4);
			data = NULL;
		}
		break;
	case KEYCTL_REVOKE:
		ret = lookup(tb, t, (int32_t)a2, 0, 0, &key);
		if (ret == 0 && key_permission(tb, t, key, KP_WRITE) < 0)
			ret = key_permission(tb, t, key, KP_SETATTR);
		if (ret == 0) {
			key->revoked = true;
			if (key->type == KT_KEYRING)
				kr_clear(tb, key);
		}
		break;
	case KEYCTL_DESCRIBE:
		ret = lookup(tb, t, (int32_t)a2, 0, KP_VIEW, &key);
		if (ret == 0)
			ret = describe(key, &answer, &alen);
		break;
	case KEYCTL_CLEAR:
		ret = lookup_keyring(tb, t, (int32_t)a2, LOOKUP_CREATE, KP_WRITE, &kr);
		if (ret == 0)
			kr_clear(tb, kr);
		break;
	case KEYCTL_LINK:
		ret = lookup(tb, t, (int32_t)a2, 0, KP_LINK, &key);
		if (ret == 0)
			ret = lookup_keyring(tb, t, (int32_t)a3, LOOKUP_CREATE, KP_WRITE, &kr);
		if (ret == 0)
			ret = kr_link(tb, kr, key);
		break;
	case KEYCTL_UNLINK:
		ret = lookup_keyring(tb, t, (int32_t)a3, 0, KP_WRITE, &kr);
		if (ret == 0)
			ret = lookup(tb, t, (int32_t)a2, LOOKUP_PARTIAL | LOOKUP_NOPERM, 0, &key);
		if (ret == 0) {
			int i = kr_index(kr, key);

			if (i < 0)
				ret = -ENOENT;
			else
				kr_remove_at(tb, kr, (unsigned)i);
		}
		break;
	case KEYCTL_SEARCH:
		ret = lookup_keyring(tb, t, (int32_t)a2, 0, KP_SEARCH, &kr);
		if (ret < 0)
			break;
		if (ty < 0) {
			ret = -ENOKEY;
			break;
		}
		ret = search_from(tb, t, kr, ty, desc, &key);
		if (ret == 0)
			ret = link_found(tb, t, key, (int32_t)a5);
		break;
	case KEYCTL_READ:
		ret = lookup(tb, t, (int32_t)a2, 0, KP_READ, &key);
		if (ret == 0)
			ret = read_key(key, &answer, &alen);
		break;
	case KEYCTL_INVALIDATE:
		ret = lookup(tb, t, (int32_t)a2, 0, KP_SEARCH, &key);
		if (ret == 0)
			invalidate(tb, key);
		break;
	case KEYCTL_SETPERM:
		ret = lookup(tb, t, (int32_t)a2, LOOKUP_PARTIAL, 0, &key);
		if (ret < 0)
			break;
		if (a3 & ~(uint64_t)KEY_PERM_MASK)
			ret = -EINVAL;
		else if (key->uid != t->creds.fsuid && !creds_capable(&t->creds, KCAP_SYS_ADMIN))
			ret = -EACCES;
		else
			key->perm = (uint32_t)a3;
		break;
	default:
		ret = -EOPNOTSUPP;
		break;
	}
	pthread_mutex_unlock(&tb->lock);
	/* Copied only when the whole answer fits, as Linux. */
	if (answer && a3 && a4 >= alen && alen && mm_copy_out(t->mm, a3, answer, alen) < 0)
		ret = -EFAULT;
	free(answer);
out_free:
	free(desc);
	free(data);
	return ret;
}

/* --- keyrings across clone, exec, exit --- */

void keys_clone(struct task *t, struct task *c)
{
	struct keys_table *tb = t->k->keys;

	if (!tb || !t->session_keyring)
		return;
	pthread_mutex_lock(&tb->lock);
	c->session_keyring = key_get(t->session_keyring);
	pthread_mutex_unlock(&tb->lock);
}

void keys_exec(struct task *t)
{
	struct keys_table *tb = t->k->keys;

	if (!tb)
		return;
	pthread_mutex_lock(&tb->lock);
	install(tb, &t->thread_keyring, NULL);
	install(tb, &t->tg->process_keyring, NULL);
	pthread_mutex_unlock(&tb->lock);
}

void keys_task_exit(struct task *t)
{
	struct keys_table *tb = t->k->keys;

	if (!tb)
		return;
	pthread_mutex_lock(&tb->lock);
	install(tb, &t->thread_keyring, NULL);
	install(tb, &t->session_keyring, NULL);
	pthread_mutex_unlock(&tb->lock);
}

void keys_tg_exit(struct thread_group *tg)
{
	struct keys_table *tb = tg->k->keys;

	if (!tb)
		return;
	pthread_mutex_lock(&tb->lock);
	install(tb, &tg->process_keyring, NULL);
	pthread_mutex_unlock(&tb->lock);
}

void keys_destroy(struct kernel *k)
{
	struct keys_table *tb = k->keys;
	struct key *key, *n;
	struct key_user *u, *un;

	if (!tb)
		return;
	list_for_each_entry_safe(key, n, &tb->all, node) {
		free(key->desc);
		free(key->data);
		free(key->links);
		free(key);
	}
	list_for_each_entry_safe(u, un, &tb->users, node)
		free(u);
	pthread_mutex_destroy(&tb->lock);
	free(tb);
	k->keys = NULL;
}
