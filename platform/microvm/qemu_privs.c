/* QEMU's user and capabilities (see qemu_privs.h). */
#include "config.h"
#include "platform/microvm/qemu_privs.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int kept[] = {CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID};

static bool is_kept(int cap)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i] == cap)
			return true;
	return false;
}

int qemu_drop_privileges(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	int last = CAP_LAST_CAP;

	if (geteuid() != 0)
		return 0;
	/* The bounding set first: dropping needs CAP_SETPCAP, which goes. */
	for (int cap = 0; cap <= 63; cap++) {
		if (is_kept(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL && cap > last)
				break; /* past the kernel's last capability */
			return -errno;
		}
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;
	/* In a user namespace (rung as a rootless "root") nobody may be
	 * unmapped (EINVAL) or setgroups denied (EPERM): then QEMU keeps the
	 * user, and still only the four capabilities. */
	if (setgroups(0, NULL) < 0 && errno != EPERM)
		return -errno;
	if (setresgid(QEMU_GID, QEMU_GID, QEMU_GID) < 0 && errno != EINVAL)
		return -errno;
	if (setresuid(QEMU_UID, QEMU_UID, QEMU_UID) < 0 && errno != EINVAL)
		return -errno;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		uint32_t bit = 1u << (kept[i] % 32);
		d[kept[i] / 32].permitted |= bit;
		d[kept[i] / 32].effective |= bit;
		d[kept[i] / 32].inheritable |= bit;
	}
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	/* Ambient: the set survives QEMU's exec, a program with no file
	 * capabilities run by a user who is not root. */
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, kept[i], 0, 0) < 0)
			return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return 0;
}
