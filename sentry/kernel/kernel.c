/* The sandbox's kernel object: creation, the init task, and the end. */
#include "config.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/process.h"
#include "sentry/mm/memfile.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hosttty.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/fs/hostinfo.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kernel_create(const struct kernel_config *cfg, struct kernel **out, struct rung_error *err)
{
	struct kernel *k = xzalloc(sizeof(*k));
	cpu_set_t set;
	int ret;

	k->cfg = *cfg;
	list_init(&k->tasks);
	list_init(&k->groups);
	k->task_limit = cfg->task_limit ? cfg->task_limit : KERNEL_DEFAULT_TASK_LIMIT;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	k->next_tid = 1;
	k->boot_ns = monotonic_ns();
	hostinfo_capture();
	k->ncpus = 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		k->ncpus = (unsigned)CPU_COUNT(&set);

	ret = memfile_create(MEMFILE_DEFAULT_CAPACITY, &k->mf, err);
	if (ret < 0)
		goto fail;
	ret = cfg->platform->probe(err);
	if (ret < 0)
		goto fail;
	ret = cfg->platform->create(k->mf, &k->plat, err);
	if (ret < 0)
		goto fail;
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

/* Find or create (as root) the directory name under p; *out is referenced. */
static int mkdir_one(struct path *p, const char *name, struct dentry **out)
{
	struct inode *dir = p->dentry->inode, *inode = NULL;
	struct dentry *d;
	struct creds root;
	int ret;

	creds_init(&root, 0, 0);
	pthread_mutex_lock(&dir->dir_lock);
	ret = vfs_lookup_child_locked(p, name, &d);
	if (ret == 0 && !d->inode) {
		ret = dir->ops->mkdir ? dir->ops->mkdir(dir, name, S_IFDIR | 0755, &root, &inode)
				      : -EROFS;
		dentry_put(d);
		d = NULL;
		if (ret == 0) {
			d = dentry_add(p->dentry, name, inode);
			inode_put(inode);
		}
	}
	pthread_mutex_unlock(&dir->dir_lock);
	if (ret == 0)
		*out = d;
	return ret;
}

int kernel_mount(struct kernel *k, const char *path, struct super_block *sb, unsigned flags,
		 const char *source, struct rung_error *err)
{
	struct path p = k->root;
	char *copy = xstrdup(path), *save = NULL, *name;
	int ret = 0;

	path_get(&p);
	for (name = strtok_r(copy, "/", &save); name && ret == 0;
	     name = strtok_r(NULL, "/", &save)) {
		struct dentry *d;
		struct mount *m;
		ret = mkdir_one(&p, name, &d);
		if (ret)
			break;
		dentry_put(p.dentry);
		p.dentry = d;
		/* Step onto whatever is already mounted there. */
		while (p.dentry->nmounts && (m = mount_lookup(p.mnt, p.dentry))) {
			path_put(&p);
			p.mnt = m;
			p.dentry = dentry_get(m->root);
		}
	}
	if (ret == 0)
		ret = mount_attach(k->mntns, &p, sb, flags, source);
	path_put(&p);
	free(copy);
	if (ret < 0)
		return rung_error_make(err, -ret, "mount %s on `%s`", sb->fstype, path);
	return 0;
}

void kernel_destroy(struct kernel *k)
{
	struct thread_group *tg, *n;

	if (!k)
		return;
	/* Zombies nobody reaped, and init's group. */
	list_for_each_entry_safe(tg, n, &k->groups, knode) {
		list_del_init(&tg->knode);
		tg_put(tg);
	}
	tg_put(k->init_tg);
	path_put(&k->root);
	if (k->plat)
		k->plat->ops->destroy(k->plat);
	memfile_destroy(k->mf);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	free(k);
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

/* Wrap host fds 0, 1 and 2 (those the caller gave) as the init task's
 * stdio (the host terminal as a terminal of the guest's). */
static int import_stdio(struct kernel *k, struct task *t, struct rung_error *err)
{
	for (int fd = 0; fd < 3; fd++) {
		struct file *f;
		int dup;
		if (!k->cfg.stdio[fd] || fcntl(fd, F_GETFD) < 0)
			continue;
		dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (dup < 0)
			return rung_error_make(err, errno, "duplicate host fd %d", fd);
		f = hosttty_stdio_file(t, dup);
		fd_install_at(t->files, f, fd, false, 3);
		file_put(f);
	}
	return 0;
}

int kernel_start_init(struct kernel *k, const char *path, char *const argv[], char *const envp[],
		      struct rung_error *err)
{
	struct task *t = task_alloc(k);
	struct thread_group *tg = xzalloc(sizeof(*tg));
	int ret;

	/* pid 1, whose process group and session come from outside the pid
	 * namespace (0 seen from inside, as in a container). References: the
	 * kernel's list and the task. */
	tg->refs = 2;
	tg->k = k;
	tg->tgid = 1;
	tg->leader = t;
	tg->exit_signal = SIGCHLD;
	tg->start_ns = t->start_ns;
	list_init(&tg->threads);
	list_init(&tg->children);
	list_init(&tg->sibling);
	sigpending_init(&tg->shared);
	waitq_init(&tg->child_wait);
	for (int r = 0; r < RLIM_NLIMITS; r++)
		getrlimit(r, &tg->rlim[r]);
	t->tid = t->tgid = 1;
	t->tg = tg;
	t->sighand = xzalloc(sizeof(*t->sighand));
	t->sighand->refs = 1;
	creds_init(&t->creds, (uint32_t)getuid(), (uint32_t)getgid());
	t->fs = fs_struct_new(&k->root, &k->root);
	t->files = fdtable_new();
	/* The working directory the caller asked for, when the guest has it. */
	if (k->cfg.cwd) {
		struct path p;
		if (vfs_lookup(t, AT_FDCWD, k->cfg.cwd, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p) ==
		    0) {
			fs_set_cwd(t->fs, &p);
			path_put(&p);
		}
	}
	ret = import_stdio(k, t, err);
	if (ret < 0) {
		fdtable_put(t->files);
		fs_struct_put(t->fs);
		sighand_put(t->sighand);
		t->files = NULL;
		t->fs = NULL;
		t->sighand = NULL;
		tg_put(tg);
		task_put(t); /* drops the task's reference on tg */
		return -1;
	}
	t->init_path = xstrdup(path);
	t->init_argv = strv_dup(argv);
	t->init_envp = strv_dup(envp);

	pthread_mutex_lock(&k->lock);
	k->init = t;
	k->init_tg = tg_get(tg);
	k->next_tid = 2;
	list_add_tail(&tg->knode, &k->groups);
	list_add_tail(&t->tg_node, &tg->threads);
	tg->nr_threads = 1;
	k->live_tasks++;
	list_add_tail(&t->knode, &k->tasks);
	pthread_mutex_unlock(&k->lock);
	hosttty_attach_init(tg);

	ret = task_start(t);
	if (ret < 0)
		return rung_error_make(err, -ret, "start the init task thread");
	return 0;
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

struct task *kernel_find_task(struct kernel *k, int tid)
{
	struct task *t, *found = NULL;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(t, &k->tasks, knode)
		if (t->tid == tid) {
			found = task_get(t);
			break;
		}
	pthread_mutex_unlock(&k->lock);
	return found;
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
