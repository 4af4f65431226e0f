/*
 * Credentials of a task: ids, supplementary groups, capabilities and
 * securebits, with Linux's rules for changing them (kernel/sys.c,
 * kernel/capability.c, security/commoncap.c).
 *
 * Credentials are per task, as in Linux: glibc's setuid family changes
 * every thread itself (SIGSETXID to each). A task's own thread reads its
 * creds without a lock; other threads read them under the kernel's task
 * lock, and a task changes its own creds only under that lock
 * (task_commit_creds), so such readers see one consistent set.
 */
#ifndef RUNG_CREDS_H
#define RUNG_CREDS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Supplementary groups a task may have. Linux allows NGROUPS_MAX (65536);
 * the sandbox keeps them inline and allows fewer: setgroups with more is
 * EINVAL, and /proc/sys/kernel/ngroups_max (what sysconf(_SC_NGROUPS_MAX)
 * reads) says so, which glibc's initgroups honours.
 */
#define CREDS_MAX_GROUPS 256
#define CAP_LAST_CAP	 40		    /* CAP_CHECKPOINT_RESTORE */
#define CAP_ALL_MASK	 ((1ull << 41) - 1) /* CAP_CHOWN .. CAP_CHECKPOINT_RESTORE */
#define CAP_BIT(cap)	 (1ull << (cap))

/* Capability numbers used by the sentry (linux/capability.h). */
#define KCAP_CHOWN	      0
#define KCAP_DAC_OVERRIDE     1
#define KCAP_DAC_READ_SEARCH  2
#define KCAP_FOWNER	      3
#define KCAP_FSETID	      4
#define KCAP_KILL	      5
#define KCAP_SETGID	      6
#define KCAP_SETUID	      7
#define KCAP_SETPCAP	      8
#define KCAP_LINUX_IMMUTABLE  9
#define KCAP_NET_BIND_SERVICE 10
#define KCAP_NET_ADMIN	      12
#define KCAP_NET_RAW	      13
#define KCAP_IPC_LOCK	      14
#define KCAP_IPC_OWNER	      15
#define KCAP_SYS_CHROOT	      18
#define KCAP_SYS_PTRACE	      19
#define KCAP_SYS_ADMIN	      21
#define KCAP_SYS_NICE	      23
#define KCAP_SYS_RESOURCE     24
#define KCAP_MKNOD	      27
#define KCAP_LEASE	      28
#define KCAP_MAC_OVERRIDE     32

/* securebits (linux/securebits.h): each bit, and its lock one bit above. */
#define SECBIT_NOROOT		    (1u << 0)
#define SECBIT_NO_SETUID_FIXUP	    (1u << 2)
#define SECBIT_KEEP_CAPS	    (1u << 4)
#define SECBIT_NO_CAP_AMBIENT_RAISE (1u << 6)
#define SECURE_ALL_BITS		    0x55u
#define SECURE_ALL_LOCKS	    (SECURE_ALL_BITS << 1)

struct creds {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	uint32_t securebits;
	uint32_t ngroups;
	uint32_t groups[CREDS_MAX_GROUPS]; /* sorted, as Linux keeps them */
	uint64_t cap_effective, cap_permitted, cap_inheritable, cap_bounding, cap_ambient;
	/* The user namespace the capabilities are for (sentry/kernel/nsproxy.h),
	 * NULL for the sandbox's initial one; the task's nsproxy holds it. */
	const struct user_ns *user_ns;
};

/* Has c cap in its own user namespace (what set*id, setgroups and capset
 * ask: Linux's ns_capable(cred->user_ns, cap)). */
static inline bool creds_own_capable(const struct creds *c, int cap)
{
	return c->cap_effective & (1ull << cap);
}

/* Has c cap over the whole sandbox (Linux's capable(cap): in the initial
 * user namespace). A task in a user namespace of its own has none. */
static inline bool creds_capable(const struct creds *c, int cap)
{
	return !c->user_ns && creds_own_capable(c, cap);
}

/* Linux's capable_wrt_inode_uidgid: cap in c's own user namespace, in
 * which both the file's uid and gid have a name. */
bool creds_capable_ids(const struct creds *c, int cap, uint32_t uid, uint32_t gid);

/* The sandbox's uid that is root in c's user namespace (0 in the initial one). */
uint32_t creds_root_uid(const struct creds *c);

static inline bool creds_in_group(const struct creds *c, uint32_t gid)
{
	if (c->fsgid == gid)
		return true;
	for (uint32_t i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

/* Linux's ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) on credentials:
 * the tracer's real ids are all of the target's (and the target is
 * dumpable), or it has CAP_SYS_PTRACE. */
static inline bool creds_may_attach(const struct creds *tracer, const struct creds *target,
				    bool dumpable)
{
	if (creds_capable(tracer, KCAP_SYS_PTRACE))
		return true;
	return dumpable && tracer->uid == target->uid && tracer->uid == target->euid &&
	       tracer->uid == target->suid && tracer->gid == target->gid &&
	       tracer->gid == target->egid && tracer->gid == target->sgid;
}

/* Credentials for a guest that runs as uid/gid: root gets every capability. */
void creds_init(struct creds *c, uint32_t uid, uint32_t gid);

/*
 * The sandbox process's own credentials as the guest's first ones: its ids,
 * supplementary groups and capability sets, so that a program sees in the
 * sandbox what it would see run directly. creds_capture_host() reads them
 * once before the sandbox confines itself (and drops its capabilities);
 * creds_init_host() copies them (creds_init of the host ids if nothing was
 * captured).
 */
void creds_capture_host(void);
void creds_init_host(struct creds *c);

/*
 * The set*id calls on a copy of the caller's credentials: each checks
 * Linux's permission rules (CAP_SETUID/CAP_SETGID in the effective set),
 * applies the change with its capability fix-ups (cap_task_fix_setuid:
 * leaving uid 0 in all of ruid/euid/suid clears the permitted, effective
 * and ambient sets unless SECBIT_KEEP_CAPS; effective follows euid 0 <->
 * non-0) and returns 0 or -errno, leaving c unchanged on error. A uid or
 * gid of -1 means "unchanged" where Linux says so, and is EINVAL elsewhere.
 */
int creds_setuid(struct creds *c, uint32_t uid);
int creds_setreuid(struct creds *c, uint32_t ruid, uint32_t euid);
int creds_setresuid(struct creds *c, uint32_t ruid, uint32_t euid, uint32_t suid);
int creds_setgid(struct creds *c, uint32_t gid);
int creds_setregid(struct creds *c, uint32_t rgid, uint32_t egid);
int creds_setresgid(struct creds *c, uint32_t rgid, uint32_t egid, uint32_t sgid);
/* setfsuid/setfsgid: change when allowed (fs capabilities follow fsuid 0
 * <-> non-0); return the old value either way, as Linux does. */
uint32_t creds_setfsuid(struct creds *c, uint32_t fsuid);
uint32_t creds_setfsgid(struct creds *c, uint32_t fsgid);
/* Install n <= CREDS_MAX_GROUPS groups as they are kept: sorted. */
void creds_install_groups(struct creds *c, const uint32_t *groups, uint32_t n);
/* setgroups: CAP_SETGID; n <= CREDS_MAX_GROUPS; the list is sorted. */
int creds_setgroups(struct creds *c, const uint32_t *groups, uint32_t n);

/* capset's rules (cap_capset): 0 or -EPERM. */
int creds_capset(struct creds *c, uint64_t effective, uint64_t inheritable, uint64_t permitted);

/*
 * The capability transformation of execve for a program without file
 * capabilities or set-id bits (cap_bprm_creds_from_file): root (real or
 * effective) gets bounding | inheritable, everyone keeps the ambient set,
 * saved and fs ids follow the effective ones, SECBIT_KEEP_CAPS is cleared.
 * Returns AT_SECURE's value.
 */
bool creds_exec(struct creds *c);

struct task;

/*
 * Install new credentials for t (on t's own thread), under the task lock.
 * As Linux's commit_creds: when the effective or fs ids change, or the
 * permitted set gains a capability, the process stops being dumpable and
 * the parent-death signal is cleared.
 */
void task_commit_creds(struct task *t, const struct creds *n);
/* execve after a set*uid went over RLIMIT_NPROC: -EAGAIN while it still is. */
int task_exec_nproc_check(struct task *t);
/* Install the credentials creds_exec computed for the new image (secure:
 * its AT_SECURE), with exec's dumpable and parent-death-signal rules. */
void task_exec_creds(struct task *t, const struct creds *n, bool secure);
/* PR_SET_DUMPABLE: for every task in t's address space (it is per mm). */
void task_set_dumpable(struct task *t, bool dumpable);

#endif
