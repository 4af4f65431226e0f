/*
 * Guest test: the descriptor table on inherited stdio. dup, dup2, dup3,
 * fcntl (DUPFD, CLOEXEC, GETFL/SETFL), close, lseek, fstat, ioctl, readv,
 * writev, pread, and RLIMIT_NOFILE's bound on descriptor numbers. The
 * runner gives /dev/null as stdin; stdout is a file or a pipe (when it is a
 * pipe, lseek on it must fail with ESPIPE).
 */
#include "guest.h"

/* Bad arguments are the point here. */
#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <termios.h>

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		guest_failures++;
}

int main(void)
{
	struct stat st0, st1, st;
	struct rlimit rl, old;
	struct iovec iov[3];
	struct termios tio;
	char buf[16];
	int fd, avail;

	/* Start from stdio alone, whatever the caller leaked. */
	for (int i = 3; i < 1024; i++)
		close(i);

	CHECK_EQ(fstat(0, &st0), 0, "fstat stdin");
	CHECK(S_ISCHR(st0.st_mode) && major(st0.st_rdev) == 1 && minor(st0.st_rdev) == 3,
	      "stdin is /dev/null");
	CHECK_EQ(fstat(1, &st1), 0, "fstat stdout");
	CHECK(S_ISREG(st1.st_mode) || S_ISFIFO(st1.st_mode), "stdout is a file or a pipe");

	/* dup and friends */
	fd = dup(1);
	CHECK_EQ(fd, 3, "dup(1) gives the lowest free descriptor, 3");
	say(fd, "written through fd 3\n");
	CHECK_EQ(fstat(fd, &st), 0, "fstat the duplicate");
	CHECK(st.st_ino == st1.st_ino && st.st_dev == st1.st_dev, "the duplicate is stdout");
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "a dup'd descriptor has no FD_CLOEXEC");
	CHECK_EQ(dup2(1, 10), 10, "dup2(1, 10)");
	say(10, "written through fd 10\n");
	CHECK_EQ(dup2(10, 10), 10, "dup2 of a descriptor onto itself");
	CHECK_EQ(dup2(3, 10), 10, "dup2 onto an open descriptor replaces it");
	CHECK_EQ(dup(0), 4, "dup(0) gives 4");
	CHECK_EQ(close(4), 0, "close 4");
	CHECK_EQ(dup3(1, 7, O_CLOEXEC), 7, "dup3(1, 7, O_CLOEXEC)");
	CHECK_EQ(fcntl(7, F_GETFD), FD_CLOEXEC, "dup3 O_CLOEXEC sets FD_CLOEXEC");
	CHECK_EQ(fcntl(7, F_SETFD, 0), 0, "F_SETFD 0");
	CHECK_EQ(fcntl(7, F_GETFD), 0, "FD_CLOEXEC is cleared");
	CHECK_EQ(fcntl(1, F_GETFD), 0, "stdout's own flags are untouched");
	CHECK_EQ(fcntl(1, F_DUPFD, 20), 20, "F_DUPFD 20 gives 20");
	CHECK_EQ(fcntl(1, F_DUPFD, 20), 21, "F_DUPFD 20 again gives 21");
	CHECK_EQ(fcntl(1, F_DUPFD_CLOEXEC, 5), 5, "F_DUPFD_CLOEXEC 5 gives 5");
	CHECK_EQ(fcntl(5, F_GETFD), FD_CLOEXEC, "F_DUPFD_CLOEXEC sets FD_CLOEXEC");
	CHECK_EQ(fcntl(1, F_DUPFD, 0), 4, "F_DUPFD 0 gives the lowest free, 4");
	say(21, "written through fd 21\n");
	CHECK_EQ(close(7), 0, "close 7");
	CHECK_ERRNO(close(7), EBADF, "close 7 twice");
	CHECK_ERRNO(write(7, "x", 1), EBADF, "write to a closed descriptor");
	CHECK_ERRNO(dup(99), EBADF, "dup of a closed descriptor");
	CHECK_ERRNO(dup2(99, 8), EBADF, "dup2 of a closed descriptor");
	CHECK_ERRNO(dup2(1, -1), EBADF, "dup2 onto -1");
	CHECK_ERRNO(dup3(1, 1, 0), EINVAL, "dup3 onto itself");
	CHECK_ERRNO(dup3(1, 8, 0x1234), EINVAL, "dup3 with unknown flags");
	CHECK_ERRNO(fcntl(99, F_GETFL), EBADF, "F_GETFL of a closed descriptor");
	CHECK_ERRNO(fcntl(1, F_DUPFD, -1), EINVAL, "F_DUPFD -1");
	CHECK_ERRNO(close(-1), EBADF, "close(-1)");
	CHECK_ERRNO(read(1, buf, 1), EBADF, "read from write-only stdout");
	CHECK_ERRNO(write(0, "x", 1), EBADF, "write to read-only stdin");

	/* Status flags live in the open file, shared by duplicates. */
	CHECK_EQ(fcntl(0, F_GETFL) & O_ACCMODE, O_RDONLY, "stdin is O_RDONLY");
	CHECK_EQ(fcntl(1, F_GETFL) & O_ACCMODE, O_WRONLY, "stdout is O_WRONLY");
	fd = dup(0);
	CHECK_EQ(fcntl(0, F_SETFL, O_NONBLOCK), 0, "F_SETFL O_NONBLOCK on stdin");
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "the duplicate sees O_NONBLOCK");
	CHECK_EQ(fcntl(0, F_SETFL, O_RDWR), 0, "F_SETFL cannot change the access mode");
	CHECK_EQ(fcntl(0, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDONLY,
		 "stdin is O_RDONLY again, without O_NONBLOCK");
	close(fd);

	/* lseek */
	CHECK_EQ(lseek(0, 0, SEEK_SET), 0, "lseek /dev/null to 0");
	CHECK_EQ(lseek(0, 100, SEEK_CUR), 0, "lseek /dev/null always stays at 0");
	CHECK_ERRNO(lseek(0, 0, 42), EINVAL, "lseek with whence 42");
	CHECK_ERRNO(lseek(99, 0, SEEK_SET), EBADF, "lseek of a closed descriptor");
	if (S_ISFIFO(st1.st_mode)) {
		CHECK_ERRNO(lseek(1, 0, SEEK_CUR), ESPIPE, "lseek on a pipe");
		CHECK_ERRNO(pwrite(1, "x", 1, 0), ESPIPE, "pwrite on a pipe");
	} else {
		CHECK(lseek(1, 0, SEEK_CUR) > 0, "lseek on a file reports the offset");
		CHECK_ERRNO(lseek(1, -1, SEEK_SET), EINVAL, "lseek to a negative offset");
	}

	/* Reading /dev/null: end of file at once, whatever the buffer. */
	CHECK_EQ(read(0, buf, sizeof(buf)), 0, "read /dev/null gives end of file");
	CHECK_EQ(read(0, NULL, 10), 0, "read /dev/null into NULL gives end of file too");
	CHECK_EQ(pread(0, buf, sizeof(buf), 0), 0, "pread /dev/null");
	CHECK_ERRNO(pread(0, buf, sizeof(buf), -1), EINVAL, "pread at offset -1");
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = 4};
	iov[1] = (struct iovec){.iov_base = buf + 4, .iov_len = 4};
	CHECK_EQ(readv(0, iov, 2), 0, "readv /dev/null");

	/* writev gathers in order. */
	iov[0] = (struct iovec){.iov_base = "wri", .iov_len = 3};
	iov[1] = (struct iovec){.iov_base = "", .iov_len = 0};
	iov[2] = (struct iovec){.iov_base = "tev\n", .iov_len = 4};
	CHECK_EQ(writev(1, iov, 3), 7, "writev of three pieces");
	CHECK_EQ(writev(1, iov, 0), 0, "writev of no pieces");
	CHECK_ERRNO(writev(1, iov, -1), EINVAL, "writev of -1 pieces");
	CHECK_ERRNO(writev(1, iov, 1025), EINVAL, "writev of more than IOV_MAX pieces");
	CHECK_EQ(write(1, buf, 0), 0, "write of 0 bytes");

	/* ioctl: not a terminal. */
	CHECK_ERRNO(ioctl(0, TCGETS, &tio), ENOTTY, "TCGETS on /dev/null");
	CHECK_ERRNO(ioctl(1, TCGETS, &tio), ENOTTY, "TCGETS on stdout");
	CHECK(!isatty(0) && !isatty(1), "isatty is false for stdin and stdout");
	CHECK_ERRNO(ioctl(0, 0x12345678, &avail), ENOTTY, "an unknown ioctl");
	CHECK_ERRNO(ioctl(99, FIONREAD, &avail), EBADF, "ioctl of a closed descriptor");

	/* RLIMIT_NOFILE bounds descriptor numbers. */
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &old), 0, "getrlimit NOFILE");
	CHECK_ERRNO(dup2(1, (int)old.rlim_cur), EBADF, "dup2 to the NOFILE limit");
	rl = old;
	rl.rlim_cur = 30;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0, "lower NOFILE to 30");
	CHECK_EQ(dup2(1, 29), 29, "dup2 to 29 works");
	CHECK_ERRNO(dup2(1, 30), EBADF, "dup2 to 30 fails");
	CHECK_ERRNO(fcntl(1, F_DUPFD, 30), EINVAL, "F_DUPFD from 30 fails");
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0, "restore NOFILE");
	CHECK_EQ(dup2(1, 30), 30, "dup2 to 30 works again");

	/* Closing stdin for good. */
	CHECK_EQ(close(0), 0, "close stdin");
	CHECK_ERRNO(read(0, buf, 1), EBADF, "read from closed stdin");
	CHECK_EQ(dup(1), 0, "dup reuses descriptor 0");
	say(0, "written through the new fd 0\n");
	return GUEST_DONE();
}
