/*
 * Guest test: fchmodat2(2) (Linux 6.6), by its number. Its flags
 * (AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH; others EINVAL), following a symlink
 * or not (a symlink's own mode: EOPNOTSUPP, the target left alone), an
 * empty path on a descriptor (O_PATH ones too), and glibc's fchmodat with
 * AT_SYMLINK_NOFOLLOW agreeing.
 */
#include "fsguest.h"

#include <sys/stat.h>

#define NR_fchmodat2 452

static long chmodat2(int dirfd, const char *path, unsigned mode, unsigned flags)
{
	return syscall(NR_fchmodat2, dirfd, path, mode, flags);
}

static unsigned mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_mode & 07777;
}

int main(void)
{
	int fd, dfd;

	fs_enter("fchmodat2");
	CHECK_EQ(fs_put("f", "data"), 0, "make f");
	CHECK_EQ(symlink("f", "l"), 0, "make the symlink l to f");
	CHECK_EQ(mkdir("d", 0755), 0, "make d");

	CHECK_EQ(chmodat2(AT_FDCWD, "f", 0600, 0), 0, "fchmodat2 f 0600");
	CHECK_EQ(mode_of("f"), 0600, "f is 0600");
	CHECK_EQ(chmodat2(AT_FDCWD, "f", 0100751, 0), 0, "fchmodat2 with file-type bits");
	CHECK_EQ(mode_of("f"), 0751, "only the permission bits are taken");
	CHECK_EQ(chmodat2(AT_FDCWD, "l", 0640, 0), 0, "fchmodat2 through the symlink");
	CHECK_EQ(mode_of("f"), 0640, "the target is 0640");
	CHECK_ERRNO(chmodat2(AT_FDCWD, "l", 0600, AT_SYMLINK_NOFOLLOW), EOPNOTSUPP,
		    "fchmodat2 of the symlink itself");
	CHECK_EQ(mode_of("f"), 0640, "the target is still 0640");
	CHECK_EQ(chmodat2(AT_FDCWD, "f", 0604, AT_SYMLINK_NOFOLLOW), 0,
		 "AT_SYMLINK_NOFOLLOW of a regular file");
	CHECK_EQ(mode_of("f"), 0604, "f is 0604");
	CHECK_ERRNO(fchmodat(AT_FDCWD, "l", 0600, AT_SYMLINK_NOFOLLOW), EOPNOTSUPP,
		    "glibc's fchmodat AT_SYMLINK_NOFOLLOW of the symlink");

	CHECK_ERRNO(chmodat2(AT_FDCWD, "f", 0600, 0x200), EINVAL, "AT_REMOVEDIR as a flag");
	CHECK_ERRNO(chmodat2(AT_FDCWD, "f", 0600, 0x1), EINVAL, "an unknown flag");
	CHECK_ERRNO(chmodat2(AT_FDCWD, "", 0600, 0), ENOENT, "an empty path without AT_EMPTY_PATH");
	CHECK_ERRNO(chmodat2(AT_FDCWD, "none", 0600, 0), ENOENT, "a missing file");
	CHECK_ERRNO(chmodat2(AT_FDCWD, NULL, 0600, 0), EFAULT, "a NULL path");

	dfd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(chmodat2(dfd, "../f", 0644, 0), 0, "relative to a directory descriptor");
	CHECK_EQ(mode_of("f"), 0644, "f is 0644");
	CHECK_EQ(chmodat2(dfd, "", 0700, AT_EMPTY_PATH), 0, "AT_EMPTY_PATH on d's descriptor");
	CHECK_EQ(mode_of("d"), 0700, "d is 0700");
	close(dfd);
	CHECK_EQ(chdir("d"), 0, "enter d");
	CHECK_EQ(chmodat2(AT_FDCWD, "", 0750, AT_EMPTY_PATH), 0, "AT_EMPTY_PATH from AT_FDCWD");
	CHECK_EQ(chdir(".."), 0, "leave d");
	CHECK_EQ(mode_of("d"), 0750, "the cwd was d: it is 0750");
	fd = open("f", O_PATH);
	CHECK_EQ(chmodat2(fd, "", 0611, AT_EMPTY_PATH), 0, "AT_EMPTY_PATH on an O_PATH descriptor");
	CHECK_EQ(mode_of("f"), 0611, "f is 0611");
	close(fd);
	fd = open("l", O_PATH | O_NOFOLLOW);
	CHECK_ERRNO(chmodat2(fd, "", 0600, AT_EMPTY_PATH), EOPNOTSUPP,
		    "AT_EMPTY_PATH on an O_PATH descriptor of the symlink");
	close(fd);
	CHECK_ERRNO(chmodat2(-1, "", 0600, AT_EMPTY_PATH), EBADF, "AT_EMPTY_PATH on a bad descriptor");
	CHECK_EQ(mode_of("f"), 0611, "f is still 0611");
	fs_leave();
	return GUEST_DONE();
}
