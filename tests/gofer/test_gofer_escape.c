/*
 * Gofer tests: escape attempts. A hostile rootfs built here has symlinks
 * pointing out (absolute, relative, chains, loops), magic links, and a
 * directory that a host thread keeps swapping for a symlink to the outside.
 * Nothing the gofer hands out may be outside the root, and nothing outside
 * may change.
 */
#include "config.h"
#include "tests/gofer/gofer_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>

static char *base, *root, *outside;

static void setup(void)
{
	char *p;

	base = gt_tmpdir("esc");
	root = gt_path(base, "root");
	outside = gt_path(base, "outside");
	ck_assert_int_eq(mkdir(root, 0755), 0);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	gt_write_file(outside, "secret", "outside secret\n");
	gt_mkdir(outside, "inner");
	gt_write_file(outside, "inner/target", "outside target\n");

	gt_mkdir(root, "dir");
	gt_write_file(root, "dir/file", "inside\n");
	gt_symlink("/", root, "abs_root");
	p = gt_path(outside, "secret");
	gt_symlink(p, root, "abs_out");
	free(p);
	gt_symlink(outside, root, "abs_dir");
	gt_symlink("../../../../../../../..", root, "rel_up");
	gt_symlink("../outside/secret", root, "rel_out");
	gt_symlink("../outside", root, "rel_dir");
	gt_symlink("chain2", root, "chain1");
	gt_symlink("chain3", root, "chain2");
	gt_symlink("../outside/secret", root, "chain3");
	gt_symlink("loop2", root, "loop1");
	gt_symlink("loop1", root, "loop2");
	gt_symlink("self", root, "self");
	gt_symlink("/proc/self/root", root, "proc_root");
	gt_symlink("/proc/self/cwd/../outside", root, "proc_cwd");
}

static void teardown(void)
{
	gt_rmtree(base);
	free(root);
	free(outside);
	free(base);
}

static struct stat host_stat(const char *path)
{
	struct stat st;

	ck_assert_msg(lstat(path, &st) == 0, "lstat %s", path);
	return st;
}

/* Nothing outside changed. */
static void check_outside_intact(void)
{
	char *p = gt_path(outside, "secret"), buf[64] = "";
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	struct stat st;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_str_eq(buf, "outside secret\n");
	st = host_stat(p);
	ck_assert_uint_eq(st.st_nlink, 1);
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	free(p);
	p = gt_path(outside, "pwned");
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);
}

static const char *const links[] = {
	"abs_root", "abs_out", "abs_dir", "rel_up", "rel_out", "rel_dir",   "chain1",
	"chain2",   "chain3",  "loop1",	  "loop2",  "self",    "proc_root", "proc_cwd",
};

/* Every symlink is handed out as itself, never followed, never opened. */
START_TEST(test_symlinks_never_followed)
{
	struct gt_gofer g;
	struct gofer_node nodes[4];
	struct gofer_setattr_req req = {0};
	struct gofer_stat st;
	uint64_t fid;
	unsigned nwalked;
	int status, fd;
	char buf[256], target[256];

	gt_start(&g, root, false, 2, 2);
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		const char *names[] = {links[i], "secret", "x"};
		char *p = gt_path(root, links[i]);
		struct stat hs = host_stat(p);
		ssize_t tl = readlink(p, target, sizeof(target) - 1);

		ck_assert_int_gt(tl, 0);
		target[tl] = '\0';
		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 3, nodes, &nwalked, &status),
				 0);
		ck_assert_msg(nwalked == 1 && status == 0, "%s: %u walked, status %d", links[i],
			      nwalked, status);
		ck_assert(S_ISLNK(nodes[0].stat.mode));
		ck_assert_uint_eq(nodes[0].stat.ino, hs.st_ino);
		ck_assert_uint_eq(nodes[0].stat.dev, hs.st_dev);
		ck_assert_int_eq(gofer_open(g.c, nodes[0].handle, O_RDONLY, true, &fid, &fd),
				 -ELOOP);
		ck_assert_int_eq(gofer_open(g.c, nodes[0].handle, O_RDONLY, false, &fid, &fd),
				 -ELOOP);
		ck_assert_int_eq(gofer_readlink(g.c, nodes[0].handle, buf, sizeof(buf)), tl);
		ck_assert_str_eq(buf, target);
		ck_assert_int_eq(gofer_stat(g.c, nodes[0].handle, &st), 0);
		ck_assert_uint_eq(st.ino, hs.st_ino);

		/* As a directory: nothing is made through it. */
		ck_assert_int_eq(gofer_mkdir(g.c, nodes[0].handle, "pwned", 0777, 0, 0, &nodes[1]),
				 -ENOTDIR);
		ck_assert_int_eq(gofer_create(g.c, nodes[0].handle, "pwned", O_RDWR, 0666, 0, 0,
					      false, &nodes[1], &fid, &fd),
				 -ENOTDIR);
		ck_assert_int_eq(gofer_symlink(g.c, nodes[0].handle, "pwned", "x", 0, 0, &nodes[1]),
				 -ENOTDIR);
		ck_assert_int_eq(gofer_unlink(g.c, nodes[0].handle, "secret", 0), -ENOTDIR);
		ck_assert_int_eq(
			gofer_rename(g.c, g.root.handle, "dir", nodes[0].handle, "pwned", 0),
			-ENOTDIR);
		/* Attributes change the link, not what it names. */
		req.handle = nodes[0].handle;
		req.mask = GOFER_SETATTR_MODE;
		req.mode = 0777;
		ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EOPNOTSUPP);
		req.mask = GOFER_SETATTR_SIZE;
		ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EINVAL);
		req.mask = GOFER_SETATTR_UID | GOFER_SETATTR_MTIME;
		req.uid = 4321;
		req.mtime_sec = 12345;
		ck_assert_int_eq(gofer_setattr(g.c, &req, &st), 0);
		ck_assert_uint_eq(host_stat(p).st_uid, 4321);
		ck_assert_int_eq(gofer_setxattr(g.c, nodes[0].handle, "user.x", "v", 1, 0), -EPERM);
		/* A hard link of the symlink is the symlink again. */
		ck_assert_int_eq(
			gofer_link(g.c, g.root.handle, "hardlink", nodes[0].handle, &nodes[1]), 0);
		ck_assert(S_ISLNK(nodes[1].stat.mode));
		ck_assert_uint_eq(nodes[1].stat.ino, hs.st_ino);
		ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "hardlink", 0), 0);
		free(p);
	}
	check_outside_intact();
	gt_stop(&g);
}
END_TEST

START_TEST(test_bad_names)
{
	static const char *const bad[] = {"..", ".", "a/b", "", "/", "dir/..", "../outside"};
	char longname[GOFER_NAME_MAX + 2];
	struct gt_gofer g;
	struct gofer_node nodes[4], d;
	unsigned nwalked;
	uint64_t fid;
	int status, fd;

	gt_start(&g, root, false, 2, 2);
	d = gt_lookup(g.c, g.root.handle, "dir");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *first[] = {bad[i]};
		const char *second[] = {"dir", bad[i], "file"};

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, first, 1, nodes, &nwalked, &status),
				 -EINVAL);
		ck_assert_int_eq(
			gofer_walk(g.c, g.root.handle, second, 3, nodes, &nwalked, &status),
			-EINVAL);
		ck_assert_int_eq(gofer_mkdir(g.c, d.handle, bad[i], 0755, 0, 0, nodes), -EINVAL);
		ck_assert_int_eq(gofer_create(g.c, d.handle, bad[i], O_RDWR, 0644, 0, 0, false,
					      nodes, &fid, &fd),
				 -EINVAL);
		ck_assert_int_eq(gofer_mknod(g.c, d.handle, bad[i], S_IFIFO | 0644, 0, 0, 0, nodes),
				 -EINVAL);
		ck_assert_int_eq(gofer_symlink(g.c, d.handle, bad[i], "x", 0, 0, nodes), -EINVAL);
		ck_assert_int_eq(gofer_link(g.c, d.handle, bad[i], d.handle, nodes), -EINVAL);
		ck_assert_int_eq(gofer_unlink(g.c, d.handle, bad[i], 0), -EINVAL);
		ck_assert_int_eq(gofer_unlink(g.c, d.handle, bad[i], AT_REMOVEDIR), -EINVAL);
		ck_assert_int_eq(gofer_rename(g.c, d.handle, "file", g.root.handle, bad[i], 0),
				 -EINVAL);
		ck_assert_int_eq(gofer_rename(g.c, d.handle, bad[i], g.root.handle, "x", 0),
				 -EINVAL);
	}
	/* 255 bytes is a name; 256 is not. */
	memset(longname, 'n', sizeof(longname));
	longname[GOFER_NAME_MAX] = '\0';
	{
		const char *names[] = {longname};

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 1, nodes, &nwalked, &status),
				 0);
		ck_assert_int_eq(status, ENOENT);
		longname[GOFER_NAME_MAX] = 'n';
		longname[GOFER_NAME_MAX + 1] = '\0';
		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 1, nodes, &nwalked, &status),
				 -EINVAL);
	}
	/* A hard link to a directory: no. */
	ck_assert_int_eq(gofer_link(g.c, g.root.handle, "dirlink", d.handle, nodes), -EPERM);
	ck_assert_int_eq(gofer_link(g.c, g.root.handle, "rootlink", g.root.handle, nodes), -EPERM);
	/* Walking the root's ".." is refused before anything is looked up. */
	{
		const char *names[] = {"..", "outside", "secret"};

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 3, nodes, &nwalked, &status),
				 -EINVAL);
	}
	check_outside_intact();
	gt_stop(&g);
}
END_TEST

/* A host thread swaps root/race/d (a directory) with a symlink to the outside. */
struct swapper {
	int dirfd;
	atomic_bool stop;
	unsigned long swaps;
};

static void *swap_loop(void *arg)
{
	struct swapper *sw = arg;

	while (!atomic_load(&sw->stop)) {
		if (renameat2(sw->dirfd, "d", sw->dirfd, "dlink", RENAME_EXCHANGE) == 0)
			sw->swaps++;
	}
	return NULL;
}

START_TEST(test_swap_race)
{
	struct gt_gofer g;
	struct swapper sw = {0};
	struct stat out_dir, out_file, in_file;
	pthread_t t;
	char *race = gt_path(root, "race"), *p;
	unsigned full = 0, stopped = 0;

	ck_assert_int_eq(mkdir(race, 0755), 0);
	gt_mkdir(race, "d");
	gt_write_file(race, "d/target", "inside target\n");
	p = gt_path(outside, "inner");
	gt_symlink(p, race, "dlink");
	out_dir = host_stat(p);
	free(p);
	p = gt_path(outside, "inner/target");
	out_file = host_stat(p);
	free(p);
	p = gt_path(race, "d/target");
	in_file = host_stat(p);
	free(p);

	gt_start(&g, root, false, 2, 2);
	sw.dirfd = open(race, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(sw.dirfd, 0);
	pthread_create(&t, NULL, swap_loop, &sw);
	for (int i = 0; i < 3000; i++) {
		const char *names[] = {"race", "d", "target"};
		struct gofer_node nodes[3];
		unsigned nwalked = 0;
		int status = -1;
		uint64_t ids[3];

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 3, nodes, &nwalked, &status),
				 0);
		for (unsigned k = 0; k < nwalked; k++) {
			ck_assert(!(nodes[k].stat.dev == out_dir.st_dev &&
				    nodes[k].stat.ino == out_dir.st_ino));
			ck_assert(!(nodes[k].stat.dev == out_file.st_dev &&
				    nodes[k].stat.ino == out_file.st_ino));
			ids[k] = nodes[k].handle;
		}
		if (nwalked == 3) {
			ck_assert_uint_eq(nodes[2].stat.ino, in_file.st_ino);
			full++;
		} else if (nwalked == 2) {
			/* Stopped at the symlink (or it vanished mid-swap). */
			ck_assert_msg(S_ISLNK(nodes[1].stat.mode) || status == ENOENT,
				      "mode %o status %d", nodes[1].stat.mode, status);
			stopped += S_ISLNK(nodes[1].stat.mode);
		}
		gofer_close(g.c, ids, nwalked, NULL, 0);
	}
	atomic_store(&sw.stop, true);
	pthread_join(t, NULL);
	close(sw.dirfd);
	ck_assert_uint_gt(sw.swaps, 0);
	/* Both outcomes happened: the race was real. */
	ck_assert_uint_gt(full + stopped, 0);
	check_outside_intact();
	free(race);
	gt_stop(&g);
}
END_TEST

/* With procfs mounted inside the tree, its magic links are nodes, never doors. */
START_TEST(test_magic_links)
{
	char *proc = gt_path(root, "proc");
	struct gt_gofer g;
	struct gofer_node nodes[4];
	unsigned nwalked;
	uint64_t fid;
	int status, fd;
	char pid[16], name[16];

	/* Our own mount namespace: the mount disappears with this test process. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		free(proc);
		return; /* not allowed here: nothing to test */
	}
	ck_assert_int_eq(mkdir(proc, 0555), 0);
	ck_assert_int_eq(mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL), 0);
	gt_start(&g, root, false, 2, 2);

	snprintf(pid, sizeof(pid), "%d", (int)g.pid);
	{
		const char *names[] = {"proc", "self", "root", "etc"};

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 4, nodes, &nwalked, &status),
				 0);
		ck_assert_uint_eq(nwalked, 2);
		ck_assert(S_ISLNK(nodes[1].stat.mode));
	}
	/* root, cwd, exe and the fds of the gofer itself and of pid 1. */
	for (int who = 0; who < 2; who++) {
		static const char *const magic[] = {"root", "cwd", "exe"};

		for (size_t i = 0; i < ARRAY_SIZE(magic); i++) {
			const char *names[] = {"proc", who ? "1" : pid, magic[i], "etc"};

			ck_assert_int_eq(
				gofer_walk(g.c, g.root.handle, names, 4, nodes, &nwalked, &status),
				0);
			if (nwalked < 3)
				continue; /* hidden from the gofer: fine */
			ck_assert_uint_eq(nwalked, 3);
			ck_assert(S_ISLNK(nodes[2].stat.mode));
			ck_assert_int_eq(
				gofer_open(g.c, nodes[2].handle, O_RDONLY, true, &fid, &fd),
				-ELOOP);
		}
	}
	for (int n = 0; n < 8; n++) {
		const char *names[] = {"proc", pid, "fd", name, "x"};

		snprintf(name, sizeof(name), "%d", n);
		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 5, nodes, &nwalked, &status),
				 0);
		if (nwalked == 4) {
			ck_assert(S_ISLNK(nodes[3].stat.mode));
			ck_assert_int_eq(
				gofer_open(g.c, nodes[3].handle, O_RDONLY, false, &fid, &fd),
				-ELOOP);
		}
	}
	{
		const char *names[] = {"proc", "thread-self", "root"};

		ck_assert_int_eq(gofer_walk(g.c, g.root.handle, names, 3, nodes, &nwalked, &status),
				 0);
		ck_assert_uint_eq(nwalked, 2);
		ck_assert(S_ISLNK(nodes[1].stat.mode));
	}
	gt_stop(&g);
	umount2(proc, MNT_DETACH);
	free(proc);
	check_outside_intact();
}
END_TEST

/* Bind mounts' sources are trees of their own: each attaches at its source
 * (a directory, or a single file), no walk leaves it, read-only ones refuse
 * writes, and no other tree number attaches. */
START_TEST(test_bind_trees)
{
	char *inner = gt_path(outside, "inner"), *secret = gt_path(outside, "secret");
	struct gofer_bind binds[] = {
		{.source = inner, .read_only = false, .recursive = true},
		{.source = secret, .read_only = true, .recursive = false},
	};
	struct gofer_config cfg = {.rootfs = root, .binds = binds, .nbinds = 2};
	struct gofer_node dir, file, nodes[2];
	struct stat hs;
	struct gt_gofer g;
	unsigned nwalked;
	uint64_t fid;
	int status, fd;
	char buf[64] = "";

	gt_start_cfg(&g, &cfg, 2, 2);
	/* Tree 0 is the rootfs, as a bare ATTACH has it. */
	ck_assert_int_eq(gofer_attach_root(g.c, 0, &nodes[0]), 0);
	ck_assert_uint_eq(nodes[0].stat.ino, g.root.stat.ino);
	ck_assert_int_eq(gofer_attach_root(g.c, 3, &nodes[0]), -EINVAL);
	ck_assert_int_eq(gofer_attach_root(g.c, UINT32_MAX, &nodes[0]), -EINVAL);

	ck_assert_int_eq(gofer_attach_root(g.c, 1, &dir), 0);
	hs = host_stat(inner);
	ck_assert(S_ISDIR(dir.stat.mode));
	ck_assert_uint_eq(dir.stat.ino, hs.st_ino);
	{
		const char *up[] = {".."}, *target[] = {"target"};

		ck_assert_int_eq(gofer_walk(g.c, dir.handle, up, 1, nodes, &nwalked, &status),
				 -EINVAL);
		ck_assert_int_eq(gofer_walk(g.c, dir.handle, target, 1, nodes, &nwalked, &status),
				 0);
		ck_assert_uint_eq(nwalked, 1);
		ck_assert_int_eq(gofer_open(g.c, nodes[0].handle, O_RDONLY, true, &fid, &fd), 0);
		ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
		close(fd);
		ck_assert_str_eq(buf, "outside target\n");
	}
	/* A read-write tree takes changes, on the host. */
	ck_assert_int_eq(gofer_mkdir(g.c, dir.handle, "made", 0755, 0, 0, &nodes[1]), 0);
	ck_assert_int_eq(gofer_unlink(g.c, dir.handle, "made", AT_REMOVEDIR), 0);

	ck_assert_int_eq(gofer_attach_root(g.c, 2, &file), 0);
	hs = host_stat(secret);
	ck_assert(S_ISREG(file.stat.mode));
	ck_assert_uint_eq(file.stat.ino, hs.st_ino);
	ck_assert_int_eq(gofer_open(g.c, file.handle, O_RDWR, true, &fid, &fd), -EROFS);
	ck_assert_int_eq(gofer_open(g.c, file.handle, O_RDONLY, false, &fid, &fd), 0);
	ck_assert_int_eq(gofer_read(g.c, fid, 0, buf, sizeof(buf) - 1), 15);
	ck_assert_int_eq(gofer_mkdir(g.c, file.handle, "pwned", 0755, 0, 0, &nodes[1]), -ENOTDIR);
	{
		struct gofer_setattr_req req = {.handle = file.handle, .mask = GOFER_SETATTR_SIZE};
		struct gofer_stat st;

		ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EROFS);
	}
	gt_stop(&g);
	check_outside_intact();
	free(inner);
	free(secret);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gofer escapes");
	TCase *tc = tcase_create("escape");

	tcase_add_unchecked_fixture(tc, gt_base_setup, gt_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_symlinks_never_followed);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_swap_race);
	tcase_add_test(tc, test_magic_links);
	tcase_add_test(tc, test_bind_trees);
	suite_add_tcase(s, tc);
	return s;
}

GOFER_TEST_MAIN(suite)
