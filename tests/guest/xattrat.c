/*
 * Guest test: setxattrat, getxattrat, listxattrat, removexattrat (Linux
 * 6.13), by their numbers, on user.* attributes in a fresh directory under
 * /tmp: the struct xattr_args size rules (EINVAL below 16 bytes, E2BIG for
 * non-zero bytes past the known ones or more than a page), the at-flags
 * (following a symlink or not, an empty or NULL path on a descriptor),
 * relative paths, and the xattr errors of the older calls. Exits 77 when
 * /tmp takes no user.* attributes natively.
 */
#include "fsguest.h"

#include <sys/xattr.h>

#define NR_setxattrat	 463
#define NR_getxattrat	 464
#define NR_listxattrat	 465
#define NR_removexattrat 466

struct xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static struct {
	struct xattr_args a;
	uint64_t extra[2];
} big;

static long setat(int dfd, const char *path, unsigned at, const char *name, const char *val,
		  unsigned flags)
{
	struct xattr_args a = {(uintptr_t)val, (uint32_t)strlen(val), flags};

	return syscall(NR_setxattrat, dfd, path, at, name, &a, sizeof(a));
}

static char got[256];

static long getat(int dfd, const char *path, unsigned at, const char *name)
{
	struct xattr_args a = {(uintptr_t)got, sizeof(got) - 1, 0};
	long n;

	memset(got, 0, sizeof(got));
	n = syscall(NR_getxattrat, dfd, path, at, name, &a, sizeof(a));
	return n;
}

int main(void)
{
	struct xattr_args a;
	char list[256];
	int fd, dfd;

	fs_enter("xattrat");
	CHECK_EQ(fs_put("f", "data"), 0, "make f");
	if (setxattr("f", "user.probe", "1", 1, 0) != 0 && errno == EOPNOTSUPP) {
		printf("SKIP: this file system takes no user.* attributes\n");
		fs_leave();
		return 77;
	}
	removexattr("f", "user.probe");
	CHECK_EQ(symlink("f", "l"), 0, "make the symlink l to f");
	CHECK_EQ(mkdir("d", 0755), 0, "make d");

	CHECK_EQ(setat(AT_FDCWD, "f", 0, "user.a", "v1", 0), 0, "setxattrat user.a=v1");
	CHECK_EQ(getxattr("f", "user.a", got, sizeof(got)), 2, "getxattr reads 2 bytes");
	CHECK_EQ(getat(AT_FDCWD, "l", 0, "user.a"), 2, "getxattrat through the symlink");
	CHECK(strcmp(got, "v1") == 0, "the value is v1");
	CHECK_ERRNO(getat(AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, "user.a"), ENODATA,
		    "getxattrat of the symlink itself");
	CHECK_ERRNO(setat(AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, "user.a", "x", 0), EPERM,
		    "setxattrat user.* on the symlink itself");
	CHECK_ERRNO(setat(AT_FDCWD, "f", 0, "user.a", "v2", XATTR_CREATE), EEXIST,
		    "XATTR_CREATE of an existing name");
	CHECK_ERRNO(setat(AT_FDCWD, "f", 0, "user.a", "v2", 4), EINVAL, "an unknown setxattr flag");
	CHECK_EQ(setat(AT_FDCWD, "f", 0, "user.a", "v2", XATTR_REPLACE), 0, "XATTR_REPLACE");
	CHECK_EQ(getat(AT_FDCWD, "f", 0, "user.a"), 2, "getxattrat after the replace");
	CHECK(strcmp(got, "v2") == 0, "the value is v2");
	CHECK_ERRNO(getat(AT_FDCWD, "f", 0, "user.none"), ENODATA, "getxattrat of a missing name");
	CHECK_ERRNO(getat(AT_FDCWD, "f", 0, ""), ERANGE, "getxattrat of an empty name");

	/* struct xattr_args and its size. */
	a = (struct xattr_args){(uintptr_t)got, sizeof(got), 0};
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &a, 8), EINVAL,
		    "xattr_args of 8 bytes");
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &a, 4097), E2BIG,
		    "xattr_args of more than a page");
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", NULL, 16), EFAULT,
		    "xattr_args at NULL");
	big.a = a;
	CHECK_EQ(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &big, sizeof(big)), 2,
		 "xattr_args of 32 bytes with zeros past 16");
	big.extra[1] = 1;
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &big, sizeof(big)), E2BIG,
		    "xattr_args with a non-zero byte past 16");
	big.extra[1] = 0;
	big.a.flags = 1;
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &big, sizeof(big)), EINVAL,
		    "getxattrat with xattr_args flags");
	a.size = 0;
	CHECK_EQ(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &a, sizeof(a)), 2,
		 "getxattrat's size query says 2");
	a.size = 1;
	CHECK_ERRNO(syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.a", &a, sizeof(a)), ERANGE,
		    "getxattrat into a small buffer");

	/* at-flags */
	CHECK_ERRNO(setat(AT_FDCWD, "f", 0x200, "user.a", "x", 0), EINVAL,
		    "setxattrat with AT_REMOVEDIR");
	CHECK_ERRNO(getat(AT_FDCWD, "f", 0x200, "user.a"), EINVAL, "getxattrat with AT_REMOVEDIR");
	CHECK_ERRNO(syscall(NR_listxattrat, AT_FDCWD, "f", 0x200, list, sizeof(list)), EINVAL,
		    "listxattrat with AT_REMOVEDIR");
	CHECK_ERRNO(syscall(NR_removexattrat, AT_FDCWD, "f", 0x200, "user.a"), EINVAL,
		    "removexattrat with AT_REMOVEDIR");
	CHECK_ERRNO(getat(AT_FDCWD, "", 0, "user.a"), ENOENT, "an empty path without AT_EMPTY_PATH");
	fd = open("f", O_RDONLY);
	CHECK_EQ(getat(fd, "", AT_EMPTY_PATH, "user.a"), 2, "AT_EMPTY_PATH on f's descriptor");
	CHECK_EQ(getat(fd, NULL, AT_EMPTY_PATH, "user.a"), 2, "a NULL path with AT_EMPTY_PATH");
	CHECK_EQ(setat(fd, "", AT_EMPTY_PATH, "user.b", "w", 0), 0, "setxattrat on a descriptor");
	close(fd);
	CHECK_ERRNO(getat(-1, "", AT_EMPTY_PATH, "user.a"), EBADF, "AT_EMPTY_PATH on a bad descriptor");
	fd = open("f", O_PATH);
	CHECK_ERRNO(getat(fd, "", AT_EMPTY_PATH, "user.a"), EBADF,
		    "AT_EMPTY_PATH on an O_PATH descriptor");
	close(fd);
	CHECK_EQ(chdir("d"), 0, "enter d");
	CHECK_EQ(setat(AT_FDCWD, "", AT_EMPTY_PATH, "user.c", "cwd", 0), 0,
		 "setxattrat of an empty path from AT_FDCWD sets the cwd's");
	CHECK_EQ(getat(AT_FDCWD, "", AT_EMPTY_PATH, "user.c"), 3,
		 "getxattrat of an empty path from AT_FDCWD reads it");
	CHECK_ERRNO(syscall(NR_listxattrat, AT_FDCWD, "", AT_EMPTY_PATH, list, sizeof(list)), EBADF,
		    "listxattrat of an empty path from AT_FDCWD");
	CHECK_ERRNO(syscall(NR_removexattrat, AT_FDCWD, "", AT_EMPTY_PATH, "user.c"), EBADF,
		    "removexattrat of an empty path from AT_FDCWD");
	CHECK_EQ(chdir(".."), 0, "leave d");
	CHECK_EQ(getxattr("d", "user.c", got, sizeof(got)), 3, "d has user.c");
	dfd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(getat(dfd, "../f", 0, "user.b"), 1, "getxattrat relative to d");
	CHECK(strcmp(got, "w") == 0, "the value is w");

	/* listxattrat and removexattrat */
	memset(list, 0, sizeof(list));
	CHECK_EQ(syscall(NR_listxattrat, AT_FDCWD, "f", 0, NULL, 0), 14,
		 "listxattrat's size query says 14");
	CHECK_EQ(syscall(NR_listxattrat, dfd, "../l", 0, list, sizeof(list)), 14,
		 "listxattrat through the symlink");
	CHECK((!strcmp(list, "user.a") && !strcmp(list + 7, "user.b")) ||
		      (!strcmp(list, "user.b") && !strcmp(list + 7, "user.a")),
	      "it lists user.a and user.b");
	CHECK_ERRNO(syscall(NR_listxattrat, AT_FDCWD, "f", 0, list, 3), ERANGE,
		    "listxattrat into a small buffer");
	CHECK_EQ(syscall(NR_removexattrat, dfd, "../f", 0, "user.a"), 0, "removexattrat user.a");
	CHECK_ERRNO(syscall(NR_removexattrat, AT_FDCWD, "f", 0, "user.a"), ENODATA,
		    "removexattrat of a removed name");
	CHECK_ERRNO(syscall(NR_removexattrat, AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, "user.b"), EPERM,
		    "removexattrat user.* of the symlink itself");
	fd = open("f", O_RDONLY);
	CHECK_EQ(syscall(NR_removexattrat, fd, "", AT_EMPTY_PATH, "user.b"), 0,
		 "removexattrat on a descriptor");
	CHECK_EQ(syscall(NR_listxattrat, fd, NULL, AT_EMPTY_PATH, list, sizeof(list)), 0,
		 "nothing is left");
	close(fd);
	close(dfd);
	fs_leave();
	return GUEST_DONE();
}
