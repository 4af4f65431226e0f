/*
 * NUMA memory policy on a machine with one node (node 0): set_mempolicy and
 * get_mempolicy round trips, Linux's node-mask and mode checks, mbind's
 * range checks, migrate_pages and set_mempolicy_home_node's answers.
 */
#include "guest.h"

#include <sys/wait.h>

#define MPOL_DEFAULT	      0
#define MPOL_PREFERRED	      1
#define MPOL_BIND	      2
#define MPOL_INTERLEAVE	      3
#define MPOL_LOCAL	      4
#define MPOL_PREFERRED_MANY   5
#define MPOL_F_STATIC_NODES   (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NODE	      1
#define MPOL_F_ADDR	      2
#define MPOL_F_MEMS_ALLOWED   4
#define MPOL_MF_STRICT	      1
#define MPOL_MF_MOVE	      2

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif

static long set_pol(int mode, unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long get_pol(int *mode, unsigned long *mask, unsigned long maxnode, void *addr,
		    unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

/* The task's policy: "mode flags mask" as get_mempolicy reports it. */
static void show(const char *what)
{
	unsigned long mask[2] = {~0ul, ~0ul};
	int mode = -1;
	long r = get_pol(&mode, mask, 128, NULL, 0);

	printf("%s: get_mempolicy %ld mode %d flags %#x nodes %#lx %#lx\n", what, r, mode & 0xff,
	       mode & ~0xff, mask[0], mask[1]);
	fflush(stdout);
}

int main(void)
{
	unsigned long n0 = 1, n01 = 3, n1 = 2, none = 0, big[8] = {1};
	unsigned long mask[2];
	char *p;
	int mode, status;
	pid_t pid;

	if (access("/sys/devices/system/node/node1", F_OK) == 0) {
		printf("SKIP: more than one NUMA node\n");
		return 77;
	}
	show("start");

	/* Node masks: maxnode counts one more than the bits read. */
	CHECK_EQ(set_pol(MPOL_BIND, &n0, 2), 0, "BIND {0}");
	show("bind {0}");
	CHECK_EQ(set_pol(MPOL_INTERLEAVE, &n01, 3), 0, "INTERLEAVE {0,1}: meets node 0");
	show("interleave {0,1}");
	CHECK_ERRNO(set_pol(MPOL_BIND, &n1, 3), EINVAL, "BIND {1}");
	CHECK_ERRNO(set_pol(MPOL_BIND, &n0, 1), EINVAL, "BIND with maxnode 1 (no bits)");
	CHECK_ERRNO(set_pol(MPOL_BIND, NULL, 64), EINVAL, "BIND with no mask");
	CHECK_ERRNO(set_pol(MPOL_BIND, big, 4096 * 8 + 2), EINVAL, "maxnode past a page of bits");
	CHECK_EQ(set_pol(MPOL_BIND, big, 8 * 64 + 1), 0, "BIND {0} in an 8-word mask");
	CHECK_ERRNO(set_pol(MPOL_BIND, (unsigned long *)8, 65), EFAULT, "BIND, mask unreadable");
	CHECK_ERRNO(set_pol(MPOL_DEFAULT, &n0, 2), EINVAL, "DEFAULT with nodes");
	CHECK_ERRNO(set_pol(MPOL_LOCAL, &n0, 2), EINVAL, "LOCAL with nodes");
	CHECK_ERRNO(set_pol(MPOL_LOCAL | MPOL_F_STATIC_NODES, NULL, 0), EINVAL, "LOCAL, STATIC");
	CHECK_ERRNO(set_pol(6, NULL, 0), EINVAL, "mode 6");
	CHECK_ERRNO(set_pol(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, &n0, 2),
		    EINVAL, "STATIC and RELATIVE");
	CHECK_ERRNO(set_pol(MPOL_PREFERRED | MPOL_F_STATIC_NODES, &none, 2), EINVAL,
		    "PREFERRED, STATIC, no nodes");
	CHECK_EQ(set_pol(MPOL_PREFERRED, &none, 2), 0, "PREFERRED with no nodes");
	show("preferred {} (local)");
	CHECK_EQ(set_pol(MPOL_PREFERRED, &n01, 3), 0, "PREFERRED {0,1}");
	show("preferred {0,1}");
	CHECK_EQ(set_pol(MPOL_PREFERRED_MANY, &n0, 2), 0, "PREFERRED_MANY {0}");
	show("preferred_many {0}");
	CHECK_EQ(set_pol(MPOL_BIND | MPOL_F_STATIC_NODES, &n01, 3), 0, "BIND STATIC {0,1}");
	show("bind static {0,1}");
	CHECK_EQ(set_pol(MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, &n1, 3), 0,
		 "INTERLEAVE RELATIVE {1}: folds onto node 0");
	show("interleave relative {1}");
	CHECK_EQ(get_pol(&mode, NULL, 0, NULL, MPOL_F_NODE), 0, "F_NODE under INTERLEAVE");
	printf("next interleave node %d\n", mode);
	CHECK_EQ(set_pol(MPOL_LOCAL, NULL, 0), 0, "LOCAL");
	show("local");
	CHECK_ERRNO(get_pol(&mode, NULL, 0, NULL, MPOL_F_NODE), EINVAL, "F_NODE under LOCAL");

	/* Inherited by a child. */
	CHECK_EQ(set_pol(MPOL_BIND, &n0, 2), 0, "BIND {0} before fork");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		show("child");
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && status == 0, "child done");
	CHECK_EQ(set_pol(MPOL_DEFAULT, NULL, 0), 0, "back to DEFAULT");
	show("default");

	/* get_mempolicy's own checks. */
	CHECK_ERRNO(get_pol(&mode, mask, 0, NULL, 0), EINVAL, "get with maxnode 0");
	CHECK_ERRNO(get_pol(&mode, mask, 64, NULL, 8), EINVAL, "get with flag 8");
	CHECK_ERRNO(get_pol(&mode, mask, 64, (void *)4096, 0), EINVAL, "get, addr without F_ADDR");
	CHECK_ERRNO(get_pol(&mode, mask, 4096 * 8 + 66, NULL, 0), EINVAL,
		    "get, mask longer than a page");
	CHECK_ERRNO(get_pol((int *)8, NULL, 0, NULL, 0), EFAULT, "get, mode unwritable");
	CHECK_ERRNO(get_pol(&mode, NULL, 0, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE), EINVAL,
		    "MEMS_ALLOWED with F_NODE");
	mask[0] = mask[1] = ~0ul;
	CHECK_EQ(get_pol(&mode, mask, 128, NULL, MPOL_F_MEMS_ALLOWED), 0, "MEMS_ALLOWED");
	printf("mems allowed %#lx %#lx mode %d\n", mask[0], mask[1], mode);
	mask[0] = ~0ul;
	CHECK_EQ(get_pol(&mode, mask, 1, NULL, MPOL_F_MEMS_ALLOWED), 0, "MEMS_ALLOWED, maxnode 1");
	printf("maxnode 1 writes nothing: %#lx\n", mask[0]);

	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap three pages");
	p[0] = 1;
	CHECK(munmap(p + PAGE, PAGE) == 0, "punch a hole in the middle");
	mode = -1;
	CHECK_EQ(get_pol(&mode, NULL, 0, p, MPOL_F_ADDR), 0, "F_ADDR on a mapping");
	printf("mapping's policy %d\n", mode);
	CHECK_EQ(get_pol(&mode, NULL, 0, p, MPOL_F_ADDR | MPOL_F_NODE), 0, "F_ADDR|F_NODE");
	printf("page's node %d\n", mode);
	CHECK_ERRNO(get_pol(&mode, NULL, 0, p + PAGE, MPOL_F_ADDR), EFAULT, "F_ADDR on the hole");

	/* mbind: range checks; a default policy may span holes. */
	CHECK_EQ(syscall(SYS_mbind, p, PAGE, MPOL_BIND, &n0, 2, 0), 0, "mbind BIND {0}");
	CHECK_EQ(syscall(SYS_mbind, p, PAGE, MPOL_BIND, &n0, 2, MPOL_MF_STRICT | MPOL_MF_MOVE), 0,
		 "mbind BIND {0} STRICT|MOVE");
	CHECK_ERRNO(syscall(SYS_mbind, p, 3 * PAGE, MPOL_BIND, &n0, 2, 0), EFAULT,
		    "mbind BIND over the hole");
	CHECK_ERRNO(syscall(SYS_mbind, p + PAGE, PAGE, MPOL_BIND, &n0, 2, 0), EFAULT,
		    "mbind BIND on the hole alone");
	CHECK_EQ(syscall(SYS_mbind, p, 3 * PAGE, MPOL_DEFAULT, NULL, 0, 0), 0,
		 "mbind DEFAULT over the hole");
	CHECK_ERRNO(syscall(SYS_mbind, p + PAGE, PAGE, MPOL_DEFAULT, NULL, 0, 0), EFAULT,
		    "mbind DEFAULT on the hole alone");
	CHECK_ERRNO(syscall(SYS_mbind, p + 1, PAGE, MPOL_BIND, &n0, 2, 0), EINVAL,
		    "mbind unaligned");
	CHECK_ERRNO(syscall(SYS_mbind, p, -2 * PAGE, MPOL_BIND, &n0, 2, 0), EINVAL,
		    "mbind wrapping");
	CHECK_EQ(syscall(SYS_mbind, p, -1ul, MPOL_BIND, &n0, 2, 0), 0,
		 "mbind length ~0 (rounds up to 0)");
	CHECK_EQ(syscall(SYS_mbind, p + PAGE, 0, MPOL_BIND, &n1, 3, 0), 0,
		 "mbind length 0 (mask not checked)");
	CHECK_ERRNO(syscall(SYS_mbind, p, PAGE, MPOL_BIND, &n1, 3, 0), EINVAL, "mbind BIND {1}");
	CHECK_ERRNO(syscall(SYS_mbind, p, PAGE, MPOL_BIND, &n0, 2, 16), EINVAL, "mbind flag 16");
	CHECK_ERRNO(syscall(SYS_mbind, p, PAGE, MPOL_DEFAULT, &n0, 2, 0), EINVAL,
		    "mbind DEFAULT with nodes");

	/* set_mempolicy_home_node: no mapping here has a policy of its own
	 * (the mbinds above were all on p's first page; use the last). */
	CHECK_ERRNO(syscall(SYS_set_mempolicy_home_node, p + 2 * PAGE, PAGE, 0, 0), ENOENT,
		    "home_node on a mapping without a policy");
	CHECK_ERRNO(syscall(SYS_set_mempolicy_home_node, p + PAGE, PAGE, 0, 0), ENOENT,
		    "home_node on a hole");
	CHECK_ERRNO(syscall(SYS_set_mempolicy_home_node, p, PAGE, 0, 1), EINVAL, "home_node flags");
	CHECK_ERRNO(syscall(SYS_set_mempolicy_home_node, p, PAGE, 1, 0), EINVAL, "home_node 1");
	CHECK_ERRNO(syscall(SYS_set_mempolicy_home_node, p + 1, PAGE, 0, 0), EINVAL,
		    "home_node unaligned");
	CHECK_EQ(syscall(SYS_set_mempolicy_home_node, p, 0, 0, 0), 0, "home_node length 0");

	/* migrate_pages: nothing to move between the one node and itself. */
	CHECK_EQ(syscall(SYS_migrate_pages, 0, 2, &n0, &n0), 0, "migrate_pages {0} -> {0}");
	CHECK_EQ(syscall(SYS_migrate_pages, getpid(), 2, &n0, &n0), 0, "migrate_pages, own pid");
	CHECK_ERRNO(syscall(SYS_migrate_pages, 0, 2, &n0, &none), EINVAL, "migrate_pages to {}");
	CHECK_ERRNO(syscall(SYS_migrate_pages, 0, 4096 * 8 + 2, &n0, &n0), EINVAL,
		    "migrate_pages, maxnode too big");
	CHECK_ERRNO(syscall(SYS_migrate_pages, 0, 65, (void *)8, &n0), EFAULT,
		    "migrate_pages, old mask unreadable");
	return GUEST_DONE();
}
