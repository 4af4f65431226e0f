/*
 * Namespaces of tasks: user namespaces with their id maps, copies of the
 * mount and UTS namespaces, and the identities of the others (see
 * nsproxy.h). The rules are Linux's kernel/nsproxy.c, kernel/user_namespace.c
 * and kernel/fork.c (ksys_unshare).
 */
#include "config.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

/* The ids of the initial namespaces, as Linux numbers them (procfs_pid_ns.c). */
#define INO_CGROUP 4026531835ull
#define INO_IPC	   4026531839ull
#define INO_NET	   4026531840ull
#define INO_PID	   4026531836ull
#define INO_USER   4026531837ull
#define INO_UTS	   4026531838ull
#define INO_TIME   4026531834ull

/* Ids of new namespaces: after Linux's first allocations. */
static uint64_t next_ino = 4026532160ull;

static uint64_t new_ino(void)
{
	return __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
}

/* --- references ------------------------------------------------------------------ */

static struct user_ns *user_ns_get(struct user_ns *u)
{
	if (u)
		__atomic_add_fetch(&u->refs, 1, __ATOMIC_RELAXED);
	return u;
}

static struct kernel *ns_kernel; /* for the count of user namespaces */

void user_ns_put(struct user_ns *u)
{
	while (u && __atomic_sub_fetch(&u->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct user_ns *parent = u->parent;
		if (ns_kernel)
			__atomic_sub_fetch(&ns_kernel->nr_user_ns, 1, __ATOMIC_RELAXED);
		free(u);
		u = parent;
	}
}

static struct simple_ns *simple_get(struct simple_ns *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	return s;
}

static void simple_put(struct simple_ns *s)
{
	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		user_ns_put(s->owner);
		free(s);
	}
}

static struct simple_ns *simple_new(uint64_t ino, struct user_ns *owner)
{
	struct simple_ns *s = xzalloc(sizeof(*s));

	s->refs = 1;
	s->ino = ino ? ino : new_ino();
	s->owner = user_ns_get(owner);
	return s;
}

static struct uts_ns *uts_get(struct uts_ns *u)
{
	__atomic_add_fetch(&u->refs, 1, __ATOMIC_RELAXED);
	return u;
}

static void uts_put(struct uts_ns *u)
{
	if (u && __atomic_sub_fetch(&u->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		user_ns_put(u->owner);
		free(u);
	}
}

struct nsproxy *nsproxy_get(struct nsproxy *n)
{
	__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	return n;
}

void nsproxy_put(struct nsproxy *n)
{
	if (!n || __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	user_ns_put(n->user);
	mntns_put(n->mnt);
	uts_put(n->uts);
	simple_put(n->ipc);
	simple_put(n->net);
	simple_put(n->cgroup);
	pidns_put(n->pid);
	pidns_put(n->pid_children);
	free(n);
}

struct nsproxy *kernel_nsproxy(struct kernel *k)
{
	struct nsproxy *n = __atomic_load_n(&k->init_nsproxy, __ATOMIC_ACQUIRE);

	if (n)
		return n;
	pthread_mutex_lock(&k->lock);
	n = k->init_nsproxy;
	if (!n) {
		struct uts_ns *uts = xzalloc(sizeof(*uts));

		n = xzalloc(sizeof(*n));
		n->refs = 1;
		n->mnt = mntns_get(k->mntns);
		uts->refs = 1;
		uts->ino = INO_UTS;
		uts->hostname = k->hostname;
		uts->domainname = k->domainname;
		n->uts = uts;
		n->ipc = simple_new(INO_IPC, NULL);
		n->net = simple_new(INO_NET, NULL);
		n->cgroup = simple_new(INO_CGROUP, NULL);
		n->pid = pidns_new(INO_PID, NULL, NULL);
		n->pid_children = pidns_get(n->pid);
		__atomic_store_n(&k->init_nsproxy, n, __ATOMIC_RELEASE);
		ns_kernel = k;
	}
	pthread_mutex_unlock(&k->lock);
	return n;
}

struct nsproxy *task_ns(struct task *t)
{
	return t->nsproxy ? t->nsproxy : kernel_nsproxy(t->k);
}

/* --- ids --------------------------------------------------------------------------- */

/* An id through one map: lower to upper (up) or upper to lower; -1 if none. */
static int64_t map_id(const struct id_map *m, uint32_t id, bool up)
{
	for (unsigned i = 0; i < m->nr; i++) {
		const struct id_extent *e = &m->e[i];
		uint32_t base = up ? e->lower_first : e->first;
		if (id >= base && id - base < e->count)
			return (int64_t)(up ? e->first : e->lower_first) + (id - base);
	}
	return -1;
}

/* From the sandbox's id up through every level to ns's; -1 if unmapped. */
static int64_t from_k(const struct user_ns *ns, uint32_t id, bool gid)
{
	const struct user_ns *chain[USERNS_MAX_LEVEL + 1];
	unsigned n = 0;
	int64_t v = id;

	for (; ns && n < USERNS_MAX_LEVEL + 1; ns = ns->parent)
		chain[n++] = ns;
	while (n-- > 0) {
		v = map_id(gid ? &chain[n]->gid_map : &chain[n]->uid_map, (uint32_t)v, true);
		if (v < 0)
			return -1;
	}
	return v;
}

static int64_t make_k(const struct user_ns *ns, uint32_t id, bool gid)
{
	int64_t v = id;

	for (; ns; ns = ns->parent) {
		v = map_id(gid ? &ns->gid_map : &ns->uid_map, (uint32_t)v, false);
		if (v < 0)
			return -1;
	}
	return v;
}

uint32_t ns_from_kuid(const struct user_ns *ns, uint32_t kuid)
{
	int64_t v = ns ? from_k(ns, kuid, false) : kuid;

	return v < 0 ? OVERFLOW_UID : (uint32_t)v;
}

uint32_t ns_from_kgid(const struct user_ns *ns, uint32_t kgid)
{
	int64_t v = ns ? from_k(ns, kgid, true) : kgid;

	return v < 0 ? OVERFLOW_UID : (uint32_t)v;
}

int64_t ns_make_kuid(const struct user_ns *ns, uint32_t uid)
{
	return ns ? make_k(ns, uid, false) : uid;
}

int64_t ns_make_kgid(const struct user_ns *ns, uint32_t gid)
{
	return ns ? make_k(ns, gid, true) : gid;
}

/* --- capabilities ------------------------------------------------------------------ */

static unsigned level_of(const struct user_ns *u)
{
	return u ? u->level : 0;
}

bool creds_ns_capable(const struct creds *c, const struct user_ns *ns, int cap)
{
	for (;;) {
		if (ns == c->user_ns)
			return creds_own_capable(c, cap);
		/* Beyond the caller's level: ns is not under the caller's. */
		if (level_of(ns) <= level_of(c->user_ns))
			return false;
		/* The owner of a child of the caller's namespace has every
		 * capability in it. */
		if (ns->parent == c->user_ns && ns->owner == c->euid)
			return true;
		ns = ns->parent;
	}
}

bool creds_capable_ids(const struct creds *c, int cap, uint32_t uid, uint32_t gid)
{
	if (!creds_own_capable(c, cap))
		return false;
	return !c->user_ns ||
	       (from_k(c->user_ns, uid, false) >= 0 && from_k(c->user_ns, gid, true) >= 0);
}

/* --- making namespaces ------------------------------------------------------------- */

/* A new user namespace for creds c (create_user_ns): c becomes root in it,
 * with every capability. */
static int user_ns_create(struct task *t, struct creds *c, struct user_ns **out)
{
	struct user_ns *parent = (struct user_ns *)c->user_ns, *u;
	struct path root;
	bool chrooted;

	if (level_of(parent) >= USERNS_MAX_LEVEL)
		return -EUSERS;
	/* The creator's ids must have names in the parent namespace. */
	if ((parent && (from_k(parent, c->euid, false) < 0 || from_k(parent, c->egid, true) < 0)))
		return -EPERM;
	/* Not from a chroot: that would escape it (current_chrooted). */
	fs_get_root(t->fs, &root);
	{
		struct mnt_namespace *mnt = task_ns(t)->mnt;
		chrooted = root.mnt != mnt->root || root.dentry != mnt->root->root;
	}
	path_put(&root);
	if (chrooted)
		return -EPERM;
	if (__atomic_add_fetch(&t->k->nr_user_ns, 1, __ATOMIC_RELAXED) > MAX_USER_NS) {
		__atomic_sub_fetch(&t->k->nr_user_ns, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	u = xzalloc(sizeof(*u));
	u->refs = 1;
	u->parent = user_ns_get(parent);
	u->level = level_of(parent) + 1;
	u->owner = c->euid;
	u->group = c->egid;
	u->ino = new_ino();
	c->user_ns = u;
	c->securebits = 0;
	c->cap_inheritable = 0;
	c->cap_ambient = 0;
	c->cap_permitted = c->cap_effective = c->cap_bounding = CAP_ALL_MASK;
	*out = u;
	return 0;
}

/* A copy of n (a reference on each of its namespaces). */
static struct nsproxy *nsproxy_dup(const struct nsproxy *n)
{
	struct nsproxy *c = xzalloc(sizeof(*c));

	c->refs = 1;
	c->user = user_ns_get(n->user);
	c->mnt = mntns_get(n->mnt);
	c->uts = uts_get(n->uts);
	c->ipc = simple_get(n->ipc);
	c->net = simple_get(n->net);
	c->cgroup = simple_get(n->cgroup);
	c->pid = pidns_get(n->pid);
	c->pid_children = pidns_get(n->pid_children);
	return c;
}

/*
 * The namespaces flags ask for, into n (a private copy), for creds c
 * (already in n->user when it is new); paths are moved into a new mount
 * namespace. The caller has checked the flags.
 */
static int make_namespaces(struct task *t, uint64_t flags, struct nsproxy *n, const struct creds *c,
			   struct path **paths, size_t npaths)
{
	struct user_ns *owner = n->user;

	if ((flags & (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID |
		      CLONE_NEWCGROUP)) &&
	    !creds_ns_capable(c, owner, KCAP_SYS_ADMIN))
		return -EPERM;
	if (flags & CLONE_NEWNS) {
		struct mnt_namespace *m = mntns_copy(n->mnt, paths, npaths, owner != n->mnt->owner);
		m->ino = new_ino();
		m->owner = user_ns_get(owner);
		mntns_put(n->mnt);
		n->mnt = m;
	}
	if (flags & CLONE_NEWUTS) {
		struct uts_ns *u = xzalloc(sizeof(*u));
		u->refs = 1;
		u->ino = new_ino();
		u->owner = user_ns_get(owner);
		pthread_mutex_lock(&t->k->lock);
		memcpy(u->own_hostname, n->uts->hostname, sizeof(u->own_hostname));
		memcpy(u->own_domainname, n->uts->domainname, sizeof(u->own_domainname));
		pthread_mutex_unlock(&t->k->lock);
		u->hostname = u->own_hostname;
		u->domainname = u->own_domainname;
		uts_put(n->uts);
		n->uts = u;
	}
	if (flags & CLONE_NEWIPC) {
		simple_put(n->ipc);
		n->ipc = simple_new(0, owner);
	}
	if (flags & CLONE_NEWNET) {
		simple_put(n->net);
		n->net = simple_new(0, owner);
	}
	if (flags & CLONE_NEWCGROUP) {
		simple_put(n->cgroup);
		n->cgroup = simple_new(0, owner);
	}
	if (flags & CLONE_NEWPID) {
		struct pid_ns *p;
		if (pidns_level(n->pid_children) >= PIDNS_MAX_LEVEL)
			return -ENOSPC;
		p = pidns_new(new_ino(), n->pid_children, owner);
		pidns_put(n->pid_children);
		n->pid_children = p;
	}
	return 0;
}

#define NS_CLONE_FLAGS                                                                             \
	(CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID | \
	 CLONE_NEWCGROUP)

int nsproxy_for_clone(struct task *t, uint64_t flags, struct creds *c, struct nsproxy **out)
{
	struct nsproxy *cur = task_ns(t), *n;
	struct user_ns *u = NULL;
	int ret;

	*out = NULL;
	/* The child is in the parent's pid_for_children namespace. */
	if (!(flags & NS_CLONE_FLAGS)) {
		if (cur->pid == cur->pid_children) {
			*out = t->nsproxy ? nsproxy_get(t->nsproxy) : NULL;
			return 0;
		}
	}
	n = nsproxy_dup(cur);
	pidns_put(n->pid);
	n->pid = pidns_get(n->pid_children);
	if (flags & CLONE_NEWUSER) {
		ret = user_ns_create(t, c, &u);
		if (ret < 0) {
			nsproxy_put(n);
			return ret;
		}
		user_ns_put(n->user);
		n->user = u;
	}
	/* The new mount namespace's paths are moved by the caller
	 * (nsproxy_clone_fs) once the child has its fs. */
	ret = make_namespaces(t, flags & ~CLONE_NEWNS, n, c, NULL, 0);
	if (ret == 0 && (flags & CLONE_NEWNS)) {
		if (!creds_ns_capable(c, n->user, KCAP_SYS_ADMIN))
			ret = -EPERM;
	}
	if (ret == 0 && (flags & CLONE_NEWPID)) {
		/* The child is the new namespace's first process. */
		pidns_put(n->pid);
		n->pid = pidns_get(n->pid_children);
	}
	if (ret < 0) {
		nsproxy_put(n);
		return ret;
	}
	*out = n;
	return 0;
}

void nsproxy_clone_mnt(struct task *child, struct nsproxy *n)
{
	struct path root, cwd, *paths[2] = {&root, &cwd};
	struct mnt_namespace *m;

	fs_get_root(child->fs, &root);
	fs_get_cwd(child->fs, &cwd);
	m = mntns_copy(n->mnt, paths, 2, n->user != n->mnt->owner);
	m->ino = new_ino();
	m->owner = user_ns_get(n->user);
	mntns_put(n->mnt);
	n->mnt = m;
	fs_set_root(child->fs, &root);
	fs_set_cwd(child->fs, &cwd);
	path_put(&root);
	path_put(&cwd);
}

/* Install n as t's namespaces, with creds c first when they change (a new
 * user namespace), so that they never name a freed one. */
static void task_set_nsproxy(struct task *t, struct nsproxy *n, const struct creds *c)
{
	struct nsproxy *old;

	if (c)
		task_commit_creds(t, c);
	pthread_mutex_lock(&t->k->lock);
	old = t->nsproxy;
	t->nsproxy = n;
	pthread_mutex_unlock(&t->k->lock);
	nsproxy_put(old);
}

int nsproxy_unshare(struct task *t, uint64_t flags)
{
	struct nsproxy *n;
	struct creds c = t->creds;
	struct user_ns *u = NULL;
	int ret;

	if (flags & CLONE_NEWUSER) {
		ret = user_ns_create(t, &c, &u);
		if (ret < 0)
			return ret;
	}
	n = nsproxy_dup(task_ns(t));
	if (u) {
		user_ns_put(n->user);
		n->user = u;
	}
	if (flags & CLONE_NEWNS) {
		/* t's fs is its own here (the caller unshared it). */
		struct path root, cwd, *paths[2] = {&root, &cwd};

		fs_get_root(t->fs, &root);
		fs_get_cwd(t->fs, &cwd);
		ret = make_namespaces(t, flags, n, &c, paths, 2);
		if (ret == 0) {
			fs_set_root(t->fs, &root);
			fs_set_cwd(t->fs, &cwd);
		}
		path_put(&root);
		path_put(&cwd);
	} else {
		ret = make_namespaces(t, flags, n, &c, NULL, 0);
	}
	if (ret < 0) {
		nsproxy_put(n);
		return ret;
	}
	task_set_nsproxy(t, n, u ? &c : NULL);
	return 0;
}

/* --- /proc/PID/{uid_map,gid_map,setgroups} --------------------------------------------- */

/* The user namespace of t (no reference). */
static struct user_ns *task_user_ns(struct task *t)
{
	return (struct user_ns *)t->creds.user_ns;
}

void userns_show_map(struct task *reader, struct task *t, bool gid, struct strbuf *o)
{
	struct user_ns *ns = task_user_ns(t), *seer = task_user_ns(reader);
	const struct id_map *m;

	if (!ns) {
		/* The initial namespace: the identity over every id. */
		strbuf_printf(o, "%10u %10u %10u\n", 0u, 0u, 4294967295u);
		return;
	}
	m = gid ? &ns->gid_map : &ns->uid_map;
	pthread_mutex_lock(&t->k->lock);
	for (unsigned i = 0; i < m->nr; i++) {
		/* The lower ids as the reader's namespace names them: from the
		 * parent's ids through the reader's (Linux's map_id_up in the
		 * opener's namespace when it is not the parent). */
		int64_t lower = m->e[i].lower_first;
		if (seer != ns->parent) {
			int64_t k = ns->parent ? make_k(ns->parent, (uint32_t)lower, gid) : lower;
			lower = k < 0 ? -1 : (seer ? from_k(seer, (uint32_t)k, gid) : k);
			if (lower < 0)
				continue;
		}
		strbuf_printf(o, "%10u %10u %10u\n", m->e[i].first, (unsigned)lower, m->e[i].count);
	}
	pthread_mutex_unlock(&t->k->lock);
}

/* Parse "first lower count" lines (Linux's map_write). */
static int parse_map(const char *buf, size_t len, struct id_map *m)
{
	char text[4096];
	char *line, *save = NULL;

	if (len >= sizeof(text))
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	/* Linux wants the last line to end in a newline, or only one write. */
	m->nr = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long first, lower, count;
		char end;
		if (sscanf(line, " %llu %llu %llu %c", &first, &lower, &count, &end) != 3)
			return -EINVAL;
		if (count == 0 || first > UINT32_MAX || lower > UINT32_MAX || count > UINT32_MAX ||
		    first + count - 1 > UINT32_MAX - 1 || lower + count - 1 > UINT32_MAX - 1)
			return -EINVAL;
		if (m->nr == UID_MAP_EXTENTS)
			return -EINVAL;
		/* No two extents may overlap on either side. */
		for (unsigned i = 0; i < m->nr; i++) {
			const struct id_extent *e = &m->e[i];
			if ((first < (uint64_t)e->first + e->count && e->first < first + count) ||
			    (lower < (uint64_t)e->lower_first + e->count &&
			     e->lower_first < lower + count))
				return -EINVAL;
		}
		m->e[m->nr++] =
			(struct id_extent){(uint32_t)first, (uint32_t)lower, (uint32_t)count};
	}
	return m->nr ? 0 : -EINVAL;
}

long userns_write_map(struct task *writer, struct task *t, bool gid, const char *buf, size_t len)
{
	struct user_ns *ns = task_user_ns(t);
	struct id_map *m, parsed;
	const struct creds *c = &writer->creds;
	bool privileged;
	int ret;

	if (!ns)
		return -EPERM; /* the initial namespace's map is fixed */
	ret = parse_map(buf, len, &parsed);
	if (ret < 0)
		return ret;
	/* The writer must be in ns or its parent, with CAP_SETUID/SETGID
	 * over ns (Linux's new_idmap_permitted). */
	if (c->user_ns != ns && c->user_ns != ns->parent)
		return -EPERM;
	privileged = creds_ns_capable(c, ns->parent, gid ? KCAP_SETGID : KCAP_SETUID) &&
		     creds_own_capable(c, gid ? KCAP_SETGID : KCAP_SETUID);
	if (!creds_ns_capable(c, ns, gid ? KCAP_SETGID : KCAP_SETUID))
		return -EPERM;
	if (!privileged) {
		/* One id: the owner's own (a gid map only once setgroups is denied). */
		int64_t own = gid ? (ns->parent ? from_k(ns->parent, ns->group, true) : ns->group)
				  : (ns->parent ? from_k(ns->parent, ns->owner, false) : ns->owner);
		if (parsed.nr != 1 || parsed.e[0].count != 1 || own < 0 ||
		    parsed.e[0].lower_first != (uint32_t)own)
			return -EPERM;
		if (gid && !ns->setgroups_denied)
			return -EPERM;
	} else {
		/* Every lower id must have a name in the parent's parent. */
		for (unsigned i = 0; i < parsed.nr; i++)
			if (ns->parent &&
			    (make_k(ns->parent, parsed.e[i].lower_first, gid) < 0 ||
			     make_k(ns->parent, parsed.e[i].lower_first + parsed.e[i].count - 1,
				    gid) < 0))
				return -EPERM;
	}
	pthread_mutex_lock(&t->k->lock);
	m = gid ? &ns->gid_map : &ns->uid_map;
	if (m->nr) {
		pthread_mutex_unlock(&t->k->lock);
		return -EPERM; /* written once */
	}
	*m = parsed;
	pthread_mutex_unlock(&t->k->lock);
	return (long)len;
}

void userns_show_setgroups(struct task *t, struct strbuf *o)
{
	struct user_ns *ns = task_user_ns(t);

	strbuf_printf(o, "%s\n", ns && ns->setgroups_denied ? "deny" : "allow");
}

long userns_write_setgroups(struct task *writer, struct task *t, const char *buf, size_t len)
{
	struct user_ns *ns = task_user_ns(t);
	char word[8] = {0};
	bool deny;

	memcpy(word, buf, MIN(len, sizeof(word) - 1));
	if (strncmp(word, "allow", 5) == 0 && (word[5] == '\0' || word[5] == '\n'))
		deny = false;
	else if (strncmp(word, "deny", 4) == 0 && (word[4] == '\0' || word[4] == '\n'))
		deny = true;
	else
		return -EINVAL;
	if (!ns || !creds_ns_capable(&writer->creds, ns, KCAP_SYS_ADMIN))
		return -EPERM;
	pthread_mutex_lock(&t->k->lock);
	/* Once the gid map is written, setgroups can no longer change;
	 * allowing again after a deny is EPERM. */
	if (ns->gid_map.nr || (!deny && ns->setgroups_denied)) {
		pthread_mutex_unlock(&t->k->lock);
		return -EPERM;
	}
	ns->setgroups_denied = deny;
	pthread_mutex_unlock(&t->k->lock);
	return (long)len;
}

bool creds_may_setgroups(const struct creds *c)
{
	const struct user_ns *ns = c->user_ns;

	for (; ns; ns = ns->parent)
		if (ns->setgroups_denied || !ns->gid_map.nr)
			return false;
	return true;
}

/* --- /proc/PID/ns and setns ------------------------------------------------------------ */

static uint64_t ns_ino_locked(struct task *t, struct nsproxy *n, const char *name)
{
	if (strcmp(name, "user") == 0)
		return t->creds.user_ns ? t->creds.user_ns->ino : INO_USER;
	if (strcmp(name, "mnt") == 0)
		return n->mnt->ino;
	if (strcmp(name, "uts") == 0)
		return n->uts->ino;
	if (strcmp(name, "ipc") == 0)
		return n->ipc->ino;
	if (strcmp(name, "net") == 0)
		return n->net->ino;
	if (strcmp(name, "cgroup") == 0)
		return n->cgroup->ino;
	if (strcmp(name, "pid") == 0)
		return n->pid->ino;
	if (strcmp(name, "pid_for_children") == 0)
		return n->pid_children->ino;
	if (strcmp(name, "time") == 0 || strcmp(name, "time_for_children") == 0)
		return INO_TIME;
	return 0;
}

uint64_t task_ns_ino(struct task *t, const char *name)
{
	struct nsproxy *init = kernel_nsproxy(t->k);
	uint64_t ino;

	pthread_mutex_lock(&t->k->lock);
	ino = ns_ino_locked(t, t->nsproxy ? t->nsproxy : init, name);
	pthread_mutex_unlock(&t->k->lock);
	return ino;
}

struct nsproxy *task_ns_get(struct task *t)
{
	struct nsproxy *init = kernel_nsproxy(t->k), *n;

	pthread_mutex_lock(&t->k->lock);
	n = nsproxy_get(t->nsproxy ? t->nsproxy : init);
	pthread_mutex_unlock(&t->k->lock);
	return n;
}

/* --- references to one namespace, setns ------------------------------------------------- */

static const struct {
	const char *name;
	int type;
} ns_types[] = {
	{"cgroup", CLONE_NEWCGROUP},
	{"ipc", CLONE_NEWIPC},
	{"mnt", CLONE_NEWNS},
	{"net", CLONE_NEWNET},
	{"pid", CLONE_NEWPID},
	{"pid_for_children", CLONE_NEWPID},
	{"user", CLONE_NEWUSER},
	{"uts", CLONE_NEWUTS},
	/* The sandbox's one time namespace: nothing to hold. */
	{"time", CLONE_NEWTIME},
	{"time_for_children", CLONE_NEWTIME},
};

int task_ns_ref(struct task *t, const char *name, struct ns_ref *out)
{
	struct nsproxy *init = kernel_nsproxy(t->k), *n;
	int type = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ns_types); i++)
		if (strcmp(ns_types[i].name, name) == 0)
			type = ns_types[i].type;
	if (!type)
		return -ENOENT;
	pthread_mutex_lock(&t->k->lock);
	n = t->nsproxy ? t->nsproxy : init;
	out->type = type;
	out->ino = ns_ino_locked(t, n, name);
	switch (type) {
	case CLONE_NEWUSER:
		/* NULL: the initial one (never freed). */
		out->ns = user_ns_get((struct user_ns *)t->creds.user_ns);
		break;
	case CLONE_NEWNS:
		out->ns = mntns_get(n->mnt);
		break;
	case CLONE_NEWUTS:
		out->ns = uts_get(n->uts);
		break;
	case CLONE_NEWPID:
		out->ns = pidns_get(strcmp(name, "pid") == 0 ? n->pid : n->pid_children);
		break;
	case CLONE_NEWTIME:
		out->ns = NULL;
		break;
	default:
		out->ns = simple_get(type == CLONE_NEWIPC   ? n->ipc
				     : type == CLONE_NEWNET ? n->net
							    : n->cgroup);
		break;
	}
	pthread_mutex_unlock(&t->k->lock);
	return 0;
}

void ns_ref_put(struct ns_ref *r)
{
	switch (r->type) {
	case CLONE_NEWUSER:
		user_ns_put(r->ns);
		break;
	case CLONE_NEWNS:
		mntns_put(r->ns);
		break;
	case CLONE_NEWUTS:
		uts_put(r->ns);
		break;
	case CLONE_NEWPID:
		pidns_put(r->ns);
		break;
	case CLONE_NEWTIME:
		break;
	default:
		simple_put(r->ns);
		break;
	}
	r->ns = NULL;
}

/* The user namespace that owns r's namespace (NULL: the initial one). */
static struct user_ns *ref_owner(const struct ns_ref *r)
{
	switch (r->type) {
	case CLONE_NEWUSER:
		return r->ns;
	case CLONE_NEWNS:
		return ((struct mnt_namespace *)r->ns)->owner;
	case CLONE_NEWUTS:
		return ((struct uts_ns *)r->ns)->owner;
	case CLONE_NEWPID:
		return ((struct pid_ns *)r->ns)->owner;
	case CLONE_NEWTIME:
		return NULL;
	default:
		return ((struct simple_ns *)r->ns)->owner;
	}
}

/* setns into a user namespace (userns_install): t becomes root with every
 * capability in it, as on entering it by clone. */
static int setns_user(struct task *t, struct user_ns *u, struct creds *c)
{
	if (u == c->user_ns)
		return -EINVAL; /* already there */
	if (__atomic_load_n(&t->tg->nr_threads, __ATOMIC_ACQUIRE) > 1 ||
	    __atomic_load_n(&t->fs->refs, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	if (!creds_ns_capable(c, u, KCAP_SYS_ADMIN))
		return -EPERM;
	c->user_ns = u;
	c->cap_permitted = c->cap_effective = c->cap_bounding = CAP_ALL_MASK;
	c->cap_inheritable = c->cap_ambient = 0;
	return 0;
}

int nsproxy_setns(struct task *t, const struct ns_ref *r, int nstype)
{
	struct creds c = t->creds;
	struct nsproxy *n;
	int ret;

	if (nstype && nstype != r->type)
		return -EINVAL;
	if (r->type == CLONE_NEWUSER) {
		ret = setns_user(t, r->ns, &c);
		if (ret < 0)
			return ret;
		n = nsproxy_dup(task_ns(t));
		user_ns_put(n->user);
		n->user = user_ns_get(r->ns);
		task_set_nsproxy(t, n, &c);
		return 0;
	}
	/* CAP_SYS_ADMIN over the namespace, and in the caller's own. */
	if (!creds_ns_capable(&c, ref_owner(r), KCAP_SYS_ADMIN) ||
	    !creds_own_capable(&c, KCAP_SYS_ADMIN))
		return -EPERM;
	if (r->type == CLONE_NEWNS) {
		struct mnt_namespace *m = r->ns;
		struct path root;
		if (!creds_own_capable(&c, KCAP_SYS_CHROOT))
			return -EPERM;
		if (__atomic_load_n(&t->fs->refs, __ATOMIC_ACQUIRE) > 1)
			return -EINVAL; /* the fs is shared with another task */
		n = nsproxy_dup(task_ns(t));
		mntns_put(n->mnt);
		n->mnt = mntns_get(m);
		/* Root and cwd go to the namespace's root (mntns_install). */
		mntns_root(m, &root);
		fs_set_root(t->fs, &root);
		fs_set_cwd(t->fs, &root);
		path_put(&root);
		task_set_nsproxy(t, n, NULL);
		return 0;
	}
	if (r->type == CLONE_NEWTIME)
		return 0; /* the one time namespace: already there */
	if (r->type == CLONE_NEWPID) {
		/* Only into the caller's own namespace or one under it. */
		struct pid_ns *p = r->ns, *own = task_ns(t)->pid;
		if (!pidns_within(pidns_level(p) ? p : NULL, pidns_level(own) ? own : NULL))
			return -EINVAL;
	}
	n = nsproxy_dup(task_ns(t));
	switch (r->type) {
	case CLONE_NEWUTS:
		uts_put(n->uts);
		n->uts = uts_get(r->ns);
		break;
	case CLONE_NEWPID:
		pidns_put(n->pid_children);
		n->pid_children = pidns_get(r->ns);
		break;
	case CLONE_NEWIPC:
		simple_put(n->ipc);
		n->ipc = simple_get(r->ns);
		break;
	case CLONE_NEWNET:
		simple_put(n->net);
		n->net = simple_get(r->ns);
		break;
	default:
		simple_put(n->cgroup);
		n->cgroup = simple_get(r->ns);
		break;
	}
	task_set_nsproxy(t, n, NULL);
	return 0;
}
