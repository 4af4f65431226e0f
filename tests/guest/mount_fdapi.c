/* The file-descriptor mount API in a mount namespace of the test's own
 * (every mount made private first, so that natively nothing reaches the
 * host's): fsopen/fsconfig/fsmount make a detached tmpfs that move_mount
 * attaches; open_tree clones it onto a second place; mount_setattr and
 * fspick make mounts read-only; a detached tree closed unmoved is gone.
 * Each call's argument checks give Linux's errors. */
#include "guest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* How many lines of /proc/self/mounts name source? */
static int mounts_of(const char *source)
{
	char s[256];
	int n = 0;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%255s %*[^\n]", s) == 1)
		if (!strcmp(s, source))
			n++;
	fclose(f);
	return n;
}

static int creatable(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int setattr(const char *path, unsigned flags, struct mount_attr *ma, size_t size)
{
	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, flags, ma, size);
}

static void context_checks(void)
{
	int fd;
	char c;

	CHECK_ERRNO(fsopen("rung-no-such-fs", 0), ENODEV, "fsopen of an unknown type");
	CHECK_ERRNO(fsopen("tmpfs", 2), EINVAL, "fsopen with an unknown flag");
	fd = fsopen("tmpfs", FSOPEN_CLOEXEC);
	CHECK(fd >= 0, "fsopen(tmpfs)");
	CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "FSOPEN_CLOEXEC sets close-on-exec");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_SET_FLAG, "ro", "x", 0), EINVAL, "a flag with a value");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_SET_STRING, "mode", NULL, 0), EINVAL,
		    "a string without one");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_CMD_CREATE, "x", NULL, 0), EINVAL, "create with a key");
	CHECK_ERRNO(fsconfig(fd, 99, NULL, NULL, 0), EOPNOTSUPP, "an unknown command");
	CHECK_ERRNO(fsconfig(0, FSCONFIG_CMD_CREATE, NULL, NULL, 0), EINVAL,
		    "fsconfig on a file that is no context");
	CHECK_ERRNO(fsmount(fd, 0, 0), EINVAL, "fsmount before the superblock is made");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0), EBUSY,
		    "reconfiguring a context that creates");
	CHECK_ERRNO(read(fd, &c, 1), ENODATA, "reading a context with no messages");
	close(fd);
}

/* Make a tmpfs with fsopen..fsmount and attach it at /mnt. */
static void new_mount(void)
{
	struct statvfs sv;
	struct stat st;
	int fd, mfd, before = mounts_of("fdtmp");

	fd = fsopen("tmpfs", FSOPEN_CLOEXEC);
	CHECK(fsconfig(fd, FSCONFIG_SET_STRING, "source", "fdtmp", 0) == 0, "source fdtmp");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_SET_STRING, "source", "again", 0), EINVAL,
		    "a second source");
	CHECK(fsconfig(fd, FSCONFIG_SET_STRING, "mode", "0710", 0) == 0, "mode=0710");
	CHECK(fsconfig(fd, FSCONFIG_SET_STRING, "size", "1m", 0) == 0, "size=1m");
	CHECK(fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0, "the superblock made");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0), EBUSY, "made twice");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_SET_STRING, "mode", "0700", 0), EBUSY,
		    "a parameter once made");
	CHECK_ERRNO(fsmount(fd, 2, 0), EINVAL, "fsmount with an unknown flag");
	CHECK_ERRNO(fsmount(fd, 0, 0x40), EINVAL, "fsmount with a bad atime mode");
	mfd = fsmount(fd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV);
	CHECK(mfd >= 0, "fsmount");
	CHECK_ERRNO(fsmount(fd, 0, 0), EBUSY, "a second fsmount of the context");
	CHECK_ERRNO(fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0), EBUSY,
		    "creating again once mounted");
	close(fd);
	CHECK(fstat(mfd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0710,
	      "the detached root is the new tmpfs's, mode 0710");
	fd = openat(mfd, "f", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "a file made in the detached tree");
	close(fd);
	CHECK(mkdirat(mfd, "d", 0755) == 0, "a directory made in it");
	CHECK_EQ(mounts_of("fdtmp"), before, "a detached tree is in no mount table");
	CHECK_ERRNO(move_mount(mfd, "", AT_FDCWD, "/mnt", 0x1000), EINVAL,
		    "move_mount with an unknown flag");
	CHECK_ERRNO(move_mount(mfd, "", AT_FDCWD, "/mnt", 0), ENOENT,
		    "an empty path without MOVE_MOUNT_F_EMPTY_PATH");
	CHECK(move_mount(mfd, "", AT_FDCWD, "/mnt", MOVE_MOUNT_F_EMPTY_PATH) == 0,
	      "move_mount attaches it at /mnt");
	close(mfd);
	CHECK_EQ(mounts_of("fdtmp"), before + 1, "/proc/self/mounts lists it");
	CHECK_EQ(access("/mnt/f", F_OK), 0, "its file is at /mnt/f");
	CHECK(statvfs("/mnt", &sv) == 0 && (sv.f_flag & ST_NODEV) && !(sv.f_flag & ST_RDONLY),
	      "mounted nodev, read-write");
}

static void clone_tree(void)
{
	int tfd, pfd;

	CHECK_ERRNO(open_tree(AT_FDCWD, "/mnt", AT_RECURSIVE), EINVAL,
		    "open_tree AT_RECURSIVE without OPEN_TREE_CLONE");
	pfd = open_tree(AT_FDCWD, "/mnt", OPEN_TREE_CLOEXEC);
	CHECK(pfd >= 0 && (fcntl(pfd, F_GETFL) & O_PATH), "open_tree without a clone is O_PATH");
	close(pfd);
	tfd = open_tree(AT_FDCWD, "/mnt", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	CHECK(tfd >= 0, "open_tree clones /mnt");
	CHECK_EQ(mounts_of("fdtmp"), 1, "the clone is in no mount table");
	CHECK(move_mount(tfd, "", AT_FDCWD, "/mnt/d", MOVE_MOUNT_F_EMPTY_PATH) == 0,
	      "the clone attached at /mnt/d");
	close(tfd);
	CHECK_EQ(mounts_of("fdtmp"), 2, "two mounts of the tmpfs now");
	CHECK_EQ(access("/mnt/d/f", F_OK), 0, "the tmpfs seen again at /mnt/d");
}

static void setattr_checks(void)
{
	struct mount_attr ma = {.attr_set = MOUNT_ATTR_RDONLY};
	struct mount_attr bad;
	char big[sizeof(ma) + 8] = {0};

	CHECK_ERRNO(setattr("/mnt/d", 0, &ma, 8), EINVAL, "mount_setattr with a short struct");
	memcpy(big, &ma, sizeof(ma));
	big[sizeof(ma)] = 1;
	CHECK_ERRNO(setattr("/mnt/d", 0, (struct mount_attr *)big, sizeof(big)), E2BIG,
		    "a longer struct with a nonzero tail");
	bad = (struct mount_attr){.attr_set = MOUNT_ATTR_NOATIME};
	CHECK_ERRNO(setattr("/mnt/d", 0, &bad, sizeof(bad)), EINVAL,
		    "an atime mode set without clearing the old");
	bad = (struct mount_attr){.propagation = MS_SHARED | MS_PRIVATE};
	CHECK_ERRNO(setattr("/mnt/d", 0, &bad, sizeof(bad)), EINVAL, "two propagation types");
	CHECK_ERRNO(setattr("/mnt/d/f", 0, &ma, sizeof(ma)), EINVAL, "a path that is no mount root");
	CHECK(setattr("/mnt/d", 0, &ma, sizeof(ma)) == 0, "mount_setattr makes /mnt/d read-only");
	CHECK_EQ(creatable("/mnt/d/g"), -EROFS, "creating under /mnt/d");
	CHECK_EQ(creatable("/mnt/g"), 0, "creating under /mnt, the other mount");
	ma = (struct mount_attr){.attr_clr = MOUNT_ATTR_RDONLY};
	CHECK(setattr("/mnt/d", 0, &ma, sizeof(ma)) == 0, "and read-write again");
	CHECK_EQ(creatable("/mnt/d/g"), 0, "creating under /mnt/d again");
}

static void fspick_checks(void)
{
	int pfd;

	CHECK(mkdir("/mnt/x", 0755) == 0, "a directory /mnt/x");
	CHECK_ERRNO(fspick(AT_FDCWD, "/mnt/x", 0), EINVAL, "fspick of a directory no mount root");
	CHECK_ERRNO(fspick(AT_FDCWD, "/mnt", 0x10), EINVAL, "fspick with an unknown flag");
	pfd = fspick(AT_FDCWD, "/mnt", FSPICK_CLOEXEC);
	CHECK(pfd >= 0, "fspick of /mnt");
	CHECK_ERRNO(fsconfig(pfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0), EBUSY,
		    "creating from a picked context");
	CHECK(fsconfig(pfd, FSCONFIG_SET_FLAG, "ro", NULL, 0) == 0, "ro");
	CHECK(fsconfig(pfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) == 0, "reconfigured");
	CHECK_EQ(creatable("/mnt/h"), -EROFS, "/mnt is read-only");
	CHECK(fsconfig(pfd, FSCONFIG_SET_FLAG, "rw", NULL, 0) == 0 &&
		      fsconfig(pfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) == 0,
	      "reconfigured rw");
	CHECK_EQ(creatable("/mnt/h"), 0, "/mnt is writable again");
	close(pfd);
}

static void unmoved_tree(void)
{
	int fd = fsopen("tmpfs", 0), mfd;

	fsconfig(fd, FSCONFIG_SET_STRING, "source", "fdgone", 0);
	fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	mfd = fsmount(fd, 0, 0);
	CHECK(mfd >= 0, "another detached tmpfs");
	close(fd);
	close(mfd);
	CHECK_EQ(mounts_of("fdgone"), 0, "closed unmoved, it is mounted nowhere");
}

static int child(void)
{
	CHECK(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS)");
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "every mount made private");
	context_checks();
	new_mount();
	clone_tree();
	setattr_checks();
	fspick_checks();
	unmoved_tree();
	CHECK(umount2("/mnt/d", 0) == 0, "umount of the clone");
	CHECK(umount2("/mnt", MNT_DETACH) == 0, "umount of the tmpfs");
	CHECK_EQ(mounts_of("fdtmp"), 0, "none left");
	return GUEST_DONE();
}

int main(void)
{
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's checks passed");
	CHECK_EQ(mounts_of("fdtmp"), 0, "the parent's namespace never had it");
	return GUEST_DONE();
}
