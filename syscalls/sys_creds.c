/*
 * Credentials: the set*id family, supplementary groups, capget/capset.
 * The rules are in sentry/kernel/creds.c; each call works on a copy of the
 * caller's credentials and commits it (task_commit_creds) when it passes.
 * Credentials are per thread, as in Linux: glibc's set*id wrappers make
 * every thread change its own (SIGSETXID).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#define NO_ID ((uint32_t)-1)

#include <errno.h>
#include <linux/capability.h>
#include <string.h>

/* set*uid: install the new credentials (task_commit_creds also notes a
 * new real uid over RLIMIT_NPROC, which the next execve reports). */
static long commit_uid(struct task *t, const struct creds *n)
{
	task_commit_creds(t, n);
	return 0;
}

/* The id arguments of a set*id call in the sandbox's ids (NO_ID stays):
 * false when one has no name in the caller's user namespace (EINVAL). */
static bool uids_in(const struct task *t, const struct syscall_args *a, int n, uint32_t *out)
{
	for (int i = 0; i < n; i++)
		if (!uid_in(t->creds.user_ns, (uint32_t)a->a[i], &out[i]))
			return false;
	return true;
}

static bool gids_in(const struct task *t, const struct syscall_args *a, int n, uint32_t *out)
{
	for (int i = 0; i < n; i++)
		if (!gid_in(t->creds.user_ns, (uint32_t)a->a[i], &out[i]))
			return false;
	return true;
}

SYSCALL(setuid)
{
	struct creds n = t->creds;
	uint32_t id[1];
	int ret;

	if (!uids_in(t, a, 1, id) || id[0] == NO_ID)
		return -EINVAL;
	ret = creds_setuid(&n, id[0]);

	return ret < 0 ? ret : commit_uid(t, &n);
}

SYSCALL(setreuid)
{
	struct creds n = t->creds;
	uint32_t id[2];
	int ret;

	if (!uids_in(t, a, 2, id))
		return -EINVAL;
	ret = creds_setreuid(&n, id[0], id[1]);

	return ret < 0 ? ret : commit_uid(t, &n);
}

SYSCALL(setresuid)
{
	struct creds n = t->creds;
	uint32_t id[3];
	int ret;

	if (!uids_in(t, a, 3, id))
		return -EINVAL;
	ret = creds_setresuid(&n, id[0], id[1], id[2]);

	if (ret < 0 || memcmp(&n, &t->creds, sizeof(n)) == 0)
		return ret;
	return commit_uid(t, &n);
}

SYSCALL(setgid)
{
	struct creds n = t->creds;
	uint32_t id[1];
	int ret;

	if (!gids_in(t, a, 1, id) || id[0] == NO_ID)
		return -EINVAL;
	ret = creds_setgid(&n, id[0]);

	if (ret == 0)
		task_commit_creds(t, &n);
	return ret;
}

SYSCALL(setregid)
{
	struct creds n = t->creds;
	uint32_t id[2];
	int ret;

	if (!gids_in(t, a, 2, id))
		return -EINVAL;
	ret = creds_setregid(&n, id[0], id[1]);

	if (ret == 0)
		task_commit_creds(t, &n);
	return ret;
}

SYSCALL(setresgid)
{
	struct creds n = t->creds;
	uint32_t id[3];
	int ret;

	if (!gids_in(t, a, 3, id))
		return -EINVAL;
	ret = creds_setresgid(&n, id[0], id[1], id[2]);

	if (ret == 0 && memcmp(&n, &t->creds, sizeof(n)) != 0)
		task_commit_creds(t, &n);
	return ret;
}

SYSCALL(setfsuid)
{
	struct creds n = t->creds;
	uint32_t id[1], old;

	/* An id without a name changes nothing: the old one comes back. */
	if (!uids_in(t, a, 1, id) || id[0] == NO_ID)
		return uid_out(t->creds.user_ns, t->creds.fsuid);
	old = uid_out(t->creds.user_ns, creds_setfsuid(&n, id[0]));

	if (memcmp(&n, &t->creds, sizeof(n)) != 0)
		task_commit_creds(t, &n);
	return old;
}

SYSCALL(setfsgid)
{
	struct creds n = t->creds;
	uint32_t id[1], old;

	if (!gids_in(t, a, 1, id) || id[0] == NO_ID)
		return gid_out(t->creds.user_ns, t->creds.fsgid);
	old = gid_out(t->creds.user_ns, creds_setfsgid(&n, id[0]));

	if (memcmp(&n, &t->creds, sizeof(n)) != 0)
		task_commit_creds(t, &n);
	return old;
}

/* getresuid/getresgid: three ids to three guest words, in order. */
static long put_ids(struct task *t, const struct syscall_args *a, uint32_t r, uint32_t e,
		    uint32_t s)
{
	if (mm_copy_out(t->mm, a->a[0], &r, sizeof(r)) < 0 ||
	    mm_copy_out(t->mm, a->a[1], &e, sizeof(e)) < 0 ||
	    mm_copy_out(t->mm, a->a[2], &s, sizeof(s)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(getresuid)
{
	const struct user_ns *ns = t->creds.user_ns;

	return put_ids(t, a, uid_out(ns, t->creds.uid), uid_out(ns, t->creds.euid),
		       uid_out(ns, t->creds.suid));
}

SYSCALL(getresgid)
{
	const struct user_ns *ns = t->creds.user_ns;

	return put_ids(t, a, gid_out(ns, t->creds.gid), gid_out(ns, t->creds.egid),
		       gid_out(ns, t->creds.sgid));
}

SYSCALL(getgroups)
{
	int size = (int)a->a[0];
	uint32_t n = t->creds.ngroups;

	if (size < 0)
		return -EINVAL;
	if (size) {
		uint32_t out[CREDS_MAX_GROUPS];
		if (n > (uint32_t)size)
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			out[i] = gid_out(t->creds.user_ns, t->creds.groups[i]);
		if (mm_copy_out(t->mm, a->a[1], out, n * sizeof(uint32_t)) < 0)
			return -EFAULT;
	}
	return n;
}

SYSCALL(setgroups)
{
	uint32_t n = (uint32_t)a->a[0], groups[CREDS_MAX_GROUPS];
	struct creds c = t->creds;
	int ret;

	if (!creds_capable(&c, KCAP_SETGID))
		return -EPERM;
	/* Linux's bound is NGROUPS_MAX (65536); the sandbox's is lower. */
	if (n > CREDS_MAX_GROUPS)
		return -EINVAL;
	if (n && mm_copy_in(t->mm, groups, a->a[1], n * sizeof(uint32_t)) < 0)
		return -EFAULT;
	for (uint32_t i = 0; i < n; i++)
		if (groups[i] == NO_ID || !gid_in(c.user_ns, groups[i], &groups[i]))
			return -EINVAL;
	ret = creds_setgroups(&c, groups, n);
	if (ret == 0)
		task_commit_creds(t, &c);
	return ret;
}

/* --- capabilities ------------------------------------------------------------------ */

/*
 * The header's version (cap_validate_magic): the number of 32-bit words
 * per set it implies, or -EINVAL after writing the preferred version back.
 */
static long cap_words(struct task *t, uint64_t hdr, unsigned *words)
{
	uint32_t v;

	if (mm_copy_in(t->mm, &v, hdr, sizeof(v)) < 0)
		return -EFAULT;
	switch (v) {
	case _LINUX_CAPABILITY_VERSION_1:
		*words = 1;
		return 0;
	case _LINUX_CAPABILITY_VERSION_2:
	case _LINUX_CAPABILITY_VERSION_3:
		*words = 2;
		return 0;
	default:
		v = _LINUX_CAPABILITY_VERSION_3;
		if (mm_copy_out(t->mm, hdr, &v, sizeof(v)) < 0)
			return -EFAULT;
		return -EINVAL;
	}
}

SYSCALL(capget)
{
	struct __user_cap_data_struct data[2];
	uint64_t hdr = a->a[0], eff, perm, inh;
	unsigned words;
	int32_t pid;
	long ret = cap_words(t, hdr, &words);

	/* A NULL data pointer asks only for the version: 0 even for a bad one. */
	if (!a->a[1] || ret < 0)
		return (!a->a[1] && ret == -EINVAL) ? 0 : ret;
	if (mm_copy_in(t->mm, &pid, hdr + 4, sizeof(pid)) < 0)
		return -EFAULT;
	if (pid < 0)
		return -EINVAL;
	if (pid && pid != t->tid) {
		struct task *p;
		ret = -ESRCH;
		pthread_mutex_lock(&t->k->lock);
		p = kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid));
		if (p) {
			eff = p->creds.cap_effective;
			perm = p->creds.cap_permitted;
			inh = p->creds.cap_inheritable;
			ret = 0;
		}
		pthread_mutex_unlock(&t->k->lock);
		if (ret < 0)
			return ret;
	} else {
		eff = t->creds.cap_effective;
		perm = t->creds.cap_permitted;
		inh = t->creds.cap_inheritable;
	}
	for (unsigned i = 0; i < 2; i++) {
		data[i].effective = (uint32_t)(eff >> (32 * i));
		data[i].permitted = (uint32_t)(perm >> (32 * i));
		data[i].inheritable = (uint32_t)(inh >> (32 * i));
	}
	/* Version 1 has the low 32 capabilities only: the others are dropped. */
	if (mm_copy_out(t->mm, a->a[1], data, words * sizeof(data[0])) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(capset)
{
	struct __user_cap_data_struct data[2] = {0};
	uint64_t hdr = a->a[0], eff = 0, perm = 0, inh = 0;
	struct creds c = t->creds;
	unsigned words;
	int32_t pid;
	long ret = cap_words(t, hdr, &words);

	if (ret < 0)
		return ret;
	if (mm_copy_in(t->mm, &pid, hdr + 4, sizeof(pid)) < 0)
		return -EFAULT;
	/* Only the caller's own capabilities can be set. */
	if (pid != 0 && pid != t->tid)
		return -EPERM;
	if (mm_copy_in(t->mm, data, a->a[1], words * sizeof(data[0])) < 0)
		return -EFAULT;
	for (unsigned i = 0; i < words; i++) {
		eff |= (uint64_t)data[i].effective << (32 * i);
		perm |= (uint64_t)data[i].permitted << (32 * i);
		inh |= (uint64_t)data[i].inheritable << (32 * i);
	}
	ret = creds_capset(&c, eff, inh, perm);
	if (ret == 0)
		task_commit_creds(t, &c);
	return ret;
}
