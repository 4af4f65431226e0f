/*
 * Guest test: opening files and resolving paths, in a fresh directory under
 * /tmp (the sandbox's overlay in rung). open/openat/creat flags (O_CREAT,
 * O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_PATH, O_CLOEXEC),
 * close_range, openat2 and its RESOLVE_* flags and argument checks, and
 * path resolution: "..", trailing slashes, symlink chains, loops, the limit
 * of 40 symlinks, ENAMETOOLONG, the empty path and AT_EMPTY_PATH.
 */
#include "fsguest.h"

#include <linux/openat2.h>
#include <linux/close_range.h>

static long openat2(int dirfd, const char *path, struct open_how *how, size_t size)
{
	return syscall(SYS_openat2, dirfd, path, how, size);
}

/* openat2 of PATH under DIRFD with RESOLVE, read-only. */
static long open_resolve(int dirfd, const char *path, unsigned long long resolve)
{
	struct open_how how = {.flags = O_RDONLY, .resolve = resolve};

	return openat2(dirfd, path, &how, sizeof(how));
}

/* Does descriptor FD (closed here) read as the string S? */
static int reads_as(long fd, const char *s)
{
	char buf[64];
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = 0;
	return strcmp(buf, s) == 0;
}

static void flags(void)
{
	struct stat st;
	char buf[32];
	int fd, fd2;

	fd = open("f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "O_CREAT|O_EXCL makes a new file");
	CHECK_EQ(write(fd, "0123456789", 10), 10, "write 10 bytes");
	close(fd);
	CHECK_ERRNO(open("f", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST,
		    "O_CREAT|O_EXCL on an existing file");
	fd = open("f", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "O_CREAT without O_EXCL opens an existing file");
	CHECK_EQ(fstat(fd, &st), 0, "fstat it");
	CHECK_EQ(st.st_size, 10, "O_CREAT alone keeps the contents");
	CHECK_EQ(st.st_mode & 07777, 0644, "and the mode of the existing file");
	close(fd);
	CHECK_ERRNO(open("none", O_RDONLY), ENOENT, "open of a missing file");
	CHECK_ERRNO(open("none/x", O_RDONLY | O_CREAT, 0644), ENOENT,
		    "O_CREAT in a missing directory");

	fd = open("f", O_RDWR | O_APPEND);
	CHECK(fd >= 0, "O_APPEND");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "lseek to 0");
	CHECK_EQ(write(fd, "ab", 2), 2, "write 2 bytes");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12, "O_APPEND wrote at the end: the offset is 12");
	CHECK_EQ(pwrite(fd, "Z", 1, 0), 1, "pwrite with O_APPEND");
	CHECK(strcmp(fs_get("f"), "0123456789abZ") == 0,
	      "pwrite with O_APPEND appends too (Linux ignores its offset)");
	CHECK_EQ(fcntl(fd, F_GETFL) & (O_APPEND | O_ACCMODE), O_APPEND | O_RDWR,
		 "F_GETFL shows O_APPEND|O_RDWR");
	CHECK_EQ(fcntl(fd, F_SETFL, 0), 0, "F_SETFL clears O_APPEND");
	CHECK_EQ(pwrite(fd, "Y", 1, 0), 1, "pwrite at 0");
	CHECK(strcmp(fs_get("f"), "Y123456789abZ") == 0, "now pwrite writes at its offset");
	close(fd);

	fd = open("f", O_RDWR | O_TRUNC);
	CHECK(fd >= 0, "O_TRUNC");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_size, 0, "O_TRUNC empties the file");
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0, "reading it gives end of file");
	close(fd);
	fd = creat("c", 0640);
	CHECK(fd >= 0, "creat");
	CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY, "creat opens write-only");
	CHECK_ERRNO(read(fd, buf, 1), EBADF, "read from a write-only descriptor");
	CHECK_EQ(write(fd, "xyz", 3), 3, "write through creat's descriptor");
	close(fd);
	fd = creat("c", 0600);
	CHECK_EQ(fstat(fd, &st), 0, "creat of an existing file");
	CHECK(st.st_size == 0 && (st.st_mode & 0777) == 0640,
	      "creat truncates an existing file and keeps its mode");
	close(fd);
	fd = open("f", O_RDONLY);
	CHECK_ERRNO(write(fd, "x", 1), EBADF, "write to a read-only descriptor");
	close(fd);

	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_ERRNO(open("f", O_RDONLY | O_DIRECTORY), ENOTDIR, "O_DIRECTORY on a file");
	CHECK_ERRNO(open("d", O_RDONLY | O_DIRECT), EINVAL, "O_DIRECT on a directory");
	fd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "O_DIRECTORY on a directory");
	/* (read from a directory: fs_pending) */
	close(fd);
	CHECK_ERRNO(open("d", O_WRONLY), EISDIR, "open a directory for writing");
	CHECK_ERRNO(open("d", O_RDWR), EISDIR, "open a directory read-write");
	CHECK_ERRNO(open("d", O_RDONLY | O_CREAT, 0644), EISDIR,
		    "O_CREAT on an existing directory");

	CHECK_EQ(symlink("f", "lf"), 0, "symlink lf -> f");
	CHECK_EQ(symlink("d", "ld"), 0, "symlink ld -> d");
	CHECK_ERRNO(open("lf", O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW on a symlink");
	fd = open("ld/", O_RDONLY | O_NOFOLLOW);
	CHECK(fd >= 0, "O_NOFOLLOW with a trailing slash follows the link");
	close(fd);
	fd = open("lf", O_RDONLY);
	CHECK(fd >= 0, "without O_NOFOLLOW the link is followed");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK(S_ISREG(st.st_mode), "and the file opened");
	close(fd);
	CHECK_ERRNO(open("lf", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST,
		    "O_CREAT|O_EXCL on a symlink");
	CHECK_EQ(symlink("made-by-link", "dangling"), 0, "symlink to a missing name");
	CHECK_ERRNO(open("dangling", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST,
		    "O_CREAT|O_EXCL on a dangling symlink");
	fd = open("dangling", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0, "O_CREAT through a dangling symlink");
	close(fd);
	CHECK_EQ(lstat("made-by-link", &st), 0, "it made the link's target");
	CHECK(S_ISREG(st.st_mode), "a regular file");

	/* O_CLOEXEC */
	fd = open("f", O_RDONLY | O_CLOEXEC);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "O_CLOEXEC sets FD_CLOEXEC");
	CHECK_EQ(fcntl(fd, F_GETFL) & O_CLOEXEC, 0, "O_CLOEXEC is not a status flag");
	fd2 = open("f", O_RDONLY);
	CHECK_EQ(fcntl(fd2, F_GETFD), 0, "without O_CLOEXEC FD_CLOEXEC is clear");
	close(fd);
	close(fd2);

	/* close_range */
	fd = open("f", O_RDONLY);
	fd2 = open("f", O_RDONLY);
	CHECK_EQ(syscall(SYS_close_range, fd, fd2, CLOSE_RANGE_CLOEXEC), 0,
		 "close_range CLOSE_RANGE_CLOEXEC");
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC && fcntl(fd2, F_GETFD) == FD_CLOEXEC,
	      "both descriptors are close-on-exec");
	CHECK_EQ(syscall(SYS_close_range, fd, fd2, 0), 0, "close_range");
	CHECK_ERRNO(fcntl(fd, F_GETFD), EBADF, "the first is closed");
	CHECK_ERRNO(fcntl(fd2, F_GETFD), EBADF, "the second is closed");
	CHECK_ERRNO(syscall(SYS_close_range, 5, 4, 0), EINVAL, "close_range with first > last");
	CHECK_ERRNO(syscall(SYS_close_range, 3, 4, 0x80), EINVAL,
		    "close_range with an unknown flag");
}

static void opath(void)
{
	struct stat st, st2;
	char buf[8];
	int fd, dfd, f;

	dfd = open("d", O_PATH);
	CHECK(dfd >= 0, "O_PATH on a directory");
	CHECK_EQ(fcntl(dfd, F_GETFL) & O_PATH, O_PATH, "F_GETFL shows O_PATH");
	CHECK_EQ(fstat(dfd, &st), 0, "fstat an O_PATH descriptor");
	CHECK_EQ(stat("d", &st2), 0, "stat d");
	CHECK(S_ISDIR(st.st_mode) && st.st_ino == st2.st_ino && st.st_dev == st2.st_dev, "it is d");
	f = openat(dfd, "in", O_WRONLY | O_CREAT, 0644);
	CHECK(f >= 0, "openat with an O_PATH directory descriptor creates d/in");
	CHECK_EQ(write(f, "inside", 6), 6, "write to it");
	close(f);
	CHECK(strcmp(fs_get("d/in"), "inside") == 0, "d/in has what was written");
	/* (getdents64 of an O_PATH directory: fs_pending) */
	CHECK_EQ(fchdir(dfd), 0, "fchdir to an O_PATH descriptor");
	CHECK(strcmp(fs_get("in"), "inside") == 0, "the cwd is d");
	CHECK_EQ(chdir(".."), 0, "chdir ..");
	close(dfd);

	fd = open("f", O_PATH);
	CHECK(fd >= 0, "O_PATH on a file");
	CHECK_ERRNO(write(fd, buf, 1), EBADF, "write to an O_PATH descriptor");
	/* (read from and fchmod of an O_PATH descriptor: fs_pending) */
	CHECK_ERRNO(fchdir(fd), ENOTDIR, "fchdir to a file");
	CHECK_ERRNO(openat(fd, "x", O_RDONLY), ENOTDIR, "openat relative to a file");
	CHECK_EQ(fstatat(fd, "", &st, AT_EMPTY_PATH), 0, "fstatat AT_EMPTY_PATH of O_PATH");
	CHECK(S_ISREG(st.st_mode), "a regular file");
	snprintf(buf, sizeof(buf), "%d", fd);
	close(fd);

	fd = open("lf", O_PATH | O_NOFOLLOW);
	CHECK(fd >= 0, "O_PATH|O_NOFOLLOW opens a symlink itself");
	CHECK_EQ(fstat(fd, &st), 0, "fstat it");
	CHECK(S_ISLNK(st.st_mode), "it is the symlink");
	{
		char target[16] = "";

		CHECK_EQ(readlinkat(fd, "", target, sizeof(target)), 1,
			 "readlinkat with an empty path reads the link itself");
		CHECK(strcmp(target, "f") == 0, "its target is f");
	}
	close(fd);
}

static void resolve2(void)
{
	struct open_how how;
	char big[4200];
	int dfd, root;

	CHECK_EQ(mkdir("r", 0755), 0, "mkdir r");
	CHECK_EQ(mkdir("r/sub", 0755), 0, "mkdir r/sub");
	CHECK_EQ(fs_put("r/file", "in r"), 0, "r/file");
	CHECK_EQ(fs_put("file", "above r"), 0, "file next to r");
	CHECK_EQ(symlink("/file", "r/abs"), 0, "r/abs -> /file");
	CHECK_EQ(symlink("../file", "r/up"), 0, "r/up -> ../file");
	CHECK_EQ(symlink("../../file", "r/sub/upup"), 0, "r/sub/upup -> ../../file");
	CHECK_EQ(symlink("file", "r/rel"), 0, "r/rel -> file");
	dfd = open("r", O_PATH | O_DIRECTORY);

	CHECK(reads_as(open_resolve(dfd, "file", 0), "in r"), "openat2 without resolve flags");
	CHECK(reads_as(open_resolve(dfd, "sub/../file", RESOLVE_BENEATH), "in r"),
	      "RESOLVE_BENEATH: sub/../file stays beneath");
	CHECK(reads_as(open_resolve(dfd, "rel", RESOLVE_BENEATH), "in r"),
	      "RESOLVE_BENEATH: a relative symlink beneath");
	CHECK_ERRNO(open_resolve(dfd, "../file", RESOLVE_BENEATH), EXDEV,
		    "RESOLVE_BENEATH: ../file");
	CHECK_ERRNO(open_resolve(dfd, "up", RESOLVE_BENEATH), EXDEV,
		    "RESOLVE_BENEATH: a symlink to ../file");
	CHECK_ERRNO(open_resolve(dfd, "abs", RESOLVE_BENEATH), EXDEV,
		    "RESOLVE_BENEATH: an absolute symlink");
	CHECK_ERRNO(open_resolve(dfd, "/tmp", RESOLVE_BENEATH), EXDEV,
		    "RESOLVE_BENEATH: an absolute path");

	CHECK(reads_as(open_resolve(dfd, "/file", RESOLVE_IN_ROOT), "in r"),
	      "RESOLVE_IN_ROOT: /file is r/file");
	CHECK(reads_as(open_resolve(dfd, "abs", RESOLVE_IN_ROOT), "in r"),
	      "RESOLVE_IN_ROOT: an absolute symlink resolves in r");
	CHECK(reads_as(open_resolve(dfd, "up", RESOLVE_IN_ROOT), "in r"),
	      "RESOLVE_IN_ROOT: .. in a symlink stops at r");
	CHECK(reads_as(open_resolve(dfd, "sub/upup", RESOLVE_IN_ROOT), "in r"),
	      "RESOLVE_IN_ROOT: ../.. from r/sub stops at r");
	CHECK(reads_as(open_resolve(dfd, "../../../file", RESOLVE_IN_ROOT), "in r"),
	      "RESOLVE_IN_ROOT: ../../../file is r/file");

	CHECK_ERRNO(open_resolve(dfd, "rel", RESOLVE_NO_SYMLINKS), ELOOP,
		    "RESOLVE_NO_SYMLINKS: a symlink");
	CHECK(reads_as(open_resolve(dfd, "file", RESOLVE_NO_SYMLINKS), "in r"),
	      "RESOLVE_NO_SYMLINKS: a plain file");
	CHECK(reads_as(open_resolve(AT_FDCWD, "r/file", RESOLVE_NO_SYMLINKS), "in r"),
	      "RESOLVE_NO_SYMLINKS: relative to the cwd");
	how = (struct open_how){.flags = O_PATH | O_NOFOLLOW, .resolve = RESOLVE_NO_SYMLINKS};
	{
		long fd = openat2(dfd, "rel", &how, sizeof(how));

		CHECK(fd >= 0, "RESOLVE_NO_SYMLINKS allows O_PATH|O_NOFOLLOW of a final symlink");
		if (fd >= 0)
			close(fd);
	}

	root = open("/", O_PATH | O_DIRECTORY);
	CHECK_ERRNO(open_resolve(root, "proc/self/status", RESOLVE_NO_XDEV), EXDEV,
		    "RESOLVE_NO_XDEV: crossing into /proc");
	CHECK(reads_as(open_resolve(dfd, "sub/../file", RESOLVE_NO_XDEV), "in r"),
	      "RESOLVE_NO_XDEV: within one file system");
	CHECK_ERRNO(open_resolve(root, "proc/self/root/tmp", RESOLVE_NO_MAGICLINKS), ELOOP,
		    "RESOLVE_NO_MAGICLINKS: proc/self/root");
	close(root);

	CHECK_ERRNO(open_resolve(dfd, "file", RESOLVE_BENEATH | RESOLVE_IN_ROOT), EINVAL,
		    "RESOLVE_BENEATH|RESOLVE_IN_ROOT");
	CHECK_ERRNO(open_resolve(dfd, "file", 1ull << 40), EINVAL, "an unknown resolve flag");
	how = (struct open_how){.flags = O_RDONLY, .mode = 0644};
	CHECK_ERRNO(openat2(dfd, "file", &how, sizeof(how)), EINVAL, "a mode without O_CREAT");
	how = (struct open_how){.flags = O_RDONLY | O_CREAT, .mode = 010000};
	CHECK_ERRNO(openat2(dfd, "file", &how, sizeof(how)), EINVAL, "a mode beyond 07777");
	how = (struct open_how){.flags = 1ull << 40};
	CHECK_ERRNO(openat2(dfd, "file", &how, sizeof(how)), EINVAL, "flags beyond 32 bits");
	how = (struct open_how){.flags = O_RDONLY};
	CHECK_ERRNO(openat2(dfd, "file", &how, 16), EINVAL, "a size below open_how's first");
	CHECK_ERRNO(openat2(dfd, "file", &how, 4097), E2BIG, "a size above a page");
	memset(big, 0, sizeof(big));
	memcpy(big, &how, sizeof(how));
	CHECK(reads_as(openat2(dfd, "file", (struct open_how *)big, 64), "in r"),
	      "a larger open_how with zeros after it");
	big[40] = 1;
	CHECK_ERRNO(openat2(dfd, "file", (struct open_how *)big, 64), E2BIG,
		    "a larger open_how with a non-zero byte after it");
	CHECK_ERRNO(openat2(dfd, "file", NULL, sizeof(how)), EFAULT, "a NULL open_how");
	close(dfd);
}

static void paths(void)
{
	char name[300], path[4200], buf[64];
	struct stat st;
	int fd;

	CHECK_EQ(mkdir("a", 0755), 0, "mkdir a");
	CHECK_EQ(mkdir("a/b", 0755), 0, "mkdir a/b");
	CHECK_EQ(fs_put("a/b/t", "deep"), 0, "a/b/t");
	CHECK(strcmp(fs_get("a/../a/b/./../b/t"), "deep") == 0, "a/../a/b/./../b/t");
	CHECK(strcmp(fs_get("./a//b///t"), "deep") == 0, "repeated slashes");
	CHECK_EQ(stat("/..", &st), 0, "stat /..");
	{
		struct stat r;

		CHECK_EQ(stat("/", &r), 0, "stat /");
		CHECK(r.st_ino == st.st_ino && r.st_dev == st.st_dev, "/.. is /");
		CHECK_EQ(stat("/../../..", &st), 0, "stat /../../..");
		CHECK(r.st_ino == st.st_ino && r.st_dev == st.st_dev, "/../../.. is /");
	}

	/* trailing slashes */
	CHECK_EQ(stat("a/", &st), 0, "stat of a directory with a trailing slash");
	CHECK_ERRNO(stat("a/b/t/", &st), ENOTDIR, "stat of a file with a trailing slash");
	CHECK_ERRNO(open("a/b/t/", O_RDONLY), ENOTDIR, "open of a file with a trailing slash");
	CHECK_ERRNO(open("a/b/new/", O_RDWR | O_CREAT, 0644), EISDIR,
		    "O_CREAT of a new name with a trailing slash");
	CHECK_EQ(mkdir("a/m/", 0755), 0, "mkdir with a trailing slash");
	CHECK_EQ(rmdir("a/m/"), 0, "rmdir with a trailing slash");
	CHECK_ERRNO(unlink("a/b/t/"), ENOTDIR, "unlink of a file with a trailing slash");
	CHECK_ERRNO(stat("a/b/t/.", &st), ENOTDIR, "a file as a directory component");
	CHECK_EQ(symlink("a", "la"), 0, "la -> a");
	CHECK_EQ(lstat("la/", &st), 0, "lstat la/");
	CHECK(S_ISDIR(st.st_mode), "lstat with a trailing slash follows the link");
	CHECK_EQ(lstat("la", &st), 0, "lstat la");
	CHECK(S_ISLNK(st.st_mode), "lstat without it does not");

	/* symlink chains and loops */
	CHECK_EQ(symlink("a/b/t", "c3"), 0, "c3 -> a/b/t");
	CHECK_EQ(symlink("c3", "c2"), 0, "c2 -> c3");
	CHECK_EQ(symlink("./c2", "c1"), 0, "c1 -> ./c2");
	CHECK(strcmp(fs_get("c1"), "deep") == 0, "a chain of three symlinks");
	CHECK_EQ(symlink("la/b", "lb"), 0, "lb -> la/b (a link through a link)");
	CHECK(strcmp(fs_get("lb/t"), "deep") == 0, "a symlink in the middle of a path");
	CHECK_EQ(symlink("loop2", "loop1"), 0, "loop1 -> loop2");
	CHECK_EQ(symlink("loop1", "loop2"), 0, "loop2 -> loop1");
	CHECK_ERRNO(open("loop1", O_RDONLY), ELOOP, "open of a symlink loop");
	CHECK_ERRNO(stat("loop1/x", &st), ELOOP, "a loop as a directory component");
	CHECK_EQ(lstat("loop1", &st), 0, "lstat of a loop link");
	CHECK_EQ(symlink("self", "self"), 0, "self -> self");
	CHECK_ERRNO(stat("self", &st), ELOOP, "stat of a link to itself");
	CHECK_ERRNO(open("self", O_RDWR | O_CREAT, 0644), ELOOP, "O_CREAT of a link to itself");

	/* 40 links are followed, the 41st is too many */
	for (int i = 0; i < 41; i++) {
		char target[16], link[16];

		snprintf(link, sizeof(link), "n%d", i);
		if (i == 40)
			snprintf(target, sizeof(target), "a/b/t");
		else
			snprintf(target, sizeof(target), "n%d", i + 1);
		if (symlink(target, link) != 0)
			printf("FAIL: symlink %s (errno %d)\n", link, errno);
	}
	CHECK(strcmp(fs_get("n1"), "deep") == 0, "a chain of 40 symlinks is followed");
	CHECK_ERRNO(open("n0", O_RDONLY), ELOOP, "a chain of 41 symlinks");
	CHECK_EQ(lstat("n0", &st), 0, "lstat of the chain's start");

	/* name lengths */
	memset(name, 'x', sizeof(name));
	name[255] = 0;
	fd = open(name, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0, "a 255-byte name");
	close(fd);
	CHECK_EQ(unlink(name), 0, "unlink it");
	name[255] = 'x';
	name[256] = 0;
	CHECK_ERRNO(open(name, O_WRONLY | O_CREAT, 0644), ENAMETOOLONG, "a 256-byte name");
	CHECK_ERRNO(stat(name, &st), ENAMETOOLONG, "stat of a 256-byte name");
	for (int i = 0; i + 2 < (int)sizeof(path); i += 2)
		memcpy(path + i, "./", 2);
	path[4096] = 0;
	CHECK_ERRNO(stat(path, &st), ENAMETOOLONG, "a path of 4096 bytes");
	path[4094] = 0;
	CHECK_EQ(stat(path, &st), 0, "a path of 4094 bytes");

	/* the empty path */
	CHECK_ERRNO(open("", O_RDONLY), ENOENT, "open of the empty path");
	CHECK_ERRNO(stat("", &st), ENOENT, "stat of the empty path");
	CHECK_ERRNO(mkdir("", 0755), ENOENT, "mkdir of the empty path");
	CHECK_ERRNO(readlink("", buf, sizeof(buf)), ENOENT, "readlink of the empty path");
	fd = open("a/b/t", O_RDONLY);
	CHECK_EQ(fstatat(fd, "", &st, AT_EMPTY_PATH), 0, "fstatat AT_EMPTY_PATH");
	CHECK_EQ(st.st_size, 4, "it is a/b/t");
	CHECK_ERRNO(fstatat(fd, "", &st, 0), ENOENT, "fstatat of the empty path without it");
	CHECK_EQ(fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH), 0, "fchownat AT_EMPTY_PATH");
	close(fd);
	CHECK_EQ(fstatat(AT_FDCWD, "", &st, AT_EMPTY_PATH), 0, "AT_FDCWD with AT_EMPTY_PATH");
	CHECK(S_ISDIR(st.st_mode), "is the cwd");
	fd = open("a", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fstatat(fd, "b/t", &st, 0), 0, "fstatat relative to a directory descriptor");
	CHECK_EQ(st.st_size, 4, "it finds a/b/t");
	CHECK_EQ(fstatat(fd, "/tmp", &st, 0), 0, "an absolute path ignores the dirfd");
	close(fd);
	CHECK_ERRNO(fstatat(9999, "x", &st, 0), EBADF, "fstatat with a bad dirfd");
	CHECK_EQ(fstatat(9999, "/", &st, 0), 0, "an absolute path with a bad dirfd");
}

int main(void)
{
	fs_enter("fs_open");
	flags();
	opath();
	resolve2();
	paths();
	fs_leave();
	return GUEST_DONE();
}
