/*
 * Guest test: system calls rung does not implement, and numbers no kernel
 * has. Numbers that do not exist give ENOSYS everywhere; real system calls
 * with arguments that can never succeed (mount of an unknown filesystem type
 * on an empty path, reboot with a bad magic number) must fail, natively
 * (EPERM, ENOENT, ENODEV, EINVAL) as in rung (ENOSYS), so only the failure
 * is compared. The program keeps running normally afterwards.
 */
#include "guest.h"

#include <linux/reboot.h>

static void fails(long r, int e, const char *what)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s fails", what);
	CHECK(r == -1 && e != 0, msg);
}

int main(void)
{
	long r;
	int e;

	CHECK_ERRNO(syscall(1000), ENOSYS, "system call 1000");
	CHECK_ERRNO(syscall(400), ENOSYS, "system call 400 (unassigned)");
	CHECK_ERRNO(syscall(100000), ENOSYS, "system call 100000");
	CHECK_ERRNO(syscall(0x7fffffff), ENOSYS, "system call 0x7fffffff");
	CHECK_ERRNO(syscall(-1L), ENOSYS, "system call -1");
	CHECK_ERRNO(syscall(-2L), ENOSYS, "system call -2");
	CHECK_ERRNO(syscall(SYS_uselib, "/nonexistent"), ENOSYS, "uselib (removed from x86-64)");
	CHECK_ERRNO(syscall(SYS_create_module, "x", 0), ENOSYS, "create_module (removed)");

	errno = 0;
	r = syscall(SYS_mount, "none", "", "rung-no-such-fs", 0, NULL);
	e = errno;
	fails(r, e, "mount of an unknown filesystem type on an empty path");
	errno = 0;
	r = syscall(SYS_reboot, 0x12345678, 0x87654321, LINUX_REBOOT_CMD_POWER_OFF, NULL);
	e = errno;
	fails(r, e, "reboot with a bad magic number");
	errno = 0;
	r = syscall(SYS_umount2, "", 0);
	e = errno;
	fails(r, e, "umount2 of an empty path");

	/* The raw return value is -ENOSYS, not something else. */
	CHECK_EQ(guest_raw_syscall(1000, 1, 2, 3, 4, 5, 6), -ENOSYS, "the raw result is -ENOSYS");
	CHECK_EQ(guest_raw_syscall(-1L, 0, 0, 0, 0, 0, 0), -ENOSYS, "the raw result of -1 too");

	/* Nothing was disturbed: ordinary system calls still work. */
	CHECK_EQ(syscall(SYS_getpid), getpid(), "getpid still works");
	CHECK(write(1, "still alive\n", 12) == 12, "write still works");
	return GUEST_DONE();
}
