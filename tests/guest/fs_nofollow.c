/*
 * Guest test: O_NOFOLLOW, in a fresh directory under /tmp (and on a
 * gofer-backed directory when the e2e test mounts one there). With
 * O_CREAT it creates a missing file (as Python's tempfile, pip and pytest
 * do); a symlink as the last component fails with ELOOP, dangling or not,
 * with O_CREAT or O_EXCL too (EEXIST then); symlinks before the last
 * component are followed; O_PATH|O_NOFOLLOW opens the symlink itself.
 */
#include "fsguest.h"

static void creates(void)
{
	struct stat st;
	int fd;

	fd = open("new", O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	CHECK(fd >= 0, "O_CREAT|O_NOFOLLOW makes a missing file");
	CHECK_EQ(write(fd, "x", 1), 1, "write to it");
	close(fd);
	CHECK(stat("new", &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 &&
		      st.st_size == 1,
	      "new: a regular file, mode 0600, one byte");
	fd = open("new", O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	CHECK(fd >= 0, "O_CREAT|O_NOFOLLOW opens it again");
	close(fd);
	fd = open("excl", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	CHECK(fd >= 0, "O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC (mkstemp's flags) makes a file");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "with FD_CLOEXEC");
	close(fd);
	fd = open("app", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
	CHECK(fd >= 0, "O_CREAT|O_APPEND|O_NOFOLLOW makes a file");
	CHECK_EQ(write(fd, "ab", 2), 2, "append");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	CHECK_EQ(write(fd, "cd", 2), 2, "append again");
	close(fd);
	printf("app: %s\n", fs_get("app"));
	CHECK_ERRNO(open("new", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600), EEXIST,
		    "O_EXCL on an existing file");
}

static void symlinks(void)
{
	int fd;

	CHECK_EQ(symlink("new", "tofile"), 0, "symlink tofile -> new");
	CHECK_EQ(symlink("missing", "dangling"), 0, "symlink dangling -> missing");
	CHECK_ERRNO(open("tofile", O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW on a symlink");
	CHECK_ERRNO(open("tofile", O_RDWR | O_CREAT | O_NOFOLLOW, 0600), ELOOP,
		    "O_CREAT|O_NOFOLLOW on a symlink to a file");
	CHECK_ERRNO(open("dangling", O_RDWR | O_CREAT | O_NOFOLLOW, 0600), ELOOP,
		    "O_CREAT|O_NOFOLLOW on a dangling symlink");
	CHECK(access("missing", F_OK) != 0 && errno == ENOENT, "and its target is not made");
	CHECK_ERRNO(open("dangling", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600), EEXIST,
		    "O_CREAT|O_EXCL|O_NOFOLLOW on a dangling symlink");
	fd = open("dangling", O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0, "O_CREAT without O_NOFOLLOW makes the dangling link's target");
	close(fd);
	CHECK_EQ(access("missing", F_OK), 0, "the target exists now");
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(symlink("d", "todir"), 0, "symlink todir -> d");
	fd = open("todir/inner", O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	CHECK(fd >= 0, "a symlink before the last component is followed");
	close(fd);
	CHECK_EQ(access("d/inner", F_OK), 0, "d/inner exists");
	fd = open("tofile", O_PATH | O_NOFOLLOW);
	CHECK(fd >= 0, "O_PATH|O_NOFOLLOW opens the symlink itself");
	if (fd >= 0) {
		struct stat st;
		CHECK(fstat(fd, &st) == 0 && S_ISLNK(st.st_mode), "fstat: a symlink");
		close(fd);
	}
}

int main(void)
{
	fs_enter("fs_nofollow");
	creates();
	symlinks();
	fs_leave();
	return GUEST_DONE();
}
