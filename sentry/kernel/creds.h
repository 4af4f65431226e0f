/* Credentials of a task: ids, supplementary groups, capabilities. */
#ifndef RUNG_CREDS_H
#define RUNG_CREDS_H

#include <stdbool.h>
#include <stdint.h>

#define CREDS_MAX_GROUPS 64
#define CAP_ALL_MASK	 ((1ull << 41) - 1) /* CAP_CHOWN .. CAP_CHECKPOINT_RESTORE */

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
#define KCAP_NET_RAW	      13
#define KCAP_SYS_CHROOT	      18
#define KCAP_SYS_PTRACE	      19
#define KCAP_SYS_ADMIN	      21
#define KCAP_SYS_RESOURCE     24
#define KCAP_MKNOD	      27

struct creds {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	uint32_t ngroups;
	uint32_t groups[CREDS_MAX_GROUPS];
	uint64_t cap_effective, cap_permitted, cap_inheritable, cap_bounding, cap_ambient;
};

static inline bool creds_capable(const struct creds *c, int cap)
{
	return c->cap_effective & (1ull << cap);
}

static inline bool creds_in_group(const struct creds *c, uint32_t gid)
{
	if (c->fsgid == gid)
		return true;
	for (uint32_t i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

/* Credentials for a guest that runs as uid/gid: root gets every capability. */
void creds_init(struct creds *c, uint32_t uid, uint32_t gid);

#endif
