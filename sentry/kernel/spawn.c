/* Guest processes started from outside the sandbox: pid 1 and `exec`. */
#include "config.h"
#include "sentry/kernel/spawn.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/oom.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hosttty.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Who waits for the first exec of a spawned task (task_main reports it). */
struct spawn_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int ret;
};

void spawn_report(struct spawn_wait *sw, int ret)
{
	pthread_mutex_lock(&sw->lock);
	sw->done = true;
	sw->ret = ret;
	pthread_cond_broadcast(&sw->cond);
	pthread_mutex_unlock(&sw->lock);
}

static char **strv_dup(char *const v[])
{
	size_t n = 0;
	char **copy;

	while (v && v[n])
		n++;
	copy = xzalloc((n + 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	return copy;
}

/* Make (as root) each missing directory of the absolute guest path. */
static int mkdir_p(struct task *t, const char *path)
{
	char *copy = xstrdup(path);
	int ret = 0;

	for (char *p = copy + 1; ret == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (*copy) {
			ret = vfs_mkdir(t, AT_FDCWD, copy, 0755);
			if (ret == -EEXIST)
				ret = 0;
		}
		*p = c;
		if (!c)
			break;
	}
	free(copy);
	return ret;
}

/* The guest's working directory: p->cwd, made if asked, else "/". */
static int set_cwd(struct task *t, const struct kernel_process *p, struct rung_error *err)
{
	struct path where;
	int ret;

	if (!p->cwd)
		return 0;
	ret = vfs_lookup(t, AT_FDCWD, p->cwd, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &where);
	if (ret == -ENOENT && p->cwd_create) {
		ret = mkdir_p(t, p->cwd);
		if (ret == 0)
			ret = vfs_lookup(t, AT_FDCWD, p->cwd, LOOKUP_FOLLOW | LOOKUP_DIRECTORY,
					 &where);
	}
	if (ret < 0) {
		if (!p->cwd_create)
			return 0; /* rung do: the caller's directory is not in the guest */
		return rung_error_make(err, -ret, "chdir to cwd (\"%s\") set in config.json failed",
				       p->cwd);
	}
	fs_set_cwd(t->fs, &where);
	path_put(&where);
	return 0;
}

/* The host fds the caller gave, as the guest's fds 0, 1, 2 (the host
 * terminal as a terminal of the guest's). */
static int import_stdio(struct task *t, const struct kernel_process *p, struct rung_error *err)
{
	for (int fd = 0; fd < 3; fd++) {
		struct file *f;
		int dup;
		if (p->stdio[fd] < 0)
			continue;
		dup = fcntl(p->stdio[fd], F_DUPFD_CLOEXEC, 3);
		if (dup < 0)
			return rung_error_make(err, errno, "duplicate host fd %d", p->stdio[fd]);
		f = hosttty_stdio_file(t, dup);
		fd_install_at(t->files, f, fd, false, 3);
		file_put(f);
	}
	return 0;
}

/* The caller's further host fds, as the guest's fds 3, 4, ... */
static int import_extra_fds(struct task *t, const struct kernel_process *p, struct rung_error *err)
{
	for (size_t i = 0; i < p->nextra; i++) {
		int dup = fcntl(p->extra_fds[i], F_DUPFD_CLOEXEC, 3);
		struct file *f;
		if (dup < 0)
			return rung_error_make(err, errno, "duplicate host fd %d", p->extra_fds[i]);
		f = hostfile_new(dup);
		fd_install_at(t->files, f, 3 + (int)i, false, 4 + (unsigned)i);
		file_put(f);
	}
	return 0;
}

/* A task for p, not in any list yet; its thread group is the caller's. */
static int build_task(struct kernel *k, const struct kernel_process *p, struct task **out,
		      struct rung_error *err)
{
	struct task *t = task_alloc(k);
	int ret;

	if (p->caller_creds) {
		creds_init_host(&t->creds);
	} else {
		creds_init(&t->creds, p->uid, p->gid);
		creds_install_groups(&t->creds, p->groups,
				     (uint32_t)MIN(p->ngroups, (size_t)CREDS_MAX_GROUPS));
		if (p->has_caps) {
			t->creds.cap_bounding = p->cap_bounding & CAP_ALL_MASK;
			t->creds.cap_effective = p->cap_effective & CAP_ALL_MASK;
			t->creds.cap_permitted = p->cap_permitted & CAP_ALL_MASK;
			t->creds.cap_inheritable = p->cap_inheritable & CAP_ALL_MASK;
			t->creds.cap_ambient = p->cap_ambient & CAP_ALL_MASK;
		}
	}
	t->no_new_privs = p->no_new_privs;
	seccomp_task_init(t, p->seccomp);
	t->sighand = xzalloc(sizeof(*t->sighand));
	t->sighand->refs = 1;
	t->fs = fs_struct_new(&k->root, &k->root);
	if (p->has_umask)
		t->fs->umask = (uint32_t)p->umask & 0777;
	t->files = fdtable_new();
	t->init_path = xstrdup(p->path ? p->path : p->argv[0]);
	t->init_argv = strv_dup(p->argv);
	t->init_envp = strv_dup(p->envp);
	ret = set_cwd(t, p, err);
	if (ret == 0)
		ret = import_stdio(t, p, err);
	if (ret == 0)
		ret = import_extra_fds(t, p, err);
	if (ret < 0) {
		task_free_unstarted(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* A process's thread group: limits from the host, then the caller's. */
static struct thread_group *build_tg(struct kernel *k, struct task *t, int tgid,
				     const struct kernel_process *p)
{
	struct thread_group *tg = tg_get(tg_alloc(k, tgid, NULL)); /* the kernel's and the task's */

	tg->leader = t;
	tg->exit_signal = SIGCHLD;
	tg->start_ns = t->start_ns;
	tg->on_exit = p->on_exit;
	tg->exit_arg = p->exit_arg;
	for (int r = 0; r < RLIM_NLIMITS; r++)
		getrlimit(r, &tg->rlim[r]);
	for (size_t i = 0; i < p->nrlimits; i++)
		if (p->rlimits[i].resource >= 0 && p->rlimits[i].resource < RLIM_NLIMITS) {
			tg->rlim[p->rlimits[i].resource].rlim_cur = p->rlimits[i].soft;
			tg->rlim[p->rlimits[i].resource].rlim_max = p->rlimits[i].hard;
		}
	if (p->new_session)
		tg->pgid = tg->sid = tgid;
	t->tid = t->tgid = tgid;
	t->tg = tg;
	return tg;
}

/* Link t and tg into the kernel (as init when init). Under no lock. */
static void link_process(struct kernel *k, struct task *t, struct thread_group *tg, bool init)
{
	if (init) {
		k->init = t;
		k->init_tg = tg_get(tg);
	}
	list_add_tail(&tg->knode, &k->groups);
	list_add_tail(&t->tg_node, &tg->threads);
	tg->nr_threads = 1;
	k->live_tasks++;
	list_add_tail(&t->knode, &k->tasks);
}

int kernel_start_init(struct kernel *k, const struct kernel_process *p, struct rung_error *err)
{
	struct thread_group *tg;
	struct task *t;
	int ret = build_task(k, p, &t, err);

	if (ret < 0)
		return ret;
	tg = build_tg(k, t, 1, p);
	pthread_mutex_lock(&k->lock);
	link_process(k, t, tg, true);
	k->next_tid = 2;
	/* A host signal ended the sandbox before its init was there. */
	if (k->exiting)
		tg_start_exit_locked(tg, k->exit_status > 128 ? k->exit_status - 128 : SIGKILL);
	pthread_mutex_unlock(&k->lock);
	hosttty_attach_init(tg);
	oom_start(k);
	ret = task_start(t);
	if (ret < 0)
		return rung_error_make(err, -ret, "start the init task thread");
	return 0;
}

/* runc's words for a program that cannot start (Docker turns "not found"
 * into 127 and "permission denied" into 126). */
static int exec_error(struct rung_error *err, int ret, const char *name)
{
	if (ret == -ENOENT && !strchr(name, '/'))
		return rung_error_make(err, 0, "exec: \"%s\": executable file not found in $PATH",
				       name);
	if (ret == -ENOENT)
		return rung_error_make(err, ENOENT,
				       "exec: \"%s\": stat %s: no such file or directory", name,
				       name);
	if (ret == -EACCES)
		return rung_error_make(err, 0, "exec: \"%s\": permission denied", name);
	return rung_error_make(err, -ret, "exec: \"%s\"", name);
}

int kernel_spawn(struct kernel *k, const struct kernel_process *p, int *pid, struct rung_error *err)
{
	struct spawn_wait sw = {.lock = PTHREAD_MUTEX_INITIALIZER,
				.cond = PTHREAD_COND_INITIALIZER};
	struct thread_group *tg;
	struct task *t;
	int ret = build_task(k, p, &t, err), id;

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&k->lock);
	id = k->exiting ? -ESRCH : kernel_alloc_id_locked(k);
	if (id < 0) {
		pthread_mutex_unlock(&k->lock);
		task_free_unstarted(t);
		return rung_error_make(err, -id, "no process id for the new process");
	}
	tg = build_tg(k, t, id, p);
	t->spawn = &sw;
	link_process(k, t, tg, false);
	pthread_mutex_unlock(&k->lock);
	ret = task_start(t);
	if (ret < 0)
		return rung_error_make(err, -ret, "start the new process's thread");
	/* The task reports its first exec; on failure it dies by itself. */
	pthread_mutex_lock(&sw.lock);
	while (!sw.done)
		pthread_cond_wait(&sw.cond, &sw.lock);
	pthread_mutex_unlock(&sw.lock);
	if (sw.ret < 0)
		return exec_error(err, sw.ret, p->path ? p->path : p->argv[0]);
	*pid = id;
	return 0;
}

int kernel_check_program(struct kernel *k, const struct kernel_process *p, struct rung_error *err)
{
	const char *name = p->path ? p->path : p->argv[0];
	struct task *t;
	int ret = build_task(k, p, &t, err);

	if (ret < 0)
		return ret;
	/* A task that never runs: only its credentials and filesystem matter. */
	t->tg = NULL;
	ret = task_find_program(t, name, p->envp);
	task_free_unstarted(t);
	return ret < 0 ? exec_error(err, ret, name) : 0;
}
