/* System V IPC: the namespace, ids and keys, permissions (ipc.h). */
#include "config.h"
#include "sentry/ipc/ipc.h"
#include "sentry/ipc/mqueue.h"
#include "sentry/ipc/sem.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/stat.h>

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

struct ipc_ns *ipc_ns_of(struct kernel *k)
{
	struct ipc_ns *ns;

	pthread_mutex_lock(&create_lock);
	if (!k->ipc) {
		ns = xzalloc(sizeof(*ns));
		pthread_mutex_init(&ns->lock, NULL);
		for (int i = 0; i < IPC_KINDS; i++)
			ns->ids[i].last_idx = -1;
		/* Linux's defaults (include/uapi/linux/{shm,sem,msg}.h). */
		ns->lim = (struct ipc_limits){
			.shmmax = UINT64_MAX - (1ull << 24),
			.shmall = UINT64_MAX - (1ull << 24),
			.shmmni = 4096,
			.semmsl = 32000,
			.semmns = 1024000000,
			.semopm = 500,
			.semmni = 32000,
			.msgmax = 8192,
			.msgmnb = 16384,
			.msgmni = 32000,
		};
		list_init(&ns->undos);
		__atomic_store_n(&k->ipc, ns, __ATOMIC_RELEASE);
	}
	ns = k->ipc;
	pthread_mutex_unlock(&create_lock);
	return ns;
}

void ipc_ns_free(struct ipc_ns *ns)
{
	if (!ns)
		return;
	for (int i = 0; i < IPC_KINDS; i++) {
		struct ipc_ids *ids = &ns->ids[i];
		for (unsigned j = 0; j < ids->cap; j++)
			if (ids->slots[j])
				ipc_remove(ns, ids->slots[j]);
		free(ids->slots);
	}
	mq_ns_free(ns->mq);
	pthread_mutex_destroy(&ns->lock);
	free(ns);
}

struct ipc_obj *ipc_find_key(struct ipc_ns *ns, enum ipc_kind kind, int32_t key)
{
	struct ipc_ids *ids = &ns->ids[kind];

	for (unsigned i = 0; i < ids->cap; i++)
		if (ids->slots[i] && ids->slots[i]->key == key)
			return ids->slots[i];
	return NULL;
}

struct ipc_obj *ipc_find_index(struct ipc_ns *ns, enum ipc_kind kind, int idx)
{
	struct ipc_ids *ids = &ns->ids[kind];

	if (idx < 0 || (unsigned)idx >= ids->cap)
		return NULL;
	return ids->slots[idx];
}

struct ipc_obj *ipc_find_id(struct ipc_ns *ns, enum ipc_kind kind, int id)
{
	struct ipc_obj *o;

	if (id < 0)
		return NULL;
	o = ipc_find_index(ns, kind, id & (IPC_MNI - 1));
	return o && o->seq == ((unsigned)id >> IPC_ID_SHIFT) ? o : NULL;
}

int ipc_max_index(struct ipc_ns *ns, enum ipc_kind kind)
{
	struct ipc_ids *ids = &ns->ids[kind];

	for (int i = (int)ids->cap - 1; i >= 0; i--)
		if (ids->slots[i])
			return i;
	return -1;
}

int ipc_add(struct ipc_ns *ns, struct ipc_obj *o, unsigned max, const struct creds *c)
{
	struct ipc_ids *ids = &ns->ids[o->kind];
	unsigned idx;

	unsigned end = MIN(MAX(ids->in_use * 3 / 2, IPC_MIN_CYCLE), IPC_MNI);

	if (ids->in_use >= max || ids->in_use >= IPC_MNI)
		return -ENOSPC;
	/* As Linux's ipc_idr_alloc: the first free index from the one after
	 * the last given, round within [0, end); the sequence number moves on
	 * when the index is at or below the last one. */
	idx = ids->next < end ? ids->next : 0;
	for (unsigned i = 0; i < end && idx < ids->cap && ids->slots[idx]; i++)
		idx = idx + 1 < end ? idx + 1 : 0;
	if (idx < ids->cap && ids->slots[idx])
		return -ENOSPC;
	if (idx >= ids->cap) {
		unsigned cap = MAX(ids->cap ? ids->cap * 2 : 16, idx + 1);
		ids->slots = xrealloc(ids->slots, cap * sizeof(*ids->slots));
		memset(ids->slots + ids->cap, 0, (cap - ids->cap) * sizeof(*ids->slots));
		ids->cap = cap;
	}
	if ((int)idx <= ids->last_idx && ++ids->seq >= (1u << (31 - IPC_ID_SHIFT)))
		ids->seq = 0;
	ids->last_idx = (int)idx;
	ids->next = idx + 1;
	o->seq = ids->seq;
	o->id = (int)(o->seq << IPC_ID_SHIFT | idx);
	o->uid = o->cuid = c->euid;
	o->gid = o->cgid = c->egid;
	o->refs = 1;
	o->removed = false;
	waitq_init(&o->wq);
	ids->slots[idx] = o;
	ids->in_use++;
	return 0;
}

void ipc_remove(struct ipc_ns *ns, struct ipc_obj *o)
{
	struct ipc_ids *ids = &ns->ids[o->kind];
	unsigned idx = (unsigned)o->id & (IPC_MNI - 1);

	if (o->removed)
		return;
	o->removed = true;
	if (idx < ids->cap && ids->slots[idx] == o) {
		ids->slots[idx] = NULL;
		ids->in_use--;
	}
	waitq_wake_all(&o->wq);
	ipc_put(o);
}

void ipc_get(struct ipc_obj *o)
{
	o->refs++;
}

void ipc_put(struct ipc_obj *o)
{
	if (--o->refs == 0)
		o->free(o);
}

bool ipc_permitted(const struct ipc_obj *o, const struct creds *c, int flag)
{
	int want = (flag >> 6) | (flag >> 3) | flag, granted = o->mode;

	if (c->euid == o->cuid || c->euid == o->uid)
		granted >>= 6;
	else if (creds_in_group(c, o->cgid) || creds_in_group(c, o->gid))
		granted >>= 3;
	return !(want & ~granted & 07) || creds_capable(c, KCAP_IPC_OWNER);
}

bool ipc_may_own(const struct ipc_obj *o, const struct creds *c)
{
	return c->euid == o->cuid || c->euid == o->uid || creds_capable(c, KCAP_SYS_ADMIN);
}

int ipc_get_key(struct ipc_ns *ns, enum ipc_kind kind, int32_t key, int flags,
		struct ipc_obj **found)
{
	struct ipc_obj *o = key == IPC_PRIVATE ? NULL : ipc_find_key(ns, kind, key);

	*found = NULL;
	if (!o)
		return key == IPC_PRIVATE || (flags & IPC_CREAT) ? 0 : -ENOENT;
	if ((flags & (IPC_CREAT | IPC_EXCL)) == (IPC_CREAT | IPC_EXCL))
		return -EEXIST;
	*found = o;
	return 0;
}

int ipc_get_found(const struct ipc_obj *o, int flags, const struct creds *c)
{
	return ipc_permitted(o, c, flags & 0777) ? o->id : -EACCES;
}

long ipc_info_out(struct task *t, struct ipc_ns *ns, enum ipc_kind kind, uint64_t buf,
		  const void *info, size_t len)
{
	int max = ipc_max_index(ns, kind);

	if (mm_copy_out(t->mm, buf, info, len))
		return -EFAULT;
	return max < 0 ? 0 : max;
}

void ipc_perm_out(const struct ipc_obj *o, struct ipc64_perm_guest *p)
{
	memset(p, 0, sizeof(*p));
	p->key = o->key;
	p->uid = o->uid;
	p->gid = o->gid;
	p->cuid = o->cuid;
	p->cgid = o->cgid;
	p->mode = o->mode;
	p->seq = (uint16_t)o->seq;
}

void ipc_perm_set(struct ipc_obj *o, const struct ipc64_perm_guest *p)
{
	o->uid = p->uid;
	o->gid = p->gid;
	o->mode = (uint16_t)((o->mode & ~0777) | (p->mode & 0777));
}

void ipc_process_exit(struct kernel *k, int tgid)
{
	struct ipc_ns *ns = __atomic_load_n(&k->ipc, __ATOMIC_ACQUIRE);

	if (ns)
		sem_process_exit(ns, tgid);
}
