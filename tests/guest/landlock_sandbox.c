/*
 * Landlock as a coding agent's sandbox uses it (with no_new_privs): every
 * filesystem right handled, reading and executing allowed everywhere,
 * writing only beneath one directory. Reads elsewhere still work, writes,
 * creations and removals elsewhere fail with EACCES, a rename into the
 * writable directory from outside it is EXDEV or EACCES as Linux says, and
 * a program the restricted process execs inherits the restriction.
 * Natively only the test's child is restricted.
 */
#include "guest.h"

#include <fcntl.h>
#include <ftw.h>
#include <linux/landlock.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ALL_V2 ((LANDLOCK_ACCESS_FS_REFER << 1) - 1)
#define READ_X                                                                     \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
	 LANDLOCK_ACCESS_FS_READ_DIR)

static long create_ruleset(const struct landlock_ruleset_attr *attr, size_t size, unsigned flags)
{
	return syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static int add_rule(int rfd, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = {.allowed_access = access};
	int ret;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return -1;
	ret = (int)syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	return ret;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(p);
}

static char rw[64], ro[64], path[128];

static const char *in(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* The exec'd program: it must still be restricted. */
static int child_after_exec(void)
{
	int fd;

	fd = open(in(ro, "file"), O_RDONLY);
	CHECK(fd >= 0, "after exec: reading outside works");
	close(fd);
	CHECK_ERRNO(open(in(ro, "new2"), O_WRONLY | O_CREAT, 0600), EACCES,
		    "after exec: creating outside");
	fd = open(in(rw, "new2"), O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "after exec: creating in the writable directory");
	close(fd);
	return GUEST_DONE();
}

static int restricted(const char *self)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = ALL_V2};
	int rfd, fd, st;
	pid_t pid;

	rfd = (int)create_ruleset(&attr, sizeof(attr), 0);
	CHECK(rfd >= 0, "create a ruleset handling every ABI 2 right");
	CHECK_EQ(add_rule(rfd, "/", READ_X), 0, "rule: read and execute beneath /");
	CHECK_EQ(add_rule(rfd, rw, ALL_V2), 0, "rule: everything beneath the writable directory");
	CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0, "no_new_privs");
	CHECK_EQ(syscall(SYS_landlock_restrict_self, rfd, 0), 0, "restrict self");
	close(rfd);

	/* Reads elsewhere. */
	fd = open(in(ro, "file"), O_RDONLY);
	CHECK(fd >= 0, "reading a file outside works");
	close(fd);
	fd = open(ro, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "listing a directory outside works");
	close(fd);
	fd = open("/proc/self/status", O_RDONLY);
	CHECK(fd >= 0, "reading /proc works");
	close(fd);

	/* Writes elsewhere. */
	CHECK_ERRNO(open(in(ro, "file"), O_WRONLY), EACCES, "writing a file outside");
	CHECK_ERRNO(open(in(ro, "file"), O_RDWR), EACCES, "opening a file outside read-write");
	CHECK_ERRNO(open(in(ro, "new"), O_WRONLY | O_CREAT, 0600), EACCES, "creating outside");
	CHECK_ERRNO(mkdir(in(ro, "d"), 0700), EACCES, "mkdir outside");
	/* An unknown type: even where landlock let it through, nothing is mounted. */
	CHECK_ERRNO(mount("x", "/", "rung-no-such-fs", 0, NULL), EPERM, "mount while landlocked");
	CHECK_ERRNO(mknod(in(ro, "fifo"), S_IFIFO | 0600, 0), EACCES, "mkfifo outside");
	CHECK_ERRNO(symlink("x", in(ro, "sym")), EACCES, "symlink outside");
	CHECK_ERRNO(unlink(in(ro, "file")), EACCES, "unlink outside");
	CHECK_ERRNO(rmdir(in(ro, "sub")), EACCES, "rmdir outside");
	CHECK_ERRNO(open("/dev/null", O_WRONLY), EACCES, "writing /dev/null (not allowed)");
	CHECK_ERRNO(open(ro, O_TMPFILE | O_RDWR, 0600), EACCES, "an O_TMPFILE file outside");
	fd = open(rw, O_TMPFILE | O_RDWR, 0600);
	CHECK(fd >= 0 || errno == EOPNOTSUPP, "an O_TMPFILE file in the writable directory");
	close(fd);

	/* Writes beneath the writable directory. */
	fd = open(in(rw, "new"), O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "creating and writing in the writable directory");
	close(fd);
	CHECK_EQ(mkdir(in(rw, "d"), 0700), 0, "mkdir in the writable directory");
	CHECK_EQ(mknod(in(rw, "fifo"), S_IFIFO | 0600, 0), 0, "mkfifo in the writable directory");
	CHECK_EQ(symlink("x", in(rw, "sym")), 0, "symlink in the writable directory");
	{
		char a[128], b[128];
		snprintf(a, sizeof(a), "%s/new", rw);
		snprintf(b, sizeof(b), "%s/d/moved", rw);
		CHECK_EQ(rename(a, b), 0, "rename within the writable directory");
		CHECK_EQ(link(b, a), 0, "link within the writable directory");
		CHECK_EQ(unlink(b), 0, "unlink in the writable directory");
		snprintf(b, sizeof(b), "%s/d", rw);
		CHECK_EQ(rmdir(b), 0, "rmdir in the writable directory");
		/* Out of the writable directory: removing from ro is denied too. */
		snprintf(a, sizeof(a), "%s/file", ro);
		snprintf(b, sizeof(b), "%s/file", rw);
		CHECK_ERRNO(rename(a, b), EACCES, "rename from outside into the writable directory");
		CHECK_ERRNO(link(a, b), EXDEV, "link from outside into the writable directory");
		snprintf(a, sizeof(a), "%s/new", rw);
		snprintf(b, sizeof(b), "%s/moved", ro);
		CHECK_ERRNO(rename(a, b), EACCES, "rename out of the writable directory");
	}

	/* An exec'd program inherits the domain. */
	pid = fork();
	if (pid == 0) {
		execl(self, self, "after-exec", rw, ro, (char *)NULL);
		_exit(99);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the exec'd child passed its checks");
	return GUEST_DONE();
}

int main(int argc, char **argv)
{
	int fd, st;
	pid_t pid;
	long abi;

	if (argc == 4 && !strcmp(argv[1], "after-exec")) {
		snprintf(rw, sizeof(rw), "%s", argv[2]);
		snprintf(ro, sizeof(ro), "%s", argv[3]);
		return child_after_exec();
	}
	abi = create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP)) {
		printf("SKIP: landlock is not enabled on this kernel\n");
		return 77;
	}
	snprintf(rw, sizeof(rw), "/tmp/ll-rw-XXXXXX");
	snprintf(ro, sizeof(ro), "/tmp/ll-ro-XXXXXX");
	if (!mkdtemp(rw) || !mkdtemp(ro))
		return 2;
	fd = open(in(ro, "file"), O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || write(fd, "data", 4) != 4)
		return 2;
	close(fd);
	if (mkdir(in(ro, "sub"), 0700))
		return 2;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(restricted("/proc/self/exe"));
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the restricted child passed its checks");

	/* The parent was never restricted. */
	fd = open(in(ro, "file"), O_WRONLY);
	CHECK(fd >= 0, "the unrestricted parent still writes outside");
	close(fd);
	CHECK(nftw(rw, rm_one, 8, FTW_DEPTH | FTW_PHYS) == 0 &&
		      nftw(ro, rm_one, 8, FTW_DEPTH | FTW_PHYS) == 0,
	      "the parent removes both directories");
	return GUEST_DONE();
}
