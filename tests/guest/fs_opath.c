/*
 * Guest test: what an O_PATH descriptor is good for. Linux answers EBADF
 * to every call that would use the file itself (I/O, attributes through
 * the descriptor, locks, mappings, copies), and lets the calls that only
 * need a position in the tree work: fstat, fstatfs, fchdir, the *at()
 * calls with it as the starting directory or with AT_EMPTY_PATH, dup and
 * fcntl's descriptor commands. Also: read(2) of a directory is EISDIR.
 */
#include "fsguest.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>

/* Every call that needs an open file, on the O_PATH descriptor fd. */
static void file_calls(int fd, const char *what)
{
	char buf[64], line[128];
	struct iovec iov = {buf, sizeof(buf)};
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
	struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
	int other = open("f", O_RDWR), n = 0;
	off_t off = 0;

#define BADF(expr, name)                                              \
	do {                                                          \
		snprintf(line, sizeof(line), "%s: %s", what, name);   \
		CHECK_ERRNO(expr, EBADF, line);                       \
		n++;                                                  \
	} while (0)
	BADF(read(fd, buf, sizeof(buf)), "read");
	BADF(write(fd, "x", 1), "write");
	BADF(pread(fd, buf, sizeof(buf), 0), "pread");
	BADF(pwrite(fd, "x", 1, 0), "pwrite");
	BADF(readv(fd, &iov, 1), "readv");
	BADF(writev(fd, &iov, 1), "writev");
	BADF(lseek(fd, 0, SEEK_SET), "lseek");
	BADF(ioctl(fd, FIONREAD, &n), "ioctl FIONREAD");
	BADF(ioctl(fd, FIOCLEX), "ioctl FIOCLEX");
	BADF(fchmod(fd, 0600), "fchmod");
	BADF(fchown(fd, -1, -1), "fchown");
	BADF(futimens(fd, ts), "futimens");
	BADF(fsync(fd), "fsync");
	BADF(fdatasync(fd), "fdatasync");
	BADF(syncfs(fd), "syncfs");
	BADF(ftruncate(fd, 0), "ftruncate");
	BADF(fallocate(fd, 0, 0, 1), "fallocate");
	BADF(getdents64(fd, buf, sizeof(buf)), "getdents64");
	BADF(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), "mmap MAP_PRIVATE");
	BADF(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0), "mmap MAP_SHARED");
	BADF(sendfile(other, fd, NULL, 1), "sendfile from it");
	BADF(sendfile(fd, other, NULL, 1), "sendfile to it");
	BADF(copy_file_range(fd, &off, other, NULL, 1, 0), "copy_file_range from it");
	BADF(copy_file_range(other, &off, fd, NULL, 1, 0), "copy_file_range to it");
	BADF(flock(fd, LOCK_SH), "flock");
	BADF(fcntl(fd, F_SETLK, &fl), "fcntl F_SETLK");
	BADF(fcntl(fd, F_GETLK, &fl), "fcntl F_GETLK");
	BADF(fcntl(fd, F_OFD_SETLK, &fl), "fcntl F_OFD_SETLK");
	BADF(fcntl(fd, F_SETFL, O_NONBLOCK), "fcntl F_SETFL");
	BADF(fcntl(fd, F_GETPIPE_SZ), "fcntl F_GETPIPE_SZ");
	BADF(fgetxattr(fd, "user.a", buf, sizeof(buf)), "fgetxattr");
	BADF(fsetxattr(fd, "user.a", "1", 1, 0), "fsetxattr");
	BADF(flistxattr(fd, buf, sizeof(buf)), "flistxattr");
	BADF(fremovexattr(fd, "user.a"), "fremovexattr");
	BADF(syscall(SYS_fadvise64, fd, 0, 0, POSIX_FADV_NORMAL), "fadvise64");
	{
		struct epoll_event ev = {.events = EPOLLIN};
		int ep = epoll_create1(EPOLL_CLOEXEC);

		BADF(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl EPOLL_CTL_ADD");
		close(ep);
	}
#undef BADF
	{
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		snprintf(line, sizeof(line), "%s: poll says POLLNVAL", what);
		CHECK(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLNVAL, line);
	}
	close(other);
}

/* The calls that work on one. */
static void path_calls(int fd, int dirfd)
{
	struct stat st, st2;
	struct statfs sf;
	char buf[64];
	int d;

	CHECK_EQ(fstat(fd, &st), 0, "fstat works");
	CHECK_EQ(stat("f", &st2), 0, "stat f");
	CHECK(st.st_ino == st2.st_ino && S_ISREG(st.st_mode), "fstat sees the file");
	CHECK_EQ(fstatat(fd, "", &st, AT_EMPTY_PATH), 0, "fstatat AT_EMPTY_PATH works");
	CHECK_EQ(fstatfs(fd, &sf), 0, "fstatfs works");
	CHECK_EQ(fcntl(fd, F_GETFL) & O_PATH, O_PATH, "fcntl F_GETFL shows O_PATH");
	d = open(".", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_RDWR | O_APPEND | O_NONBLOCK | O_SYNC);
	CHECK_EQ(fcntl(d, F_GETFL), O_PATH | O_NOFOLLOW | O_DIRECTORY,
		 "O_PATH keeps O_NOFOLLOW and O_DIRECTORY of its flags, and only those");
	close(d);
	CHECK_EQ(fcntl(fd, F_SETFD, FD_CLOEXEC), 0, "fcntl F_SETFD works");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "fcntl F_GETFD works");
	d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	CHECK(d >= 0, "fcntl F_DUPFD_CLOEXEC works");
	close(d);
	d = dup(fd);
	CHECK(d >= 0, "dup works");
	close(d);
	CHECK_EQ(fchownat(fd, "", -1, -1, AT_EMPTY_PATH), 0, "fchownat AT_EMPTY_PATH works");
	CHECK_EQ(utimensat(fd, "", NULL, AT_EMPTY_PATH), 0, "utimensat AT_EMPTY_PATH works");
	/* (glibc refuses a NULL path itself) */
	CHECK_ERRNO(syscall(SYS_utimensat, fd, NULL, NULL, 0), EBADF,
		    "utimensat of the descriptor");
	CHECK_EQ(faccessat(dirfd, "f", R_OK, 0), 0, "faccessat from an O_PATH directory");
	d = openat(dirfd, "f", O_RDONLY);
	CHECK(d >= 0, "openat from an O_PATH directory");
	CHECK_EQ(read(d, buf, 4), 4, "and read what it opened");
	close(d);
	CHECK_EQ(fstatat(dirfd, "f", &st, 0), 0, "fstatat from an O_PATH directory");
	CHECK_EQ(fchdir(dirfd), 0, "fchdir to an O_PATH directory");
	CHECK_EQ(stat("f", &st), 0, "and the cwd is there");
	CHECK_ERRNO(fchdir(fd), ENOTDIR, "fchdir to an O_PATH file");
}

int main(void)
{
	char buf[64];
	struct iovec iov = {buf, sizeof(buf)};
	int fd, dirfd, lfd;

	fs_enter("fs_opath");
	CHECK_EQ(fs_put("f", "0123456789"), 0, "make f");
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(symlink("f", "l"), 0, "symlink l -> f");

	fd = open("f", O_PATH);
	CHECK(fd >= 0, "open f O_PATH");
	file_calls(fd, "O_PATH file");
	dirfd = open(".", O_PATH | O_DIRECTORY);
	CHECK(dirfd >= 0, "open . O_PATH");
	file_calls(dirfd, "O_PATH directory");
	path_calls(fd, dirfd);
	close(fd);
	close(dirfd);

	lfd = open("l", O_PATH | O_NOFOLLOW);
	CHECK(lfd >= 0, "open a symlink O_PATH|O_NOFOLLOW");
	CHECK_EQ(readlinkat(lfd, "", buf, sizeof(buf)), 1, "readlinkat of it with an empty path");
	CHECK_ERRNO(read(lfd, buf, 1), EBADF, "read from it");
	close(lfd);

	/* Directories read as EISDIR, however the read is made. */
	fd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_ERRNO(read(fd, buf, sizeof(buf)), EISDIR, "read from a directory");
	CHECK_ERRNO(read(fd, buf, 0), EISDIR, "read of 0 bytes from a directory");
	CHECK_ERRNO(pread(fd, buf, sizeof(buf), 0), EISDIR, "pread from a directory");
	CHECK_ERRNO(readv(fd, &iov, 1), EISDIR, "readv from a directory");
	CHECK_ERRNO(syscall(SYS_read, fd, -4096l, sizeof(buf)), EFAULT,
		    "read from a directory into a kernel address");
	close(fd);

	fs_leave();
	return GUEST_DONE();
}
