/*
 * Guest test: O_TMPFILE, in /tmp (rung: the overlay) and /dev/shm (a
 * tmpfs). An unnamed regular file in a directory: no entry, no links,
 * until linkat gives it a name (through /proc/self/fd with
 * AT_SYMLINK_FOLLOW, or AT_EMPTY_PATH with CAP_DAC_READ_SEARCH); O_EXCL
 * says it never may; Linux's argument checks. An unlinked ordinary file
 * cannot be linked back either.
 */
#include "fsguest.h"

static char buf[256];

static int link_fd(int fd, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, path, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

static void run(const char *base, const char *dir)
{
	char what[128], link[64];
	struct stat st;
	int fd, n;

#define W(s) (snprintf(what, sizeof(what), "%s: %s", base, s), what)
	CHECK_EQ(chdir(dir), 0, W("enter"));
	fd = open(".", O_TMPFILE | O_RDWR, 0640);
	CHECK(fd >= 0, W("open . O_TMPFILE"));
	CHECK_EQ(write(fd, "tmp", 3), 3, W("write to it"));
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0 &&
		      (st.st_mode & 07777) == 0640,
	      W("a regular file, no links, mode 0640"));
	fs_list(W("no name in the directory"), ".");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = (int)readlink(link, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	CHECK(n > 12 && strstr(buf, "/#") && strcmp(buf + n - 10, " (deleted)") == 0,
	      W("its fd link reads DIR/#INO (deleted)"));
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), 3, W("read it back"));
	CHECK_EQ(link_fd(fd, "named"), 0, W("linkat through /proc/self/fd"));
	CHECK(strcmp(fs_get("named"), "tmp") == 0, W("the name shows the data"));
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 1, W("one link"));
	CHECK_EQ(linkat(fd, "", AT_FDCWD, "named2", AT_EMPTY_PATH), 0,
		 W("linkat AT_EMPTY_PATH (as root)"));
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 2, W("two links"));
	fs_list(W("the names"), ".");
	close(fd);

	fd = open(".", O_TMPFILE | O_WRONLY | O_EXCL, 0600);
	CHECK(fd >= 0, W("O_TMPFILE | O_EXCL"));
	CHECK_ERRNO(link_fd(fd, "never"), ENOENT, W("can never be linked"));
	CHECK_ERRNO(linkat(fd, "", AT_FDCWD, "never", AT_EMPTY_PATH), ENOENT,
		    W("not with AT_EMPTY_PATH either"));
	close(fd);

	fd = open("plain", O_RDWR | O_CREAT, 0644);
	CHECK_EQ(unlink("plain"), 0, W("unlink an open file"));
	CHECK_ERRNO(link_fd(fd, "back"), ENOENT, W("it cannot be linked back"));
	close(fd);

	CHECK_ERRNO(open(".", O_TMPFILE | O_RDONLY, 0600), EINVAL, W("O_TMPFILE read-only"));
	CHECK_ERRNO(open(".", O_TMPFILE | O_RDWR | O_CREAT, 0600), EINVAL,
		    W("O_TMPFILE with O_CREAT"));
	CHECK_ERRNO(open(".", 020000000 | O_RDWR, 0600), EINVAL,
		    W("__O_TMPFILE without O_DIRECTORY"));
	CHECK_ERRNO(open("named", O_TMPFILE | O_RDWR, 0600), ENOTDIR, W("O_TMPFILE of a file"));
	CHECK_ERRNO(open("missing", O_TMPFILE | O_RDWR, 0600), ENOENT,
		    W("O_TMPFILE of a missing directory"));
	CHECK_EQ(unlink("named"), 0, W("unlink named"));
	CHECK_EQ(unlink("named2"), 0, W("unlink named2"));
#undef W
}

int main(void)
{
	char shm[64];

	fs_enter("fs_tmpfile");
	run("tmp", fs_dir);
	snprintf(shm, sizeof(shm), "/dev/shm/fs_tmpfile-%d", (int)getpid());
	fs_rm_rf(shm);
	CHECK_EQ(mkdir(shm, 0755), 0, "mkdir in /dev/shm");
	run("shm", shm);
	CHECK_EQ(chdir("/"), 0, "leave /dev/shm");
	CHECK_EQ(fs_rm_rf(shm), 0, "remove the /dev/shm directory");
	CHECK_ERRNO(open("/proc", O_TMPFILE | O_RDWR, 0600), EOPNOTSUPP, "O_TMPFILE in /proc");
	fs_leave();
	return GUEST_DONE();
}
