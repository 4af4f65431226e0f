/*
 * Guest test: one read larger than the sentry's bounce buffer fills the
 * whole buffer from a regular file (written in a fresh directory under
 * /tmp) and from the memory devices, as on Linux, where programs such as
 * dd without iflag=fullblock count on it; a read at the end of a file
 * still returns what is left.
 */
#include "guest.h"

#include <fcntl.h>

#define BIG (1024 * 1024 + 4096 + 17)

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 12));
}

static int matches(const unsigned char *p, size_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern(off + i))
			return 0;
	return 1;
}

int main(void)
{
	unsigned char *w = malloc(BIG), *r = malloc(BIG);
	char dir[] = "/tmp/rw_large.XXXXXX", path[64];
	ssize_t n;
	int fd;

	CHECK(w && r, "buffers");
	for (size_t i = 0; i < BIG; i++)
		w[i] = pattern(i);

	fd = open("/dev/zero", O_RDONLY);
	memset(r, 1, BIG);
	n = read(fd, r, BIG);
	CHECK(n == BIG, "one read of /dev/zero fills 1 MiB + 4113 bytes");
	CHECK(r[0] == 0 && r[BIG - 1] == 0 && memchr(r, 1, BIG) == NULL, "... with zeros");
	close(fd);
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(read(fd, r, 300000) == 300000, "one read of /dev/urandom fills 300000 bytes");
	close(fd);

	CHECK(mkdtemp(dir) != NULL, "mkdtemp under /tmp");
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0, "create a file");
	CHECK(write(fd, w, BIG) == BIG, "write 1 MiB + 4113 bytes");
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "seek to 0");
	memset(r, 0, BIG);
	n = read(fd, r, BIG);
	CHECK(n == BIG && matches(r, 0, BIG), "one read returns the whole file");
	CHECK(lseek(fd, 0, SEEK_CUR) == BIG, "... and moves the offset past it");
	CHECK(read(fd, r, BIG) == 0, "a read at the end returns 0");
	n = pread(fd, r, 500000, 100000);
	CHECK(n == 500000 && matches(r, 100000, 500000), "pread of 500000 bytes at 100000");
	n = pread(fd, r, BIG, 200000);
	CHECK(n == BIG - 200000 && matches(r, 200000, BIG - 200000),
	      "pread past the end returns what is left");
	CHECK(lseek(fd, 0, SEEK_CUR) == BIG, "pread leaves the offset");
	close(fd);
	unlink(path);
	rmdir(dir);
	free(w);
	free(r);
	return guest_failures ? 1 : 0;
}
