/* The sandbox's kernel object: creation, the init task, and the end. */
#include "config.h"
#include "sentry/kernel/kernel.h"
#include "sentry/ipc/ipc.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/ktimer.h"
#include "sentry/kernel/timers.h"
#include "sentry/kernel/oom.h"
#include "sentry/mm/memfile.h"
#include "sentry/fs/file.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/hostinfo.h"
#include "sentry/net/unix.h"
#include "sentry/net/net.h"
#include "sentry/loader/vdso.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kernel_create(const struct kernel_config *cfg, struct kernel **out, struct rung_error *err)
{
	struct kernel *k = xzalloc(sizeof(*k));
	cpu_set_t set;
	int ret;

	k->cfg = *cfg;
	snprintf(k->hostname, sizeof(k->hostname), "rung");
	snprintf(k->domainname, sizeof(k->domainname), "(none)");
	sysctl_init(&k->net_sysctl);
	list_init(&k->tasks);
	list_init(&k->groups);
	list_init(&k->sig_ucounts);
	k->task_limit = cfg->task_limit ? cfg->task_limit : KERNEL_DEFAULT_TASK_LIMIT;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	k->next_tid = 1;
	k->boot_ns = monotonic_ns();
	hostinfo_capture();
	creds_capture_host(); /* the guest starts with the caller's credentials */
	k->ncpus = 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		k->ncpus = (unsigned)CPU_COUNT(&set);

	ret = memfile_create(MEMFILE_DEFAULT_CAPACITY, &k->mf, err);
	if (ret < 0)
		goto fail;
	memacct_set_limit(&k->mf->acct, cfg->memory_limit);
	ret = cfg->platform->probe(err);
	if (ret < 0)
		goto fail;
	ret = cfg->platform->create(k->mf, &k->plat, err);
	if (ret < 0)
		goto fail;
	ret = vdso_create(k->mf, k->ncpus, &k->vdso);
	if (ret < 0) {
		rung_error_make(err, -ret, "set up the vDSO");
		goto fail;
	}
	*out = k;
	return 0;
fail:
	kernel_destroy(k);
	return ret;
}

void kernel_set_root(struct kernel *k, struct super_block *sb, unsigned flags, const char *source)
{
	k->mntns = mntns_new(sb, flags, source);
	k->root.mnt = mount_get(k->mntns->root);
	k->root.dentry = dentry_get(k->mntns->root->root);
}

void kernel_destroy(struct kernel *k)
{
	struct thread_group *tg, *n;

	if (!k)
		return;
	oom_stop(k);
	ktimer_base_destroy(k);
	timers_kernel_destroy(k);
	/* Zombies nobody reaped, and init's group. */
	list_for_each_entry_safe(tg, n, &k->groups, knode) {
		list_del_init(&tg->knode);
		tg_put(tg);
	}
	tg_put(k->init_tg);
	path_put(&k->root);
	unix_net_free(k->unix_net);
	ipc_ns_free(k->ipc);
	keys_destroy(k);
	net_teardown(k);
	if (k->plat)
		k->plat->ops->destroy(k->plat);
	vdso_destroy(k->vdso);
	memfile_destroy(k->mf);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	free(k);
}

void kernel_set_hostname(struct kernel *k, const char *name)
{
	pthread_mutex_lock(&k->lock);
	snprintf(k->hostname, sizeof(k->hostname), "%s", name);
	pthread_mutex_unlock(&k->lock);
}

void kernel_set_memory_limit(struct kernel *k, uint64_t bytes)
{
	if (!bytes)
		bytes = host_ram_bytes();
	pthread_mutex_lock(&k->lock);
	k->cfg.memory_limit = bytes;
	memacct_set_limit(&k->mf->acct, bytes);
	pthread_mutex_unlock(&k->lock);
	oom_start(k);
}

void kernel_set_task_limit(struct kernel *k, unsigned limit)
{
	pthread_mutex_lock(&k->lock);
	k->task_limit = limit ? limit : KERNEL_DEFAULT_TASK_LIMIT;
	pthread_mutex_unlock(&k->lock);
}

int kernel_wait(struct kernel *k)
{
	int status;

	pthread_mutex_lock(&k->lock);
	while (!k->done)
		pthread_cond_wait(&k->cond, &k->lock);
	status = k->exit_status;
	pthread_mutex_unlock(&k->lock);
	return status;
}

void kernel_thread_done(struct kernel *k)
{
	if (__atomic_sub_fetch(&k->live_threads, 1, __ATOMIC_SEQ_CST) != 0)
		return;
	pthread_mutex_lock(&k->lock);
	k->done = true;
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
}

void kernel_kill(struct kernel *k, int sig)
{
	struct thread_group *tg;

	pthread_mutex_lock(&k->lock);
	if (!k->exiting) {
		k->exiting = true;
		k->exit_status = 128 + sig;
	}
	list_for_each_entry(tg, &k->groups, knode)
		tg_start_exit_locked(tg, sig);
	pthread_mutex_unlock(&k->lock);
}

struct task *kernel_find_task_locked(struct kernel *k, int tid)
{
	struct task *t;

	list_for_each_entry(t, &k->tasks, knode)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct task *kernel_find_task(struct kernel *k, int tid)
{
	struct task *found;

	pthread_mutex_lock(&k->lock);
	found = kernel_find_task_locked(k, tid);
	if (found)
		task_get(found);
	pthread_mutex_unlock(&k->lock);
	return found;
}

struct task *kernel_find_process(struct kernel *k, int tgid)
{
	struct thread_group *tg;
	struct task *t = NULL;

	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, tgid, false);
	if (tg) {
		t = tg->leader && !tg->leader->exited
			    ? tg->leader
			    : list_first_entry_or_null(&tg->threads, struct task, tg_node);
		if (t)
			task_get(t);
	}
	pthread_mutex_unlock(&k->lock);
	return t;
}

static void push_id(int **ids, size_t *n, size_t *cap, int id)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		*ids = xrealloc(*ids, *cap * sizeof(**ids));
	}
	(*ids)[(*n)++] = id;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void kernel_process_ids(struct kernel *k, int **ids, size_t *n)
{
	struct thread_group *tg;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	pthread_mutex_lock(&k->lock);
	list_for_each_entry(tg, &k->groups, knode)
		if (tg->nr_threads > 0 || (tg->flags & (TG_ZOMBIE | TG_REAPED)) == TG_ZOMBIE)
			push_id(ids, n, &cap, tg->tgid);
	pthread_mutex_unlock(&k->lock);
	qsort(*ids, *n, sizeof(int), cmp_int);
}

void kernel_thread_ids(struct kernel *k, int tgid, int **ids, size_t *n)
{
	struct thread_group *tg;
	struct task *t;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, tgid, false);
	if (tg)
		list_for_each_entry(t, &tg->threads, tg_node)
			push_id(ids, n, &cap, t->tid);
	pthread_mutex_unlock(&k->lock);
	qsort(*ids, *n, sizeof(int), cmp_int);
}

void kernel_child_ids(struct kernel *k, int tgid, int **ids, size_t *n)
{
	struct thread_group *tg, *c;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, tgid, false);
	if (tg)
		list_for_each_entry(c, &tg->children, sibling)
			push_id(ids, n, &cap, c->tgid);
	pthread_mutex_unlock(&k->lock);
	qsort(*ids, *n, sizeof(int), cmp_int);
}

void kernel_for_each_task(struct kernel *k, void (*fn)(struct task *t, void *arg), void *arg)
{
	struct task *t;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(t, &k->tasks, knode)
		fn(t, arg);
	pthread_mutex_unlock(&k->lock);
}

bool kernel_note_unsupported(struct kernel *k, unsigned nr)
{
	uint64_t bit, old;

	if (nr >= 64 * ARRAY_SIZE(k->unsupported_seen))
		nr = 64 * ARRAY_SIZE(k->unsupported_seen) - 1;
	bit = 1ull << (nr % 64);
	old = __atomic_fetch_or(&k->unsupported_seen[nr / 64], bit, __ATOMIC_RELAXED);
	return !(old & bit);
}
