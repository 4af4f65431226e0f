/*
 * Guest test: file data, in a fresh directory under /tmp. read, write,
 * pread, pwrite, readv, writev, preadv, pwritev, preadv2 and pwritev2 on
 * regular files (offsets, end of file, writes past the end), lseek with
 * SEEK_DATA and SEEK_HOLE, truncate and ftruncate, fallocate, fsync,
 * fdatasync, sync and syncfs, sendfile and copy_file_range between files.
 */
#include "fsguest.h"

/* Bad arguments are the point here. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

#include <sys/sendfile.h>
#include <sys/uio.h>

static int all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static long fsize(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (long)st.st_size : -1;
}

static void rw(void)
{
	char buf[64], a[4], b[6];
	struct iovec iov[2];
	int fd;

	fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "make f");
	CHECK_EQ(write(fd, "hello world", 11), 11, "write 11 bytes");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 11, "the offset follows the write");
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0, "read at the end gives 0");
	CHECK_EQ(lseek(fd, 6, SEEK_SET), 6, "lseek to 6");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf)), 5, "read the rest: 5 bytes");
	CHECK(strcmp(buf, "world") == 0, "they are 'world'");
	CHECK_EQ(lseek(fd, -5, SEEK_END), 6, "SEEK_END -5 is 6");
	CHECK_EQ(lseek(fd, 2, SEEK_CUR), 8, "SEEK_CUR +2 is 8");
	CHECK_ERRNO(lseek(fd, -100, SEEK_SET), EINVAL, "lseek before the start");
	CHECK_ERRNO(lseek(fd, 0, 42), EINVAL, "lseek with an unknown whence");
	CHECK_EQ(lseek(fd, 100, SEEK_SET), 100, "lseek past the end is allowed");
	CHECK_EQ(read(fd, buf, 4), 0, "and reads nothing");
	CHECK_EQ(fsize(fd), 11, "nor changes the size");

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(pread(fd, buf, 5, 0), 5, "pread 5 at 0");
	CHECK(strcmp(buf, "hello") == 0, "'hello'");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 100, "pread leaves the offset alone");
	CHECK_EQ(pread(fd, buf, 10, 8), 3, "pread across the end is short");
	CHECK_EQ(pread(fd, buf, 10, 11), 0, "pread at the end gives 0");
	CHECK_EQ(pread(fd, buf, 10, 1000), 0, "pread past the end gives 0");
	CHECK_ERRNO(pread(fd, buf, 1, -1), EINVAL, "pread at a negative offset");
	CHECK_EQ(pwrite(fd, "W", 1, 6), 1, "pwrite 1 at 6");
	CHECK_EQ(pwrite(fd, "end", 3, 20), 3, "pwrite 3 at 20, past the end");
	CHECK_EQ(fsize(fd), 23, "the size is 23");
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), 23, "pread everything");
	CHECK(memcmp(buf, "hello World", 11) == 0, "pwrite replaced one byte");
	CHECK(all_zero(buf + 11, 9), "the gap reads as zeros");
	CHECK(memcmp(buf + 20, "end", 3) == 0, "then 'end'");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 100, "pwrite leaves the offset alone");
	CHECK_EQ(write(fd, "!", 1), 1, "write at offset 100");
	CHECK_EQ(fsize(fd), 101, "extends the file to 101");

	iov[0] = (struct iovec){a, sizeof(a)};
	iov[1] = (struct iovec){b, sizeof(b)};
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	CHECK_EQ(readv(fd, iov, 2), 10, "readv 4 + 6");
	CHECK(memcmp(a, "hell", 4) == 0 && memcmp(b, "o Worl", 6) == 0, "readv fills in order");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10, "readv moved the offset");
	iov[0] = (struct iovec){"ab", 2};
	iov[1] = (struct iovec){"cde", 3};
	CHECK_EQ(writev(fd, iov, 2), 5, "writev 2 + 3 at 10");
	CHECK_EQ(pread(fd, buf, 5, 10), 5, "read them back");
	CHECK(memcmp(buf, "abcde", 5) == 0, "'abcde'");
	CHECK_EQ(pwritev(fd, iov, 2, 0), 5, "pwritev at 0");
	CHECK_EQ(preadv(fd, iov + 0, 0, 0), 0, "preadv of no vectors");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 15, "pwritev leaves the offset alone");
	iov[0] = (struct iovec){a, sizeof(a)};
	iov[1] = (struct iovec){b, sizeof(b)};
	CHECK_EQ(preadv(fd, iov, 2, 1), 10, "preadv at 1");
	CHECK(memcmp(a, "bcde", 4) == 0 && memcmp(b, " Worla", 6) == 0,
	      "preadv reads what pwritev wrote");

	/* preadv2/pwritev2: offset -1 is the file offset */
	CHECK_EQ(lseek(fd, 6, SEEK_SET), 6, "lseek to 6");
	CHECK_EQ(preadv2(fd, iov, 1, -1, 0), 4, "preadv2 at offset -1");
	CHECK(memcmp(a, "Worl", 4) == 0, "reads at the file offset");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10, "and moves it");
	CHECK_EQ(preadv2(fd, iov, 1, 0, 0), 4, "preadv2 at 0");
	CHECK(memcmp(a, "abcd", 4) == 0, "reads at 0");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10, "without moving the offset");
	iov[0] = (struct iovec){"XY", 2};
	CHECK_EQ(pwritev2(fd, iov, 1, -1, 0), 2, "pwritev2 at offset -1");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12, "moves the offset");
	CHECK_EQ(pwritev2(fd, iov, 1, 2, RWF_DSYNC), 2, "pwritev2 with RWF_DSYNC");
	CHECK_EQ(pwritev2(fd, iov, 1, 4, RWF_SYNC | RWF_HIPRI), 2, "pwritev2 with RWF_SYNC");
	CHECK_EQ(pread(fd, buf, 12, 0), 12, "read back");
	CHECK(memcmp(buf, "abXYXYWorlXY", 12) == 0, "pwritev2 wrote where asked");
	CHECK_ERRNO(preadv2(fd, iov, 1, 0, 0x80000000), EOPNOTSUPP, "preadv2 with unknown flags");
	CHECK_ERRNO(pwritev2(fd, iov, 1, 0, 0x80000000), EOPNOTSUPP, "pwritev2 with unknown flags");
	CHECK_ERRNO(preadv2(fd, iov, 1, -2, 0), EINVAL, "preadv2 at offset -2");
	CHECK_ERRNO(readv(fd, iov, -1), EINVAL, "readv with a negative count");
	CHECK_ERRNO(readv(fd, iov, 1025), EINVAL, "readv with more than IOV_MAX vectors");
	CHECK_EQ(write(fd, buf, 0), 0, "a write of nothing");
	close(fd);
	CHECK_EQ(unlink("f"), 0, "unlink f");
}

static void holes(void)
{
	const off_t size = (1 << 20) + 4096;
	char page[4096], buf[4096];
	off_t off;
	int fd;

	memset(page, 'D', sizeof(page));
	fd = open("h", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK_EQ(pwrite(fd, page, sizeof(page), 0), 4096, "write a page at 0");
	CHECK_EQ(pwrite(fd, page, sizeof(page), 1 << 20), 4096, "and one at 1 MiB");
	CHECK_EQ(fsize(fd), (1 << 20) + 4096, "the size is 1 MiB + 4 KiB");
	CHECK_EQ(lseek(fd, 0, SEEK_DATA), 0, "SEEK_DATA from 0 is 0");
	/* Where the hole is found depends on the file system (one may call the
	 * whole file data, with only the implicit hole at its end): fs_pending
	 * checks that the sandbox's tmpfs finds it as Linux's does. */
	off = lseek(fd, 0, SEEK_HOLE);
	CHECK(off == 4096 || off == size, "SEEK_HOLE from 0 is the hole or the end");
	off = lseek(fd, 4096, SEEK_DATA);
	CHECK(off == 1 << 20 || off == 4096, "SEEK_DATA from 4096 is the data or 4096");
	CHECK_EQ(lseek(fd, 1 << 20, SEEK_HOLE), size, "SEEK_HOLE in the last data is the end");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), size, "SEEK_HOLE moved the offset");
	CHECK_EQ(lseek(fd, size - 1, SEEK_DATA), size - 1, "SEEK_DATA at the last byte");
	CHECK_ERRNO(lseek(fd, (1 << 20) + 4096, SEEK_DATA), ENXIO, "SEEK_DATA at the end");
	CHECK_ERRNO(lseek(fd, (1 << 20) + 5000, SEEK_HOLE), ENXIO, "SEEK_HOLE past the end");
	CHECK_EQ(pread(fd, buf, sizeof(buf), 8192), 4096, "read in the hole");
	CHECK(all_zero(buf, sizeof(buf)), "a hole reads as zeros");
	close(fd);
}

static void truncs(void)
{
	char buf[64];
	struct stat st;
	int fd;

	CHECK_EQ(fs_put("t", "0123456789"), 0, "t: 10 bytes");
	CHECK_EQ(truncate("t", 4), 0, "truncate to 4");
	CHECK(strcmp(fs_get("t"), "0123") == 0, "the file is '0123'");
	CHECK_EQ(truncate("t", 8), 0, "truncate to 8");
	fd = open("t", O_RDWR);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf)), 8, "it has 8 bytes");
	CHECK(memcmp(buf, "0123", 4) == 0 && all_zero(buf + 4, 4), "growing adds zeros");
	CHECK_EQ(ftruncate(fd, 2), 0, "ftruncate to 2");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 8, "ftruncate leaves the offset");
	CHECK_EQ(write(fd, "Z", 1), 1, "write at 8");
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), 9, "now 9 bytes");
	CHECK(memcmp(buf, "01", 2) == 0 && all_zero(buf + 2, 6) && buf[8] == 'Z',
	      "what was cut off reads back as zeros");
	CHECK_ERRNO(ftruncate(fd, -1), EINVAL, "ftruncate to a negative size");
	close(fd);
	fd = open("t", O_RDONLY);
	CHECK_ERRNO(ftruncate(fd, 0), EINVAL, "ftruncate of a read-only descriptor");
	close(fd);
	CHECK_EQ(mkdir("dir", 0755), 0, "mkdir dir");
	CHECK_ERRNO(truncate("dir", 0), EISDIR, "truncate of a directory");
	CHECK_ERRNO(truncate("missing", 0), ENOENT, "truncate of a missing file");
	CHECK_EQ(truncate("t", 0), 0, "truncate to 0");
	CHECK_EQ(stat("t", &st), 0, "stat");
	CHECK_EQ(st.st_size, 0, "the file is empty");
}

static void falloc(void)
{
	char buf[64];
	int fd = open("fa", O_RDWR | O_CREAT | O_EXCL, 0644);

	CHECK_EQ(fallocate(fd, 0, 0, 8192), 0, "fallocate 8 KiB");
	CHECK_EQ(fsize(fd), 8192, "the size is 8192");
	CHECK_EQ(pread(fd, buf, sizeof(buf), 100), (long)sizeof(buf), "read in it");
	CHECK(all_zero(buf, sizeof(buf)), "allocated space reads as zeros");
	CHECK_EQ(fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 65536), 0, "fallocate KEEP_SIZE");
	CHECK_EQ(fsize(fd), 8192, "keeps the size");
	CHECK_EQ(fallocate(fd, 0, 100, 10), 0, "fallocate inside the file");
	CHECK_EQ(fsize(fd), 8192, "does not change the size");
	CHECK_EQ(pwrite(fd, "abcdefgh", 8, 0), 8, "write 8 bytes");
	CHECK_EQ(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2, 4), 0,
		 "punch a hole over bytes 2..5");
	CHECK_EQ(pread(fd, buf, 8, 0), 8, "read back");
	CHECK(memcmp(buf, "ab\0\0\0\0gh", 8) == 0, "the hole reads as zeros");
	CHECK_EQ(fsize(fd), 8192, "and the size stays");
	CHECK_ERRNO(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4), EOPNOTSUPP,
		    "PUNCH_HOLE without KEEP_SIZE");
	CHECK_ERRNO(fallocate(fd, 0, 0, 0), EINVAL, "fallocate of length 0");
	CHECK_ERRNO(fallocate(fd, 0, -1, 10), EINVAL, "fallocate at a negative offset");
	close(fd);
	fd = open("fa", O_RDONLY);
	CHECK_ERRNO(fallocate(fd, 0, 0, 10), EBADF, "fallocate of a read-only descriptor");
	close(fd);
}

static void syncs(void)
{
	int fd = open("s", O_RDWR | O_CREAT | O_EXCL, 0644);
	int p[2];

	CHECK_EQ(write(fd, "data", 4), 4, "write");
	CHECK_EQ(fsync(fd), 0, "fsync");
	CHECK_EQ(fdatasync(fd), 0, "fdatasync");
	CHECK_EQ(syncfs(fd), 0, "syncfs");
	sync();
	CHECK(1, "sync returns");
	close(fd);
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fsync(fd), 0, "fsync of a directory");
	close(fd);
	CHECK_ERRNO(fsync(fd), EBADF, "fsync of a closed descriptor");
	CHECK_EQ(pipe(p), 0, "pipe");
	CHECK_ERRNO(fsync(p[0]), EINVAL, "fsync of a pipe");
	close(p[0]);
	close(p[1]);
}

static void copies(void)
{
	char buf[64];
	off_t off, off2;
	int in, out;

	CHECK_EQ(fs_put("src", "The quick brown fox"), 0, "src: 19 bytes");
	in = open("src", O_RDONLY);
	out = open("dst", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK_EQ(sendfile(out, in, NULL, 9), 9, "sendfile 9 bytes from the offsets");
	CHECK_EQ(lseek(in, 0, SEEK_CUR), 9, "moves the input offset");
	CHECK_EQ(lseek(out, 0, SEEK_CUR), 9, "and the output offset");
	off = 4;
	CHECK_EQ(sendfile(out, in, &off, 100), 15, "sendfile from 4 to the end");
	CHECK_EQ(off, 19, "updates *offset");
	CHECK_EQ(lseek(in, 0, SEEK_CUR), 9, "not the input offset");
	CHECK_EQ(sendfile(out, in, &off, 100), 0, "sendfile at the end gives 0");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(pread(out, buf, sizeof(buf), 0), 24, "dst has 24 bytes");
	CHECK(strcmp(buf, "The quickquick brown fox") == 0, "what sendfile copied");
	off = -1;
	CHECK_ERRNO(sendfile(out, in, &off, 1), EINVAL, "sendfile from a negative offset");
	off = 0x7ffffffffffffffell;
	CHECK_ERRNO(sendfile(out, in, &off, 3), EINVAL, "sendfile whose offset + count overflows");
	CHECK_ERRNO(sendfile(out, in, NULL, (size_t)-1), EINVAL, "sendfile of a negative count");
	{
		int dir = open(".", O_RDONLY | O_DIRECTORY);
		CHECK_ERRNO(sendfile(out, dir, NULL, 1), EINVAL, "sendfile from a directory");
		close(dir);
	}
	close(out);

	out = open("cfr", O_RDWR | O_CREAT | O_EXCL, 0644);
	off = 4;
	off2 = 2;
	CHECK_EQ(copy_file_range(in, &off, out, &off2, 5, 0), 5,
		 "copy_file_range 5 bytes from 4 to 2");
	CHECK(off == 9 && off2 == 7, "updates both offsets");
	CHECK_EQ(lseek(in, 0, SEEK_CUR), 9, "leaves the input file offset");
	CHECK_EQ(lseek(out, 0, SEEK_CUR), 0, "and the output file offset");
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(pread(out, buf, sizeof(buf), 0), 7, "cfr has 7 bytes");
	CHECK(memcmp(buf, "\0\0quick", 7) == 0, "the copy, after a gap of zeros");
	CHECK_EQ(copy_file_range(in, NULL, out, NULL, 100, 0), 10,
		 "copy_file_range with the file offsets, up to the end");
	CHECK_EQ(lseek(in, 0, SEEK_CUR), 19, "moves the input offset");
	CHECK_EQ(lseek(out, 0, SEEK_CUR), 10, "and the output offset");
	CHECK_EQ(copy_file_range(in, NULL, out, NULL, 100, 0), 0, "at the end it copies 0");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(pread(out, buf, sizeof(buf), 0), 10, "cfr has 10 bytes");
	CHECK(memcmp(buf, " brown fox", 10) == 0, "overwritten from 0");
	off = 0;
	CHECK_ERRNO(copy_file_range(in, &off, out, NULL, 5, 1), EINVAL,
		    "copy_file_range with flags");
	off = 0;
	off2 = 20;
	CHECK_EQ(copy_file_range(out, &off, out, &off2, 5, 0), 5,
		 "copy_file_range within one file, not overlapping");
	CHECK_EQ(pread(out, buf, 5, 20), 5, "read the copy");
	CHECK(memcmp(buf, " brow", 5) == 0, "it is there");
	close(out);
	out = open("cfr", O_RDONLY);
	CHECK_ERRNO(copy_file_range(in, NULL, out, NULL, 5, 0), EBADF,
		    "copy_file_range to a read-only descriptor");
	CHECK_ERRNO(sendfile(out, in, NULL, 5), EBADF, "sendfile to a read-only descriptor");
	close(out);
	close(in);
}

int main(void)
{
	fs_enter("fs_rw");
	rw();
	holes();
	truncs();
	falloc();
	syncs();
	copies();
	fs_leave();
	return GUEST_DONE();
}
