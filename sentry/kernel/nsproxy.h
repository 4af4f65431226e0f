/*
 * The namespaces of a task (Linux's nsproxy and user namespaces): what
 * unshare(2), setns(2) and clone's CLONE_NEW* flags make and join.
 *
 * A task's nsproxy is NULL while it is in the sandbox's initial
 * namespaces (task_ns() then gives the kernel's), so that only guests
 * that ask for namespaces pay for them. Its user namespace is also in its
 * creds (creds.user_ns, NULL for the initial one), borrowed: the nsproxy
 * holds the reference.
 *
 * User namespaces map ids as Linux does: credentials and inodes hold the
 * sandbox's ("kernel") ids, and the system calls that take or give ids
 * translate them through the caller's namespace (uid_map, gid_map; an
 * unmapped id reads as the overflow id 65534).
 *
 * Mount and UTS namespaces are complete copies, PID namespaces number
 * their processes (pidns.h). IPC, network and cgroup namespaces have their
 * own identity (/proc/PID/ns, setns) but share the sandbox's objects: see
 * docs/architecture.md.
 */
#ifndef RUNG_NSPROXY_H
#define RUNG_NSPROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel;
struct task;
struct creds;
struct mnt_namespace;
struct pid_ns;

#define OVERFLOW_UID	 65534u
#define UID_MAP_EXTENTS	 340 /* Linux's limit of lines in uid_map */
#define USERNS_MAX_LEVEL 32
/* How many user namespaces the sandbox may have at once
 * (/proc/sys/user/max_user_namespaces). */
#define MAX_USER_NS 1024

struct id_extent {
	uint32_t first, lower_first, count;
};

struct id_map {
	unsigned nr;
	struct id_extent e[UID_MAP_EXTENTS];
};

struct user_ns {
	int refs;
	struct user_ns *parent; /* NULL: the sandbox's initial namespace is its parent */
	unsigned level;		/* 1 for a child of the initial one */
	uint32_t owner, group;	/* the creator's effective ids (kernel ids) */
	uint64_t ino;
	struct id_map uid_map, gid_map; /* to the parent's ids */
	bool setgroups_denied;
};

/* A namespace that has an identity but no objects of its own. */
struct simple_ns {
	int refs;
	uint64_t ino;
	struct user_ns *owner;
};

struct uts_ns {
	int refs;
	uint64_t ino;
	struct user_ns *owner;
	/* The names: the kernel's (k->hostname) for the initial one, else
	 * the copies below. Changed under the kernel's lock. */
	char *hostname, *domainname;
	char own_hostname[65], own_domainname[65];
};

struct nsproxy {
	int refs;
	struct user_ns *user; /* NULL: the initial one */
	struct mnt_namespace *mnt;
	struct uts_ns *uts;
	struct simple_ns *ipc, *net, *cgroup;
	struct pid_ns *pid;	     /* the task's own (pidns.h) */
	struct pid_ns *pid_children; /* its children's (unshare CLONE_NEWPID) */
};

/* The kernel's initial set, made on first use. */
struct nsproxy *kernel_nsproxy(struct kernel *k);
/* t's namespaces (never NULL); no reference taken. */
struct nsproxy *task_ns(struct task *t);
/* t's namespaces with a reference: for another task's (procfs). */
struct nsproxy *task_ns_get(struct task *t);
struct nsproxy *nsproxy_get(struct nsproxy *n);
void nsproxy_put(struct nsproxy *n);
void user_ns_put(struct user_ns *u);

/*
 * Namespaces for clone (flags: CLONE_NEW*): *out is the child's (NULL if it
 * keeps the initial ones), made with t's credentials c (which a new user
 * namespace changes: root with every capability inside it). 0 or -errno.
 */
int nsproxy_for_clone(struct task *t, uint64_t flags, struct creds *c, struct nsproxy **out);
/* A clone with CLONE_NEWNS: n (the child's, from nsproxy_for_clone) gets a
 * copy of the mount namespace, and child's root and cwd move into it. */
void nsproxy_clone_mnt(struct task *child, struct nsproxy *n);
/* unshare(2) of CLONE_NEW* flags for t itself (paths of its fs moved to a new mount ns). */
int nsproxy_unshare(struct task *t, uint64_t flags);

/* Linux's ns_capable: c has cap in ns (NULL: the initial one): its own
 * namespace or an ancestor's, or it owns an ancestor of ns. */
bool creds_ns_capable(const struct creds *c, const struct user_ns *ns, int cap);

/* setgroups is allowed in c's user namespace and every ancestor (gid maps
 * written, "deny" not written to setgroups). */
bool creds_may_setgroups(const struct creds *c);

/* Ids through user namespaces: from the sandbox's id to what ns sees
 * (OVERFLOW_UID when unmapped), and from ns's to the sandbox's (-1 when
 * unmapped). */
uint32_t ns_from_kuid(const struct user_ns *ns, uint32_t kuid);
uint32_t ns_from_kgid(const struct user_ns *ns, uint32_t kgid);
int64_t ns_make_kuid(const struct user_ns *ns, uint32_t uid);
int64_t ns_make_kgid(const struct user_ns *ns, uint32_t gid);

/*
 * The ids a system call takes and gives, in the caller's user namespace
 * (creds c): *_out names a sandbox id (OVERFLOW_UID when unmapped), *_in
 * gives the sandbox's id of an id of the caller's, -1 (NO_ID) staying -1
 * and an unmapped one giving false.
 */
static inline uint32_t uid_out(const struct user_ns *ns, uint32_t kuid)
{
	return ns ? ns_from_kuid(ns, kuid) : kuid;
}

static inline uint32_t gid_out(const struct user_ns *ns, uint32_t kgid)
{
	return ns ? ns_from_kgid(ns, kgid) : kgid;
}

static inline bool uid_in(const struct user_ns *ns, uint32_t uid, uint32_t *kuid)
{
	int64_t k = uid == (uint32_t)-1 || !ns ? uid : ns_make_kuid(ns, uid);

	*kuid = (uint32_t)k;
	return k >= 0;
}

static inline bool gid_in(const struct user_ns *ns, uint32_t gid, uint32_t *kgid)
{
	int64_t k = gid == (uint32_t)-1 || !ns ? gid : ns_make_kgid(ns, gid);

	*kgid = (uint32_t)k;
	return k >= 0;
}

/* /proc/PID/{uid_map,gid_map,setgroups} of t as seen by reader. */
struct strbuf;
void userns_show_map(struct task *reader, struct task *t, bool gid, struct strbuf *o);
long userns_write_map(struct task *writer, struct task *t, bool gid, const char *buf, size_t len);
void userns_show_setgroups(struct task *t, struct strbuf *o);
long userns_write_setgroups(struct task *writer, struct task *t, const char *buf, size_t len);

/* /proc/PID/ns/NAME: the namespace's id, or 0 for an unknown name. */
uint64_t task_ns_ino(struct task *t, const char *name);

/* One namespace, held by a reference (what an open /proc/PID/ns file is). */
struct ns_ref {
	int type; /* CLONE_NEW* */
	void *ns; /* struct user_ns, mnt_namespace, uts_ns, pid_ns or simple_ns */
	uint64_t ino;
};
/* t's namespace /proc/PID/ns/NAME names: 0, or -ENOENT. */
int task_ns_ref(struct task *t, const char *name, struct ns_ref *out);
void ns_ref_put(struct ns_ref *r);
/* setns(2) of t into r, with nstype 0 or r's type (Linux's rules). */
int nsproxy_setns(struct task *t, const struct ns_ref *r, int nstype);

#endif
