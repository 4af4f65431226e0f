/*
 * Guest test: mappings of files, in a fresh directory under /tmp. Private
 * mappings (copy-on-write: stores never reach the file; they see the file
 * until they write a page), shared mappings of a file in /tmp (stores reach
 * the file at once, and are there after msync, munmap, fsync and close;
 * writes to the file show in the mapping), mapping the rootfs's own files
 * (this program), offsets, and the errors: a shared writable mapping of a
 * read-only descriptor (nor can mprotect make one writable), directories,
 * pipes, unaligned offsets. (O_PATH descriptors: fs_pending.)
 */
#include "fsguest.h"

static int fill(const char *path, int pages)
{
	char page[4096];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	for (int i = 0; i < pages; i++) {
		memset(page, 'a' + i, sizeof(page));
		if (write(fd, page, sizeof(page)) != sizeof(page))
			return -1;
	}
	return fd;
}

static void private(void)
{
	char buf[8];
	char *m;
	int fd = fill("p", 3);

	m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "mmap a 3-page file MAP_PRIVATE");
	if (m == MAP_FAILED)
		return;
	CHECK(m[0] == 'a' && m[PAGE] == 'b' && m[2 * PAGE + 4095] == 'c', "it shows the file");
	m[0] = 'X';
	CHECK_EQ(pread(fd, buf, 1, 0), 1, "pread byte 0");
	CHECK_EQ(buf[0], 'a', "a private store does not reach the file");
	CHECK_EQ(pwrite(fd, "Y", 1, 1), 1, "pwrite byte 1 of the file");
	CHECK_EQ(m[1], 'a', "a page the mapping wrote is its own copy");
	CHECK_EQ(munmap(m, 3 * PAGE), 0, "munmap");
	CHECK_EQ(pread(fd, buf, 2, 0), 2, "pread");
	CHECK(buf[0] == 'a' && buf[1] == 'Y', "the file has only its own write");

	m = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 2 * PAGE);
	CHECK(m != MAP_FAILED, "mmap MAP_PRIVATE at offset 8192");
	if (m != MAP_FAILED) {
		CHECK(m[0] == 'c' && m[4095] == 'c', "shows the third page");
		CHECK_EQ(munmap(m, PAGE), 0, "munmap");
	}
	m = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, fd, 2 * PAGE);
	CHECK(m != MAP_FAILED, "mmap past the end of the file");
	if (m != MAP_FAILED)
		CHECK_EQ(munmap(m, 2 * PAGE), 0, "munmap (the page past the end is never touched)");
	CHECK_EQ(ftruncate(fd, 100), 0, "truncate the file to 100 bytes");
	m = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "mmap it");
	if (m != MAP_FAILED) {
		CHECK(m[99] == 'a' && m[100] == 0 && m[4095] == 0,
		      "the rest of the last page reads as zeros");
		CHECK_EQ(munmap(m, PAGE), 0, "munmap");
	}
	close(fd);
}

static void shared(void)
{
	char buf[8];
	char *m;
	int fd = fill("s", 2);

	m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "mmap a 2-page file in /tmp MAP_SHARED");
	if (m == MAP_FAILED)
		return;
	m[10] = 'S';
	m[PAGE + 10] = 'T';
	CHECK_EQ(pread(fd, buf, 1, 10), 1, "pread byte 10 while mapped");
	CHECK_EQ(buf[0], 'S', "read sees a store through the shared mapping at once");
	CHECK_EQ(munmap(m, 2 * PAGE), 0, "munmap after two stores");
	CHECK_EQ(pread(fd, buf, 1, 10), 1, "pread byte 10");
	CHECK_EQ(buf[0], 'S', "the first store reached the file");
	CHECK_EQ(pread(fd, buf, 1, PAGE + 10), 1, "pread byte 4106");
	CHECK_EQ(buf[0], 'T', "the second store too");

	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
	CHECK(m != MAP_FAILED, "mmap the second page MAP_SHARED");
	if (m == MAP_FAILED)
		return;
	CHECK_EQ(m[10], 'T', "it has the earlier store");
	m[50] = 'M';
	CHECK_EQ(msync(m, PAGE, MS_SYNC), 0, "msync MS_SYNC");
	CHECK_EQ(pread(fd, buf, 1, PAGE + 50), 1, "pread");
	CHECK_EQ(buf[0], 'M', "a store is in the file after msync");
	CHECK_EQ(msync(m, PAGE, MS_ASYNC | MS_INVALIDATE), 0, "msync MS_ASYNC|MS_INVALIDATE");
	CHECK_ERRNO(msync(m, PAGE, MS_SYNC | MS_ASYNC), EINVAL, "msync MS_SYNC|MS_ASYNC");
	CHECK_ERRNO(msync(m + 1, PAGE, MS_SYNC), EINVAL, "msync of an unaligned address");
	CHECK_ERRNO(msync(m, PAGE, 0x100), EINVAL, "msync with an unknown flag");
	m[20] = 'U';
	CHECK_EQ(fsync(fd), 0, "fsync");
	CHECK_EQ(pread(fd, buf, 1, PAGE + 20), 1, "pread");
	CHECK_EQ(buf[0], 'U', "a store is in the file after fsync");
	CHECK_EQ(pwrite(fd, "W", 1, PAGE + 30), 1, "pwrite into the mapped page");
	CHECK_EQ(m[30], 'W', "the mapping sees the write");
	m[40] = 'V';
	close(fd);
	fd = open("s", O_RDONLY);
	CHECK_EQ(pread(fd, buf, 1, PAGE + 40), 1, "pread after close and reopen");
	CHECK_EQ(buf[0], 'V', "a store is in the file after close");
	CHECK_EQ(m[20], 'U', "the mapping outlives the descriptor");
	CHECK_EQ(munmap(m, PAGE), 0, "munmap");
	close(fd);

	fd = open("s", O_RDONLY);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EACCES,
		    "a writable shared mapping of a read-only descriptor");
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "a writable private one is fine");
	if (m != MAP_FAILED)
		munmap(m, PAGE);
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "a read-only shared one too");
	if (m != MAP_FAILED) {
		CHECK_ERRNO(mprotect(m, PAGE, PROT_READ | PROT_WRITE), EACCES,
			    "mprotect it writable");
		if (mprotect(m, PAGE, PROT_READ | PROT_WRITE) == 0)
			m[0] = 'W';
		munmap(m, PAGE);
	}
	CHECK_EQ(pread(fd, buf, 1, 0), 1, "pread");
	CHECK_EQ(buf[0], 'a', "the file is unchanged");
	close(fd);
	fd = open("s", O_WRONLY);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), EACCES,
		    "a mapping of a write-only descriptor");
	close(fd);
}

static void errors(void)
{
	int fd, p[2];

	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), ENODEV,
		    "a mapping of a directory");
	close(fd);
	CHECK_EQ(pipe(p), 0, "pipe");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, p[0], 0), ENODEV,
		    "a mapping of a pipe");
	close(p[0]);
	close(p[1]);
	/* (a mapping of an O_PATH descriptor: fs_pending) */
	fd = open("s", O_RDONLY);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 100), EINVAL,
		    "an unaligned offset");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 99, 0), EBADF, "a closed descriptor");
	close(fd);
}

static void rootfs(void)
{
	char head[64];
	char *m;
	int fd = open("/proc/self/exe", O_RDONLY);

	CHECK(fd >= 0, "open /proc/self/exe (a file of the rootfs)");
	CHECK_EQ(pread(fd, head, sizeof(head), 0), (long)sizeof(head), "pread its first bytes");
	m = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "mmap it MAP_PRIVATE");
	if (m != MAP_FAILED) {
		CHECK(memcmp(m, head, sizeof(head)) == 0 && memcmp(m, "\177ELF", 4) == 0,
		      "the mapping has what read gives: an ELF header");
		munmap(m, PAGE);
	}
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "mmap it MAP_PRIVATE writable");
	if (m != MAP_FAILED) {
		m[0] = 'Z';
		CHECK_EQ(pread(fd, head, 1, 0), 1, "pread");
		CHECK_EQ(head[0], 0177, "the store stays private");
		munmap(m, PAGE);
	}
	close(fd);
}

int main(void)
{
	fs_enter("fs_mmap");
	private();
	shared();
	errors();
	rootfs();
	fs_leave();
	return GUEST_DONE();
}
