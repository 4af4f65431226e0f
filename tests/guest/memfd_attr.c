/*
 * Guest test: attribute calls on a memfd (a file with no mount): fchmod,
 * fchown, fstatfs and fstat work and report the change.
 */
#include "guest.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>

int main(void)
{
	int fd = memfd_create("attr", 0);
	struct statfs sfs;
	struct stat st;

	CHECK(fd >= 0, "memfd_create");
	CHECK_EQ(fchmod(fd, 0640), 0, "fchmod of a memfd");
	CHECK_EQ(fchown(fd, 0, 0), 0, "fchown of a memfd");
	CHECK_EQ(fstat(fd, &st), 0, "fstat of a memfd");
	CHECK_EQ(st.st_mode & 07777, 0640, "the mode is the new one");
	CHECK_EQ(fstatfs(fd, &sfs), 0, "fstatfs of a memfd");
	CHECK_EQ(sfs.f_flags & ST_RDONLY, 0, "not on a read-only mount");
	return GUEST_DONE();
}
