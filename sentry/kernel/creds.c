/*
 * Credential rules: Linux's kernel/sys.c set*id family and setgroups, and
 * the capability rules of security/commoncap.c, on a struct creds; and
 * task_commit_creds, which installs a task's new credentials.
 */
#include "config.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"

#include <errno.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NO_ID ((uint32_t)-1)

/* The capabilities fsuid 0 stands for (CAP_FS_SET). */
#define CAP_FS_SET                                                                     \
	(CAP_BIT(KCAP_CHOWN) | CAP_BIT(KCAP_MKNOD) | CAP_BIT(KCAP_DAC_OVERRIDE) |      \
	 CAP_BIT(KCAP_DAC_READ_SEARCH) | CAP_BIT(KCAP_FOWNER) | CAP_BIT(KCAP_FSETID) | \
	 CAP_BIT(KCAP_LINUX_IMMUTABLE) | CAP_BIT(KCAP_MAC_OVERRIDE))

void creds_init(struct creds *c, uint32_t uid, uint32_t gid)
{
	memset(c, 0, sizeof(*c));
	c->uid = c->euid = c->suid = c->fsuid = uid;
	c->gid = c->egid = c->sgid = c->fsgid = gid;
	c->cap_bounding = CAP_ALL_MASK;
	if (uid == 0)
		c->cap_effective = c->cap_permitted = CAP_ALL_MASK;
}

static int gid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void creds_install_groups(struct creds *c, const uint32_t *groups, uint32_t n)
{
	memcpy(c->groups, groups, n * sizeof(*groups));
	c->ngroups = n;
	qsort(c->groups, n, sizeof(c->groups[0]), gid_cmp);
}

static struct creds host_creds;
static bool host_captured;

void creds_capture_host(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	gid_t groups[CREDS_MAX_GROUPS];
	int n;

	creds_init(&host_creds, (uint32_t)getuid(), (uint32_t)getgid());
	host_creds.euid = host_creds.suid = host_creds.fsuid = (uint32_t)geteuid();
	host_creds.egid = host_creds.sgid = host_creds.fsgid = (uint32_t)getegid();
	if (syscall(SYS_capget, &hdr, data) == 0) {
		host_creds.cap_effective = (data[0].effective | (uint64_t)data[1].effective << 32);
		host_creds.cap_permitted = (data[0].permitted | (uint64_t)data[1].permitted << 32);
		host_creds.cap_inheritable =
			(data[0].inheritable | (uint64_t)data[1].inheritable << 32);
		host_creds.cap_effective &= CAP_ALL_MASK;
		host_creds.cap_permitted &= CAP_ALL_MASK;
		host_creds.cap_inheritable &= CAP_ALL_MASK;
		host_creds.cap_bounding = 0;
		for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
				host_creds.cap_bounding |= CAP_BIT(cap);
			if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1)
				host_creds.cap_ambient |= CAP_BIT(cap);
		}
	}
	n = getgroups(CREDS_MAX_GROUPS, groups);
	if (n > 0)
		creds_install_groups(&host_creds, (const uint32_t *)groups, (uint32_t)n);
	host_captured = true;
}

void creds_init_host(struct creds *c)
{
	if (host_captured)
		*c = host_creds;
	else
		creds_init(c, (uint32_t)getuid(), (uint32_t)getgid());
}

/* The uid of the sandbox's initial user namespace that is root in c's. */
uint32_t creds_root_uid(const struct creds *c)
{
	int64_t r = ns_make_kuid(c->user_ns, 0);

	return r < 0 ? (uint32_t)-2 : (uint32_t)r; /* (-2: no id is root there) */
}

/* cap_emulate_setxuid: the capability sets follow a ruid/euid/suid change. */
static void fix_setuid(struct creds *n, const struct creds *old)
{
	uint32_t r = creds_root_uid(old);

	if (n->securebits & SECBIT_NO_SETUID_FIXUP)
		return;
	if ((old->uid == r || old->euid == r || old->suid == r) &&
	    (n->uid != r && n->euid != r && n->suid != r)) {
		if (!(n->securebits & SECBIT_KEEP_CAPS)) {
			n->cap_permitted = 0;
			n->cap_effective = 0;
		}
		n->cap_ambient = 0;
	}
	if (old->euid == r && n->euid != r)
		n->cap_effective = 0;
	if (old->euid != r && n->euid == r)
		n->cap_effective = n->cap_permitted;
}

/* The fs capabilities follow an fsuid change (cap_task_fix_setuid, LSM_SETID_FS). */
static void fix_setfsuid(struct creds *n, uint32_t old_fsuid)
{
	uint32_t r = creds_root_uid(n);

	if (n->securebits & SECBIT_NO_SETUID_FIXUP)
		return;
	if (old_fsuid == r && n->fsuid != r)
		n->cap_effective &= ~CAP_FS_SET;
	if (old_fsuid != r && n->fsuid == r)
		n->cap_effective |= n->cap_permitted & CAP_FS_SET;
}

int creds_setuid(struct creds *c, uint32_t uid)
{
	struct creds n = *c;

	if (uid == NO_ID)
		return -EINVAL;
	if (creds_own_capable(c, KCAP_SETUID))
		n.uid = n.suid = uid;
	else if (uid != c->uid && uid != c->suid)
		return -EPERM;
	n.euid = n.fsuid = uid;
	fix_setuid(&n, c);
	*c = n;
	return 0;
}

int creds_setreuid(struct creds *c, uint32_t ruid, uint32_t euid)
{
	struct creds n = *c;
	bool priv = creds_own_capable(c, KCAP_SETUID);

	if (ruid != NO_ID) {
		n.uid = ruid;
		if (ruid != c->uid && ruid != c->euid && !priv)
			return -EPERM;
	}
	if (euid != NO_ID) {
		n.euid = euid;
		if (euid != c->uid && euid != c->euid && euid != c->suid && !priv)
			return -EPERM;
	}
	if (ruid != NO_ID || (euid != NO_ID && euid != c->uid))
		n.suid = n.euid;
	n.fsuid = n.euid;
	fix_setuid(&n, c);
	*c = n;
	return 0;
}

/* Is id none of the three (for setresuid/setresgid's "new id" test)? */
static bool id_new(uint32_t id, uint32_t a, uint32_t b, uint32_t d)
{
	return id != NO_ID && id != a && id != b && id != d;
}

int creds_setresuid(struct creds *c, uint32_t ruid, uint32_t euid, uint32_t suid)
{
	struct creds n = *c;

	/* A no-op needs no privilege (and changes nothing, not even caps). */
	if ((ruid == NO_ID || ruid == c->uid) &&
	    (euid == NO_ID || (euid == c->euid && euid == c->fsuid)) &&
	    (suid == NO_ID || suid == c->suid))
		return 0;
	if ((id_new(ruid, c->uid, c->euid, c->suid) || id_new(euid, c->uid, c->euid, c->suid) ||
	     id_new(suid, c->uid, c->euid, c->suid)) &&
	    !creds_own_capable(c, KCAP_SETUID))
		return -EPERM;
	if (ruid != NO_ID)
		n.uid = ruid;
	if (euid != NO_ID)
		n.euid = euid;
	if (suid != NO_ID)
		n.suid = suid;
	n.fsuid = n.euid;
	fix_setuid(&n, c);
	*c = n;
	return 0;
}

int creds_setgid(struct creds *c, uint32_t gid)
{
	if (gid == NO_ID)
		return -EINVAL;
	if (creds_own_capable(c, KCAP_SETGID))
		c->gid = c->egid = c->sgid = c->fsgid = gid;
	else if (gid == c->gid || gid == c->sgid)
		c->egid = c->fsgid = gid;
	else
		return -EPERM;
	return 0;
}

int creds_setregid(struct creds *c, uint32_t rgid, uint32_t egid)
{
	struct creds n = *c;
	bool priv = creds_own_capable(c, KCAP_SETGID);

	if (rgid != NO_ID) {
		if (rgid != c->gid && rgid != c->egid && !priv)
			return -EPERM;
		n.gid = rgid;
	}
	if (egid != NO_ID) {
		if (egid != c->gid && egid != c->egid && egid != c->sgid && !priv)
			return -EPERM;
		n.egid = egid;
	}
	if (rgid != NO_ID || (egid != NO_ID && egid != c->gid))
		n.sgid = n.egid;
	n.fsgid = n.egid;
	*c = n;
	return 0;
}

int creds_setresgid(struct creds *c, uint32_t rgid, uint32_t egid, uint32_t sgid)
{
	if ((rgid == NO_ID || rgid == c->gid) &&
	    (egid == NO_ID || (egid == c->egid && egid == c->fsgid)) &&
	    (sgid == NO_ID || sgid == c->sgid))
		return 0;
	if ((id_new(rgid, c->gid, c->egid, c->sgid) || id_new(egid, c->gid, c->egid, c->sgid) ||
	     id_new(sgid, c->gid, c->egid, c->sgid)) &&
	    !creds_own_capable(c, KCAP_SETGID))
		return -EPERM;
	if (rgid != NO_ID)
		c->gid = rgid;
	if (egid != NO_ID)
		c->egid = egid;
	if (sgid != NO_ID)
		c->sgid = sgid;
	c->fsgid = c->egid;
	return 0;
}

uint32_t creds_setfsuid(struct creds *c, uint32_t fsuid)
{
	uint32_t old = c->fsuid;

	if (fsuid == NO_ID)
		return old;
	if (fsuid == c->uid || fsuid == c->euid || fsuid == c->suid || fsuid == c->fsuid ||
	    creds_own_capable(c, KCAP_SETUID)) {
		if (fsuid != old) {
			c->fsuid = fsuid;
			fix_setfsuid(c, old);
		}
	}
	return old;
}

uint32_t creds_setfsgid(struct creds *c, uint32_t fsgid)
{
	uint32_t old = c->fsgid;

	if (fsgid == NO_ID)
		return old;
	if (fsgid == c->gid || fsgid == c->egid || fsgid == c->sgid || fsgid == c->fsgid ||
	    creds_own_capable(c, KCAP_SETGID))
		c->fsgid = fsgid;
	return old;
}

int creds_setgroups(struct creds *c, const uint32_t *groups, uint32_t n)
{
	if (!creds_own_capable(c, KCAP_SETGID))
		return -EPERM;
	if (n > CREDS_MAX_GROUPS)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (groups[i] == NO_ID)
			return -EINVAL;
	creds_install_groups(c, groups, n);
	return 0;
}

/* Is a a subset of b? */
static bool cap_subset(uint64_t a, uint64_t b)
{
	return (a & ~b) == 0;
}

int creds_capset(struct creds *c, uint64_t effective, uint64_t inheritable, uint64_t permitted)
{
	effective &= CAP_ALL_MASK;
	inheritable &= CAP_ALL_MASK;
	permitted &= CAP_ALL_MASK;
	/* Without CAP_SETPCAP, inheritable may only take what is permitted. */
	if (!creds_own_capable(c, KCAP_SETPCAP) &&
	    !cap_subset(inheritable, c->cap_inheritable | c->cap_permitted))
		return -EPERM;
	/* Nothing new in inheritable from outside the bounding set. */
	if (!cap_subset(inheritable, c->cap_inheritable | c->cap_bounding))
		return -EPERM;
	if (!cap_subset(permitted, c->cap_permitted))
		return -EPERM;
	if (!cap_subset(effective, permitted))
		return -EPERM;
	c->cap_effective = effective;
	c->cap_inheritable = inheritable;
	c->cap_permitted = permitted;
	c->cap_ambient &= permitted & inheritable;
	return 0;
}

bool creds_exec(struct creds *c)
{
	uint32_t r = creds_root_uid(c);
	bool root_real = c->uid == r, root_eff = c->euid == r, effective = false;

	/* Without file capabilities the permitted set starts empty (get_file_caps). */
	c->cap_permitted = 0;
	if (!(c->securebits & SECBIT_NOROOT)) {
		if (root_eff || root_real)
			c->cap_permitted = c->cap_bounding | c->cap_inheritable;
		effective = root_eff;
	}
	c->suid = c->fsuid = c->euid;
	c->sgid = c->fsgid = c->egid;
	c->cap_permitted |= c->cap_ambient;
	c->cap_effective = effective ? c->cap_permitted : c->cap_ambient;
	c->securebits &= ~SECBIT_KEEP_CAPS;
	return !root_real && (effective || !cap_subset(c->cap_permitted, c->cap_ambient));
}

void task_set_dumpable(struct task *t, bool dumpable)
{
	struct kernel *k = t->k;
	struct task *o;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(o, &k->tasks, knode)
		if (o->mm == t->mm)
			o->dumpable = dumpable;
	t->dumpable = dumpable;
	pthread_mutex_unlock(&k->lock);
}

/* Count live tasks whose real uid is uid (RLIMIT_NPROC). Under k->lock. */
static unsigned long tasks_of_uid_locked(struct kernel *k, uint32_t uid)
{
	unsigned long n = 0;
	struct task *o;

	list_for_each_entry(o, &k->tasks, knode)
		if (o->creds.uid == uid)
			n++;
	return n;
}

void task_commit_creds(struct task *t, const struct creds *n)
{
	struct kernel *k = t->k;
	const struct creds *old = &t->creds;
	bool changed = old->euid != n->euid || old->egid != n->egid || old->fsuid != n->fsuid ||
		       old->fsgid != n->fsgid || !cap_subset(n->cap_permitted, old->cap_permitted);

	/* Like Linux's commit_creds: a process whose identity changed is no
	 * longer dumpable (suid_dumpable 0), nor does its parent's death
	 * signal it. */
	if (changed)
		task_set_dumpable(t, false);
	pthread_mutex_lock(&k->lock);
	if (changed)
		t->pdeath_signal = 0;
	/* A new real uid over RLIMIT_NPROC does not fail set*uid (programs
	 * rarely check) but the next execve (flag_nproc_exceeded). */
	if (n->uid != old->uid)
		t->nproc_exceeded = n->uid != 0 && tasks_of_uid_locked(k, n->uid) >
							   t->tg->rlim[RLIMIT_NPROC].rlim_cur;
	t->creds = *n;
	pthread_mutex_unlock(&k->lock);
}

int task_exec_nproc_check(struct task *t)
{
	struct kernel *k = t->k;
	int ret = 0;

	if (!t->nproc_exceeded)
		return 0;
	pthread_mutex_lock(&k->lock);
	if (tasks_of_uid_locked(k, t->creds.uid) > t->tg->rlim[RLIMIT_NPROC].rlim_cur)
		ret = -EAGAIN;
	pthread_mutex_unlock(&k->lock);
	if (ret == 0)
		t->nproc_exceeded = false;
	return ret;
}

void task_exec_creds(struct task *t, const struct creds *n, bool secure)
{
	pthread_mutex_lock(&t->k->lock);
	t->creds = *n;
	/* The new image is dumpable unless it runs with other ids than the
	 * real ones (begin_new_exec); a privileged one also loses the
	 * parent-death signal. */
	t->dumpable = n->euid == n->uid && n->egid == n->gid;
	if (secure)
		t->pdeath_signal = 0;
	pthread_mutex_unlock(&t->k->lock);
}
