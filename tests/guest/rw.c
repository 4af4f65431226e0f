/*
 * Guest test: reading a regular file inherited as stdin (the runner feeds
 * rw.stdin, 29 bytes): read, readv scattering, pread at offsets without
 * moving the file offset, lseek with every whence, FIONREAD, fstat, end of
 * file, and the offset shared with a dup'd descriptor.
 */
#include "guest.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define TEXT "line one\nline two\nline three\n"
#define SIZE ((long)sizeof(TEXT) - 1)

int main(void)
{
	char buf[64], a[5], b[4];
	struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	struct stat st;
	int avail = -1, fd;

	CHECK_EQ(fstat(0, &st), 0, "fstat stdin");
	CHECK(S_ISREG(st.st_mode), "stdin is a regular file");
	CHECK_EQ(st.st_size, SIZE, "its size is 29");
	CHECK_EQ(ioctl(0, FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, SIZE, "FIONREAD counts all 29 bytes");

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(0, buf, 5), 5, "read 5 bytes");
	CHECK(memcmp(buf, "line ", 5) == 0, "they are 'line '");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 5, "the offset is 5");
	CHECK_EQ(ioctl(0, FIONREAD, &avail), 0, "FIONREAD again");
	CHECK_EQ(avail, SIZE - 5, "FIONREAD counts what is left");

	CHECK_EQ(readv(0, iov, 2), 9, "readv into 5 + 4 bytes");
	CHECK(memcmp(a, "one\nl", 5) == 0 && memcmp(b, "ine ", 4) == 0,
	      "readv fills the pieces in order");

	CHECK_EQ(pread(0, buf, 4, 18), 4, "pread 4 bytes at 18");
	CHECK(memcmp(buf, "line", 4) == 0, "pread reads at its offset");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 14, "pread leaves the offset alone");
	iov[0] = (struct iovec){a, 3};
	CHECK_EQ(preadv(0, iov, 1, 23), 3, "preadv 3 bytes at 23");
	CHECK(memcmp(a, "thr", 3) == 0, "preadv reads at its offset");
	CHECK_EQ(pread(0, buf, sizeof(buf), SIZE), 0, "pread at the end of the file gives 0");
	CHECK_EQ(pread(0, buf, sizeof(buf), 1000), 0, "pread past the end gives 0");

	fd = dup(0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 14, "a duplicate shares the offset");
	CHECK_EQ(read(fd, buf, 4), 4, "read through the duplicate");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 18, "and moves the shared offset");
	close(fd);

	CHECK_EQ(lseek(0, -6, SEEK_END), SIZE - 6, "lseek -6 from the end");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(0, buf, sizeof(buf)), 6, "read the last 6 bytes");
	CHECK(strcmp(buf, "three\n") == 0, "they are 'three\\n'");
	CHECK_EQ(read(0, buf, sizeof(buf)), 0, "then end of file");
	CHECK_EQ(lseek(0, 100, SEEK_SET), 100, "lseek past the end");
	CHECK_EQ(read(0, buf, sizeof(buf)), 0, "reads end of file there");
	CHECK_EQ(lseek(0, -50, SEEK_CUR), 50, "lseek back by 50");
	CHECK_ERRNO(lseek(0, -51, SEEK_CUR), EINVAL, "lseek before the start");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 50, "a failed lseek leaves the offset");
	CHECK_EQ(lseek(0, 0, SEEK_DATA), 0, "SEEK_DATA from 0");
	CHECK_EQ(lseek(0, 0, SEEK_HOLE), SIZE, "SEEK_HOLE finds the end");
	CHECK_ERRNO(lseek(0, SIZE, SEEK_DATA), ENXIO, "SEEK_DATA at the end");
	CHECK_EQ(lseek(0, 0, SEEK_SET), 0, "rewind");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(0, buf, sizeof(buf)), SIZE, "read the whole file");
	CHECK(strcmp(buf, TEXT) == 0, "it is the whole text");
	CHECK_ERRNO(write(0, "x", 1), EBADF, "stdin is not writable");
	return GUEST_DONE();
}
