/*
 * Guest test: capabilities. capget/capset with each header version (the
 * version probe, a bad version, NULL data, other pids), capset's subset
 * rules, what setuid does to the sets (cleared when every uid leaves 0,
 * effective following euid, the fs set following fsuid), keepcaps, the
 * bounding set and ambient capabilities. Root's own sets depend on where
 * the test runs, so only relations between them are printed.
 */
#include "guest.h"

#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define NOBODY 65534

struct caps {
	uint64_t eff, perm, inh;
};

static long capget_raw(uint32_t version, int pid, void *data)
{
	struct __user_cap_header_struct h = {.version = version, .pid = pid};

	return syscall(SYS_capget, &h, data);
}

static struct caps get_caps(void)
{
	struct __user_cap_data_struct d[2] = {0};
	struct caps c;

	capget_raw(_LINUX_CAPABILITY_VERSION_3, 0, d);
	c.eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c.perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c.inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return c;
}

static long set_caps(uint64_t eff, uint64_t perm, uint64_t inh)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2] = {
		{(uint32_t)eff, (uint32_t)perm, (uint32_t)inh},
		{(uint32_t)(eff >> 32), (uint32_t)(perm >> 32), (uint32_t)(inh >> 32)},
	};

	return syscall(SYS_capset, &h, d);
}

#define BIT(c) (1ull << (c))

static void in_child(void (*fn)(void))
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		fn();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

static void versions(void)
{
	struct __user_cap_header_struct h = {.version = 0, .pid = 0};
	struct __user_cap_data_struct d[3];
	struct caps c = get_caps();

	CHECK_EQ(syscall(SYS_capget, &h, NULL), 0, "capget probe with NULL data");
	CHECK_EQ(h.version, _LINUX_CAPABILITY_VERSION_3, "the probe reports version 3");
	h.version = 0x12345678;
	CHECK_ERRNO(syscall(SYS_capget, &h, d), EINVAL, "capget with a bad version");
	CHECK_EQ(h.version, _LINUX_CAPABILITY_VERSION_3, "which is overwritten with version 3");
	h.version = 0x12345678;
	CHECK_ERRNO(syscall(SYS_capset, &h, d), EINVAL, "capset with a bad version");
	CHECK_EQ(h.version, _LINUX_CAPABILITY_VERSION_3, "capset writes version 3 too");

	memset(d, 0xa5, sizeof(d));
	CHECK_EQ(capget_raw(_LINUX_CAPABILITY_VERSION_1, 0, d), 0, "capget version 1");
	CHECK(d[0].effective == (uint32_t)c.eff && d[0].permitted == (uint32_t)c.perm,
	      "version 1 has the low 32 capabilities");
	CHECK(d[1].effective == 0xa5a5a5a5, "and writes one struct only");
	memset(d, 0xa5, sizeof(d));
	CHECK_EQ(capget_raw(_LINUX_CAPABILITY_VERSION_2, 0, d), 0, "capget version 2");
	CHECK(d[1].effective == (uint32_t)(c.eff >> 32) && d[2].effective == 0xa5a5a5a5,
	      "version 2 writes two structs");
	CHECK(c.eff == c.perm && c.eff != 0, "root's effective set is its permitted set");
	CHECK_EQ(c.inh, 0, "nothing inheritable");

	CHECK_EQ(capget_raw(_LINUX_CAPABILITY_VERSION_3, getpid(), d), 0, "capget of own pid");
	CHECK_ERRNO(capget_raw(_LINUX_CAPABILITY_VERSION_3, -1, d), EINVAL, "capget of pid -1");
	CHECK_ERRNO(capget_raw(_LINUX_CAPABILITY_VERSION_3, 0, (void *)8), EFAULT,
		    "capget into a bad pointer");
	CHECK_ERRNO(syscall(SYS_capget, (void *)8, d), EFAULT, "capget with a bad header");
}

/* Another process: capget reads it, capset may not touch it. */
static void other_pids(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	int fds[2], st;
	pid_t p, gone;
	char c;

	pipe(fds);
	p = fork();
	if (p == 0) {
		setresuid(NOBODY, NOBODY, NOBODY);
		write(fds[1], "x", 1);
		for (;;)
			pause(); /* until the parent kills us */
	}
	read(fds[0], &c, 1);
	memset(d, 0xff, sizeof(d));
	CHECK_EQ(capget_raw(_LINUX_CAPABILITY_VERSION_3, p, d), 0, "capget of a child");
	CHECK(d[0].effective == 0 && d[0].permitted == 0 && d[1].permitted == 0,
	      "the child that became nobody has no capabilities");
	h.pid = p;
	CHECK_ERRNO(syscall(SYS_capset, &h, d), EPERM, "capset of another process");
	kill(p, SIGKILL);
	waitpid(p, &st, 0);

	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, &st, 0);
	CHECK_ERRNO(capget_raw(_LINUX_CAPABILITY_VERSION_3, gone, d), ESRCH,
		    "capget of a reaped child");
}

/* capset's subset rules, in a child (it drops capabilities for good). */
static void subsets(void)
{
	struct caps c = get_caps();
	uint64_t perm = c.perm;

	CHECK_EQ(set_caps(perm, perm, 0), 0, "capset of the same sets");
	CHECK_EQ(set_caps(perm | BIT(63), perm | BIT(63), 0), 0,
		 "bits beyond the last capability are ignored");
	CHECK(get_caps().perm == perm, "and not kept");
	CHECK_EQ(set_caps(perm & ~BIT(CAP_CHOWN), perm, 0), 0, "drop CAP_CHOWN from effective");
	CHECK(get_caps().eff == (perm & ~BIT(CAP_CHOWN)), "effective lacks it");
	CHECK_EQ(set_caps(perm, perm, 0), 0, "raise it again from permitted");
	CHECK_ERRNO(set_caps(perm, perm & ~BIT(CAP_KILL), 0), EPERM,
		    "effective must be a subset of permitted");
	CHECK_EQ(set_caps(perm & ~BIT(CAP_KILL), perm & ~BIT(CAP_KILL), BIT(CAP_KILL)), 0,
		 "drop CAP_KILL from permitted, keep it inheritable");
	CHECK_ERRNO(set_caps(perm, perm, BIT(CAP_KILL)), EPERM, "permitted cannot grow back");
	CHECK_EQ(get_caps().inh, BIT(CAP_KILL), "inheritable has CAP_KILL");
	CHECK_EQ(set_caps(perm & ~BIT(CAP_KILL) & ~BIT(CAP_SETPCAP),
			  perm & ~BIT(CAP_KILL) & ~BIT(CAP_SETPCAP), 0),
		 0, "drop CAP_SETPCAP and the inheritable bit");
	CHECK_ERRNO(set_caps(0, 0, BIT(CAP_KILL)), EPERM,
		    "without CAP_SETPCAP inheritable needs the bit permitted");
	CHECK_EQ(set_caps(0, 0, BIT(CAP_CHOWN)), 0, "an inheritable bit that is permitted");
	CHECK_EQ(set_caps(0, 0, 0), 0, "drop everything");
	c = get_caps();
	CHECK(c.eff == 0 && c.perm == 0 && c.inh == 0, "no capabilities left");
	CHECK_ERRNO(setuid(1), EPERM, "root without CAP_SETUID cannot setuid");
	CHECK_ERRNO(set_caps(BIT(CAP_SETUID), BIT(CAP_SETUID), 0), EPERM,
		    "and cannot get it back");
}

/* Leaving uid 0 clears the sets; a non-root process cannot raise them. */
static void setuid_clears(void)
{
	struct caps root = get_caps(), c;

	CHECK_EQ(prctl(PR_GET_KEEPCAPS), 0, "keepcaps is off");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	c = get_caps();
	CHECK(c.eff == 0 && c.perm == 0, "permitted and effective are empty");
	CHECK_ERRNO(set_caps(root.perm, root.perm, 0), EPERM, "capset cannot raise them");
	CHECK_ERRNO(set_caps(0, 0, BIT(CAP_CHOWN)), EPERM,
		    "nor make a capability inheritable");
	CHECK_ERRNO(setresuid(0, 0, 0), EPERM, "nor go back to root");
}

/* With keepcaps, permitted survives the uid change; effective does not. */
static void keepcaps(void)
{
	struct caps root = get_caps(), c;

	CHECK_EQ(prctl(PR_SET_KEEPCAPS, 1), 0, "PR_SET_KEEPCAPS");
	CHECK_EQ(prctl(PR_GET_KEEPCAPS), 1, "keepcaps is on");
	CHECK_EQ(prctl(PR_GET_SECUREBITS), 0x10, "it is SECBIT_KEEP_CAPS");
	CHECK_ERRNO(prctl(PR_SET_KEEPCAPS, 2), EINVAL, "PR_SET_KEEPCAPS 2");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	c = get_caps();
	CHECK(c.perm == root.perm, "permitted is kept");
	CHECK_EQ(c.eff, 0, "effective is cleared");
	CHECK_ERRNO(setresuid(0, 0, 0), EPERM, "CAP_SETUID is not effective");
	CHECK_EQ(set_caps(c.perm, c.perm, 0), 0, "capset raises effective from permitted");
	CHECK(get_caps().eff == root.perm, "effective is back");
	CHECK_EQ(setresuid(0, 0, 0), 0, "now setresuid(0) works");
	CHECK_EQ(getuid(), 0, "root again");
}

/* euid 0 -> non-0 clears effective, back restores it from permitted. */
static void euid_moves(void)
{
	struct caps root = get_caps(), c;

	CHECK_EQ(seteuid(1000), 0, "seteuid(1000)");
	c = get_caps();
	CHECK(c.eff == 0 && c.perm == root.perm, "effective empty, permitted kept (saved uid 0)");
	CHECK_EQ(seteuid(0), 0, "seteuid(0)");
	CHECK(get_caps().eff == root.perm, "effective is permitted again");

	CHECK_EQ(setfsuid(1000), 0, "setfsuid(1000)");
	c = get_caps();
	CHECK(!(c.eff & BIT(CAP_CHOWN)) && !(c.eff & BIT(CAP_DAC_OVERRIDE)) &&
		      !(c.eff & BIT(CAP_FOWNER)),
	      "the fs capabilities leave effective");
	CHECK(c.eff & BIT(CAP_KILL), "the others stay");
	setfsuid(0);
	CHECK(get_caps().eff == root.perm, "fsuid 0 brings them back");
}

static void bounding(void)
{
	CHECK_EQ(prctl(PR_CAPBSET_READ, CAP_CHOWN), 1, "CAP_CHOWN is in the bounding set");
	CHECK_ERRNO(prctl(PR_CAPBSET_READ, 64), EINVAL, "reading capability 64");
	CHECK_ERRNO(prctl(PR_CAPBSET_READ, -1L), EINVAL, "reading capability -1");
	CHECK_EQ(prctl(PR_CAPBSET_DROP, CAP_CHOWN), 0, "drop CAP_CHOWN from the bounding set");
	CHECK_EQ(prctl(PR_CAPBSET_READ, CAP_CHOWN), 0, "it is gone");
	CHECK(get_caps().perm & BIT(CAP_CHOWN), "permitted keeps it");
	CHECK_ERRNO(prctl(PR_CAPBSET_DROP, 64), EINVAL, "dropping capability 64");
	CHECK_ERRNO(set_caps(0, get_caps().perm, BIT(CAP_CHOWN)), EPERM,
		    "an inheritable bit outside the bounding set");
	setresuid(NOBODY, NOBODY, NOBODY);
	CHECK_ERRNO(prctl(PR_CAPBSET_DROP, CAP_KILL), EPERM, "nobody cannot drop from it");
	CHECK_EQ(prctl(PR_CAPBSET_READ, CAP_KILL), 1, "reading needs no privilege");
}

static void ambient(void)
{
	struct caps c = get_caps();

	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 0,
		 "CAP_CHOWN is not ambient");
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0), EPERM,
		    "raising it needs it inheritable");
	CHECK_EQ(set_caps(c.eff, c.perm, BIT(CAP_CHOWN) | BIT(CAP_KILL)), 0,
		 "make CAP_CHOWN and CAP_KILL inheritable");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0), 0, "raise CAP_CHOWN");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_KILL, 0, 0), 0, "raise CAP_KILL");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 1,
		 "CAP_CHOWN is ambient");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_CHOWN, 0, 0), 0, "lower it");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 0, "not ambient");
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 64, 0, 0), EINVAL,
		    "capability 64");
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, 99, CAP_CHOWN, 0, 0), EINVAL, "an unknown operation");
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0), EINVAL,
		    "CLEAR_ALL with an argument");
	CHECK_EQ(set_caps(c.eff, c.perm, BIT(CAP_CHOWN)), 0, "CAP_KILL no longer inheritable");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_KILL, 0, 0), 0,
		 "which takes it out of the ambient set");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0), 0, "raise again");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), 0, "CLEAR_ALL");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 0, "cleared");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0), 0, "raise again");
	CHECK_EQ(prctl(PR_SET_KEEPCAPS, 1), 0, "keepcaps");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 0,
		 "leaving root clears the ambient set even with keepcaps");
}

static void securebits(void)
{
	CHECK_EQ(prctl(PR_GET_SECUREBITS), 0, "no securebits");
	CHECK_ERRNO(prctl(PR_SET_SECUREBITS, 1 << 20), EPERM, "an unknown securebit");
	CHECK_EQ(prctl(PR_SET_SECUREBITS, 0x30), 0, "KEEP_CAPS and its lock");
	CHECK_EQ(prctl(PR_GET_KEEPCAPS), 1, "keepcaps is on");
	CHECK_ERRNO(prctl(PR_SET_KEEPCAPS, 0), EPERM, "a locked KEEP_CAPS");
	CHECK_ERRNO(prctl(PR_SET_SECUREBITS, 0x20), EPERM, "changing a locked bit");
	CHECK_EQ(prctl(PR_SET_SECUREBITS, 0x34), 0, "NO_SETUID_FIXUP may still be set");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	CHECK(get_caps().eff != 0, "with NO_SETUID_FIXUP effective stays");
}

int main(void)
{
	versions();
	other_pids();
	in_child(subsets);
	in_child(setuid_clears);
	in_child(keepcaps);
	in_child(euid_moves);
	in_child(bounding);
	in_child(ambient);
	in_child(securebits);
	return GUEST_DONE();
}
