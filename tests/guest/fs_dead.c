/*
 * Guest test: removed directories and directory times, in /tmp (the
 * rootfs overlay in rung) and in /dev/shm (a tmpfs). A directory that was
 * removed (rmdir, or replaced by a rename) stays usable as an open
 * descriptor or a cwd, but Linux lists nothing from it (getdents is
 * ENOENT) and nothing can be found or made in it (ENOENT), while "." and
 * ".." still work. Every change of a directory's entries moves its mtime.
 */
#include "fsguest.h"

#include <sys/sysmacros.h>

static char buf[4096];

/* The calls that look for or make a name in the removed directory fd. */
static void dead_calls(const char *base, const char *path, int fd, const char *how)
{
	char what[160], other[300];
	struct stat st;
	int d;

#define DEAD(expr, name)                                                   \
	do {                                                               \
		snprintf(what, sizeof(what), "%s, %s: %s", base, how, name); \
		CHECK_ERRNO(expr, ENOENT, what);                           \
	} while (0)
	snprintf(other, sizeof(other), "%s/f", path);
	DEAD(getdents64(fd, buf, sizeof(buf)), "getdents64");
	DEAD(openat(fd, "x", O_WRONLY | O_CREAT, 0644), "openat O_CREAT");
	DEAD(openat(fd, "x", O_RDONLY), "openat");
	DEAD(mkdirat(fd, "x", 0755), "mkdirat");
	DEAD(mknodat(fd, "x", S_IFIFO | 0644, 0), "mknodat a fifo");
	DEAD(symlinkat("f", fd, "x"), "symlinkat");
	DEAD(linkat(AT_FDCWD, other, fd, "x", 0), "linkat into it");
	DEAD(renameat(AT_FDCWD, other, fd, "x"), "renameat into it");
	DEAD(fstatat(fd, "x", &st, 0), "fstatat of a name in it");
	DEAD(unlinkat(fd, "x", 0), "unlinkat");
#undef DEAD
	snprintf(what, sizeof(what), "%s, %s: fstat works, no links", base, how);
	CHECK(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink == 0, what);
	d = openat(fd, ".", O_RDONLY | O_DIRECTORY);
	snprintf(what, sizeof(what), "%s, %s: open \".\" works", base, how);
	CHECK(d >= 0, what);
	close(d);
	d = openat(fd, "..", O_RDONLY | O_DIRECTORY);
	snprintf(what, sizeof(what), "%s, %s: \"..\" is the parent", base, how);
	CHECK(d >= 0 && fstatat(d, "f", &st, 0) == 0, what);
	close(d);
}

/* Set dir's times to 100, run the change, and see that its mtime moved. */
#define MOVES(dir, change, what)                                                    \
	do {                                                                        \
		struct timespec ts_[2] = {{100, 0}, {100, 0}};                      \
		struct stat st_;                                                    \
		char wbuf_[200];                                                       \
		utimensat(AT_FDCWD, dir, ts_, 0);                                   \
		snprintf(wbuf_, sizeof(wbuf_), "%s: %s", base, what);                     \
		CHECK_EQ(change, 0, wbuf_);                                            \
		snprintf(wbuf_, sizeof(wbuf_), "%s: %s moves %s's mtime", base, what, dir); \
		CHECK(stat(dir, &st_) == 0 && st_.st_mtim.tv_sec > 100, wbuf_);        \
	} while (0)

static void times(const char *base)
{
	int fd;

	CHECK_EQ(mkdir("t", 0755), 0, "mkdir t");
	CHECK_EQ(mkdir("u", 0755), 0, "mkdir u");
	fd = open("t/a", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0, "create t/a");
	close(fd);
	MOVES("t", (fd = open("t/b", O_WRONLY | O_CREAT, 0644)) < 0 ? -1 : close(fd),
	      "open O_CREAT");
	MOVES("t", mkdir("t/d", 0755), "mkdir");
	MOVES("t", mknod("t/p", S_IFIFO | 0644, 0), "mknod");
	MOVES("t", symlink("a", "t/s"), "symlink");
	MOVES("t", link("t/a", "t/h"), "link");
	MOVES("t", rename("t/h", "u/h"), "rename out");
	MOVES("u", rename("t/b", "u/b"), "rename in");
	MOVES("t", rename("t/a", "t/a2"), "rename within");
	MOVES("t", renameat2(AT_FDCWD, "t/a2", AT_FDCWD, "t/s", RENAME_EXCHANGE),
	      "RENAME_EXCHANGE");
	MOVES("t", unlink("t/p"), "unlink");
	MOVES("t", rmdir("t/d"), "rmdir");
}

static void run(const char *base, const char *path)
{
	struct stat st;
	int fd;

	CHECK_EQ(chdir(path), 0, base);
	CHECK_EQ(fs_put("f", "f"), 0, "make f");

	CHECK_EQ(mkdir("g", 0755), 0, "mkdir g");
	fd = open("g", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(rmdir("g"), 0, "rmdir g while open");
	dead_calls(base, path, fd, "removed");
	close(fd);

	CHECK_EQ(mkdir("a", 0755), 0, "mkdir a");
	CHECK_EQ(mkdir("b", 0755), 0, "mkdir b");
	fd = open("b", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(rename("a", "b"), 0, "rename a over the empty b");
	dead_calls(base, path, fd, "replaced by a rename");
	close(fd);
	CHECK_EQ(mkdir("b/new", 0755), 0, "the new b works");

	CHECK_EQ(mkdir("cwd", 0755), 0, "mkdir cwd");
	CHECK_EQ(chdir("cwd"), 0, "chdir cwd");
	CHECK_EQ(rmdir("../cwd"), 0, "rmdir the cwd");
	CHECK_ERRNO(open("x", O_WRONLY | O_CREAT, 0644), ENOENT, "creating in a removed cwd");
	CHECK_ERRNO(mkdir("x", 0755), ENOENT, "mkdir in a removed cwd");
	CHECK_ERRNO(stat("x", &st), ENOENT, "stat in a removed cwd");
	CHECK_ERRNO(getcwd(buf, sizeof(buf)) ? 0 : -1, ENOENT, "getcwd of a removed cwd");
	CHECK(stat(".", &st) == 0 && st.st_nlink == 0, "stat . of a removed cwd");
	{
		long n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = 0;
		CHECK(n > 14 && strcmp(buf + n - 14, "/cwd (deleted)") == 0,
		      "/proc/self/cwd of a removed cwd reads DIR/cwd (deleted)");
	}
	CHECK_EQ(stat("../f", &st), 0, "stat ../f from a removed cwd");
	CHECK_EQ(chdir(".."), 0, "chdir .. from a removed cwd");

	times(base);
}

int main(void)
{
	char shm[64];

	fs_enter("fs_dead");
	run("tmp", fs_dir);
	snprintf(shm, sizeof(shm), "/dev/shm/fs_dead-%d", (int)getpid());
	fs_rm_rf(shm);
	if (mkdir(shm, 0755) == 0) {
		run("shm", shm);
		CHECK_EQ(chdir("/"), 0, "leave /dev/shm");
		CHECK_EQ(fs_rm_rf(shm), 0, "remove the /dev/shm directory");
	} else {
		CHECK(0, "mkdir in /dev/shm");
	}
	fs_leave();
	return GUEST_DONE();
}
