/*
 * Guest test: user.* extended attributes, in a fresh directory under /tmp.
 * setxattr, getxattr, listxattr, removexattr and their l* and f* forms:
 * values read back, size queries, ERANGE, XATTR_CREATE and XATTR_REPLACE,
 * ENODATA, empty values, names in other namespaces, symlinks. When /tmp
 * does not take user.* attributes natively, the test exits 77, which the
 * runner reports as a skip.
 */
#include "fsguest.h"

#include <sys/xattr.h>

/* The user.* names of LIST (N bytes), sorted, space-separated, in a
 * static buffer. */
static const char *user_names(const char *list, long n)
{
	static char out[512];
	char *names[32];
	int k = 0;

	out[0] = 0;
	if (n < 0)
		return "<error>";
	for (long off = 0; off < n && k < 32; off += strlen(list + off) + 1)
		if (strncmp(list + off, "user.", 5) == 0)
			names[k++] = (char *)list + off;
	qsort(names, k, sizeof(names[0]), fs_cmp_names);
	for (int i = 0; i < k; i++) {
		strcat(out, i ? " " : "");
		strcat(out, names[i]);
	}
	return out;
}

int main(void)
{
	char buf[256], list[1024], name[300];
	long n;
	int fd;

	fs_enter("fs_xattr");
	CHECK_EQ(fs_put("f", "data"), 0, "make f");
	if (setxattr("f", "user.probe", "1", 1, 0) != 0 && errno == EOPNOTSUPP) {
		printf("SKIP: this file system takes no user.* attributes\n");
		fs_leave();
		return 77;
	}
	CHECK_EQ(removexattr("f", "user.probe"), 0, "a first attribute can be set and removed");

	CHECK_EQ(setxattr("f", "user.color", "blue", 4, 0), 0, "setxattr user.color=blue");
	CHECK_EQ(getxattr("f", "user.color", NULL, 0), 4, "getxattr's size query says 4");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(getxattr("f", "user.color", buf, sizeof(buf)), 4, "getxattr");
	CHECK(strcmp(buf, "blue") == 0, "the value is blue");
	CHECK_ERRNO(getxattr("f", "user.color", buf, 2), ERANGE, "getxattr into a small buffer");
	CHECK_ERRNO(getxattr("f", "user.none", buf, sizeof(buf)), ENODATA,
		    "getxattr of a missing name");
	CHECK_ERRNO(setxattr("f", "user.color", "red", 3, XATTR_CREATE), EEXIST,
		    "XATTR_CREATE of an existing name");
	CHECK_ERRNO(setxattr("f", "user.shape", "round", 5, XATTR_REPLACE), ENODATA,
		    "XATTR_REPLACE of a missing name");
	CHECK_EQ(setxattr("f", "user.color", "green", 5, XATTR_REPLACE), 0,
		 "XATTR_REPLACE of an existing name");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(getxattr("f", "user.color", buf, sizeof(buf)), 5, "getxattr");
	CHECK(strcmp(buf, "green") == 0, "the value is green");
	CHECK_EQ(setxattr("f", "user.empty", "", 0, XATTR_CREATE), 0, "an empty value");
	CHECK_EQ(getxattr("f", "user.empty", buf, sizeof(buf)), 0, "reads back as 0 bytes");
	CHECK_ERRNO(setxattr("f", "user.x", "v", 1, 0x10), EINVAL, "an unknown flag");
	CHECK_ERRNO(setxattr("f", "nonsense.x", "v", 1, 0), EOPNOTSUPP, "an unknown namespace");
	CHECK_ERRNO(setxattr("f", "", "v", 1, 0), ERANGE, "an empty name");
	memset(name, 'n', sizeof(name));
	memcpy(name, "user.", 5);
	name[256] = 0;
	CHECK_ERRNO(setxattr("f", name, "v", 1, 0), ERANGE, "a 256-byte name");
	CHECK_ERRNO(setxattr("missing", "user.x", "v", 1, 0), ENOENT, "setxattr of a missing file");

	n = listxattr("f", NULL, 0);
	CHECK(n > 0, "listxattr's size query");
	n = listxattr("f", list, sizeof(list));
	printf("list: %s\n", user_names(list, n));
	CHECK_ERRNO(listxattr("f", list, 3), ERANGE, "listxattr into a small buffer");

	fd = open("f", O_RDONLY);
	CHECK_EQ(fsetxattr(fd, "user.fd", "via fd", 6, 0), 0,
		 "fsetxattr on a read-only descriptor");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(fgetxattr(fd, "user.fd", buf, sizeof(buf)), 6, "fgetxattr");
	CHECK(strcmp(buf, "via fd") == 0, "reads it back");
	n = flistxattr(fd, list, sizeof(list));
	printf("flist: %s\n", user_names(list, n));
	CHECK_EQ(fremovexattr(fd, "user.fd"), 0, "fremovexattr");
	CHECK_ERRNO(fgetxattr(fd, "user.fd", buf, sizeof(buf)), ENODATA, "it is gone");
	close(fd);

	CHECK_EQ(removexattr("f", "user.empty"), 0, "removexattr user.empty");
	CHECK_ERRNO(removexattr("f", "user.empty"), ENODATA, "removexattr again");
	n = listxattr("f", list, sizeof(list));
	printf("list: %s\n", user_names(list, n));

	/* symlinks: the l* calls act on the link, which takes no user.* */
	CHECK_EQ(symlink("f", "l"), 0, "symlink l -> f");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(getxattr("l", "user.color", buf, sizeof(buf)), 5, "getxattr follows a symlink");
	CHECK_ERRNO(lgetxattr("l", "user.color", buf, sizeof(buf)), ENODATA, "lgetxattr does not");
	CHECK_ERRNO(lsetxattr("l", "user.x", "v", 1, 0), EPERM, "lsetxattr user.* on a symlink");
	CHECK_EQ(setxattr("l", "user.through", "t", 1, 0), 0, "setxattr through the symlink");
	CHECK_EQ(getxattr("f", "user.through", buf, sizeof(buf)), 1, "sets it on the target");
	n = llistxattr("l", list, sizeof(list));
	printf("llist: %s\n", user_names(list, n));
	CHECK_ERRNO(lremovexattr("l", "user.color"), EPERM, "lremovexattr user.* on a symlink");
	CHECK_EQ(getxattr("f", "user.color", buf, sizeof(buf)), 5, "which left the target's");
	/* nor do fifos (or devices, sockets) */
	CHECK_EQ(mkfifo("p", 0644), 0, "mkfifo p");
	CHECK_ERRNO(setxattr("p", "user.x", "v", 1, 0), EPERM, "setxattr user.* on a fifo");
	CHECK_ERRNO(getxattr("p", "user.x", buf, sizeof(buf)), ENODATA,
		    "getxattr user.* on a fifo");
	CHECK_ERRNO(removexattr("p", "user.x"), EPERM, "removexattr user.* on a fifo");

	/* directories take them too; copies of files do not carry them */
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(setxattr("d", "user.dir", "yes", 3, 0), 0, "setxattr on a directory");
	CHECK_EQ(getxattr("d", "user.dir", buf, sizeof(buf)), 3, "getxattr on it");
	CHECK_EQ(link("f", "hard"), 0, "a hard link to f");
	CHECK_EQ(getxattr("hard", "user.color", buf, sizeof(buf)), 5, "shares f's attributes");
	CHECK_EQ(rename("f", "g"), 0, "rename f g");
	CHECK_EQ(getxattr("g", "user.color", buf, sizeof(buf)), 5, "a rename keeps them");

	fs_leave();
	return GUEST_DONE();
}
