/*
 * set_mempolicy, get_mempolicy, mbind, set_mempolicy_home_node,
 * migrate_pages: NUMA memory policy on a machine with one node, node 0,
 * with Linux's argument checks (mm/mempolicy.c). The task's policy is kept
 * (and inherited by clone); mbind checks its range and policy but stores
 * nothing per mapping, so get_mempolicy(MPOL_F_ADDR) always reports
 * MPOL_DEFAULT and set_mempolicy_home_node finds no policy to change.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/creds.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#define MPOL_DEFAULT	    0
#define MPOL_PREFERRED	    1
#define MPOL_BIND	    2
#define MPOL_INTERLEAVE	    3
#define MPOL_LOCAL	    4
#define MPOL_PREFERRED_MANY 5
#define MPOL_MAX	    6

#define MPOL_F_STATIC_NODES   (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_MODE_FLAGS	      (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING)

#define MPOL_F_NODE	    (1 << 0)
#define MPOL_F_ADDR	    (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)

#define MPOL_MF_STRICT	 (1 << 0)
#define MPOL_MF_MOVE	 (1 << 1)
#define MPOL_MF_MOVE_ALL (1 << 2)
#define MPOL_MF_VALID	 (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)

/* Linux's MAX_NUMNODES (CONFIG_NODES_SHIFT=10) and get_nodes' limit. */
#define MAX_NUMNODES  1024
#define MAX_MASK_BITS (PAGE_SIZE * 8)

/* A node mask from the guest, as get_nodes reads it: only its first word
 * is kept (the one node, and what get_mempolicy gives back for the
 * STATIC and RELATIVE flags), and whether any node at all is in it. */
struct nodes {
	uint64_t word0;
	bool any;
};

static int get_nodes(struct task *t, struct nodes *n, uint64_t mask, uint64_t maxnode)
{
	uint64_t buf[MAX_MASK_BITS / 64];
	size_t nlongs, i;

	memset(n, 0, sizeof(*n));
	maxnode--; /* (Linux's historical off-by-one: maxnode counts one more) */
	if (maxnode == 0 || !mask)
		return 0;
	if (maxnode > MAX_MASK_BITS)
		return -EINVAL;
	nlongs = (maxnode + 63) / 64;
	if (mm_copy_in(t->mm, buf, mask, nlongs * 8))
		return -EFAULT;
	if (maxnode % 64)
		buf[nlongs - 1] &= (1ull << (maxnode % 64)) - 1;
	/* Nodes past MAX_NUMNODES must be absent. */
	for (i = MAX_NUMNODES / 64; i < nlongs; i++)
		if (buf[i])
			return -EINVAL;
	n->word0 = buf[0];
	for (i = 0; i < nlongs && i < MAX_NUMNODES / 64; i++)
		n->any |= buf[i] != 0;
	return 0;
}

/* sanitize_mpol_flags: split the mode argument into mode and flags. */
static int split_mode(uint64_t arg, int *mode, unsigned *flags)
{
	int m = (int)arg;

	*flags = m & MPOL_MODE_FLAGS;
	*mode = m & ~MPOL_MODE_FLAGS;
	if ((unsigned)*mode >= MPOL_MAX)
		return -EINVAL;
	if ((*flags & MPOL_F_STATIC_NODES) && (*flags & MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	if ((*flags & MPOL_F_NUMA_BALANCING) && *mode != MPOL_BIND)
		return -EINVAL;
	return 0;
}

/* mpol_new's checks: *mode may become MPOL_LOCAL (PREFERRED, no nodes). */
static int check_policy(int *mode, unsigned flags, const struct nodes *n)
{
	bool placed = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);

	if (*mode == MPOL_DEFAULT)
		return n->any ? -EINVAL : 0;
	if (*mode == MPOL_PREFERRED && !n->any) {
		if (placed)
			return -EINVAL;
		*mode = MPOL_LOCAL;
	} else if (*mode == MPOL_LOCAL) {
		if (n->any || placed)
			return -EINVAL;
	} else if (!n->any) {
		return -EINVAL;
	}
	return 0;
}

/* mpol_set_nodemask: the nodes the policy ends up with, within the
 * allowed {0}; a policy that needs nodes and gets none is EINVAL. A
 * relative mask folds onto node 0 whatever it names. */
static int placed_nodes(int mode, unsigned flags, const struct nodes *n, uint64_t *out)
{
	*out = 0;
	if (mode == MPOL_DEFAULT || mode == MPOL_LOCAL)
		return 0;
	*out = (flags & MPOL_F_RELATIVE_NODES) ? n->any : (n->word0 & 1);
	return *out ? 0 : -EINVAL;
}

SYSCALL(set_mempolicy)
{
	struct nodes n;
	unsigned flags;
	uint64_t nodes;
	int mode, ret;

	ret = split_mode(a->a[0], &mode, &flags);
	if (!ret)
		ret = get_nodes(t, &n, a->a[1], a->a[2]);
	if (!ret)
		ret = check_policy(&mode, flags, &n);
	if (!ret)
		ret = placed_nodes(mode, flags, &n, &nodes);
	if (ret)
		return ret;
	t->mempolicy.mode = mode;
	t->mempolicy.flags = mode == MPOL_DEFAULT ? 0 : flags;
	/* What get_mempolicy reports: the caller's own mask with the
	 * STATIC/RELATIVE flags, else the nodes in use. */
	t->mempolicy.nodes =
		(flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) ? n.word0 : nodes;
	return 0;
}

/* copy_nodes_to_user with nr_node_ids 1: one word, the rest zeroed. */
static int put_nodes(struct task *t, uint64_t mask, uint64_t maxnode, uint64_t nodes)
{
	uint64_t copy = ALIGN_UP(maxnode - 1, 64) / 8;

	if (copy > 8) {
		if (copy > PAGE_SIZE)
			return -EINVAL;
		if (mm_zero_out(t->mm, mask + 8, copy - 8))
			return -EFAULT;
		copy = 8;
	}
	return copy && mm_copy_out(t->mm, mask, &nodes, copy) ? -EFAULT : 0;
}

SYSCALL(get_mempolicy)
{
	uint64_t upolicy = a->a[0], mask = a->a[1], maxnode = a->a[2], addr = a->a[3];
	uint64_t flags = a->a[4], nodes = 0;
	int policy = 0;

	if (mask && maxnode < 1)
		return -EINVAL;
	if (flags & ~(uint64_t)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		nodes = 1;
	} else if (flags & MPOL_F_ADDR) {
		bool mapped;

		pthread_rwlock_rdlock(&t->mm->lock);
		mapped = mm_find_vma(t->mm, addr) != NULL;
		pthread_rwlock_unlock(&t->mm->lock);
		if (!mapped)
			return -EFAULT;
		/* No policy is stored per mapping: MPOL_DEFAULT, no nodes; the
		 * page's node (MPOL_F_NODE) is the only one. */
		policy = (flags & MPOL_F_NODE) ? 0 : MPOL_DEFAULT;
	} else if (addr) {
		return -EINVAL;
	} else if (flags & MPOL_F_NODE) {
		if (t->mempolicy.mode != MPOL_INTERLEAVE)
			return -EINVAL;
		policy = 0; /* the next interleave node */
		nodes = t->mempolicy.nodes;
	} else {
		policy = (int)(t->mempolicy.mode | t->mempolicy.flags);
		nodes = t->mempolicy.nodes;
	}
	if (upolicy && mm_copy_out(t->mm, upolicy, &policy, sizeof(policy)))
		return -EFAULT;
	return mask ? put_nodes(t, mask, maxnode, nodes) : 0;
}

/* queue_pages_range's hole check over [start, end): -EFAULT when no
 * mapping is in it, or (unless discontig_ok) when part of it is a hole. */
static int check_range(struct mm *mm, uint64_t start, uint64_t end, bool discontig_ok)
{
	uint64_t pos = start;
	struct vma *v;
	int ret = 0;

	pthread_rwlock_rdlock(&mm->lock);
	v = mm_find_vma_after(mm, start);
	if (!v || v->start >= end) {
		ret = -EFAULT;
		goto out;
	}
	while (!discontig_ok && pos < end) {
		if (!v || v->start > pos) {
			ret = -EFAULT;
			break;
		}
		pos = v->end;
		v = pos < end ? mm_find_vma_after(mm, pos) : NULL;
	}
out:
	pthread_rwlock_unlock(&mm->lock);
	return ret;
}

SYSCALL(mbind)
{
	uint64_t start = a->a[0], len = a->a[1], end;
	unsigned mflags = (unsigned)a->a[5];
	struct nodes n;
	uint64_t nodes;
	unsigned flags;
	int mode, ret;

	ret = split_mode(a->a[2], &mode, &flags);
	if (!ret)
		ret = get_nodes(t, &n, a->a[3], a->a[4]);
	if (ret)
		return ret;
	if (mflags & ~(unsigned)MPOL_MF_VALID)
		return -EINVAL;
	if ((mflags & MPOL_MF_MOVE_ALL) && !creds_capable(&t->creds, KCAP_SYS_NICE))
		return -EPERM;
	if (!IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	ret = check_policy(&mode, flags, &n);
	if (!ret)
		ret = placed_nodes(mode, flags, &n, &nodes);
	if (ret)
		return ret;
	/* Every page is on node 0 already: nothing to move, nothing for
	 * MPOL_MF_STRICT to report. The policy itself is not kept. */
	return check_range(t->mm, start, end, mode == MPOL_DEFAULT);
}

SYSCALL(set_mempolicy_home_node)
{
	uint64_t start = a->a[0], len = a->a[1], end;

	if (!IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	if (a->a[3])
		return -EINVAL;
	if (a->a[2] != 0) /* the one node online */
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	/* Linux changes only mappings with a policy of their own (and starts
	 * from -ENOENT); here no mapping has one. */
	return -ENOENT;
}

SYSCALL(migrate_pages)
{
	struct nodes from, to;
	int pid = (int)a->a[0], ret;
	struct task *p;

	ret = get_nodes(t, &from, a->a[2], a->a[1]);
	if (!ret)
		ret = get_nodes(t, &to, a->a[3], a->a[1]);
	if (ret)
		return ret;
	p = pid ? kernel_find_task(t->k, pidns_global(t->k, t->pidns, pid)) : t;
	if (!p)
		return -ESRCH;
	/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS) */
	if (p->tg != t->tg && !creds_may_attach(&t->creds, &p->creds, p->dumpable))
		ret = -EPERM;
	/* Target nodes outside {0} need CAP_SYS_NICE. */
	else if ((to.word0 & ~1ull || to.any != (to.word0 != 0)) &&
		 !creds_capable(&t->creds, KCAP_SYS_NICE))
		ret = -EPERM;
	/* What is left of the target nodes within {0}: none is EINVAL. */
	else if (!(to.word0 & 1))
		ret = -EINVAL;
	if (p != t)
		task_put(p);
	/* Every page is on the one node: none is left unmoved. */
	return ret;
}

/* What move_pages reports for the page at addr of mm: node 0 when it is
 * in memory, -ENOENT when its mapping has not touched it, -EFAULT when
 * nothing maps it (Linux's do_pages_stat_array). */
static int page_status(struct mm *mm, uint64_t addr)
{
	unsigned char vec = 0;

	if (mm_mincore(mm, addr & PAGE_MASK, 1, &vec) < 0)
		return -EFAULT;
	return (vec & 1) ? 0 : -ENOENT;
}

/* The address space move_pages looks at (a reference): the caller's for
 * pid 0, else one it may read as ptrace would. */
static long move_pages_mm(struct task *t, int pid, struct mm **out)
{
	struct task *p;
	long ret = 0;

	if (!pid) {
		*out = mm_get(t->mm);
		return 0;
	}
	pthread_mutex_lock(&t->k->lock);
	p = pid > 0 ? kernel_find_task_locked(t->k, pid) : NULL;
	if (!p)
		ret = -ESRCH;
	else if (p->tg != t->tg && !creds_may_attach(&t->creds, &p->creds, p->dumpable))
		ret = -EPERM;
	else if (!p->mm)
		ret = -EINVAL;
	else
		*out = mm_get(p->mm);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

/* move_pages: with one node, a move to node 0 finds every page there
 * already (its status is 0, or the page's error); any other node is
 * -ENODEV for the whole call, as a node without memory (mm/migrate.c). */
SYSCALL(move_pages)
{
	uint64_t nr = a->a[1], upages = a->a[2], unodes = a->a[3], ustatus = a->a[4];
	int flags = (int)a->a[5];
	struct mm *mm = NULL;
	long ret;

	if (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !creds_capable(&t->creds, KCAP_SYS_NICE))
		return -EPERM;
	ret = move_pages_mm(t, (int)a->a[0], &mm);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t addr;
		int node, status;
		if (mm_copy_in(t->mm, &addr, upages + i * 8, sizeof(addr)) < 0) {
			ret = -EFAULT;
			break;
		}
		if (unodes) {
			if (mm_copy_in(t->mm, &node, unodes + i * 4, sizeof(node)) < 0) {
				ret = -EFAULT;
				break;
			}
			if (node != 0) {
				ret = -ENODEV;
				break;
			}
		}
		status = page_status(mm, addr);
		if (mm_copy_out(t->mm, ustatus + i * 4, &status, sizeof(status)) < 0) {
			ret = -EFAULT;
			break;
		}
	}
	mm_put(mm);
	return ret;
}
