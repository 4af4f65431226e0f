/*
 * fcntl(F_SETLEASE, F_GETLEASE) for a single holder: a read lease on a file
 * opened read-only, a write lease on a file nobody else has open, changing
 * and giving them up, and Linux's errors (a read lease on a file open for
 * writing, a second holder, non-regular files, bad types, O_PATH).
 */
#include "fsguest.h"

#include <fcntl.h>

static void test_single_holder(void)
{
	int fd, wr;

	CHECK_EQ(fs_put("f", "data"), 0, "a file");
	fd = open("f", O_RDONLY);
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_UNLCK, "no lease at first");
	CHECK_ERRNO(fcntl(fd, F_SETLEASE, F_UNLCK), EAGAIN, "F_UNLCK without a lease");
	CHECK_EQ(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "a read lease on a read-only descriptor");
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_RDLCK, "F_GETLEASE says F_RDLCK");
	CHECK_EQ(fcntl(fd, F_SETLEASE, F_WRLCK), 0, "upgraded to a write lease (no other opener)");
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_WRLCK, "F_GETLEASE says F_WRLCK");
	CHECK_EQ(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "downgraded");
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_RDLCK, "F_RDLCK again");
	CHECK_EQ(fcntl(fd, F_SETLEASE, F_UNLCK), 0, "given up");
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_UNLCK, "F_UNLCK again");
	CHECK_ERRNO(fcntl(fd, F_SETLEASE, 7), EINVAL, "an unknown lease type");
	CHECK_EQ(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "a read lease");
	wr = open("f", O_RDONLY);
	CHECK_EQ(fcntl(wr, F_SETLEASE, F_RDLCK), 0, "a second read lease, on a second open");
	CHECK_ERRNO(fcntl(wr, F_SETLEASE, F_WRLCK), EAGAIN, "no write lease beside another lease");
	CHECK_EQ(fcntl(wr, F_GETLEASE), F_RDLCK, "the second keeps its read lease");
	close(wr);
	close(fd);

	wr = open("f", O_RDWR);
	CHECK_ERRNO(fcntl(wr, F_SETLEASE, F_RDLCK), EAGAIN,
		    "a read lease on a descriptor open for writing");
	CHECK_EQ(fcntl(wr, F_SETLEASE, F_WRLCK), 0, "a write lease on it, the only opener");
	CHECK_EQ(fcntl(wr, F_GETLEASE), F_WRLCK, "held");
	close(wr);
	fd = open("f", O_RDONLY);
	CHECK_EQ(fcntl(fd, F_GETLEASE), F_UNLCK, "the lease went with its descriptor");
	close(fd);
}

static void test_errors(void)
{
	int dir = open(".", O_RDONLY | O_DIRECTORY), p[2], path = open("f", O_PATH);

	CHECK_ERRNO(fcntl(dir, F_SETLEASE, F_RDLCK), EINVAL, "a lease on a directory");
	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_ERRNO(fcntl(p[0], F_SETLEASE, F_RDLCK), EINVAL, "a lease on a pipe");
	CHECK_ERRNO(fcntl(p[0], F_SETLEASE, F_UNLCK), EINVAL, "F_UNLCK on a pipe");
	CHECK_EQ(fcntl(p[0], F_GETLEASE), F_UNLCK, "F_GETLEASE of a pipe");
	CHECK_ERRNO(fcntl(path, F_SETLEASE, F_RDLCK), EBADF, "a lease on an O_PATH descriptor");
	CHECK_ERRNO(fcntl(-1, F_GETLEASE), EBADF, "F_GETLEASE of a bad descriptor");
	close(dir), close(p[0]), close(p[1]), close(path);
}

int main(void)
{
	fs_enter("fs_lease");
	test_single_holder();
	test_errors();
	fs_leave();
	return GUEST_DONE();
}
