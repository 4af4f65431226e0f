/*
 * Guest test: sysfs(2) numbers the filesystem types of /proc/filesystems
 * (options 1, 2, 3 and their errors), and ustat(2) answers for the device
 * of a mounted filesystem (EINVAL for another, EFAULT for a bad buffer).
 */
#include "guest.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

struct kustat {
	int f_tfree;
	unsigned long f_tinode;
	char f_fname[6];
	char f_fpack[6];
};

int main(void)
{
	char line[256], name[256], buf[256];
	int n = 0, bad = 0;
	struct kustat u;
	struct stat st;
	FILE *f = fopen("/proc/filesystems", "r");

	CHECK(f != NULL, "/proc/filesystems opens");
	while (f && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		snprintf(name, sizeof(name), "%s", tab + 1);
		name[strcspn(name, "\n")] = 0;
		if (syscall(SYS_sysfs, 1, name) != n)
			bad++;
		memset(buf, 'x', sizeof(buf));
		if (syscall(SYS_sysfs, 2, n, buf) != 0 || strcmp(buf, name))
			bad++;
		n++;
	}
	if (f)
		fclose(f);
	CHECK(n > 0 && bad == 0, "sysfs(1) and sysfs(2) number /proc/filesystems' types in order");
	CHECK_EQ(syscall(SYS_sysfs, 3), n, "sysfs(3) counts them");
	CHECK_ERRNO(syscall(SYS_sysfs, 1, "nosuchfs"), EINVAL, "sysfs(1) of an unknown type");
	CHECK_ERRNO(syscall(SYS_sysfs, 1, ""), ENOENT, "sysfs(1) of an empty name");
	CHECK_ERRNO(syscall(SYS_sysfs, 1, (char *)8), EFAULT, "sysfs(1) of a bad pointer");
	CHECK_ERRNO(syscall(SYS_sysfs, 2, n, buf), EINVAL, "sysfs(2) past the last");
	CHECK_ERRNO(syscall(SYS_sysfs, 2, 0, (char *)8), EFAULT, "sysfs(2) into a bad buffer");
	CHECK_ERRNO(syscall(SYS_sysfs, 4), EINVAL, "sysfs(4)");
	CHECK_ERRNO(syscall(SYS_sysfs, 0), EINVAL, "sysfs(0)");

	CHECK_EQ(stat("/proc", &st), 0, "stat /proc");
	memset(&u, 0x55, sizeof(u));
	CHECK_EQ(syscall(SYS_ustat, (unsigned)st.st_dev, &u), 0, "ustat of /proc's device");
	CHECK(u.f_fname[0] == 0 && u.f_fpack[0] == 0, "ustat's names are empty");
	CHECK_ERRNO(syscall(SYS_ustat, (unsigned)st.st_dev, (void *)8), EFAULT,
		    "ustat into a bad buffer");
	CHECK_EQ(stat("/dev/shm", &st) == 0 ? syscall(SYS_ustat, (unsigned)st.st_dev, &u) : 0, 0,
		 "ustat of /dev/shm's device");
	CHECK_ERRNO(syscall(SYS_ustat, (unsigned)makedev(254, 254), &u), EINVAL,
		    "ustat of a device nothing mounts");
	return GUEST_DONE();
}
