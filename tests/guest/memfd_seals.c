/*
 * Guest test: memfd seals (fcntl F_ADD_SEALS, F_GET_SEALS) and what each
 * one refuses: F_SEAL_WRITE (write, shared writable mmap, hole punching;
 * refused with EBUSY while a writable shared mapping exists), F_SEAL_SHRINK
 * and F_SEAL_GROW (truncate, write and fallocate past the end),
 * F_SEAL_FUTURE_WRITE (writes and new writable mappings, not an existing
 * one), F_SEAL_SEAL; a memfd without MFD_ALLOW_SEALING has F_SEAL_SEAL; a
 * pipe has no seals. Only what 6.1 and later kernels agree on is checked.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>

static int memfd(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

int main(void)
{
	char buf[16], path[64];
	int fd, ro, p[2];
	char *m;

	/* No MFD_ALLOW_SEALING: sealed against seals. */
	fd = memfd("plain", 0);
	CHECK(fd >= 0, "memfd_create without MFD_ALLOW_SEALING");
	CHECK(fcntl(fd, F_GET_SEALS) == F_SEAL_SEAL, "its seals are F_SEAL_SEAL");
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EPERM, "adding a seal to it");
	close(fd);
	CHECK_ERRNO(memfd("bad", 0x100), EINVAL, "memfd_create with an unknown flag");

	fd = memfd("sealed", MFD_ALLOW_SEALING);
	CHECK(fd >= 0, "memfd_create with MFD_ALLOW_SEALING");
	CHECK(fcntl(fd, F_GET_SEALS) == 0, "it starts without seals");
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, 0x100), EINVAL, "an unknown seal");
	CHECK(write(fd, "0123456789", 10) == 10, "write before sealing");

	/* A read-only descriptor of the same file may not add seals. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	CHECK(ro >= 0, "reopen read-only through /proc/self/fd");
	CHECK_ERRNO(fcntl(ro, F_ADD_SEALS, F_SEAL_SHRINK), EPERM, "seal through a read-only fd");

	/* Shrink and grow. */
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "add F_SEAL_SHRINK");
	CHECK_ERRNO(ftruncate(fd, 5), EPERM, "shrinking after F_SEAL_SHRINK");
	CHECK(ftruncate(fd, 8192) == 0, "growing after F_SEAL_SHRINK");
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW) == 0, "add F_SEAL_GROW");
	CHECK(fcntl(fd, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW), "seals add up");
	CHECK_ERRNO(ftruncate(fd, 8193), EPERM, "growing after F_SEAL_GROW");
	CHECK(ftruncate(fd, 8192) == 0, "truncating to the same size");
	CHECK_ERRNO(pwrite(fd, "x", 1, 8192), EPERM, "a write past the end");
	CHECK_ERRNO(fallocate(fd, 0, 4096, 8192), EPERM, "fallocate past the end");
	CHECK(pwrite(fd, "ab", 2, 100) == 2, "a write inside the file");

	/* Write: refused while a writable shared mapping exists. */
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "a writable shared mapping");
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY, "F_SEAL_WRITE while mapped");
	memcpy(m + 200, "mapped", 6);
	CHECK(munmap(m, 8192) == 0, "unmap it");
	/* A private mapping does not count. */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "a private writable mapping");
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == 0, "F_SEAL_WRITE once unmapped");
	m[0] = 'P'; /* the private copy may still change */
	munmap(m, 4096);
	CHECK_ERRNO(pwrite(fd, "x", 1, 0), EPERM, "write after F_SEAL_WRITE");
	CHECK_ERRNO(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EPERM,
		    "a writable shared mapping after F_SEAL_WRITE");
	CHECK_ERRNO(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096), EPERM,
		    "punching a hole after F_SEAL_WRITE");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(m != MAP_FAILED, "a read-only shared mapping through a read-only fd");
	CHECK(m != MAP_FAILED && memcmp(m, "0123456789", 10) == 0 && memcmp(m + 100, "ab", 2) == 0 &&
		      memcmp(m + 200, "mapped", 6) == 0,
	      "it shows the writes made before the seal");
	if (m != MAP_FAILED) {
		CHECK_ERRNO(mprotect(m, 4096, PROT_READ | PROT_WRITE), EACCES,
			    "mprotect to writable");
		munmap(m, 4096);
	}
	CHECK(pread(fd, buf, 10, 0) == 10 && memcmp(buf, "0123456789", 10) == 0,
	      "reads still work");
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL) == 0, "add F_SEAL_SEAL");
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), EPERM, "any seal after F_SEAL_SEAL");
	CHECK(fcntl(fd, F_GET_SEALS) ==
		      (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE),
	      "F_GET_SEALS shows them all");
	close(ro);
	close(fd);

	/* Future write: an existing writable mapping keeps writing. */
	fd = memfd("future", MFD_ALLOW_SEALING);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0, "a second sealable memfd");
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "mapped shared and writable");
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) == 0, "F_SEAL_FUTURE_WRITE while mapped");
	CHECK_ERRNO(write(fd, "x", 1), EPERM, "write after F_SEAL_FUTURE_WRITE");
	CHECK_ERRNO(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EPERM,
		    "a new writable shared mapping after F_SEAL_FUTURE_WRITE");
	if (m != MAP_FAILED) {
		memcpy(m, "still", 5);
		CHECK(pread(fd, buf, 5, 0) == 5 && memcmp(buf, "still", 5) == 0,
		      "the older mapping still writes");
		munmap(m, 4096);
	}
	close(fd);

	/* Files that are not memfds have no seals. */
	CHECK(pipe(p) == 0, "pipe");
	CHECK_ERRNO(fcntl(p[0], F_GET_SEALS), EINVAL, "F_GET_SEALS of a pipe");
	CHECK_ERRNO(fcntl(p[1], F_ADD_SEALS, F_SEAL_SEAL), EINVAL, "F_ADD_SEALS to a pipe");
	return GUEST_DONE();
}
