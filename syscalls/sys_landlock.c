/*
 * landlock_create_ruleset, landlock_add_rule, landlock_restrict_self with
 * Linux 6.1's checks and errors (security/landlock/syscalls.c, ABI 2: no
 * network rules, no LANDLOCK_ACCESS_FS_TRUNCATE). The rulesets and their
 * enforcement are sentry/kernel/landlock.c.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>
#include <fcntl.h>

#define LANDLOCK_CREATE_RULESET_VERSION (1u << 0)
#define LANDLOCK_RULE_PATH_BENEATH	1
#define PAGE_SIZE_			4096

/* Reads and writes of a ruleset fd fail (Linux's dummy ops, there only to
 * give the file its read and write modes). */
static long ruleset_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	return -EINVAL;
}

static long ruleset_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	return -EINVAL;
}

static void ruleset_release(struct file *f)
{
	landlock_ruleset_put(f->priv);
}

static const struct file_ops ruleset_ops = {
	.read = ruleset_read,
	.write = ruleset_write,
	.release = ruleset_release,
};

SYSCALL(landlock_create_ruleset)
{
	uint64_t uattr = a->a[0], size = a->a[1];
	uint32_t flags = (uint32_t)a->a[2];
	uint64_t handled;
	struct file *f;
	long ret;

	if (flags) {
		if (uattr || size)
			return -EINVAL;
		return flags == LANDLOCK_CREATE_RULESET_VERSION ? LANDLOCK_ABI_VERSION : -EINVAL;
	}
	/* struct landlock_ruleset_attr is handled_access_fs alone in ABI 2. */
	if (!uattr)
		return -EFAULT;
	if (size < sizeof(handled))
		return -EINVAL;
	if (size > PAGE_SIZE_)
		return -E2BIG;
	ret = mm_copy_struct_in(t->mm, &handled, sizeof(handled), uattr, size);
	if (ret)
		return ret;
	if (handled & ~(uint64_t)LL_FS_ALL)
		return -EINVAL;
	if (!handled)
		return -ENOMSG;
	f = anon_file_new("[landlock-ruleset]", &ruleset_ops, O_RDWR,
			  landlock_ruleset_new((uint32_t)handled));
	ret = fd_install(t->files, f, 0, true, task_nofile(t));
	file_put(f);
	return ret;
}

/* The ruleset of fd (with a reference on its file in *fp), or -errno. */
static long ruleset_fget(struct task *t, int fd, bool write, struct file **fp)
{
	struct file *f = fd_get(t->files, fd);

	if (!f)
		return -EBADF;
	if (f->ops != &ruleset_ops) {
		file_put(f);
		return -EBADFD;
	}
	if (!(write ? flags_writable(f->flags) : flags_readable(f->flags))) {
		file_put(f);
		return -EPERM;
	}
	*fp = f;
	return 0;
}

/* struct landlock_path_beneath_attr (packed: 12 bytes). */
struct path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

SYSCALL(landlock_add_rule)
{
	int rfd = (int)a->a[0], type = (int)a->a[1];
	struct path_beneath_attr attr;
	struct file *rf, *pf;
	struct landlock_ruleset *rs;
	uint32_t handled;
	long ret;

	if (a->a[3] & 0xffffffffu)
		return -EINVAL;
	ret = ruleset_fget(t, rfd, true, &rf);
	if (ret)
		return ret;
	rs = rf->priv;
	handled = landlock_ruleset_handled(rs);
	if (type != LANDLOCK_RULE_PATH_BENEATH)
		ret = -EINVAL;
	else if (mm_copy_in(t->mm, &attr, a->a[2], sizeof(attr)) < 0)
		ret = -EFAULT;
	else if (!attr.allowed_access)
		ret = -ENOMSG;
	else if (attr.allowed_access & ~(uint64_t)handled)
		ret = -EINVAL;
	if (ret)
		goto out;
	/* The hierarchy: any file but a ruleset or an internal one (pipes,
	 * sockets), opened preferably with O_PATH. */
	pf = fd_get_raw(t->files, attr.parent_fd);
	if (!pf) {
		ret = -EBADF;
		goto out;
	}
	if (pf->ops == &ruleset_ops || !pf->path.dentry || !pf->path.dentry->inode ||
	    (pf->path.mnt->flags & MNT_INTERNAL))
		ret = -EBADFD;
	else
		ret = landlock_ruleset_add(rs, &pf->path, (uint32_t)attr.allowed_access);
	file_put(pf);
out:
	file_put(rf);
	return ret;
}

SYSCALL(landlock_restrict_self)
{
	struct file *rf;
	long ret;

	/* As seccomp: unprivileged only under no_new_privs. */
	if (!__atomic_load_n(&t->no_new_privs, __ATOMIC_RELAXED) &&
	    !creds_capable(&t->creds, KCAP_SYS_ADMIN))
		return -EPERM;
	if (a->a[1] & 0xffffffffu)
		return -EINVAL;
	ret = ruleset_fget(t, (int)a->a[0], false, &rf);
	if (ret)
		return ret;
	ret = landlock_restrict(t, rf->priv);
	file_put(rf);
	return ret;
}
