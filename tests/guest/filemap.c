/*
 * Guest test: mmap of a regular file. Shared mappings and read/write see the
 * same bytes both ways, two mappings share them, msync and munmap put them
 * in the file, private mappings are copies, and the access rules hold
 * (EACCES for writable shared mappings of read-only files, also through
 * mprotect; ENODEV for directories). /proc/self/maps names the file.
 *
 * Works in the current directory (a scratch file it removes). With
 * FILEMAP_KEEP=NAME in the environment it leaves its final contents in NAME
 * instead, for a test that checks them from outside the sandbox.
 */
#include "guest.h"

#include <fcntl.h>
#include <sys/stat.h>

#define LEN (3 * PAGE + 100)

static int all_bytes(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static int file_has(int fd, off_t off, size_t len, unsigned char v)
{
	unsigned char buf[PAGE];

	if (len > sizeof(buf) || pread(fd, buf, len, off) != (ssize_t)len)
		return 0;
	return all_bytes(buf, len, v);
}

static int maps_names(const char *name)
{
	char buf[65536];
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return strstr(buf, name) != NULL;
}

static void shared_rw(const char *name)
{
	unsigned char fill[PAGE], *p, *q, *priv;
	int fd = open(name, O_RDWR);

	CHECK(fd >= 0, "open the scratch file read-write");
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap it shared, read-write");
	if (p == MAP_FAILED)
		return;
	CHECK(all_bytes(p, LEN, 'a'), "the mapping shows the file's bytes");

	memset(p + PAGE, 'b', PAGE);
	CHECK(file_has(fd, PAGE, PAGE, 'b'), "a store through the mapping is seen by read");
	memset(fill, 'c', sizeof(fill));
	CHECK_EQ(pwrite(fd, fill, PAGE, 2 * PAGE), PAGE, "pwrite a page");
	CHECK(all_bytes(p + 2 * PAGE, PAGE, 'c'), "the write is seen through the mapping");

	q = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(q != MAP_FAILED, "a second shared mapping");
	CHECK(q != MAP_FAILED && all_bytes(q + PAGE, PAGE, 'b'),
	      "it sees the first mapping's stores");
	p[0] = 'd';
	CHECK(q != MAP_FAILED && q[0] == 'd', "at once");
	CHECK(maps_names(strrchr(name, '/') ? strrchr(name, '/') + 1 : name),
	      "/proc/self/maps names the file");

	priv = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(priv != MAP_FAILED && priv[0] == 'd' && all_bytes(priv + PAGE, PAGE, 'b'),
	      "a private mapping starts as the file's bytes");
	if (priv != MAP_FAILED) {
		memset(priv + PAGE, 'z', PAGE);
		CHECK(file_has(fd, PAGE, PAGE, 'b'), "private stores do not reach the file");
		munmap(priv, LEN);
	}

	CHECK_EQ(msync(p, LEN, MS_SYNC), 0, "msync MS_SYNC");
	CHECK_EQ(msync(p, LEN, MS_ASYNC), 0, "msync MS_ASYNC");
	CHECK_EQ(msync(p, LEN, MS_INVALIDATE), 0, "msync MS_INVALIDATE");
	CHECK_ERRNO(msync(p, LEN, MS_SYNC | MS_ASYNC), EINVAL, "msync with SYNC and ASYNC");
	CHECK_ERRNO(msync(p, LEN, 0x100), EINVAL, "msync with an unknown flag");
	CHECK_ERRNO(msync(p + 1, PAGE, MS_SYNC), EINVAL, "msync of an unaligned address");
	CHECK_EQ(msync(p, 0, MS_SYNC), 0, "msync of nothing");

	memset(p + 3 * PAGE, 'e', 100);
	CHECK_EQ(munmap(p, LEN), 0, "munmap the first mapping");
	CHECK(file_has(fd, 3 * PAGE, 100, 'e'), "its last stores are in the file");
	if (q != MAP_FAILED)
		munmap(q, LEN);
	CHECK_ERRNO(msync(p, LEN, MS_SYNC), ENOMEM, "msync of an unmapped range");
	close(fd);

	fd = open(name, O_RDONLY);
	CHECK(fd >= 0 && file_has(fd, 0, 1, 'd') && file_has(fd, PAGE, PAGE, 'b') &&
		      file_has(fd, 2 * PAGE, PAGE, 'c') && file_has(fd, 3 * PAGE, 100, 'e'),
	      "reopened, the file holds every store");
	close(fd);
}

static void access_rules(const char *name)
{
	int ro = open(name, O_RDONLY), wo = open(name, O_WRONLY), ap = open(name, O_RDWR | O_APPEND);
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	unsigned char *p;

	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES,
		    "shared writable mapping of a read-only fd");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, wo, 0), EACCES,
		    "any mapping of a write-only fd");
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ap, 0);
	CHECK(p != MAP_FAILED, "shared writable mapping of an O_APPEND fd");
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, dir, 0), ENODEV,
		    "mapping a directory");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, 999, 0), EBADF, "mapping a bad fd");

	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(p != MAP_FAILED, "shared read-only mapping of a read-only fd");
	if (p != MAP_FAILED) {
		CHECK_ERRNO(mprotect(p, PAGE, PROT_READ | PROT_WRITE), EACCES,
			    "mprotect cannot make it writable");
		munmap(p, PAGE);
	}
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	CHECK(p != MAP_FAILED, "private writable mapping of a read-only fd");
	if (p != MAP_FAILED) {
		p[0] = 'x';
		CHECK(file_has(ro, 0, 1, 'd'), "its stores stay private");
		munmap(p, PAGE);
	}
	close(ro);
	close(wo);
	close(ap);
	close(dir);
}

static void truncation(const char *name)
{
	int fd = open(name, O_RDWR);
	unsigned char *p;
	struct stat st;

	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "map two pages");
	if (p == MAP_FAILED)
		return;
	CHECK_EQ(ftruncate(fd, PAGE + 10), 0, "truncate into the second page");
	CHECK_EQ(ftruncate(fd, 2 * PAGE), 0, "extend it again");
	CHECK(file_has(fd, PAGE + 10, PAGE - 10, 0), "the cut-off bytes read as zeros");
	CHECK(all_bytes(p + PAGE + 10, PAGE - 10, 0), "and are zeros in the mapping");
	CHECK(file_has(fd, PAGE, 10, 'b'), "the bytes before the cut stay");
	memset(p + PAGE, 'f', PAGE);
	CHECK_EQ(fsync(fd), 0, "fsync");
	CHECK(file_has(fd, PAGE, PAGE, 'f'), "the mapped stores are in the file");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_size, 2 * PAGE, "the size is what ftruncate set");
	munmap(p, 2 * PAGE);
	close(fd);
}

int main(void)
{
	unsigned char fill[LEN];
	char name[] = "filemap.tmp.XXXXXX";
	const char *keep = getenv("FILEMAP_KEEP");
	int fd = mkstemp(name);

	CHECK(fd >= 0, "create a scratch file");
	if (fd < 0)
		return 1;
	memset(fill, 'a', sizeof(fill));
	CHECK_EQ(write(fd, fill, LEN), LEN, "write three pages and a bit");
	close(fd);

	shared_rw(name);
	access_rules(name);
	truncation(name);

	if (keep)
		CHECK_EQ(rename(name, keep), 0, "keep the file");
	else
		CHECK_EQ(unlink(name), 0, "remove the scratch file");
	return GUEST_DONE();
}
