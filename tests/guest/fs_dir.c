/*
 * Guest test: the name space, in a fresh directory under /tmp. getdents64
 * (every entry once, "." and "..", an unlink in the middle of a listing),
 * mkdir and rmdir, unlink, rename and renameat2 (NOREPLACE, EXCHANGE and
 * the errors of moving directories), link (link counts, inode numbers),
 * symlink and readlink (truncation, non-links), chdir, fchdir and getcwd.
 */
#include "fsguest.h"

#include <linux/fs.h>

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define NFILES 60

/* Read the whole directory FD with a BUFSIZE buffer; return how many times
 * each name "fNN" was seen in SEEN, and count "." and ".." and others. If
 * UNLINK_AT is non-negative, unlink fUNLINK_AT after the first batch. */
static int scan(int fd, size_t bufsize, int seen[NFILES], int *dots, int *other, int unlink_at)
{
	char buf[4096];
	long n;
	int batches = 0;

	memset(seen, 0, NFILES * sizeof(int));
	*dots = *other = 0;
	while ((n = syscall(SYS_getdents64, fd, buf, bufsize)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			int i;

			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				++*dots;
			else if (sscanf(d->d_name, "f%d", &i) == 1 && i >= 0 && i < NFILES &&
				 d->d_type == DT_REG)
				seen[i]++;
			else
				++*other;
			off += d->d_reclen;
		}
		if (batches++ == 0 && unlink_at >= 0) {
			char name[16];

			snprintf(name, sizeof(name), "f%d", unlink_at);
			if (unlink(name) != 0)
				++*other;
		}
	}
	return n == 0 ? batches : -1;
}

static void dents(void)
{
	int seen[NFILES], dots, other, fd, once, batches, victim = -1;
	char buf[64];

	CHECK_EQ(mkdir("g", 0755), 0, "mkdir g");
	CHECK_EQ(chdir("g"), 0, "chdir g");
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(scan(fd, sizeof(buf), seen, &dots, &other, -1), 1, "list the empty directory");
	CHECK(dots == 2 && other == 0, "it has . and .. only");
	close(fd);
	for (int i = 0; i < NFILES; i++) {
		snprintf(buf, sizeof(buf), "f%d", i);
		if (fs_put(buf, "") != 0)
			printf("FAIL: make %s\n", buf);
	}
	fd = open(".", O_RDONLY | O_DIRECTORY);
	batches = scan(fd, 4096, seen, &dots, &other, -1);
	CHECK(batches >= 1, "list 60 files with a 4 KiB buffer");
	once = 0;
	for (int i = 0; i < NFILES; i++)
		once += seen[i] == 1;
	CHECK(once == NFILES && dots == 2 && other == 0,
	      "every file once, . and .., nothing else, all DT_REG");
	CHECK_EQ(syscall(SYS_getdents64, fd, buf, sizeof(buf)), 0, "at the end, 0");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	batches = scan(fd, 128, seen, &dots, &other, -1);
	CHECK(batches > 5, "list with a 128-byte buffer takes many calls");
	once = 0;
	for (int i = 0; i < NFILES; i++)
		once += seen[i] == 1;
	CHECK(once == NFILES && dots == 2 && other == 0, "still every file once");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	CHECK_ERRNO(syscall(SYS_getdents64, fd, buf, 8), EINVAL, "a buffer too small for an entry");
	CHECK_ERRNO(syscall(SYS_getdents64, fd, buf, 0x80000000ul), EINVAL,
		    "a count past INT_MAX (the kernel's int goes negative)");
	CHECK_ERRNO(syscall(SYS_getdents64, fd, buf, 0x100000008ul), EINVAL,
		    "a count is 32 bits: 2^32 + 8 is 8");

	/* Unlink a file the listing has not reached yet, after the first batch:
	 * every other file is still seen exactly once. */
	{
		/* find a name not in the first 128-byte batch */
		char first[128];
		long n;

		CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
		n = syscall(SYS_getdents64, fd, first, sizeof(first));
		CHECK(n > 0, "read a first batch");
		for (int i = 0; i < NFILES; i++) {
			int in = 0;

			for (long off = 0; off < n;) {
				struct linux_dirent64 *d = (struct linux_dirent64 *)(first + off);
				int j;

				if (sscanf(d->d_name, "f%d", &j) == 1 && j == i)
					in = 1;
				off += d->d_reclen;
			}
			if (!in) {
				victim = i;
				break;
			}
		}
	}
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	scan(fd, 128, seen, &dots, &other, victim);
	once = 0;
	for (int i = 0; i < NFILES; i++)
		once += i != victim && seen[i] == 1;
	CHECK(once == NFILES - 1 && dots == 2 && other == 0 && seen[victim] <= 1,
	      "unlink mid-listing: the others are seen once, the victim at most once");
	close(fd);
	CHECK_EQ(fs_put("plain", ""), 0, "make a plain file");
	fd = open("plain", O_RDONLY);
	CHECK_ERRNO(syscall(SYS_getdents64, fd, buf, sizeof(buf)), ENOTDIR, "getdents64 of a file");
	close(fd);
	CHECK_ERRNO(syscall(SYS_getdents64, 99, buf, sizeof(buf)), EBADF,
		    "getdents64 of a closed descriptor");
	CHECK_EQ(chdir(".."), 0, "chdir ..");
	CHECK_EQ(fs_rm_rf("g"), 0, "remove g");
}

static void dirs(void)
{
	struct stat st;

	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_ERRNO(mkdir("d", 0755), EEXIST, "mkdir of an existing directory");
	CHECK_EQ(fs_put("file", "contents"), 0, "make file");
	CHECK_ERRNO(mkdir("file", 0755), EEXIST, "mkdir over a file");
	CHECK_ERRNO(mkdir("none/d", 0755), ENOENT, "mkdir in a missing directory");
	CHECK_ERRNO(mkdir("file/d", 0755), ENOTDIR, "mkdir under a file");
	CHECK_EQ(mkdirat(AT_FDCWD, "d/e", 0700), 0, "mkdirat d/e");
	CHECK_EQ(fs_put("d/e/x", ""), 0, "make d/e/x");
	CHECK_ERRNO(rmdir("d"), ENOTEMPTY, "rmdir of a non-empty directory");
	CHECK_ERRNO(rmdir("d/e/x"), ENOTDIR, "rmdir of a file");
	CHECK_ERRNO(rmdir("."), EINVAL, "rmdir .");
	CHECK_ERRNO(rmdir("d/e/."), EINVAL, "rmdir d/e/.");
	CHECK_ERRNO(rmdir("d/.."), ENOTEMPTY, "rmdir d/..");
	CHECK_ERRNO(rmdir("missing"), ENOENT, "rmdir of a missing directory");
	CHECK_ERRNO(unlink("d"), EISDIR, "unlink of a directory");
	CHECK_ERRNO(unlinkat(AT_FDCWD, "file", AT_REMOVEDIR), ENOTDIR,
		    "unlinkat AT_REMOVEDIR of a file");
	CHECK_ERRNO(unlinkat(AT_FDCWD, "file", 0x1), EINVAL, "unlinkat with an unknown flag");
	CHECK_EQ(unlink("d/e/x"), 0, "unlink d/e/x");
	CHECK_ERRNO(unlink("d/e/x"), ENOENT, "unlink it again");
	CHECK_EQ(unlinkat(AT_FDCWD, "d/e", AT_REMOVEDIR), 0, "unlinkat AT_REMOVEDIR d/e");
	CHECK_ERRNO(stat("d/e", &st), ENOENT, "d/e is gone");
	fs_list("d after rmdir", "d");
	CHECK_EQ(stat("d", &st), 0, "stat d");
	CHECK_EQ(st.st_nlink, 2, "d has two links again");

	/* an open directory that is removed */
	{
		int fd;

		CHECK_EQ(mkdir("gone", 0755), 0, "mkdir gone");
		fd = open("gone", O_RDONLY | O_DIRECTORY);
		CHECK_EQ(rmdir("gone"), 0, "rmdir it while open");
		/* (listing it, creating in it: fs_pending) */
		CHECK_EQ(fstat(fd, &st), 0, "fstat of it");
		CHECK_EQ(st.st_nlink, 0, "it has no links");
		close(fd);
	}
}

static void renames(void)
{
	struct stat a, b;

	CHECK_EQ(fs_put("r1", "one"), 0, "make r1");
	CHECK_EQ(fs_put("r2", "two"), 0, "make r2");
	CHECK_EQ(stat("r1", &a), 0, "stat r1");
	CHECK_EQ(rename("r1", "r3"), 0, "rename r1 r3");
	CHECK_ERRNO(stat("r1", &b), ENOENT, "r1 is gone");
	CHECK_EQ(stat("r3", &b), 0, "stat r3");
	CHECK(a.st_ino == b.st_ino, "r3 is the same file");
	CHECK_EQ(rename("r3", "r2"), 0, "rename r3 over r2");
	CHECK(strcmp(fs_get("r2"), "one") == 0, "r2 is replaced");
	CHECK_EQ(rename("r2", "r2"), 0, "rename a file to itself");
	CHECK(strcmp(fs_get("r2"), "one") == 0, "changes nothing");
	CHECK_EQ(link("r2", "r2link"), 0, "link r2 r2link");
	CHECK_EQ(rename("r2", "r2link"), 0, "rename between two links of one file");
	CHECK(strcmp(fs_get("r2"), "one") == 0 && strcmp(fs_get("r2link"), "one") == 0,
	      "does nothing: both names remain");
	CHECK_EQ(unlink("r2link"), 0, "unlink r2link");
	CHECK_ERRNO(rename("missing", "x"), ENOENT, "rename of a missing file");
	CHECK_ERRNO(rename("r2", "missing/x"), ENOENT, "rename into a missing directory");

	CHECK_EQ(mkdir("da", 0755), 0, "mkdir da");
	CHECK_EQ(fs_put("da/in", "in da"), 0, "make da/in");
	CHECK_EQ(mkdir("db", 0755), 0, "mkdir db (empty)");
	CHECK_EQ(rename("da", "db"), 0, "rename a directory over an empty one");
	CHECK(strcmp(fs_get("db/in"), "in da") == 0, "db has da's contents");
	CHECK_ERRNO(stat("da", &a), ENOENT, "da is gone");
	CHECK_EQ(mkdir("dc", 0755), 0, "mkdir dc");
	CHECK_EQ(fs_put("dc/x", ""), 0, "make dc/x");
	CHECK_ERRNO(rename("db", "dc"), ENOTEMPTY, "rename a directory over a non-empty one");
	CHECK_ERRNO(rename("r2", "dc"), EISDIR, "rename a file over a directory");
	CHECK_ERRNO(rename("dc", "r2"), ENOTDIR, "rename a directory over a file");
	CHECK_EQ(mkdir("db/sub", 0755), 0, "mkdir db/sub");
	CHECK_ERRNO(rename("db", "db/sub/db"), EINVAL, "rename a directory into its own subtree");
	CHECK_ERRNO(rename("db", "db/x"), EINVAL, "rename a directory into itself");
	CHECK_ERRNO(rename(".", "x"), EBUSY, "rename .");
	CHECK_ERRNO(rename("db/sub", "db/sub/.."), EBUSY, "rename onto ..");
	CHECK_EQ(rename("db/sub", "dc/sub"), 0, "move a directory to another parent");
	CHECK_EQ(stat("dc/sub/..", &a), 0, "stat dc/sub/..");
	CHECK_EQ(stat("dc", &b), 0, "stat dc");
	CHECK(a.st_ino == b.st_ino, "its .. is the new parent");
	fs_list("db", "db");
	fs_list("dc", "dc");

	/* renameat2 */
	CHECK_EQ(fs_put("n1", "n1"), 0, "make n1");
	CHECK_EQ(fs_put("n2", "n2"), 0, "make n2");
	CHECK_ERRNO(renameat2(AT_FDCWD, "n1", AT_FDCWD, "n2", RENAME_NOREPLACE), EEXIST,
		    "RENAME_NOREPLACE over an existing file");
	CHECK(strcmp(fs_get("n2"), "n2") == 0, "n2 is kept");
	CHECK_EQ(renameat2(AT_FDCWD, "n1", AT_FDCWD, "n3", RENAME_NOREPLACE), 0,
		 "RENAME_NOREPLACE to a new name");
	CHECK(strcmp(fs_get("n3"), "n1") == 0, "n3 has n1's contents");
	CHECK_ERRNO(renameat2(AT_FDCWD, "n3", AT_FDCWD, "missing", RENAME_EXCHANGE), ENOENT,
		    "RENAME_EXCHANGE with a missing name");
	CHECK_ERRNO(renameat2(AT_FDCWD, "n3", AT_FDCWD, "n2", RENAME_EXCHANGE | RENAME_NOREPLACE),
		    EINVAL, "RENAME_EXCHANGE|RENAME_NOREPLACE");
	CHECK_ERRNO(renameat2(AT_FDCWD, "n3", AT_FDCWD, "n4", 0x100), EINVAL,
		    "renameat2 with an unknown flag");
	CHECK_ERRNO(renameat2(AT_FDCWD, "dc", AT_FDCWD, "dc/sub/x", RENAME_EXCHANGE), ENOENT,
		    "RENAME_EXCHANGE into its own subtree, with a missing name");
	/* (RENAME_EXCHANGE that succeeds: fs_pending) */
	{
		int d = open("dc", O_RDONLY | O_DIRECTORY);

		CHECK_EQ(renameat(d, "sub", AT_FDCWD, "moved"), 0, "renameat with a dirfd");
		CHECK_EQ(stat("moved", &a), 0, "the directory moved");
		close(d);
	}
	fs_list("after renames", ".");
}

static void links(void)
{
	struct stat a, b;

	CHECK_EQ(fs_put("h", "hard"), 0, "make h");
	CHECK_EQ(stat("h", &a), 0, "stat h");
	CHECK_EQ(a.st_nlink, 1, "one link");
	CHECK_EQ(link("h", "h2"), 0, "link h h2");
	CHECK_EQ(linkat(AT_FDCWD, "h", AT_FDCWD, "h3", 0), 0, "linkat h h3");
	CHECK_EQ(stat("h", &a), 0, "stat h");
	CHECK_EQ(a.st_nlink, 3, "three links");
	CHECK_EQ(stat("h3", &b), 0, "stat h3");
	CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev && b.st_nlink == 3,
	      "a link has the original's inode");
	{
		int fd = open("h2", O_WRONLY | O_APPEND);

		CHECK_EQ(write(fd, "!", 1), 1, "append through h2");
		close(fd);
	}
	CHECK(strcmp(fs_get("h3"), "hard!") == 0, "h3 sees it");
	CHECK_EQ(unlink("h"), 0, "unlink h");
	CHECK_EQ(stat("h2", &b), 0, "stat h2");
	CHECK_EQ(b.st_nlink, 2, "two links left");
	CHECK_ERRNO(link("h2", "h3"), EEXIST, "link to an existing name");
	CHECK_ERRNO(link("missing", "x"), ENOENT, "link of a missing file");
	CHECK_EQ(mkdir("ld", 0755), 0, "mkdir ld");
	CHECK_ERRNO(link("ld", "ld2"), EPERM, "link of a directory");
	CHECK_ERRNO(link("h2", "missing/x"), ENOENT, "link into a missing directory");
	CHECK_ERRNO(linkat(AT_FDCWD, "h2", AT_FDCWD, "x", 0x1), EINVAL,
		    "linkat with an unknown flag");

	CHECK_EQ(symlink("h2", "sl"), 0, "symlink sl -> h2");
	CHECK_EQ(linkat(AT_FDCWD, "sl", AT_FDCWD, "sl-link", 0), 0, "linkat of a symlink");
	CHECK_EQ(lstat("sl-link", &a), 0, "lstat it");
	CHECK(S_ISLNK(a.st_mode) && a.st_nlink == 2, "links the symlink itself");
	CHECK_EQ(linkat(AT_FDCWD, "sl", AT_FDCWD, "sl-follow", AT_SYMLINK_FOLLOW), 0,
		 "linkat AT_SYMLINK_FOLLOW");
	CHECK_EQ(lstat("sl-follow", &a), 0, "lstat it");
	CHECK(S_ISREG(a.st_mode) && a.st_nlink == 3, "links the target");
	{
		int fd = open("h2", O_RDONLY);

		CHECK_EQ(linkat(fd, "", AT_FDCWD, "by-fd", AT_EMPTY_PATH), 0,
			 "linkat AT_EMPTY_PATH");
		close(fd);
		CHECK_EQ(stat("by-fd", &a), 0, "stat it");
		CHECK_EQ(a.st_nlink, 4, "four links");
	}
}

static void symlinks(void)
{
	char buf[64];
	struct stat st;

	CHECK_EQ(symlink("some/target/path", "s"), 0, "symlink s -> some/target/path");
	memset(buf, 'X', sizeof(buf));
	CHECK_EQ(readlink("s", buf, sizeof(buf)), 16, "readlink gives 16 bytes");
	CHECK(memcmp(buf, "some/target/path", 16) == 0 && buf[16] == 'X',
	      "the target, not NUL-terminated");
	memset(buf, 'X', sizeof(buf));
	CHECK_EQ(readlink("s", buf, 4), 4, "readlink into a 4-byte buffer");
	CHECK(memcmp(buf, "someX", 5) == 0, "is truncated to 4 bytes");
	CHECK_ERRNO(readlink("s", buf, 0), EINVAL, "readlink into an empty buffer");
	CHECK_EQ(readlinkat(AT_FDCWD, "s", buf, sizeof(buf)), 16, "readlinkat");
	CHECK_ERRNO(readlink("h2", buf, sizeof(buf)), EINVAL, "readlink of a file");
	CHECK_ERRNO(readlink("ld", buf, sizeof(buf)), EINVAL, "readlink of a directory");
	CHECK_ERRNO(readlink("missing", buf, sizeof(buf)), ENOENT, "readlink of a missing name");
	CHECK_ERRNO(symlink("x", "s"), EEXIST, "symlink over an existing name");
	CHECK_ERRNO(symlink("", "empty"), ENOENT, "symlink to the empty string");
	CHECK_EQ(symlink("/abs/path", "abs"), 0, "an absolute symlink");
	CHECK_EQ(readlink("abs", buf, sizeof(buf)), 9, "readlink it");
	CHECK(memcmp(buf, "/abs/path", 9) == 0, "is the absolute path");
	CHECK_EQ(symlinkat("ld", AT_FDCWD, "to-ld"), 0, "symlinkat to-ld -> ld");
	CHECK_EQ(stat("to-ld", &st), 0, "stat it");
	CHECK(S_ISDIR(st.st_mode), "it leads to a directory");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(readlink("to-ld/", buf, sizeof(buf)), -1, "readlink with a trailing slash fails");
	{
		int fd = open("h2", O_RDONLY);
		char link[64], target[4200];
		long n;
		size_t len = strlen(fs_dir);

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		CHECK(n > 0, "readlink /proc/self/fd/N of a file");
		if (n > 0)
			target[n] = 0;
		CHECK(n > 0 && strncmp(target, fs_dir, len) == 0 &&
			      strcmp(target + len, "/h2") == 0,
		      "is the file's absolute path");
		CHECK_EQ(unlink("h2"), 0, "unlink the open file");
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0)
			target[n] = 0;
		CHECK(n > 0 && strncmp(target, fs_dir, len) == 0 &&
			      strcmp(target + len, "/h2 (deleted)") == 0,
		      "then ends in ' (deleted)'");
		close(fd);
	}
}

/* Does the cwd end with the work directory followed by SUFFIX? */
static int cwd_is(const char *suffix)
{
	char buf[4200];
	size_t len = strlen(fs_dir);

	if (!getcwd(buf, sizeof(buf)))
		return 0;
	return strncmp(buf, fs_dir, len) == 0 && strcmp(buf + len, suffix) == 0;
}

static void cwds(void)
{
	char buf[8];
	int fd;

	CHECK(cwd_is(""), "getcwd is the work directory");
	CHECK_EQ(mkdir("c1", 0755), 0, "mkdir c1");
	CHECK_EQ(mkdir("c1/c2", 0755), 0, "mkdir c1/c2");
	CHECK_EQ(mkdir("c1/c2/c3", 0755), 0, "mkdir c1/c2/c3");
	CHECK_EQ(chdir("c1/c2/c3"), 0, "chdir c1/c2/c3");
	CHECK(cwd_is("/c1/c2/c3"), "getcwd ends in /c1/c2/c3");
	CHECK_EQ(chdir(".."), 0, "chdir ..");
	CHECK(cwd_is("/c1/c2"), "getcwd ends in /c1/c2");
	CHECK_EQ(chdir("../../to-ld"), 0, "chdir through a symlink");
	CHECK(cwd_is("/ld"), "getcwd is the resolved path, /ld");
	CHECK_EQ(chdir(".."), 0, "chdir ..");
	fd = open("c1/c2", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fchdir(fd), 0, "fchdir c1/c2");
	CHECK(cwd_is("/c1/c2"), "getcwd ends in /c1/c2");
	close(fd);
	CHECK_EQ(chdir("../.."), 0, "chdir ../..");
	CHECK(cwd_is(""), "back in the work directory");
	CHECK_ERRNO(chdir("abs"), ENOENT, "chdir through a dangling symlink");
	CHECK_ERRNO(chdir("sl-follow"), ENOTDIR, "chdir to a file");
	CHECK_ERRNO(chdir("missing"), ENOENT, "chdir to a missing directory");
	CHECK_ERRNO(chdir(""), ENOENT, "chdir to the empty path");
	fd = open("sl-follow", O_RDONLY);
	CHECK_ERRNO(fchdir(fd), ENOTDIR, "fchdir to a file");
	close(fd);
	CHECK_ERRNO(fchdir(99), EBADF, "fchdir to a closed descriptor");
	CHECK_ERRNO(syscall(SYS_getcwd, buf, 2), ERANGE, "getcwd into a 2-byte buffer");
	CHECK(syscall(SYS_getcwd, NULL, 4096) < 0, "getcwd into NULL fails");

	CHECK_EQ(mkdir("doomed", 0755), 0, "mkdir doomed");
	CHECK_EQ(chdir("doomed"), 0, "chdir doomed");
	CHECK_EQ(rmdir("../doomed"), 0, "rmdir the cwd");
	{
		char path[4200];

		CHECK_ERRNO(syscall(SYS_getcwd, path, sizeof(path)), ENOENT,
			    "getcwd of a removed cwd");
	}
	/* (creating in a removed cwd: fs_pending) */
	CHECK_EQ(chdir(".."), 0, "chdir .. from a removed directory");
	CHECK(cwd_is(""), "is the work directory");
}

int main(void)
{
	fs_enter("fs_dir");
	dents();
	dirs();
	renames();
	links();
	symlinks();
	cwds();
	fs_list("the work directory", ".");
	fs_leave();
	return GUEST_DONE();
}
