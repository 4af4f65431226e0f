/* System V semaphores (sem.h), as Linux's ipc/sem.c. */
#include "config.h"
#include "sentry/ipc/sem.h"
#include "sentry/ipc/ipc.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <time.h>

#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY 20
#endif
#define SEMVMX 32767
#define SEMAEM SEMVMX

/* x86-64's struct semid64_ds (glibc's struct semid_ds). */
struct semid64_ds_guest {
	struct ipc64_perm_guest perm;
	int64_t otime;
	uint64_t unused1;
	int64_t ctime;
	uint64_t unused2;
	uint64_t nsems, unused3, unused4;
};
_Static_assert(sizeof(struct semid64_ds_guest) == 104, "semid64_ds layout");

struct seminfo_guest {
	int32_t semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

struct sembuf_guest {
	uint16_t num;
	int16_t op, flg;
};

struct sem {
	uint16_t val;
	int32_t pid;	     /* the last process that changed it */
	unsigned ncnt, zcnt; /* tasks waiting for it to grow, to be zero */
};

struct sem_set {
	struct ipc_obj o;
	struct ipc_ns *ns;
	unsigned nsems;
	int64_t otime, ctime;
	struct sem *sems;
};

/* A process's SEM_UNDO adjustments on one set (Linux's struct sem_undo). */
struct sem_undo {
	struct list_head node; /* in ns->undos */
	int tgid;
	struct sem_set *set;
	int16_t adj[]; /* one per semaphore */
};

static void drop_undos(struct ipc_ns *ns, struct sem_set *s)
{
	struct sem_undo *u, *n;

	list_for_each_entry_safe(u, n, &ns->undos, node)
		if (u->set == s) {
			list_del(&u->node);
			free(u);
		}
}

static void set_free(struct ipc_obj *o)
{
	struct sem_set *s = (struct sem_set *)o;

	drop_undos(s->ns, s);
	s->ns->sem_count -= s->nsems;
	free(s->sems);
	free(s);
}

long sem_get(struct task *t, int32_t key, int nsems, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct ipc_obj *o;
	struct sem_set *s;
	long ret;

	if (nsems < 0 || (unsigned)nsems > ns->lim.semmsl)
		return -EINVAL;
	pthread_mutex_lock(&ns->lock);
	ret = ipc_get_key(ns, IPC_KIND_SEM, key, flags, &o);
	if (ret)
		goto out;
	if (o) {
		ret = (unsigned)nsems > ((struct sem_set *)o)->nsems
			      ? -EINVAL
			      : ipc_get_found(o, flags, &t->creds);
		goto out;
	}
	if (!nsems) {
		ret = -EINVAL;
		goto out;
	}
	if (ns->sem_count + (unsigned)nsems > ns->lim.semmns) {
		ret = -ENOSPC;
		goto out;
	}
	s = xzalloc(sizeof(*s));
	s->sems = xzalloc((size_t)nsems * sizeof(*s->sems));
	s->nsems = (unsigned)nsems;
	s->ns = ns;
	s->ctime = ipc_now();
	s->o.kind = IPC_KIND_SEM;
	s->o.key = key;
	s->o.mode = (uint16_t)(flags & 0777);
	s->o.free = set_free;
	ret = ipc_add(ns, &s->o, ns->lim.semmni, &t->creds);
	if (ret) {
		free(s->sems);
		free(s);
		goto out;
	}
	ns->sem_count += s->nsems;
	ret = s->o.id;
out:
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

/* --- semop -------------------------------------------------------------------------- */

static struct sem_undo *undo_of(struct ipc_ns *ns, struct sem_set *s, int tgid, bool make)
{
	struct sem_undo *u;

	list_for_each_entry(u, &ns->undos, node)
		if (u->set == s && u->tgid == tgid)
			return u;
	if (!make)
		return NULL;
	u = xzalloc(sizeof(*u) + s->nsems * sizeof(u->adj[0]));
	u->tgid = tgid;
	u->set = s;
	list_add(&u->node, &ns->undos);
	return u;
}

/*
 * Linux's perform_atomic_semop: all of ops or none. 0 when done; -EAGAIN
 * when one would wait (*blocker its index), -ERANGE past SEMVMX or SEMAEM.
 */
static int try_ops(struct sem_set *s, const struct sembuf_guest *ops, size_t n, struct sem_undo *u,
		   int tgid, size_t *blocker)
{
	for (size_t i = 0; i < n; i++) {
		const struct sembuf_guest *op = &ops[i];
		int val = s->sems[op->num].val, res = val + op->op;
		/* The values as the earlier ops of this call leave them. */
		for (size_t j = 0; j < i; j++)
			if (ops[j].num == op->num) {
				val += ops[j].op;
				res += ops[j].op;
			}
		if ((!op->op && val) || res < 0) {
			*blocker = i;
			return -EAGAIN;
		}
		if (res > SEMVMX)
			return -ERANGE;
		if ((op->flg & SEM_UNDO) && u) {
			int adj = u->adj[op->num];
			for (size_t j = 0; j <= i; j++)
				if (ops[j].num == op->num && (ops[j].flg & SEM_UNDO))
					adj -= ops[j].op;
			if (adj < -SEMAEM - 1 || adj > SEMAEM)
				return -ERANGE;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct sem *m = &s->sems[ops[i].num];
		m->val = (uint16_t)(m->val + ops[i].op);
		m->pid = tgid;
		if ((ops[i].flg & SEM_UNDO) && u)
			u->adj[ops[i].num] = (int16_t)(u->adj[ops[i].num] - ops[i].op);
	}
	s->otime = ipc_now();
	return 0;
}

static int read_timeout(struct task *t, uint64_t uts, uint64_t *deadline)
{
	struct timespec ts;

	*deadline = 0;
	if (!uts)
		return 0;
	if (mm_copy_in(t->mm, &ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -EINVAL;
	*deadline = monotonic_ns() + (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

long sem_timedop(struct task *t, int id, uint64_t usops, uint64_t nsops, uint64_t timeout)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct sembuf_guest *ops;
	unsigned maxnum = 0;
	bool undo = false, alter = false;
	uint64_t deadline;
	struct sem_set *s;
	long ret;

	if (nsops < 1 || id < 0)
		return -EINVAL;
	if (nsops > ns->lim.semopm)
		return -E2BIG;
	ops = xmalloc(nsops * sizeof(*ops));
	if (mm_copy_in(t->mm, ops, usops, nsops * sizeof(*ops))) {
		free(ops);
		return -EFAULT;
	}
	ret = read_timeout(t, timeout, &deadline);
	if (ret) {
		free(ops);
		return ret;
	}
	for (size_t i = 0; i < nsops; i++) {
		maxnum = MAX(maxnum, ops[i].num);
		undo |= (ops[i].flg & SEM_UNDO) != 0;
		alter |= ops[i].op != 0;
	}

	pthread_mutex_lock(&ns->lock);
	s = (struct sem_set *)ipc_find_id(ns, IPC_KIND_SEM, id);
	if (!s)
		ret = -EINVAL;
	else if (maxnum >= s->nsems)
		ret = -EFBIG;
	else if (!ipc_permitted(&s->o, &t->creds, alter ? IPC_W : IPC_R))
		ret = -EACCES;
	if (ret)
		goto out;
	ipc_get(&s->o);
	for (;;) {
		struct sem_undo *u = undo ? undo_of(ns, s, t->tgid, true) : NULL;
		struct waiter w = {0};
		struct sem *m;
		size_t b = 0;
		uint32_t snap;
		bool zero;

		if (s->o.removed) {
			ret = -EIDRM;
			break;
		}
		ret = try_ops(s, ops, nsops, u, t->tgid, &b);
		if (ret == 0 && alter)
			waitq_wake_all(&s->o.wq);
		if (ret != -EAGAIN || (ops[b].flg & IPC_NOWAIT))
			break;
		m = &s->sems[ops[b].num];
		zero = ops[b].op == 0;
		if (zero)
			m->zcnt++;
		else
			m->ncnt++;
		snap = waiter_prepare(&s->o.wq, &w, t);
		pthread_mutex_unlock(&ns->lock);
		ret = task_block(t, snap, deadline);
		pthread_mutex_lock(&ns->lock);
		waiter_finish(&s->o.wq, &w);
		if (zero)
			m->zcnt--;
		else
			m->ncnt--;
		if (s->o.removed) {
			ret = -EIDRM;
			break;
		}
		if (ret == -ETIMEDOUT) {
			ret = -EAGAIN;
			break;
		}
		if (ret == -EINTR)
			break;
	}
	ipc_put(&s->o);
out:
	pthread_mutex_unlock(&ns->lock);
	free(ops);
	return ret;
}

bool sem_has_undo(struct ipc_ns *ns, int tgid)
{
	struct sem_undo *u;
	bool found = false;

	pthread_mutex_lock(&ns->lock);
	list_for_each_entry(u, &ns->undos, node)
		if (u->tgid == tgid)
			found = true;
	pthread_mutex_unlock(&ns->lock);
	return found;
}

void sem_process_exit(struct ipc_ns *ns, int tgid)
{
	struct sem_undo *u, *n;

	pthread_mutex_lock(&ns->lock);
	list_for_each_entry_safe(u, n, &ns->undos, node) {
		struct sem_set *s = u->set;
		if (u->tgid != tgid)
			continue;
		for (unsigned i = 0; i < s->nsems; i++) {
			int v = s->sems[i].val + u->adj[i];
			if (!u->adj[i])
				continue;
			/* Linux clamps: an undo never takes a value below 0. */
			s->sems[i].val = (uint16_t)(v < 0 ? 0 : v > SEMVMX ? SEMVMX : v);
			s->sems[i].pid = tgid;
		}
		s->otime = ipc_now();
		waitq_wake_all(&s->o.wq);
		list_del(&u->node);
		free(u);
	}
	pthread_mutex_unlock(&ns->lock);
}

/* --- semctl -------------------------------------------------------------------------- */

static long ctl_info(struct task *t, struct ipc_ns *ns, int cmd, uint64_t arg)
{
	struct seminfo_guest i = {
		.semmap = (int32_t)ns->lim.semmns,
		.semmni = (int32_t)ns->lim.semmni,
		.semmns = (int32_t)ns->lim.semmns,
		.semmnu = (int32_t)ns->lim.semmns,
		.semmsl = (int32_t)ns->lim.semmsl,
		.semopm = (int32_t)ns->lim.semopm,
		.semume = (int32_t)ns->lim.semopm,
		.semusz = cmd == SEM_INFO ? (int32_t)ns->ids[IPC_KIND_SEM].in_use : 20,
		.semvmx = SEMVMX,
		.semaem = cmd == SEM_INFO ? (int32_t)ns->sem_count : SEMAEM,
	};

	return ipc_info_out(t, ns, IPC_KIND_SEM, arg, &i, sizeof(i));
}

/* SETVAL, SETALL: the new values hold; no undo applies to them any more. */
static void values_set(struct ipc_ns *ns, struct sem_set *s, int semnum, int tgid)
{
	struct sem_undo *u;

	list_for_each_entry(u, &ns->undos, node)
		if (u->set == s) {
			if (semnum < 0)
				memset(u->adj, 0, s->nsems * sizeof(u->adj[0]));
			else
				u->adj[semnum] = 0;
		}
	for (unsigned i = 0; i < s->nsems; i++)
		if (semnum < 0 || (unsigned)semnum == i)
			s->sems[i].pid = tgid;
	s->ctime = ipc_now();
	waitq_wake_all(&s->o.wq);
}

/* The commands on one set. Under ns->lock; vals: SETALL's values. */
static long ctl_set(struct task *t, struct sem_set *s, int semnum, int cmd, uint64_t arg,
		    const uint16_t *vals)
{
	struct ipc_ns *ns = s->ns;
	struct semid64_ds_guest ds;
	bool single =
		cmd == GETVAL || cmd == GETPID || cmd == GETNCNT || cmd == GETZCNT || cmd == SETVAL;
	int want = (cmd == SETVAL || cmd == SETALL) ? IPC_W : IPC_R;
	uint16_t *out;
	long ret;

	if (cmd == IPC_SET || cmd == IPC_RMID) {
		if (!ipc_may_own(&s->o, &t->creds))
			return -EPERM;
		if (cmd == IPC_RMID) {
			drop_undos(ns, s);
			ipc_remove(ns, &s->o);
			return 0;
		}
		if (mm_copy_in(t->mm, &ds, arg, sizeof(ds)))
			return -EFAULT;
		ipc_perm_set(&s->o, &ds.perm);
		s->ctime = ipc_now();
		return 0;
	}
	if (cmd != SEM_STAT_ANY && !ipc_permitted(&s->o, &t->creds, want))
		return -EACCES;
	if (single && (semnum < 0 || (unsigned)semnum >= s->nsems))
		return -EINVAL;
	switch (cmd) {
	case IPC_STAT:
	case SEM_STAT:
	case SEM_STAT_ANY:
		memset(&ds, 0, sizeof(ds));
		ipc_perm_out(&s->o, &ds.perm);
		ds.otime = s->otime;
		ds.ctime = s->ctime;
		ds.nsems = s->nsems;
		if (mm_copy_out(t->mm, arg, &ds, sizeof(ds)))
			return -EFAULT;
		return cmd == IPC_STAT ? 0 : s->o.id;
	case GETVAL:
		return s->sems[semnum].val;
	case GETPID:
		return s->sems[semnum].pid;
	case GETNCNT:
		return s->sems[semnum].ncnt;
	case GETZCNT:
		return s->sems[semnum].zcnt;
	case GETALL:
		out = xmalloc(s->nsems * sizeof(*out));
		for (unsigned i = 0; i < s->nsems; i++)
			out[i] = s->sems[i].val;
		ret = mm_copy_out(t->mm, arg, out, s->nsems * sizeof(*out)) ? -EFAULT : 0;
		free(out);
		return ret;
	case SETVAL: {
		int v = (int)(int32_t)arg;
		if (v < 0 || v > SEMVMX)
			return -ERANGE;
		s->sems[semnum].val = (uint16_t)v;
		values_set(ns, s, semnum, t->tgid);
		return 0;
	}
	case SETALL:
		for (unsigned i = 0; i < s->nsems; i++)
			if (vals[i] > SEMVMX)
				return -ERANGE;
		for (unsigned i = 0; i < s->nsems; i++)
			s->sems[i].val = vals[i];
		values_set(ns, s, -1, t->tgid);
		return 0;
	}
	return -EINVAL;
}

long sem_ctl(struct task *t, int id, int semnum, int cmd, uint64_t arg)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	uint16_t *vals = NULL;
	struct sem_set *s;
	long ret;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	pthread_mutex_lock(&ns->lock);
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		ret = ctl_info(t, ns, cmd, arg);
		goto out;
	case SEM_STAT:
	case SEM_STAT_ANY:
		s = (struct sem_set *)ipc_find_index(ns, IPC_KIND_SEM, id);
		break;
	case IPC_STAT:
	case IPC_SET:
	case IPC_RMID:
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
	case GETALL:
	case SETVAL:
	case SETALL:
		s = (struct sem_set *)ipc_find_id(ns, IPC_KIND_SEM, id);
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (!s) {
		ret = -EINVAL;
		goto out;
	}
	if (cmd == SETALL) {
		/* Copied with the lock held: the set's size cannot change. */
		vals = xmalloc(s->nsems * sizeof(*vals));
		if (mm_copy_in(t->mm, vals, arg, s->nsems * sizeof(*vals))) {
			ret = -EFAULT;
			goto out;
		}
	}
	ret = ctl_set(t, s, semnum, cmd, arg, vals);
out:
	pthread_mutex_unlock(&ns->lock);
	free(vals);
	return ret;
}

void sem_proc_show(struct ipc_ns *ns, struct strbuf *o)
{
	strbuf_printf(o,
		      "       key      semid perms      nsems   uid   gid  cuid  cgid      otime "
		      "     ctime\n");
	pthread_mutex_lock(&ns->lock);
	for (int i = 0; i <= ipc_max_index(ns, IPC_KIND_SEM); i++) {
		struct sem_set *s = (struct sem_set *)ipc_find_index(ns, IPC_KIND_SEM, i);
		if (s)
			strbuf_printf(o, "%10d %10d  %4o %10u %5u %5u %5u %5u %10lld %10lld\n",
				      s->o.key, s->o.id, s->o.mode, s->nsems, s->o.uid, s->o.gid,
				      s->o.cuid, s->o.cgid, (long long)s->otime,
				      (long long)s->ctime);
	}
	pthread_mutex_unlock(&ns->lock);
}
