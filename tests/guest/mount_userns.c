/*
 * Propagation into a less privileged mount namespace, in a mount
 * namespace of the test's own (every mount private first: natively
 * nothing reaches the host's), on tmpfs mounts of its own. A child makes
 * a user and a mount namespace: its copy of a shared mount is a slave
 * (master:N) and locked; a tree the parent then binds recursively under
 * the shared mount reaches the child, where the tree's submount is locked
 * to it (umount2 EINVAL, a non-recursive bind of the tree EINVAL) but the
 * whole tree unmounts.
 */
#include "mountguest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* shared:N and master:N of the topmost mount at path (-1: none there). */
static int opt_of(const char *path, const char *key)
{
	char line[4096], mp[1024];
	int val = -1;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *k, *dash;
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) != 1 || strcmp(mp, path))
			continue;
		dash = strstr(line, " - ");
		if (dash)
			*dash = '\0';
		k = strstr(line, key);
		val = k ? atoi(k + strlen(key)) : 0;
	}
	fclose(f);
	return val;
}

static void child(int go, int done)
{
	char c;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		printf("FAIL: unshare (errno %d)\n", errno);
		_exit(1);
	}
	CHECK(write(done, "u", 1) == 1, "the child has its namespaces");
	CHECK(opt_of(P("s"), "master:") > 0 && opt_of(P("s"), "shared:") == 0,
	      "the copy of the shared mount is a slave");
	CHECK_ERRNO(umount2(P("s"), MNT_DETACH), EINVAL, "unmounting a locked copy");
	CHECK(read(go, &c, 1) == 1, "the parent bound its tree");
	CHECK(access(P("s/b/g/deep"), F_OK) == 0, "the tree reached the child");
	CHECK_ERRNO(umount2(P("s/b/g"), MNT_DETACH), EINVAL,
		    "unmounting the submount of the tree that came");
	mkdir(P("s/b/x"), 0755);
	CHECK_ERRNO(mount(P("s/b"), P("s/b/x"), NULL, MS_BIND, NULL), EINVAL,
		    "a non-recursive bind of a tree with a locked submount");
	CHECK(umount2(P("s/b"), MNT_DETACH) == 0, "the whole tree unmounts");
	CHECK(access(P("s/b/g"), F_OK) != 0, "and is gone");
	fflush(stdout);
	_exit(guest_failures ? 1 : 0);
}

int main(void)
{
	int go[2], done[2], st, fd, ok_read, ok_bind, ok_write;
	pid_t pid;
	char c;

	if (mnt_enter("muserns"))
		return 1;
	mkdir(P("s"), 0755);
	mkdir(P("a"), 0755);
	CHECK(mount("none", P("s"), "tmpfs", 0, "mode=0755") == 0 &&
		      mount(NULL, P("s"), NULL, MS_SHARED, NULL) == 0,
	      "a shared tmpfs on s");
	mkdir(P("s/b"), 0755);
	CHECK(mount("none", P("a"), "tmpfs", 0, "mode=0755") == 0, "a private tmpfs on a");
	mkdir(P("a/g"), 0755);
	CHECK(mount("none", P("a/g"), "tmpfs", 0, "mode=0755") == 0, "and one on a/g");
	fd = creat(P("a/g/deep"), 0644);
	CHECK(fd >= 0 && close(fd) == 0, "a file in it");
	if (pipe(go) || pipe(done))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(go[0], done[1]);
	/* Nothing printed until the child is done: one order of lines. */
	ok_read = read(done[0], &c, 1) == 1;
	ok_bind = mount(P("a"), P("s/b"), NULL, MS_BIND | MS_REC, NULL) == 0;
	ok_write = write(go[1], "g", 1) == 1;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's checks passed");
	CHECK(ok_read && ok_bind && ok_write, "the tree at a was bound recursively onto s/b");
	CHECK(access(P("s/b/g/deep"), F_OK) == 0, "the parent still has the tree");
	mnt_leave();
	return GUEST_DONE();
}
