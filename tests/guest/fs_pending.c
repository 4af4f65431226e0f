/*
 * Guest test: what the other fs_* tests found rung doing differently from
 * Linux, one check each, in a fresh directory under /tmp. Each check says
 * what Linux does; the comment above it what rung did when it was written
 * (kept out of the run list until rung passed; fs_opath, fs_dead, fs_io,
 * fs_reopen, fs_tmpfile and fs_xattr check each of these more closely).
 * The last check crashed the sentry, so it runs last.
 */
#include "fsguest.h"

#include <sys/uio.h>
#include <sys/xattr.h>

int main(void)
{
	char buf[64];
	struct stat st;
	int fd, p[2];

	fs_enter("fs_pending");
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(fs_put("f", "0123456789"), 0, "make f");

	/* rung: EINVAL */
	fd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_ERRNO(read(fd, buf, sizeof(buf)), EISDIR, "read from a directory");
	close(fd);
	/* rung: ENOTDIR */
	fd = open("d", O_PATH);
	CHECK_ERRNO(getdents64(fd, buf, sizeof(buf)), EBADF, "getdents64 of an O_PATH directory");
	close(fd);
	/* rung: EINVAL; and fchmod succeeds */
	fd = open("f", O_PATH);
	CHECK_ERRNO(read(fd, buf, 1), EBADF, "read from an O_PATH descriptor");
	CHECK_ERRNO(fchmod(fd, 0600), EBADF, "fchmod of an O_PATH descriptor");
	close(fd);

	/* rung: tmpfs reports no holes (SEEK_HOLE 0 is the end, SEEK_DATA in
	 * the hole stays) */
	fd = open("h", O_RDWR | O_CREAT | O_EXCL, 0644);
	memset(buf, 'D', sizeof(buf));
	CHECK_EQ(pwrite(fd, buf, sizeof(buf), 0), (long)sizeof(buf), "write at 0");
	CHECK_EQ(pwrite(fd, buf, sizeof(buf), 1 << 20), (long)sizeof(buf), "write at 1 MiB");
	CHECK_EQ(lseek(fd, 0, SEEK_HOLE), 4096, "SEEK_HOLE from 0 finds the hole at 4096");
	CHECK_EQ(lseek(fd, 4096, SEEK_DATA), 1 << 20, "SEEK_DATA from 4096 finds 1 MiB");
	CHECK_EQ(lseek(fd, 100000, SEEK_HOLE), 100000, "SEEK_HOLE inside the hole stays");
	close(fd);

	/* rung: copies 5 bytes */
	fd = open("f", O_RDWR);
	{
		off_t in = 0, out = 2;

		CHECK_ERRNO(copy_file_range(fd, &in, fd, &out, 5, 0), EINVAL,
			    "copy_file_range between overlapping ranges of one file");
	}
	/* rung: EOPNOTSUPP */
	{
		struct iovec iov = {"+", 1};

		errno = 0;
		CHECK_EQ(pwritev2(fd, &iov, 1, 0, RWF_APPEND), 1, "pwritev2 RWF_APPEND");
		CHECK(strcmp(fs_get("f"), "0123456789+") == 0, "appends at the end");
	}
	/* rung: ENOSYS */
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL), 0,
		 "posix_fadvise POSIX_FADV_SEQUENTIAL");
	close(fd);

	/* rung: the directory's mtime stays */
	{
		struct timespec ts[2] = {{100, 0}, {100, 0}};

		CHECK_EQ(utimensat(AT_FDCWD, "d", ts, 0), 0, "set d's times to 100");
		CHECK_EQ(fs_put("d/new", ""), 0, "make d/new");
		CHECK_EQ(stat("d", &st), 0, "stat d");
		CHECK(st.st_mtim.tv_sec > 100, "a new entry moves its directory's mtime");
		CHECK_EQ(utimensat(AT_FDCWD, "d", ts, 0), 0, "set d's times to 100");
		CHECK_EQ(unlink("d/new"), 0, "unlink d/new");
		CHECK_EQ(stat("d", &st), 0, "stat d");
		CHECK(st.st_mtim.tv_sec > 100, "so does removing one");
	}

	/* rung: lists . and .., and creates the file */
	CHECK_EQ(mkdir("gone", 0755), 0, "mkdir gone");
	fd = open("gone", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(rmdir("gone"), 0, "rmdir it while open");
	CHECK_ERRNO(getdents64(fd, buf, sizeof(buf)), ENOENT, "listing a removed directory");
	CHECK_ERRNO(openat(fd, "x", O_WRONLY | O_CREAT, 0644), ENOENT,
		    "creating in a removed directory");
	CHECK_ERRNO(mkdirat(fd, "x", 0755), ENOENT, "mkdir in a removed directory");
	close(fd);
	/* rung: creates the file */
	CHECK_EQ(mkdir("cwd", 0755), 0, "mkdir cwd");
	CHECK_EQ(chdir("cwd"), 0, "chdir cwd");
	CHECK_EQ(rmdir("../cwd"), 0, "rmdir the cwd");
	CHECK_ERRNO(open("x", O_WRONLY | O_CREAT, 0644), ENOENT, "creating in a removed cwd");
	CHECK_EQ(chdir(fs_dir), 0, "back to the work directory");

	/* rung: EXDEV on /tmp (the overlay), though both names are in its
	 * upper layer; in /dev/shm it works */
	CHECK_EQ(fs_put("x1", "x1"), 0, "make x1");
	CHECK_EQ(fs_put("x2", "x2"), 0, "make x2");
	CHECK_EQ(renameat2(AT_FDCWD, "x1", AT_FDCWD, "x2", RENAME_EXCHANGE), 0,
		 "RENAME_EXCHANGE of two files");
	CHECK(strcmp(fs_get("x1"), "x2") == 0 && strcmp(fs_get("x2"), "x1") == 0, "swaps them");
	CHECK_EQ(renameat2(AT_FDCWD, "x1", AT_FDCWD, "d", RENAME_EXCHANGE), 0,
		 "RENAME_EXCHANGE of a file and a directory");
	CHECK_EQ(stat("x1", &st), 0, "stat x1");
	CHECK(S_ISDIR(st.st_mode) && strcmp(fs_get("d"), "x2") == 0, "swaps them");
	CHECK_EQ(mkdir("x1/sub", 0755), 0, "mkdir x1/sub");
	CHECK_ERRNO(renameat2(AT_FDCWD, "x1", AT_FDCWD, "x1/sub", RENAME_EXCHANGE), EINVAL,
		    "RENAME_EXCHANGE of a directory with its own child");

	/* rung: ENODATA */
	CHECK_EQ(symlink("f", "l"), 0, "symlink l -> f");
	if (setxattr("f", "user.a", "1", 1, 0) == 0 || errno != EOPNOTSUPP)
		CHECK_ERRNO(lremovexattr("l", "user.a"), EPERM,
			    "lremovexattr of a user.* name on a symlink");

	/* rung: ENXIO */
	fd = memfd_create("m", 0);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	{
		int again = open(buf, O_RDWR);

		CHECK(again >= 0, "reopen a memfd through /proc/self/fd");
		close(again);
	}
	close(fd);
	CHECK_EQ(pipe(p), 0, "pipe");
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", p[0]);
	{
		int again = open(buf, O_RDONLY | O_NONBLOCK);

		CHECK(again >= 0, "reopen a pipe through /proc/self/fd (as /dev/stdin does)");
		CHECK_EQ(write(p[1], "pipe", 4), 4, "write to the pipe");
		CHECK_EQ(read(again, buf, sizeof(buf)), 4, "read it from the reopened end");
		close(again);
	}
	close(p[0]);
	close(p[1]);

	/* rung: EOPNOTSUPP (openat2 says so; open too?) */
	fd = open(".", O_TMPFILE | O_RDWR, 0600);
	CHECK(fd >= 0, "O_TMPFILE in /tmp");
	if (fd >= 0) {
		CHECK_EQ(write(fd, "tmp", 3), 3, "write to it");
		CHECK_EQ(fstat(fd, &st), 0, "fstat");
		CHECK(S_ISREG(st.st_mode) && st.st_nlink == 0, "a file with no name");
		fs_list("O_TMPFILE leaves no name", ".");
		close(fd);
	}

	/* rung: the sentry dies of SIGSEGV (a NULL call in fill_from_file) */
	fd = open("f", O_PATH);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), EBADF,
		    "a mapping of an O_PATH descriptor");
	close(fd);

	fs_leave();
	return GUEST_DONE();
}
