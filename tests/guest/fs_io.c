/*
 * Guest test: file I/O details, in /tmp (rung: the overlay's tmpfs upper
 * layer) and /dev/shm (a tmpfs): SEEK_DATA/SEEK_HOLE find the real holes
 * (page granularity on Linux's tmpfs, block granularity on ext4: 4 KiB
 * either way), copy_file_range's checks (overlapping ranges of one file,
 * the end of the input, positions, file types, filesystems),
 * posix_fadvise's, and the pwritev2/preadv2 flags.
 */
#include "fsguest.h"

#include <linux/falloc.h>
#include <sys/uio.h>

#define MIB (1l << 20)

static char buf[65536];

static void seeks(const char *base)
{
	char what[128];
	int fd = open("h", O_RDWR | O_CREAT | O_TRUNC, 0644);

#define SEEK_EQ(off, whence, want, name)                         \
	do {                                                     \
		snprintf(what, sizeof(what), "%s: %s", base, name); \
		CHECK_EQ(lseek(fd, off, whence), want, what);    \
	} while (0)
#define SEEK_FAILS(off, whence, name)                              \
	do {                                                       \
		snprintf(what, sizeof(what), "%s: %s", base, name);   \
		CHECK_ERRNO(lseek(fd, off, whence), ENXIO, what);  \
	} while (0)
	memset(buf, 'D', 100);
	pwrite(fd, buf, 100, 0);
	pwrite(fd, buf, 100, MIB);
	pwrite(fd, buf, 100, 5 * MIB);
	SEEK_EQ(0, SEEK_DATA, 0, "SEEK_DATA at data stays");
	SEEK_EQ(0, SEEK_HOLE, 4096, "SEEK_HOLE from 0 finds the end of the first page");
	SEEK_EQ(4096, SEEK_DATA, MIB, "SEEK_DATA from the hole finds 1 MiB");
	SEEK_EQ(200000, SEEK_HOLE, 200000, "SEEK_HOLE in a hole stays");
	SEEK_EQ(MIB + 50, SEEK_HOLE, MIB + 4096, "SEEK_HOLE after the data at 1 MiB");
	SEEK_EQ(MIB + 4096, SEEK_DATA, 5 * MIB, "SEEK_DATA across 2 MiB boundaries");
	SEEK_EQ(5 * MIB, SEEK_HOLE, 5 * MIB + 100, "the end of the file is a hole");
	SEEK_FAILS(5 * MIB + 100, SEEK_DATA, "SEEK_DATA at the end");
	SEEK_FAILS(5 * MIB + 100, SEEK_HOLE, "SEEK_HOLE at the end");
	SEEK_FAILS(-1, SEEK_DATA, "SEEK_DATA before the start");
	CHECK_EQ(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MIB, 4096), 0,
		 "punch the page at 1 MiB");
	SEEK_EQ(4096, SEEK_DATA, 5 * MIB, "SEEK_DATA skips the punched page");
	CHECK_EQ(ftruncate(fd, 8 * MIB), 0, "grow the file to 8 MiB");
	SEEK_FAILS(5 * MIB + 4096, SEEK_DATA, "SEEK_DATA in the grown tail");
	SEEK_EQ(5 * MIB + 4096, SEEK_HOLE, 5 * MIB + 4096, "SEEK_HOLE in the grown tail");
	CHECK_EQ(ftruncate(fd, 50), 0, "shrink the file to 50 bytes");
	SEEK_EQ(0, SEEK_HOLE, 50, "SEEK_HOLE finds the new end");
	SEEK_FAILS(60, SEEK_DATA, "SEEK_DATA past the new end");
	close(fd);
#undef SEEK_EQ
#undef SEEK_FAILS
}

static void copies(const char *base)
{
	int fd = open("c", O_RDWR | O_CREAT | O_TRUNC, 0644), fd2, rd;
	char what[128];
	off_t in, out;

#define CFR_FAILS(expr, err, name)                                 \
	do {                                                       \
		snprintf(what, sizeof(what), "%s: %s", base, name);   \
		CHECK_ERRNO(expr, err, what);                      \
	} while (0)
	write(fd, "0123456789", 10);
	in = 0, out = 2;
	CFR_FAILS(copy_file_range(fd, &in, fd, &out, 5, 0), EINVAL, "overlap, out after in");
	in = 4, out = 0;
	CFR_FAILS(copy_file_range(fd, &in, fd, &out, 5, 0), EINVAL, "overlap, out before in");
	in = 0, out = 0;
	CFR_FAILS(copy_file_range(fd, &in, fd, &out, 1, 0), EINVAL, "the same range");
	in = 0, out = 5;
	CHECK_EQ(copy_file_range(fd, &in, fd, &out, 5, 0), 5, "adjacent ranges of one file");
	CHECK(in == 5 && out == 10, "the offsets moved");
	CHECK(strcmp(fs_get("c"), "0123401234") == 0, "copied");
	/* Shortened to the end of the input (2 bytes), the ranges do not meet. */
	in = 8, out = 0;
	CHECK_EQ(copy_file_range(fd, &in, fd, &out, 100, 0), 2, "a copy is cut at the end");
	CHECK(strcmp(fs_get("c"), "3423401234") == 0, "copied");
	in = 20, out = 0;
	CHECK_EQ(copy_file_range(fd, &in, fd, &out, 5, 0), 0, "a copy from the end is empty");
	in = 0, out = 0;
	CFR_FAILS(copy_file_range(fd, &in, fd, &out, 1, 1), EINVAL, "flags");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	fd2 = open("c2", O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(copy_file_range(fd, NULL, fd2, NULL, 4, 0), 4, "a copy at the positions");
	CHECK(lseek(fd, 0, SEEK_CUR) == 4 && lseek(fd2, 0, SEEK_CUR) == 4,
	      "both positions moved");
	rd = open("c", O_RDONLY);
	CFR_FAILS(copy_file_range(fd, NULL, rd, NULL, 4, 0), EBADF, "to a read-only descriptor");
	close(rd);
	rd = open(".", O_RDONLY | O_DIRECTORY);
	CFR_FAILS(copy_file_range(rd, NULL, fd2, NULL, 4, 0), EISDIR, "from a directory");
	close(rd);
	close(fd2);
	rd = open("/dev/null", O_RDWR);
	CFR_FAILS(copy_file_range(fd, NULL, rd, NULL, 4, 0), EINVAL, "to a device");
	close(rd);
	close(fd);
#undef CFR_FAILS
}

static void advice(void)
{
	int fd = open("c", O_RDWR), p[2];

	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL), 0, "POSIX_FADV_SEQUENTIAL");
	CHECK_EQ(posix_fadvise(fd, 0, 100, POSIX_FADV_WILLNEED), 0, "POSIX_FADV_WILLNEED");
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0, "POSIX_FADV_DONTNEED");
	CHECK_EQ(posix_fadvise(fd, 0, 0, 42), EINVAL, "an unknown advice is EINVAL");
	CHECK_EQ(posix_fadvise(fd, 0, -1, POSIX_FADV_NORMAL), EINVAL, "a negative length");
	CHECK_EQ(posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL), EBADF, "a bad descriptor");
	close(fd);
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0, "advice on a directory");
	close(fd);
	pipe(p);
	CHECK_EQ(posix_fadvise(p[0], 0, 0, POSIX_FADV_NORMAL), ESPIPE, "advice on a pipe");
	close(p[0]);
	close(p[1]);
}

static void rwflags(void)
{
	struct iovec iov = {"+", 1}, riov = {buf, 4};
	int fd;

	fs_put("w", "0123456789");
	fd = open("w", O_RDWR);
	CHECK_EQ(pwritev2(fd, &iov, 1, 0, RWF_APPEND), 1, "pwritev2 RWF_APPEND at 0");
	CHECK(strcmp(fs_get("w"), "0123456789+") == 0, "it went to the end");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0, "the position stayed");
	CHECK_EQ(pwritev2(fd, &iov, 1, -1, RWF_APPEND), 1, "pwritev2 RWF_APPEND at the position");
	CHECK(strcmp(fs_get("w"), "0123456789++") == 0, "it went to the end");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12, "the position is the end");
	CHECK_EQ(pwritev2(fd, &iov, 1, 0, RWF_DSYNC), 1, "pwritev2 RWF_DSYNC");
	CHECK_EQ(pwritev2(fd, &iov, 1, 1, RWF_SYNC), 1, "pwritev2 RWF_SYNC");
	CHECK_EQ(pwritev2(fd, &iov, 1, 2, RWF_HIPRI), 1, "pwritev2 RWF_HIPRI");
	CHECK(strcmp(fs_get("w"), "+++3456789++") == 0, "they wrote at their offsets");
	CHECK_ERRNO(pwritev2(fd, &iov, 1, 0, 0x40000000), EOPNOTSUPP, "pwritev2 with an unknown flag");
	CHECK_ERRNO(pwritev2(fd, &iov, 1, -2, 0), EINVAL, "pwritev2 at -2");
	CHECK_EQ(preadv2(fd, &riov, 1, 0, RWF_APPEND), 4, "preadv2 ignores RWF_APPEND");
	CHECK(memcmp(buf, "+++3", 4) == 0, "and reads at its offset");
	CHECK_ERRNO(preadv2(fd, &riov, 1, 0, 0x40000000), EOPNOTSUPP, "preadv2 with an unknown flag");
	close(fd);
}

static void run(const char *base, const char *path)
{
	CHECK_EQ(chdir(path), 0, base);
	seeks(base);
	copies(base);
}

int main(void)
{
	char shm[64];
	int a, b;
	off_t off = 0;

	fs_enter("fs_io");
	run("tmp", fs_dir);
	advice();
	rwflags();
	snprintf(shm, sizeof(shm), "/dev/shm/fs_io-%d", (int)getpid());
	fs_rm_rf(shm);
	CHECK_EQ(mkdir(shm, 0755), 0, "mkdir in /dev/shm");
	run("shm", shm);
	CHECK_EQ(chdir(fs_dir), 0, "back to /tmp");
	a = open("c", O_RDONLY);
	snprintf(buf, sizeof(buf), "%s/c", shm);
	b = open(buf, O_WRONLY);
	CHECK_ERRNO(copy_file_range(a, &off, b, NULL, 4, 0), EXDEV,
		    "copy_file_range from /tmp to /dev/shm");
	close(a);
	close(b);
	CHECK_EQ(fs_rm_rf(shm), 0, "remove the /dev/shm directory");
	fs_leave();
	return GUEST_DONE();
}
