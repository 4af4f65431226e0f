/*
 * splice(2) between pipes and regular files: a new file in the work
 * directory (the writable layer) and a file of the rootfs (read through the
 * gofer or a descriptor it handed over), with and without offsets: which
 * position moves, O_APPEND, directories, end of file.
 */
#include "fsguest.h"

#include <fcntl.h>
#include <stdint.h>

/* The bytes of PATH, read(2) in one go (at most size - 1). */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	return total;
}

static void test_file_to_pipe(void)
{
	int p[2], fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	loff_t off = 6;
	char buf[64] = {0};

	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_EQ(write(fd, "0123456789abcdef", 16), 16, "a 16-byte file");
	CHECK_EQ(lseek(fd, 2, SEEK_SET), 2, "at position 2");
	CHECK_EQ(splice(fd, &off, p[1], NULL, 4, 0), 4, "splice 4 bytes from offset 6");
	CHECK_EQ(off, 10, "the offset moved to 10");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 2, "the file position did not");
	CHECK_EQ(splice(fd, NULL, p[1], NULL, 3, 0), 3, "splice 3 bytes at the position");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5, "the position moved to 5");
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 7, "the pipe holds 7");
	CHECK(strcmp(buf, "6789234") == 0, "the bytes from both places");
	off = 14;
	CHECK_EQ(splice(fd, &off, p[1], NULL, 100, 0), 2, "at 14, only 2 bytes are left");
	CHECK_EQ(splice(fd, &off, p[1], NULL, 100, 0), 0, "at the end: 0");
	off = -1;
	CHECK_ERRNO(splice(fd, &off, p[1], NULL, 1, 0), EINVAL, "a negative offset");
	CHECK_ERRNO(splice(fd, (loff_t *)8, p[1], NULL, 1, 0), EFAULT, "a bad offset pointer");
	close(fd);
	fd = open("data", O_WRONLY);
	CHECK_ERRNO(splice(fd, NULL, p[1], NULL, 1, 0), EBADF, "splice from a write-only file");
	close(fd);
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_ERRNO(splice(fd, NULL, p[1], NULL, 1, 0), EINVAL, "splice from a directory");
	close(fd);
	close(p[0]), close(p[1]);
}

static void test_pipe_to_file(void)
{
	int p[2], fd = open("out", O_RDWR | O_CREAT | O_TRUNC, 0644);
	loff_t off = 4;
	char buf[64];

	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_EQ(write(p[1], "abcdefgh", 8), 8, "8 bytes in the pipe");
	CHECK_EQ(splice(p[0], NULL, fd, &off, 3, 0), 3, "splice 3 to offset 4");
	CHECK_EQ(off, 7, "the offset moved to 7");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0, "the file position did not");
	CHECK_EQ(splice(p[0], NULL, fd, NULL, 100, 0), 5, "the other 5 at the position");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5, "the position moved to 5");
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), 7, "the file is 7 bytes");
	CHECK(memcmp(buf, "defghbc", 7) == 0, "the bytes where they went");
	CHECK_ERRNO(splice(p[0], NULL, fd, NULL, 1, SPLICE_F_NONBLOCK), EAGAIN,
		    "an empty pipe with SPLICE_F_NONBLOCK");
	off = INT64_MAX - 1;
	CHECK_ERRNO(splice(p[0], NULL, fd, &off, 3, 0), EINVAL, "an offset that would overflow");
	close(fd);
	fd = open("out", O_WRONLY | O_APPEND);
	CHECK_EQ(write(p[1], "x", 1), 1, "a byte in the pipe");
	CHECK_ERRNO(splice(p[0], NULL, fd, NULL, 1, 0), EINVAL, "splice to an O_APPEND file");
	close(fd);
	fd = open("out", O_RDONLY);
	CHECK_ERRNO(splice(p[0], NULL, fd, NULL, 1, 0), EBADF, "splice to a read-only file");
	close(fd);
	close(p[1]);
	fd = open("out", O_WRONLY);
	CHECK_EQ(splice(p[0], NULL, fd, NULL, 10, 0), 1, "the byte left, after the writer went");
	CHECK_EQ(splice(p[0], NULL, fd, NULL, 10, 0), 0, "then end of file: 0");
	close(fd);
	close(p[0]);
}

/* A file of the rootfs through a pipe into a new file: the same bytes. */
static void test_copy_rootfs_file(void)
{
	static char want[1 << 16], got[1 << 16];
	ssize_t n = slurp("/etc/passwd", want, sizeof(want)), moved = 0, k;
	int p[2], in = open("/etc/passwd", O_RDONLY), out = open("copy", O_WRONLY | O_CREAT, 0644);

	CHECK(n > 0 && in >= 0 && out >= 0, "/etc/passwd and a new file open");
	CHECK_EQ(pipe(p), 0, "a pipe");
	while ((k = splice(in, NULL, p[1], NULL, 1000, SPLICE_F_MOVE)) > 0) {
		moved += k;
		if (splice(p[0], NULL, out, NULL, (size_t)k, SPLICE_F_MORE) != k)
			break;
	}
	CHECK_EQ(moved, n, "splice read the whole file in pieces of 1000");
	close(out);
	CHECK_EQ(slurp("copy", got, sizeof(got)), n, "the copy is as long");
	CHECK(memcmp(want, got, (size_t)n) == 0, "and has the same bytes");
	close(in), close(p[0]), close(p[1]);
}

int main(void)
{
	fs_enter("fs_splice");
	test_file_to_pipe();
	test_pipe_to_file();
	test_copy_rootfs_file();
	fs_leave();
	return GUEST_DONE();
}
