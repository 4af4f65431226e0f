/*
 * Helpers for the mount guest tests (mount_*.c). Each test works in a
 * mount namespace of its own, everything in it private, under a tmpfs at
 * /tmp/guest-TAG.PID (base) that mnt_enter makes and mnt_leave unmounts
 * and removes: natively the host's mount table never changes. P(name) is
 * base/name (four at a time may be in use).
 */
#ifndef RUNG_MOUNTGUEST_H
#define RUNG_MOUNTGUEST_H

#include "guest.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char base[64];

static inline const char *P(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, name);
	return buf[i];
}

static inline int mnt_tmpfs(const char *path)
{
	return mount("none", path, "tmpfs", 0, "mode=0755");
}

static inline int mnt_touch(const char *path)
{
	int fd = creat(path, 0644);

	return fd >= 0 && close(fd) == 0;
}

static inline int mnt_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The namespace and the base; 0, or 1 after saying why (the test ends). */
static inline int mnt_enter(const char *tag)
{
	snprintf(base, sizeof(base), "/tmp/guest-%s.%d", tag, (int)getpid());
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("FAIL: no private mount namespace (errno %d)\n", errno);
		return 1;
	}
	if (mkdir(base, 0755) || mnt_tmpfs(base)) {
		printf("FAIL: no tmpfs at the base (errno %d)\n", errno);
		rmdir(base);
		return 1;
	}
	return 0;
}

static inline void mnt_leave(void)
{
	CHECK(umount2(base, MNT_DETACH) == 0, "unmount the base");
	rmdir(base);
}

#endif
