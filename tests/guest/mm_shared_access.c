/*
 * Guest test: a shared mapping obeys its descriptor's access mode, for
 * /dev/zero (anonymous memory) as for files: a descriptor opened read-only
 * maps shared only without PROT_WRITE, and mprotect cannot add it
 * (EACCES); a private mapping may be writable; a write-only descriptor
 * maps nothing. The same for a memfd reopened read-only.
 */
#include "guest.h"

#include <fcntl.h>

static void rules(const char *what, int ro, int wo)
{
	char buf[128];
	unsigned char *p;

	snprintf(buf, sizeof(buf), "%s: a writable shared mapping of a read-only fd", what);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES, buf);
	snprintf(buf, sizeof(buf), "%s: any mapping of a write-only fd", what);
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, wo, 0), EACCES, buf);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, ro, 0);
	snprintf(buf, sizeof(buf), "%s: a read-only shared mapping", what);
	CHECK(p != MAP_FAILED, buf);
	if (p != MAP_FAILED) {
		snprintf(buf, sizeof(buf), "%s: mprotect of it PROT_WRITE", what);
		CHECK_ERRNO(mprotect(p + PAGE, PAGE, PROT_READ | PROT_WRITE), EACCES, buf);
		snprintf(buf, sizeof(buf), "%s: mprotect of it PROT_EXEC", what);
		CHECK_EQ(mprotect(p, 2 * PAGE, PROT_READ | PROT_EXEC), 0, buf);
		munmap(p, 2 * PAGE);
	}
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	snprintf(buf, sizeof(buf), "%s: a writable private mapping", what);
	CHECK(p != MAP_FAILED, buf);
	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap(p, PAGE);
	}
}

int main(void)
{
	char path[64];
	int m = memfd_create("m", 0);

	rules("/dev/zero", open("/dev/zero", O_RDONLY), open("/dev/zero", O_WRONLY));
	CHECK_EQ(ftruncate(m, 2 * PAGE), 0, "memfd sized");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", m);
	rules("memfd", open(path, O_RDONLY), open(path, O_WRONLY));
	return GUEST_DONE();
}
