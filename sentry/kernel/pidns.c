/* PID namespaces: numbers per level and their translation (see pidns.h). */
#include "config.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>

struct pid_ns *pidns_new(uint64_t ino, struct pid_ns *parent, struct user_ns *owner)
{
	struct pid_ns *ns = xzalloc(sizeof(*ns));

	ns->refs = 1;
	ns->ino = ino;
	if (owner)
		__atomic_add_fetch(&owner->refs, 1, __ATOMIC_RELAXED);
	ns->owner = owner;
	ns->parent = parent && parent->level ? pidns_get(parent) : NULL;
	ns->level = parent ? parent->level + 1 : 0;
	ns->next_nr = 1;
	return ns;
}

struct pid_ns *pidns_get(struct pid_ns *ns)
{
	if (ns)
		__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
	return ns;
}

void pidns_put(struct pid_ns *ns)
{
	while (ns && __atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct pid_ns *parent = ns->parent;
		user_ns_put(ns->owner);
		free(ns);
		ns = parent;
	}
}

int pidns_alloc_locked(struct pid_ns *ns, int **nrs)
{
	*nrs = NULL;
	if (!ns || ns->level == 0)
		return 0;
	for (struct pid_ns *p = ns; p && p->level; p = p->parent)
		if (p->dead || p->next_nr >= KERNEL_PID_MAX)
			return -ENOMEM;
	*nrs = xzalloc(ns->level * sizeof(int));
	for (struct pid_ns *p = ns; p && p->level; p = p->parent)
		(*nrs)[p->level - 1] = p->next_nr++;
	return 0;
}

bool pidns_within(const struct pid_ns *ns, const struct pid_ns *view)
{
	unsigned vl = pidns_level(view);

	if (vl == 0)
		return true;
	while (ns && ns->level > vl)
		ns = ns->parent;
	return ns == view;
}

int pidns_nr(const struct pid_ns *own, const int *nrs, int global, const struct pid_ns *view)
{
	unsigned vl = pidns_level(view);

	if (vl == 0)
		return global;
	if (!nrs || !pidns_within(own, view))
		return 0;
	return nrs[vl - 1];
}

int task_tid_nr(const struct task *t, const struct pid_ns *view)
{
	return pidns_nr(t->pidns, t->pid_nrs, t->tid, view);
}

int tg_pid_nr(const struct thread_group *tg, const struct pid_ns *view)
{
	return pidns_nr(tg->pidns, tg->pid_nrs, tg->tgid, view);
}

struct pid_ns *task_pidns(const struct task *t)
{
	return t->pidns;
}

int pidns_global_locked(struct kernel *k, const struct pid_ns *view, int nr)
{
	struct thread_group *tg;
	struct task *t;

	if (pidns_level(view) == 0)
		return nr;
	if (nr <= 0)
		return PID_NONE;
	/* A process (zombies too) first, then a thread by its tid. */
	list_for_each_entry(tg, &k->groups, knode)
		if (!(tg->flags & TG_REAPED) && tg_pid_nr(tg, view) == nr)
			return tg->tgid;
	list_for_each_entry(t, &k->tasks, knode)
		if (task_tid_nr(t, view) == nr)
			return t->tid;
	return PID_NONE;
}

int pidns_global(struct kernel *k, const struct pid_ns *view, int nr)
{
	int ret;

	if (pidns_level(view) == 0)
		return nr;
	pthread_mutex_lock(&k->lock);
	ret = pidns_global_locked(k, view, nr);
	pthread_mutex_unlock(&k->lock);
	return ret;
}

void pidns_init_exit_locked(struct kernel *k, struct thread_group *tg)
{
	struct pid_ns *ns = tg->pidns;
	struct thread_group *g;

	if (!ns || ns->init != tg)
		return;
	ns->init = NULL;
	ns->dead = true;
	list_for_each_entry(g, &k->groups, knode)
		if (g != tg && !(g->flags & (TG_REAPED | TG_ZOMBIE)) && pidns_within(g->pidns, ns))
			tg_start_exit_locked(g, SIGKILL);
}

struct thread_group *pidns_reaper_locked(const struct thread_group *tg)
{
	for (struct pid_ns *ns = tg->pidns; ns && ns->level; ns = ns->parent)
		if (ns->init && ns->init != tg)
			return ns->init;
	return NULL;
}

int pidns_view_locked(struct kernel *k, const struct pid_ns *view, int global)
{
	struct thread_group *tg;
	struct task *t;

	if (pidns_level(view) == 0)
		return global;
	tg = kernel_find_tg_locked(k, global, true);
	if (tg)
		return tg_pid_nr(tg, view);
	t = kernel_find_task_locked(k, global);
	return t ? task_tid_nr(t, view) : 0;
}

int pidns_view(struct kernel *k, const struct pid_ns *view, int global)
{
	int nr;

	if (pidns_level(view) == 0)
		return global;
	pthread_mutex_lock(&k->lock);
	nr = pidns_view_locked(k, view, global);
	pthread_mutex_unlock(&k->lock);
	return nr;
}

void ucred_view(struct task *t, const struct ucred *kc, struct ucred *out)
{
	out->pid = kc->pid > 0 ? pidns_view(t->k, t->pidns, kc->pid) : kc->pid;
	out->uid = kc->uid == (uid_t)-1 ? kc->uid : uid_out(t->creds.user_ns, kc->uid);
	out->gid = kc->gid == (gid_t)-1 ? kc->gid : gid_out(t->creds.user_ns, kc->gid);
}
