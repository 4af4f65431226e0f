/*
 * Mount propagation (shared subtrees) in a mount namespace of the test's
 * own, every mount made private first so that nothing reaches the
 * namespace it came from (natively: the host's). Under a tmpfs of its own
 * it checks peer groups (shared:N in mountinfo), mount and unmount events
 * between peers, slaves (master:N) that receive but do not send, a
 * private master freeing its slaves, unbindable mounts, MS_REC, a move
 * out of a shared parent, a peer with a submount of its own staying, a
 * covering mount moving down when what it covers goes, MOVE_MOUNT_SET_GROUP,
 * and a copied namespace whose mounts stay peers of the first's.
 */
#include "mountguest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

struct minfo {
	int found;    /* mounts on the path */
	int shared;   /* of the topmost */
	int master;   /* of the topmost */
	int unbind;   /* of the topmost */
	int shared0;  /* of the lowest */
};

/* What /proc/self/mountinfo says of the mounts at path. */
static struct minfo info(const char *path)
{
	struct minfo mi = {0};
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return mi;
	while (fgets(line, sizeof(line), f)) {
		char mp[1024], *opt, *save = NULL;
		int field = 0, shared = 0, master = 0, unbind = 0, match = 0;
		for (opt = strtok_r(line, " \n", &save); opt; opt = strtok_r(NULL, " \n", &save)) {
			field++;
			if (field == 5) {
				snprintf(mp, sizeof(mp), "%s", opt);
				match = strcmp(mp, path) == 0;
			} else if (field > 6) {
				if (strcmp(opt, "-") == 0)
					break;
				if (strncmp(opt, "shared:", 7) == 0)
					shared = atoi(opt + 7);
				else if (strncmp(opt, "master:", 7) == 0)
					master = atoi(opt + 7);
				else if (strcmp(opt, "unbindable") == 0)
					unbind = 1;
			}
		}
		if (!match)
			continue;
		if (!mi.found)
			mi.shared0 = shared;
		mi.found++;
		mi.shared = shared;
		mi.master = master;
		mi.unbind = unbind;
	}
	fclose(f);
	return mi;
}

static int bind(const char *from, const char *to, unsigned long flags)
{
	return mount(from, to, NULL, MS_BIND | flags, NULL);
}

static int prop(const char *path, unsigned long type)
{
	return mount(NULL, path, NULL, type, NULL);
}

static void peers(void)
{
	struct minfo a, b, c;

	mkdir(P("a"), 0755);
	mkdir(P("b"), 0755);
	CHECK(mnt_tmpfs(P("a")) == 0, "a tmpfs on a");
	CHECK(info(P("a")).shared == 0, "a new mount is private");
	CHECK(prop(P("a"), MS_SHARED) == 0, "MS_SHARED");
	a = info(P("a"));
	CHECK(a.shared > 0, "mountinfo shows shared:N");
	mkdir(P("a/c"), 0755);
	CHECK(bind(P("a"), P("b"), 0) == 0, "bind a onto b");
	b = info(P("b"));
	CHECK(b.shared == a.shared, "the bind of a shared mount is its peer");
	CHECK(mnt_tmpfs(P("a/c")) == 0, "a tmpfs on a/c");
	c = info(P("b/c"));
	CHECK(c.found == 1, "the mount propagates to the peer b");
	CHECK(c.shared > 0 && c.shared != a.shared && c.shared == info(P("a/c")).shared,
	      "the two copies are peers of a group of their own");
	CHECK(mnt_touch(P("a/c/f")) && mnt_exists(P("b/c/f")), "one filesystem under both");
	CHECK(umount2(P("b/c"), 0) == 0, "unmount b/c");
	CHECK(info(P("a/c")).found == 0, "the unmount propagates back to a/c");
	/* A peer with a submount of its own stays. */
	CHECK(mnt_tmpfs(P("a/c")) == 0, "a tmpfs on a/c again");
	CHECK(prop(P("b/c"), MS_PRIVATE) == 0, "b/c made private");
	mkdir(P("a/c/g"), 0755);
	CHECK(mnt_tmpfs(P("a/c/g")) == 0, "a tmpfs on a/c/g");
	CHECK(info(P("b/c/g")).found == 0, "not propagated to the private b/c");
	CHECK(umount2(P("b/c"), MNT_DETACH) == 0, "unmount b/c");
	CHECK(info(P("a/c")).found == 1, "a/c stays: it has a submount");
	CHECK(umount2(P("a/c"), MNT_DETACH) == 0, "unmount a/c and a/c/g");
	CHECK(info(P("a/c/g")).found == 0 && info(P("a/c")).found == 0, "both gone");
}

static void slaves(void)
{
	struct minfo a, s;

	mkdir(P("s"), 0755);
	CHECK(bind(P("a"), P("s"), 0) == 0, "bind a onto s");
	CHECK(prop(P("s"), MS_SLAVE) == 0, "MS_SLAVE on s");
	a = info(P("a"));
	s = info(P("s"));
	CHECK(s.shared == 0 && s.master == a.shared, "s is a slave of a's group: master:N");
	mkdir(P("a/d"), 0755);
	CHECK(mnt_tmpfs(P("a/d")) == 0, "a tmpfs on a/d");
	CHECK(info(P("s/d")).found == 1 && info(P("b/d")).found == 1,
	      "a mount on a reaches its peer and its slave");
	CHECK(info(P("s/d")).master == info(P("a/d")).shared,
	      "the slave's copy is a slave of the new mount's group");
	mkdir(P("a/e"), 0755);
	CHECK(mnt_tmpfs(P("s/e")) == 0, "a tmpfs on s/e");
	CHECK(info(P("a/e")).found == 0 && info(P("b/e")).found == 0,
	      "a mount on the slave goes nowhere else");
	CHECK(umount2(P("s/e"), 0) == 0, "unmount s/e");
	CHECK(umount2(P("a/d"), 0) == 0, "unmount a/d");
	CHECK(info(P("s/d")).found == 0, "the unmount reaches the slave too");
	CHECK(prop(P("s"), MS_SHARED) == 0, "MS_SHARED on the slave");
	s = info(P("s"));
	CHECK(s.shared > 0 && s.shared != a.shared && s.master == a.shared,
	      "shared and a slave: shared:N master:M");
	CHECK(prop(P("b"), MS_PRIVATE) == 0 && prop(P("a"), MS_PRIVATE) == 0,
	      "the master's group made private");
	s = info(P("s"));
	CHECK(s.master == 0 && s.shared > 0, "a private master frees its slaves");
	CHECK(umount2(P("s"), 0) == 0 && umount2(P("b"), 0) == 0, "unmount s and b");
}

static void unbindable_rec_move(void)
{
	mkdir(P("u"), 0755);
	mkdir(P("v"), 0755);
	CHECK(mnt_tmpfs(P("u")) == 0, "a tmpfs on u");
	CHECK(prop(P("u"), MS_UNBINDABLE) == 0 && info(P("u")).unbind, "MS_UNBINDABLE shows");
	CHECK_ERRNO(bind(P("u"), P("v"), 0), EINVAL, "a bind of an unbindable mount");
	CHECK(prop(P("u"), MS_SHARED) == 0 && !info(P("u")).unbind && info(P("u")).shared,
	      "MS_SHARED clears it");
	CHECK(prop(P("u"), MS_UNBINDABLE) == 0 && info(P("u")).unbind && !info(P("u")).shared,
	      "MS_UNBINDABLE takes the mount out of its group");
	CHECK(prop(P("u"), MS_PRIVATE) == 0 && !info(P("u")).unbind, "MS_PRIVATE clears it");
	mkdir(P("u/x"), 0755);
	mkdir(P("u/y"), 0755);
	CHECK(mnt_tmpfs(P("u/x")) == 0 && mnt_tmpfs(P("u/y")) == 0, "two submounts in u");
	CHECK(prop(P("u"), MS_SHARED | MS_REC) == 0, "MS_SHARED | MS_REC");
	CHECK(info(P("u")).shared && info(P("u/x")).shared && info(P("u/y")).shared &&
		      info(P("u/x")).shared != info(P("u/y")).shared,
	      "each mount of the tree has a group of its own");
	CHECK(prop(P("u"), MS_PRIVATE | MS_REC) == 0 && info(P("u/x")).shared == 0,
	      "MS_PRIVATE | MS_REC");
	CHECK(prop(P("u"), MS_SHARED) == 0, "u shared again");
	CHECK_ERRNO(mount(P("u/x"), P("v"), NULL, MS_MOVE, NULL), EINVAL,
		    "a move out of a shared parent");
	CHECK(umount2(P("u"), MNT_DETACH) == 0, "unmount u and its tree");
}

/* A mount that covers a propagated one whole moves down when that goes. */
static void covers(void)
{
	mkdir(P("w"), 0755);
	mkdir(P("x"), 0755);
	CHECK(mnt_tmpfs(P("w")) == 0 && prop(P("w"), MS_SHARED) == 0, "a shared tmpfs on w");
	mkdir(P("w/c"), 0755);
	CHECK(mnt_tmpfs(P("w/c")) == 0 && mnt_touch(P("w/c/mark")), "a tmpfs on w/c, marked");
	CHECK(info(P("w/c")).shared > 0, "a mount on a shared mount is shared");
	CHECK(bind(P("w"), P("x"), 0) == 0, "w's peer on x, without w/c");
	CHECK(info(P("x/c")).found == 0, "nothing on x/c");
	CHECK(mnt_tmpfs(P("x/c")) == 0, "a tmpfs on x/c");
	CHECK(info(P("w/c")).found == 2, "its copy went under w/c's mount");
	CHECK(mnt_exists(P("w/c/mark")), "w/c still shows its own mount");
	CHECK(umount2(P("x/c"), MNT_DETACH) == 0, "unmount x/c");
	CHECK(info(P("x/c")).found == 0 && info(P("w/c")).found == 1, "its copy went too");
	CHECK(mnt_exists(P("w/c/mark")) && info(P("w/c")).shared > 0, "w/c's mount moved down");
	CHECK(umount2(P("x"), MNT_DETACH) == 0 && umount2(P("w"), MNT_DETACH) == 0,
	      "unmount w and x");
}

#ifndef MOVE_MOUNT_SET_GROUP
#define MOVE_MOUNT_SET_GROUP 0x100
#endif

/* move_mount(MOVE_MOUNT_SET_GROUP): a private mount joins a peer group. */
static void set_group(void)
{
	mkdir(P("g1"), 0755);
	mkdir(P("g2"), 0755);
	mkdir(P("g3"), 0755);
	CHECK(mnt_tmpfs(P("g1")) == 0 && prop(P("g1"), MS_SHARED) == 0, "a shared tmpfs on g1");
	mkdir(P("g1/x"), 0755);
	CHECK(bind(P("g1"), P("g2"), 0) == 0 && prop(P("g2"), MS_PRIVATE) == 0,
	      "a private bind of it on g2");
	CHECK(mnt_tmpfs(P("g3")) == 0, "a private tmpfs on g3");
	CHECK_ERRNO(move_mount(AT_FDCWD, P("g2"), AT_FDCWD, P("g3"), MOVE_MOUNT_SET_GROUP), EINVAL,
		    "from a private mount");
	CHECK_ERRNO(move_mount(AT_FDCWD, P("g1"), AT_FDCWD, P("g3"), MOVE_MOUNT_SET_GROUP), EINVAL,
		    "onto another filesystem");
	CHECK(move_mount(AT_FDCWD, P("g1"), AT_FDCWD, P("g2"), MOVE_MOUNT_SET_GROUP) == 0,
	      "g2 joins g1's group");
	CHECK(info(P("g2")).shared == info(P("g1")).shared, "the two are peers");
	CHECK_ERRNO(move_mount(AT_FDCWD, P("g1"), AT_FDCWD, P("g2"), MOVE_MOUNT_SET_GROUP), EINVAL,
		    "onto a shared mount");
	CHECK(mnt_tmpfs(P("g1/x")) == 0 && info(P("g2/x")).found == 1, "a mount on g1 reaches g2");
	CHECK(umount2(P("g1"), MNT_DETACH) == 0 && umount2(P("g2"), MNT_DETACH) == 0 &&
		      umount2(P("g3"), 0) == 0,
	      "unmount g1, g2 and g3");
}

/* A copy of the namespace: its mounts are peers of the first's. */
static void copied_namespace(void)
{
	int pfd[2], cfd[2], st;
	char c;
	pid_t pid;

	mkdir(P("n"), 0755);
	CHECK(mnt_tmpfs(P("n")) == 0 && prop(P("n"), MS_SHARED) == 0, "a shared tmpfs on n");
	mkdir(P("n/m"), 0755);
	if (pipe(pfd) || pipe(cfd))
		return;
	pid = fork();
	if (pid == 0) {
		int ok;
		if (unshare(CLONE_NEWNS))
			_exit(2);
		ok = write(cfd[1], "r", 1) == 1 && read(pfd[0], &c, 1) == 1;
		ok = ok && info(P("n/m")).found == 1;
		_exit(ok ? 0 : 1);
	}
	CHECK(read(cfd[0], &c, 1) == 1, "the child has a namespace of its own");
	CHECK(mnt_tmpfs(P("n/m")) == 0, "a tmpfs on n/m");
	CHECK(write(pfd[1], "g", 1) == 1, "told the child");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's copy of n received the mount");
	close(pfd[0]);
	close(pfd[1]);
	close(cfd[0]);
	close(cfd[1]);
	CHECK(umount2(P("n"), MNT_DETACH) == 0, "unmount n");
}

int main(void)
{
	/* Everything below happens in a namespace of our own, all private. */
	if (mnt_enter("mprop"))
		return 1;
	peers();
	slaves();
	unbindable_rec_move();
	covers();
	set_group();
	copied_namespace();
	mnt_leave();
	return GUEST_DONE();
}
