/* Gofer tests: every op through a real gofer process over a tree made here. */
#include "config.h"
#include "tests/gofer/gofer_test.h"

#include <linux/capability.h>
#include <pthread.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

static char *root;

static void setup(void)
{
	root = gt_tmpdir("rt");
	gt_write_file(root, "hello.txt", "hello, gofer\n");
	gt_mkdir(root, "dir");
	gt_mkdir(root, "dir/sub");
	gt_write_file(root, "dir/file2", "x");
	gt_symlink("hello.txt", root, "link");
}

static void teardown(void)
{
	gt_rmtree(root);
	free(root);
}

static struct stat host_lstat(const char *name)
{
	struct stat st;
	char *p = gt_path(root, name);

	ck_assert_msg(lstat(p, &st) == 0, "lstat %s: %s", p, strerror(errno));
	free(p);
	return st;
}

static bool host_exists(const char *name)
{
	struct stat st;
	char *p = gt_path(root, name);
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

static char *host_read(const char *name)
{
	static char buf[256];
	char *p = gt_path(root, name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
	free(p);
	return buf;
}

START_TEST(test_attach_walk_stat)
{
	struct gt_gofer g;
	struct gofer_node nodes[4];
	struct gofer_stat st;
	struct stat hs = host_lstat(".");
	unsigned nwalked;
	int status;

	gt_start(&g, root, false, 2, 2);
	ck_assert_uint_ne(g.root.handle, 0);
	ck_assert(S_ISDIR(g.root.stat.mode));
	ck_assert_uint_eq(g.root.stat.ino, hs.st_ino);
	ck_assert_uint_eq(g.root.stat.dev, hs.st_dev);

	ck_assert_int_eq(gt_walk(g.c, g.root.handle, "dir/sub", nodes, &nwalked, &status), 0);
	ck_assert_uint_eq(nwalked, 2);
	ck_assert_int_eq(status, 0);
	ck_assert(S_ISDIR(nodes[0].stat.mode) && S_ISDIR(nodes[1].stat.mode));
	ck_assert_uint_ne(nodes[0].handle, nodes[1].handle);
	ck_assert_uint_eq(nodes[1].stat.ino, host_lstat("dir/sub").st_ino);

	/* Missing name: ENOENT after the part that exists. */
	ck_assert_int_eq(gt_walk(g.c, g.root.handle, "dir/nope/x", nodes, &nwalked, &status), 0);
	ck_assert_uint_eq(nwalked, 1);
	ck_assert_int_eq(status, ENOENT);
	/* A file in the middle: ENOTDIR, the file included. */
	ck_assert_int_eq(gt_walk(g.c, g.root.handle, "hello.txt/x", nodes, &nwalked, &status), 0);
	ck_assert_uint_eq(nwalked, 1);
	ck_assert_int_eq(status, ENOTDIR);
	ck_assert(S_ISREG(nodes[0].stat.mode));
	ck_assert_uint_eq(nodes[0].stat.size, 13);
	/* A symlink stops the walk and is included. */
	ck_assert_int_eq(gt_walk(g.c, g.root.handle, "link/x", nodes, &nwalked, &status), 0);
	ck_assert_uint_eq(nwalked, 1);
	ck_assert_int_eq(status, 0);
	ck_assert(S_ISLNK(nodes[0].stat.mode));

	ck_assert_int_eq(gofer_stat(g.c, gt_lookup(g.c, g.root.handle, "hello.txt").handle, &st),
			 0);
	ck_assert_uint_eq(st.size, 13);
	ck_assert_uint_eq(st.ino, host_lstat("hello.txt").st_ino);
	ck_assert_int_eq(st.mtime_sec, host_lstat("hello.txt").st_mtim.tv_sec);
	ck_assert_int_eq(gofer_stat(g.c, 987654321, &st), -EBADF);
	gt_stop(&g);
}
END_TEST

START_TEST(test_open_read_write)
{
	struct gt_gofer g;
	struct gofer_node f, d;
	uint64_t fid;
	char buf[64];
	int fd;

	gt_start(&g, root, false, 2, 2);
	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	/* Donated: the sentry reads the host fd itself. */
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY, true, &fid, &fd), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(fid, 0);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf), 0), 13);
	ck_assert(memcmp(buf, "hello, gofer\n", 13) == 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	/* Kept: data through the gofer. */
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDWR, false, &fid, &fd), 0);
	ck_assert_int_eq(fd, -1);
	ck_assert_uint_ne(fid, 0);
	ck_assert_int_eq(gofer_read(g.c, fid, 7, buf, sizeof(buf)), 6);
	ck_assert(memcmp(buf, "gofer\n", 6) == 0);
	ck_assert_int_eq(gofer_write(g.c, fid, 0, "HELLO", 5), 5);
	ck_assert_str_eq(host_read("hello.txt"), "HELLO, gofer\n");
	ck_assert_int_eq(gofer_read(g.c, fid, 100, buf, sizeof(buf)), 0);
	ck_assert_int_eq(gofer_fsync(g.c, fid, false), 0);
	ck_assert_int_eq(gofer_fsync(g.c, fid, true), 0);
	ck_assert_int_eq(gofer_fallocate(g.c, fid, 0, 0, 8192), 0);
	ck_assert_int_eq(host_lstat("hello.txt").st_size, 8192);
	ck_assert_int_eq(gofer_close(g.c, NULL, 0, &fid, 1), 0);
	ck_assert_int_eq(gofer_read(g.c, fid, 0, buf, sizeof(buf)), -EBADF);
	/* A handle is not a fid, nor the other way round. */
	ck_assert_int_eq(gofer_read(g.c, f.handle, 0, buf, sizeof(buf)), -EBADF);

	/* What OPEN refuses. */
	d = gt_lookup(g.c, g.root.handle, "dir");
	ck_assert_int_eq(gofer_open(g.c, d.handle, O_WRONLY, false, &fid, &fd), -EISDIR);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY | O_DIRECTORY, false, &fid, &fd),
			 -ENOTDIR);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY | O_CREAT, false, &fid, &fd), -EINVAL);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_ACCMODE, false, &fid, &fd), -EINVAL);
	ck_assert_int_eq(gofer_open(g.c, gt_lookup(g.c, g.root.handle, "link").handle, O_RDONLY,
				    false, &fid, &fd),
			 -ELOOP);
	gt_stop(&g);
}
END_TEST

START_TEST(test_create_mkdir_symlink_link_mknod)
{
	struct gt_gofer g;
	struct gofer_node n, f;
	struct stat hs;
	uint64_t fid;
	char buf[64];
	int fd;

	gt_start(&g, root, false, 2, 2);
	ck_assert_int_eq(gofer_create(g.c, g.root.handle, "new.txt", O_RDWR, 0640, 1234, 5678,
				      false, &n, &fid, &fd),
			 0);
	ck_assert(S_ISREG(n.stat.mode));
	ck_assert_uint_eq(n.stat.mode & 07777, 0640);
	ck_assert_uint_eq(n.stat.uid, 1234);
	ck_assert_uint_eq(n.stat.gid, 5678);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(gofer_write(g.c, fid, 0, "data", 4), 4);
	ck_assert_int_eq(gofer_read(g.c, fid, 0, buf, sizeof(buf)), 4);
	hs = host_lstat("new.txt");
	ck_assert_uint_eq(hs.st_uid, 1234);
	ck_assert_uint_eq(hs.st_size, 4);
	ck_assert_uint_eq(hs.st_ino, n.stat.ino);
	ck_assert_int_eq(gofer_create(g.c, g.root.handle, "new.txt", O_RDWR, 0640, 0, 0, false, &n,
				      &fid, &fd),
			 -EEXIST);
	/* Set-id bits survive the chown. */
	ck_assert_int_eq(gofer_create(g.c, g.root.handle, "suid", O_WRONLY, 04755, 1, 1, true, &n,
				      &fid, &fd),
			 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "z", 1), 1);
	close(fd);
	ck_assert_uint_eq(host_lstat("suid").st_mode & 07777, 04755);
	ck_assert_uint_eq(host_lstat("suid").st_size, 1);

	ck_assert_int_eq(gofer_mkdir(g.c, g.root.handle, "d2", 0750, 42, 43, &n), 0);
	ck_assert(S_ISDIR(n.stat.mode));
	hs = host_lstat("d2");
	ck_assert(S_ISDIR(hs.st_mode));
	ck_assert_uint_eq(hs.st_mode & 07777, 0750);
	ck_assert_uint_eq(hs.st_uid, 42);
	ck_assert_uint_eq(hs.st_gid, 43);
	ck_assert_int_eq(gofer_mkdir(g.c, g.root.handle, "d2", 0750, 0, 0, &n), -EEXIST);

	ck_assert_int_eq(gofer_symlink(g.c, g.root.handle, "ln", "hello.txt", 7, 8, &n), 0);
	ck_assert(S_ISLNK(n.stat.mode));
	ck_assert_uint_eq(host_lstat("ln").st_uid, 7);
	ck_assert_int_eq(gofer_readlink(g.c, n.handle, buf, sizeof(buf)), 9);
	ck_assert_str_eq(buf, "hello.txt");
	ck_assert_int_eq(gofer_readlink(g.c, n.handle, buf, 4), 9); /* truncated copy */
	ck_assert_str_eq(buf, "hel");
	ck_assert_int_eq(gofer_readlink(g.c, g.root.handle, buf, sizeof(buf)), -EINVAL);

	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	ck_assert_int_eq(gofer_link(g.c, g.root.handle, "hard", f.handle, &n), 0);
	ck_assert_uint_eq(n.stat.ino, f.stat.ino);
	ck_assert_uint_eq(n.stat.nlink, 2);
	ck_assert_uint_eq(host_lstat("hello.txt").st_nlink, 2);
	ck_assert_int_eq(gofer_link(g.c, g.root.handle, "dirlink",
				    gt_lookup(g.c, g.root.handle, "dir").handle, &n),
			 -EPERM);

	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "fifo", S_IFIFO | 0600, 0, 3, 4, &n), 0);
	ck_assert(S_ISFIFO(n.stat.mode));
	ck_assert(S_ISFIFO(host_lstat("fifo").st_mode));
	ck_assert_uint_eq(host_lstat("fifo").st_uid, 3);
	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "reg", 0644, 0, 0, 0, &n), 0);
	ck_assert(S_ISREG(host_lstat("reg").st_mode));
	ck_assert_int_eq(
		gofer_mknod(g.c, g.root.handle, "null", S_IFCHR | 0666, makedev(1, 3), 0, 0, &n),
		-EPERM);
	ck_assert(!host_exists("null"));
	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "blk", S_IFBLK | 0666, 0, 0, 0, &n),
			 -EPERM);
	/* A socket node: the placeholder a guest's bind() names. */
	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "sock", S_IFSOCK | 0755, 0, 5, 6, &n), 0);
	ck_assert(S_ISSOCK(n.stat.mode));
	hs = host_lstat("sock");
	ck_assert(S_ISSOCK(hs.st_mode));
	ck_assert_uint_eq(hs.st_uid, 5);
	ck_assert_uint_eq(hs.st_ino, n.stat.ino);
	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "sock", S_IFSOCK | 0755, 0, 0, 0, &n),
			 -EEXIST);
	gt_stop(&g);
}
END_TEST

START_TEST(test_unlink_rename)
{
	struct gt_gofer g;
	struct gofer_node d;

	gt_write_file(root, "a", "A");
	gt_write_file(root, "b", "B");
	gt_start(&g, root, false, 2, 2);
	d = gt_lookup(g.c, g.root.handle, "dir");

	ck_assert_int_eq(gofer_rename(g.c, g.root.handle, "a", d.handle, "a2", 0), 0);
	ck_assert(!host_exists("a") && host_exists("dir/a2"));
	ck_assert_int_eq(gofer_rename(g.c, d.handle, "a2", g.root.handle, "b", RENAME_NOREPLACE),
			 -EEXIST);
	ck_assert_int_eq(gofer_rename(g.c, d.handle, "a2", g.root.handle, "b", RENAME_EXCHANGE), 0);
	ck_assert_str_eq(host_read("b"), "A");
	ck_assert_str_eq(host_read("dir/a2"), "B");
	ck_assert_int_eq(gofer_rename(g.c, d.handle, "a2", g.root.handle, "b",
				      RENAME_EXCHANGE | RENAME_NOREPLACE),
			 -EINVAL);
	ck_assert_int_eq(gofer_rename(g.c, g.root.handle, "b", g.root.handle, "c", 0), 0);
	ck_assert_str_eq(host_read("c"), "A");

	ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "c", 0), 0);
	ck_assert(!host_exists("c"));
	ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "c", 0), -ENOENT);
	ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "dir", 0), -EISDIR);
	ck_assert_int_eq(gofer_unlink(g.c, d.handle, "sub", AT_REMOVEDIR), 0);
	ck_assert(!host_exists("dir/sub"));
	ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "dir", AT_REMOVEDIR), -ENOTEMPTY);
	gt_stop(&g);
}
END_TEST

/* Read a whole directory count bytes at a time; returns the names, sorted, joined. */
static char *list_dir(struct gofer_client *c, uint64_t fid, size_t count, int *calls)
{
	static char names[4096];
	char *sorted[256];
	uint8_t buf[GOFER_MAX_IO];
	uint64_t cookie = 0;
	unsigned n = 0;
	long len;

	*calls = 0;
	while ((len = gofer_getdents(c, fid, cookie, buf, count)) > 0) {
		(*calls)++;
		for (long off = 0; off < len;) {
			struct gofer_dirent d;

			memcpy(&d, buf + off, sizeof(d));
			ck_assert_uint_lt(n, 256);
			sorted[n++] = xstrdup((char *)buf + off + sizeof(d));
			cookie = d.next;
			off += d.reclen;
		}
	}
	ck_assert_int_eq(len, 0);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (strcmp(sorted[j], sorted[i]) < 0) {
				char *t = sorted[i];
				sorted[i] = sorted[j];
				sorted[j] = t;
			}
	names[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		strcat(names, sorted[i]);
		strcat(names, " ");
		free(sorted[i]);
	}
	return names;
}

START_TEST(test_getdents)
{
	struct gt_gofer g;
	uint64_t fid;
	char expect[] = "a-long-name-to-make-records-bigger-0 a-long-name-to-make-records-bigger-1 "
			"a-long-name-to-make-records-bigger-2 a-long-name-to-make-records-bigger-3 "
			"a-long-name-to-make-records-bigger-4 dir hello.txt link ";
	uint8_t small[16];
	int fd, calls;

	for (int i = 0; i < 5; i++) {
		char name[64];

		snprintf(name, sizeof(name), "a-long-name-to-make-records-bigger-%d", i);
		gt_write_file(root, name, "");
	}
	gt_start(&g, root, false, 2, 2);
	ck_assert_int_eq(gofer_open(g.c, g.root.handle, O_RDONLY | O_DIRECTORY, false, &fid, &fd),
			 0);
	ck_assert_str_eq(list_dir(g.c, fid, GOFER_MAX_IO, &calls), expect);
	ck_assert_int_eq(calls, 1);
	/* One entry per call: resumed by cookie every time. */
	ck_assert_str_eq(list_dir(g.c, fid, 72, &calls), expect);
	ck_assert_int_ge(calls, 5);
	ck_assert_int_eq(gofer_getdents(g.c, fid, 0, small, sizeof(small)), -EINVAL);
	ck_assert_int_eq(gofer_getdents(g.c, 4242, 0, small, sizeof(small)), -EBADF);
	gt_stop(&g);
}
END_TEST

START_TEST(test_setattr_statfs)
{
	struct gt_gofer g;
	struct gofer_node f;
	struct gofer_stat st;
	struct gofer_statfs sfs;
	struct statfs hsfs;
	struct stat hs;
	struct gofer_setattr_req req = {0};
	struct timespec now;

	gt_start(&g, root, false, 2, 2);
	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	req.handle = f.handle;
	req.mask = GOFER_SETATTR_MODE | GOFER_SETATTR_UID | GOFER_SETATTR_GID | GOFER_SETATTR_SIZE |
		   GOFER_SETATTR_ATIME | GOFER_SETATTR_MTIME;
	req.mode = 0600;
	req.uid = 11;
	req.gid = 12;
	req.size = 5;
	req.atime_sec = 1000;
	req.atime_nsec = 5;
	req.mtime_sec = 2000;
	req.mtime_nsec = 6;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), 0);
	ck_assert_uint_eq(st.mode, S_IFREG | 0600);
	ck_assert_uint_eq(st.uid, 11);
	ck_assert_uint_eq(st.gid, 12);
	ck_assert_uint_eq(st.size, 5);
	ck_assert_int_eq(st.atime_sec, 1000);
	ck_assert_uint_eq(st.atime_nsec, 5);
	ck_assert_int_eq(st.mtime_sec, 2000);
	hs = host_lstat("hello.txt");
	ck_assert_uint_eq(hs.st_mode, S_IFREG | 0600);
	ck_assert_uint_eq(hs.st_uid, 11);
	ck_assert_int_eq(hs.st_size, 5);
	ck_assert_int_eq(hs.st_mtim.tv_sec, 2000);
	ck_assert_int_eq(hs.st_mtim.tv_nsec, 6);
	ck_assert_str_eq(host_read("hello.txt"), "hello");

	/* Times: now for mtime, atime untouched (the read above may have moved it). */
	hs = host_lstat("hello.txt");
	clock_gettime(CLOCK_REALTIME, &now);
	req.mask = GOFER_SETATTR_MTIME_NOW;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), 0);
	ck_assert_int_eq(st.atime_sec, hs.st_atim.tv_sec);
	ck_assert_uint_eq(st.atime_nsec, hs.st_atim.tv_nsec);
	ck_assert_int_ge(st.mtime_sec, now.tv_sec - 1);
	/* Set-uid by mode after an owner change in the same request. */
	req.mask = GOFER_SETATTR_MODE | GOFER_SETATTR_UID;
	req.mode = 06755;
	req.uid = 99;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), 0);
	ck_assert_uint_eq(st.mode & 07777, 06755);

	req.mask = GOFER_SETATTR_SIZE;
	req.handle = gt_lookup(g.c, g.root.handle, "dir").handle;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EISDIR);
	req.mask = GOFER_SETATTR_MODE;
	req.handle = gt_lookup(g.c, g.root.handle, "link").handle;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EOPNOTSUPP);
	req.mask = 0x100;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EINVAL);
	req.mask = GOFER_SETATTR_ATIME;
	req.atime_nsec = 1000000000;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EINVAL);
	/* A symlink's owner and times are its own. */
	req.mask = GOFER_SETATTR_UID | GOFER_SETATTR_MTIME;
	req.uid = 77;
	req.mtime_sec = 3000;
	req.mtime_nsec = 0;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), 0);
	ck_assert(S_ISLNK(st.mode));
	ck_assert_uint_eq(host_lstat("link").st_uid, 77);
	ck_assert_int_eq(host_lstat("link").st_mtim.tv_sec, 3000);
	ck_assert_uint_eq(host_lstat("hello.txt").st_uid, 99);

	ck_assert_int_eq(gofer_statfs(g.c, g.root.handle, &sfs), 0);
	ck_assert_int_eq(statfs(root, &hsfs), 0);
	ck_assert_uint_eq(sfs.type, (uint64_t)hsfs.f_type);
	ck_assert_uint_eq(sfs.bsize, (uint64_t)hsfs.f_bsize);
	ck_assert_uint_eq(sfs.blocks, hsfs.f_blocks);
	gt_stop(&g);
}
END_TEST

START_TEST(test_xattr)
{
	struct gt_gofer g;
	struct gofer_node f;
	char buf[256];
	long n;

	gt_start(&g, root, false, 2, 2);
	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	n = gofer_setxattr(g.c, f.handle, "user.test", "value", 5, 0);
	if (n == -EOPNOTSUPP) {
		gt_stop(&g);
		return; /* no user xattrs on this filesystem */
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(gofer_setxattr(g.c, f.handle, "user.test", "v", 1, XATTR_CREATE), -EEXIST);
	ck_assert_int_eq(gofer_getxattr(g.c, f.handle, "user.test", NULL, 0), 5);
	ck_assert_int_eq(gofer_getxattr(g.c, f.handle, "user.test", buf, sizeof(buf)), 5);
	ck_assert(memcmp(buf, "value", 5) == 0);
	ck_assert_int_eq(gofer_getxattr(g.c, f.handle, "user.test", buf, 2), -ERANGE);
	ck_assert_int_eq(lgetxattr(gt_path(root, "hello.txt"), "user.test", buf, sizeof(buf)), 5);
	ck_assert_int_eq(gofer_setxattr(g.c, f.handle, "user.other", "", 0, 0), 0);
	n = gofer_listxattr(g.c, f.handle, NULL, 0);
	ck_assert_int_eq(n, (long)sizeof("user.test") + (long)sizeof("user.other"));
	ck_assert_int_eq(gofer_listxattr(g.c, f.handle, buf, sizeof(buf)), n);
	ck_assert(memmem(buf, (size_t)n, "user.test", sizeof("user.test")) != NULL);
	ck_assert_int_eq(gofer_listxattr(g.c, f.handle, buf, 3), -ERANGE);
	ck_assert_int_eq(gofer_getxattr(g.c, f.handle, "trusted.x", buf, sizeof(buf)), -EOPNOTSUPP);
	ck_assert_int_eq(gofer_setxattr(g.c, f.handle, "security.x", "v", 1, 0), -EOPNOTSUPP);
	ck_assert_int_eq(gofer_removexattr(g.c, f.handle, "user.test"), 0);
	ck_assert_int_eq(gofer_getxattr(g.c, f.handle, "user.test", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(gofer_removexattr(g.c, f.handle, "user.test"), -ENODATA);
	/* Symlinks carry no user attributes. */
	ck_assert_int_eq(gofer_setxattr(g.c, gt_lookup(g.c, g.root.handle, "link").handle, "user.x",
					"v", 1, 0),
			 -EPERM);
	gt_stop(&g);
}
END_TEST

START_TEST(test_close_handles)
{
	struct gt_gofer g;
	struct gofer_node f;
	struct gofer_stat st;
	uint64_t ids[2];

	gt_start(&g, root, false, 2, 2);
	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	ids[0] = f.handle;
	ids[1] = 123456789; /* unknown ids are ignored */
	ck_assert_int_eq(gofer_close(g.c, ids, 2, NULL, 0), 0);
	ck_assert_int_eq(gofer_stat(g.c, f.handle, &st), -EBADF);
	/* Ids are never reused. */
	ck_assert_uint_gt(gt_lookup(g.c, g.root.handle, "hello.txt").handle, f.handle);
	gt_stop(&g);
}
END_TEST

START_TEST(test_read_only)
{
	struct gt_gofer g;
	struct gofer_node f, n;
	struct gofer_stat st;
	struct gofer_setattr_req req = {0};
	uint64_t fid;
	char buf[32];
	int fd;

	gt_start(&g, root, true, 2, 2);
	f = gt_lookup(g.c, g.root.handle, "hello.txt");
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY, false, &fid, &fd), 0);
	ck_assert_int_eq(gofer_read(g.c, fid, 0, buf, 5), 5);
	ck_assert_int_eq(gofer_write(g.c, fid, 0, "x", 1), -EROFS);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY, true, &fid, &fd), 0);
	/* Even the donated fd cannot write: the gofer's mount is read-only. */
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	close(fd);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_WRONLY, true, &fid, &fd), -EROFS);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDWR, false, &fid, &fd), -EROFS);
	ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY | O_TRUNC, false, &fid, &fd), -EROFS);
	ck_assert_int_eq(
		gofer_create(g.c, g.root.handle, "n", O_RDWR, 0644, 0, 0, false, &n, &fid, &fd),
		-EROFS);
	ck_assert_int_eq(gofer_mkdir(g.c, g.root.handle, "n", 0755, 0, 0, &n), -EROFS);
	ck_assert_int_eq(gofer_mknod(g.c, g.root.handle, "n", S_IFIFO | 0644, 0, 0, 0, &n), -EROFS);
	ck_assert_int_eq(gofer_symlink(g.c, g.root.handle, "n", "x", 0, 0, &n), -EROFS);
	ck_assert_int_eq(gofer_link(g.c, g.root.handle, "n", f.handle, &n), -EROFS);
	ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "hello.txt", 0), -EROFS);
	ck_assert_int_eq(gofer_rename(g.c, g.root.handle, "hello.txt", g.root.handle, "n", 0),
			 -EROFS);
	req.handle = f.handle;
	req.mask = GOFER_SETATTR_MODE;
	req.mode = 0777;
	ck_assert_int_eq(gofer_setattr(g.c, &req, &st), -EROFS);
	ck_assert_int_eq(gofer_setxattr(g.c, f.handle, "user.x", "v", 1, 0), -EROFS);
	ck_assert_int_eq(gofer_removexattr(g.c, f.handle, "user.x"), -EROFS);
	ck_assert_int_eq(gofer_stat(g.c, f.handle, &st), 0);
	ck_assert_uint_eq(st.mode & 0777, 0644);
	ck_assert(!host_exists("n"));
	ck_assert_str_eq(host_read("hello.txt"), "hello, gofer\n");
	gt_stop(&g);
}
END_TEST

/* The confinement, as the kernel reports it. */
START_TEST(test_confinement)
{
	struct gt_gofer g;
	char path[64], line[256];
	unsigned long long eff = ~0ull, bnd = ~0ull, prm = ~0ull;
	int nnp = -1, seccomp = -1;
	FILE *f;
	const unsigned long long want = (1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) |
					(1ull << CAP_DAC_READ_SEARCH) | (1ull << CAP_FOWNER) |
					(1ull << CAP_FSETID);

	gt_start(&g, root, false, 2, 2);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)g.pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapEff: %llx", &eff);
		sscanf(line, "CapPrm: %llx", &prm);
		sscanf(line, "CapBnd: %llx", &bnd);
		sscanf(line, "NoNewPrivs: %d", &nnp);
		sscanf(line, "Seccomp: %d", &seccomp);
	}
	fclose(f);
	ck_assert_uint_eq(eff, want);
	ck_assert_uint_eq(prm, want);
	ck_assert_uint_eq(bnd, 0);
	ck_assert_int_eq(nnp, 1);
	ck_assert_int_eq(seccomp, 2);
	/* Its root is the served tree. */
	snprintf(path, sizeof(path), "/proc/%d/root/hello.txt", (int)g.pid);
	ck_assert_int_eq(access(path, F_OK), 0);
	/* Its fds: stdio, /proc/self/fd, the root, the ring and the channels. */
	ck_assert_int_eq(gt_fd_count(g.pid), 3 + 1 + 1 + 1 + 2 + 1 /* the attached root */);
	gt_stop(&g);
}
END_TEST

struct worker {
	struct gofer_client *c;
	uint64_t dir;
	int failures;
};

static void *stat_worker(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 300; i++) {
		struct gofer_node nodes[2];
		const char *names[] = {"dir", "file2"};
		struct gofer_stat st;
		unsigned nwalked;
		int status;

		if (gofer_walk(w->c, w->dir, names, 2, nodes, &nwalked, &status) < 0 ||
		    nwalked != 2 || gofer_stat(w->c, nodes[1].handle, &st) < 0 || st.size != 1)
			w->failures++;
		uint64_t ids[] = {nodes[0].handle, nodes[1].handle};
		gofer_close(w->c, ids, 2, NULL, 0);
	}
	return NULL;
}

/* More threads than channels: the pool hands channels out and back. */
START_TEST(test_concurrent_clients)
{
	struct gt_gofer g;
	struct worker w[6];
	pthread_t t[6];

	gt_start(&g, root, false, 3, 3);
	for (int i = 0; i < 6; i++) {
		w[i] = (struct worker){.c = g.c, .dir = g.root.handle};
		pthread_create(&t[i], NULL, stat_worker, &w[i]);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
	}
	/* Every handle was given back: only the root's remains (plus the fixed set). */
	ck_assert_int_eq(gt_fd_count(g.pid), 3 + 1 + 1 + 1 + 3 + 1);
	gt_stop(&g);
}
END_TEST

START_TEST(test_spawn_errors)
{
	struct gofer_config cfg = {.rootfs = "/nonexistent/rootfs"};
	struct rung_error err = {0};
	pid_t pid;
	int fds[2];

	ck_assert_int_lt(gofer_spawn(&cfg, 2, &pid, fds, &err), 0);
	ck_assert_int_eq(err.status, ENOENT);
	rung_error_release(&err);
	cfg.rootfs = root;
	ck_assert_int_lt(gofer_spawn(&cfg, 0, &pid, fds, &err), 0);
	rung_error_release(&err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gofer round trip");
	TCase *tc = tcase_create("ops");

	tcase_add_unchecked_fixture(tc, gt_base_setup, gt_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_attach_walk_stat);
	tcase_add_test(tc, test_open_read_write);
	tcase_add_test(tc, test_create_mkdir_symlink_link_mknod);
	tcase_add_test(tc, test_unlink_rename);
	tcase_add_test(tc, test_getdents);
	tcase_add_test(tc, test_setattr_statfs);
	tcase_add_test(tc, test_xattr);
	tcase_add_test(tc, test_close_handles);
	tcase_add_test(tc, test_read_only);
	tcase_add_test(tc, test_confinement);
	tcase_add_test(tc, test_concurrent_clients);
	tcase_add_test(tc, test_spawn_errors);
	suite_add_tcase(s, tc);
	return s;
}

GOFER_TEST_MAIN(suite)
