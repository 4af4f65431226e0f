/*
 * pivot_root and umount2 of a mount stacked on ".", in a mount namespace
 * of the test's own (every mount private, so that nothing reaches the one
 * it came from: natively the host's), on tmpfs mounts of its own: a
 * chrooted child pivots into a new root and finds the old one on put_old;
 * Linux's errors (the root's own mount, a shared parent, a shared new
 * root, new_root outside the root); pivot_root(".", ".") stacks the old
 * root on the new one and umount2(".") takes it off; mounts outside the
 * root are not in mountinfo.
 */
#include "mountguest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int procfd = -1; /* /proc, opened before any chroot */

static long pivot(const char *new_root, const char *put_old)
{
	return syscall(SYS_pivot_root, new_root, put_old);
}

/* Lines of /proc/self/mountinfo. */
static int mountinfo_lines(void)
{
	char line[4096];
	int n = 0;
	int fd = openat(procfd, "self/mountinfo", O_RDONLY);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* Run fn in a child chrooted into root; its checks print there. */
static void in_child(const char *root, void (*fn)(void))
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (chroot(root) || chdir("/"))
			_exit(2);
		fn();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's checks passed");
}

static void child_success(void)
{
	CHECK(mountinfo_lines() == 3, "mountinfo shows only the mounts under the root");
	CHECK(pivot("/new", "/new/old") == 0, "pivot_root into /new, the old root on /new/old");
	CHECK(chdir("/") == 0 && mnt_exists("/inside") && mnt_exists("/old/marker"),
	      "the new root is /, the old one under /old");
	CHECK(!mnt_exists("/new"), "nothing of the old root at /");
	CHECK(umount2("/old", MNT_DETACH) == 0, "the old root unmounts");
	CHECK(!mnt_exists("/old/marker"), "and is gone");
}

static void child_errors(void)
{
	CHECK_ERRNO(pivot("/plain", "/plain/old"), EBUSY, "a new root on the root's own mount");
	CHECK_ERRNO(pivot("/", "/new"), EBUSY, "the root itself");
	CHECK_ERRNO(pivot("/new", "/elsewhere"), EBUSY, "put_old on the root's own mount");
	CHECK_ERRNO(pivot("/new", "/other"), EINVAL, "put_old outside new_root");
	CHECK_ERRNO(pivot("/missing", "/new"), ENOENT, "a new root that is not there");
	CHECK_ERRNO(pivot("/marker", "/new"), ENOTDIR, "a new root that is no directory");
}

static void child_shared_parent(void)
{
	CHECK_ERRNO(pivot("/new", "/new/old"), EINVAL, "the root's parent is shared");
}

static void child_shared_new_root(void)
{
	CHECK_ERRNO(pivot("/new", "/new/old"), EINVAL, "the new root is shared");
}

static void child_dot(void)
{
	CHECK(chdir("/new") == 0, "cd into the new root");
	CHECK(pivot(".", ".") == 0, "pivot_root(\".\", \".\")");
	CHECK(umount2(".", MNT_DETACH) == 0, "umount2(\".\") takes the old root off");
	CHECK(mnt_exists("inside") && !mnt_exists("marker"), "the new root shows");
}

/* A child whose cwd is outside its root: "." cannot be the new root. */
static void child_unreachable(void)
{
	CHECK_ERRNO(pivot(".", "/new/old"), EINVAL, "a new root outside the root");
}

static void setup(void)
{
	mkdir(P("root"), 0755);
	CHECK(mnt_tmpfs(P("root")) == 0 && mnt_touch(P("root/marker")), "a tmpfs for the root");
	mkdir(P("root/new"), 0755);
	mkdir(P("root/plain"), 0755);
	mkdir(P("root/plain/old"), 0755);
	mkdir(P("root/elsewhere"), 0755);
	CHECK(mnt_tmpfs(P("root/new")) == 0 && mnt_touch(P("root/new/inside")), "a tmpfs for the new root");
	mkdir(P("root/new/old"), 0755);
	mkdir(P("root/other"), 0755);
	CHECK(mnt_tmpfs(P("root/other")) == 0, "a tmpfs on other");
}

static void teardown(void)
{
	CHECK(umount2(P("root"), MNT_DETACH) == 0, "unmount what is at root");
}

int main(void)
{
	int st;
	pid_t pid;

	procfd = open("/proc", O_RDONLY | O_DIRECTORY);
	if (mnt_enter("pivot"))
		return 1;
	setup();
	in_child(P("root"), child_errors);
	in_child(P("root"), child_success);
	teardown();

	setup();
	CHECK(mount(NULL, base, NULL, MS_SHARED, NULL) == 0, "the root's parent made shared");
	in_child(P("root"), child_shared_parent);
	CHECK(mount(NULL, base, NULL, MS_PRIVATE, NULL) == 0, "private again");
	CHECK(mount(NULL, P("root/new"), NULL, MS_SHARED, NULL) == 0, "the new root made shared");
	in_child(P("root"), child_shared_new_root);
	CHECK(mount(NULL, P("root/new"), NULL, MS_PRIVATE, NULL) == 0, "private again");
	in_child(P("root"), child_dot);
	teardown();

	setup();
	mkdir(P("out"), 0755);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (chdir(P("out")) || chroot(P("root")))
			_exit(2);
		child_unreachable();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's checks passed");
	teardown();

	/* Two mounts stacked on a directory: umount2(".") takes the top one. */
	mkdir(P("dot"), 0755);
	CHECK(mnt_tmpfs(P("dot")) == 0 && mnt_tmpfs(P("dot")) == 0, "two tmpfs stacked on dot");
	CHECK(mnt_touch(P("dot/top")) && chdir(P("dot")) == 0, "cd into the top one");
	CHECK(umount2(".", MNT_DETACH) == 0 && !mnt_exists(P("dot/top")),
	      "umount2(\".\") unmounts the top");
	CHECK(umount2(P("dot"), 0) == 0, "the other one unmounts");
	CHECK(chdir("/") == 0, "cd /");

	mnt_leave();
	return GUEST_DONE();
}
