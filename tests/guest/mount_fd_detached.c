/*
 * Detached trees of the file-descriptor mount API, in a mount namespace
 * of the test's own (every mount private first: natively nothing reaches
 * the host's), under a tmpfs of its own: one fsmount'ed tree moved onto
 * another still detached, open_tree clones of a detached tree (with and
 * without its submount), a submount that is not a detached tree's root
 * refused, the tree attached and unmounted while its context is still
 * open (not busy), a move into the tree's own subdirectory refused.
 */
#include "mountguest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* A detached tmpfs; its context's descriptor in *ctx. */
static int detached(const char *source, int *ctx)
{
	int fd = fsopen("tmpfs", FSOPEN_CLOEXEC);

	*ctx = fd;
	if (fd < 0 || fsconfig(fd, FSCONFIG_SET_STRING, "source", source, 0) ||
	    fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return -1;
	return fsmount(fd, FSMOUNT_CLOEXEC, 0);
}

static int touch_at(int dfd, const char *path)
{
	int fd = openat(dfd, path, O_CREAT | O_WRONLY, 0644);

	return fd >= 0 && close(fd) == 0;
}

int main(void)
{
	int ctx1, ctx2, m1, m2, t;

	if (mnt_enter("fdtree"))
		return 1;
	m1 = detached("fdtree1", &ctx1);
	m2 = detached("fdtree2", &ctx2);
	CHECK(m1 >= 0 && m2 >= 0, "two detached tmpfs");
	CHECK(mkdirat(m1, "sub", 0755) == 0, "a directory in the first");
	CHECK(touch_at(m2, "in2"), "a file in the second");
	CHECK(move_mount(m2, "", m1, "sub", MOVE_MOUNT_F_EMPTY_PATH) == 0,
	      "the second moved onto the first, still detached");
	CHECK(faccessat(m1, "sub/in2", F_OK, 0) == 0, "the first shows the second at sub");
	CHECK_ERRNO(move_mount(m1, "sub", AT_FDCWD, base, 0), EINVAL,
		    "moving a submount of a detached tree");

	t = open_tree(m1, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	CHECK(t >= 0, "open_tree clone of a detached tree");
	CHECK(faccessat(t, "sub", F_OK, 0) == 0 && faccessat(t, "sub/in2", F_OK, 0) != 0,
	      "without AT_RECURSIVE: not its submount");
	close(t);
	t = open_tree(m1, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
	CHECK(t >= 0 && faccessat(t, "sub/in2", F_OK, 0) == 0, "with AT_RECURSIVE: with it");
	close(t);

	mkdir(P("at"), 0755);
	CHECK(move_mount(m1, "", AT_FDCWD, P("at"), MOVE_MOUNT_F_EMPTY_PATH) == 0,
	      "the tree attached");
	close(m1);
	close(m2);
	CHECK(access(P("at/sub/in2"), F_OK) == 0, "both mounts in the namespace");
	mkdir(P("at/sub/child"), 0755);
	CHECK_ERRNO(move_mount(AT_FDCWD, P("at/sub"), AT_FDCWD, P("at/sub/child"), 0), ELOOP,
		    "a move under itself");
	CHECK(umount2(P("at/sub"), 0) == 0, "its submount unmounts, the contexts still open");
	CHECK(umount2(P("at"), 0) == 0, "and the tree");
	close(ctx1);
	close(ctx2);
	mnt_leave();
	return GUEST_DONE();
}
