/*
 * Landlock's system calls: their argument checks and errors, the ruleset
 * fd, restrict_self's no_new_privs rule, layers that stack (each one must
 * allow an access; at most 16), rights a ruleset does not handle staying
 * allowed, and the ptrace scope (a restricted process cannot reach the
 * memory of one outside its domain, but can reach its own children).
 * Only what Linux 6.1 and later agree on (the host kernel has a newer ABI).
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define ALL_V2 ((LANDLOCK_ACCESS_FS_REFER << 1) - 1)

static long create_ruleset(const void *attr, size_t size, unsigned flags)
{
	return syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static long add_rule_fd(int rfd, int type, int fd, uint64_t access, unsigned flags)
{
	struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};

	return syscall(SYS_landlock_add_rule, rfd, type, &pb, flags);
}

static long add_rule(int rfd, const char *path, uint64_t access)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	long ret = add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, fd, access, 0);

	close(fd);
	return ret;
}

static long restrict_self(int rfd)
{
	return syscall(SYS_landlock_restrict_self, rfd, 0);
}

/* A ruleset handling handled, allowing allowed beneath path (if any). */
static int ruleset(uint64_t handled, const char *path, uint64_t allowed)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
	int rfd = (int)create_ruleset(&attr, sizeof(attr), 0);

	if (rfd >= 0 && path && add_rule(rfd, path, allowed) != 0) {
		close(rfd);
		return -1;
	}
	return rfd;
}

static char dir[64], path[128];

static const char *in(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void errors(void)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE};
	uint64_t big[3] = {LANDLOCK_ACCESS_FS_READ_FILE, 0, 0};
	int rfd, pfd, p[2];
	char link[64], target[64];
	ssize_t n;

	CHECK_ERRNO(create_ruleset(&attr, 0, LANDLOCK_CREATE_RULESET_VERSION), EINVAL,
		    "version query with an attr");
	CHECK_ERRNO(create_ruleset(NULL, 0, 1u << 30), EINVAL, "an unknown flag");
	CHECK_ERRNO(create_ruleset(&attr, 4, 0), EINVAL, "a size too small");
	CHECK_ERRNO(create_ruleset(&attr, 8192, 0), E2BIG, "a size past a page");
	CHECK_ERRNO(create_ruleset(NULL, 8, 0), EFAULT, "no attr");
	attr.handled_access_fs = 0;
	CHECK_ERRNO(create_ruleset(&attr, sizeof(attr), 0), ENOMSG, "nothing handled");
	attr.handled_access_fs = 1ull << 62;
	CHECK_ERRNO(create_ruleset(&attr, sizeof(attr), 0), EINVAL, "an unknown right");
	rfd = (int)create_ruleset(big, sizeof(big), 0);
	CHECK(rfd >= 0, "a longer struct whose extra fields are zero");
	close(rfd);

	rfd = ruleset(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, NULL, 0);
	CHECK(rfd >= 0, "create a ruleset");
	CHECK_EQ(fcntl(rfd, F_GETFD), FD_CLOEXEC, "the ruleset fd is close-on-exec");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", rfd);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	CHECK(!strcmp(target, "anon_inode:[landlock-ruleset]"), "its /proc/self/fd link");
	CHECK_ERRNO(read(rfd, target, 8), EINVAL, "reading a ruleset fd");
	pfd = open(dir, O_PATH);
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 1),
		    EINVAL, "add_rule with flags");
	CHECK_ERRNO(add_rule_fd(-1, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 0),
		    EBADF, "add_rule on a bad fd");
	CHECK_ERRNO(add_rule_fd(pfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 0),
		    EBADF, "add_rule on an O_PATH fd");
	if (pipe(p) == 0) {
		CHECK_ERRNO(add_rule_fd(p[0], LANDLOCK_RULE_PATH_BENEATH, pfd,
					LANDLOCK_ACCESS_FS_READ_FILE, 0),
			    EBADFD, "add_rule on a pipe");
		CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, p[0],
					LANDLOCK_ACCESS_FS_READ_FILE, 0),
			    EBADFD, "a rule on a pipe");
		CHECK_ERRNO(restrict_self(p[0]), EBADFD, "restrict_self with a pipe");
		close(p[0]);
		close(p[1]);
	}
	CHECK_ERRNO(add_rule_fd(rfd, 99, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 0), EINVAL,
		    "an unknown rule type");
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, 0, 0), ENOMSG,
		    "a rule allowing nothing");
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_WRITE_FILE,
				0),
		    EINVAL, "a rule allowing what the ruleset does not handle");
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, 9999, LANDLOCK_ACCESS_FS_READ_FILE,
				0),
		    EBADF, "a rule on a bad fd");
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, rfd, LANDLOCK_ACCESS_FS_READ_FILE,
				0),
		    EBADFD, "a rule on a ruleset fd");
	close(pfd);
	pfd = open(in("file"), O_PATH);
	CHECK_ERRNO(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_DIR, 0),
		    EINVAL, "a directory right on a file");
	CHECK_EQ(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 0),
		 0, "a file right on a file");
	CHECK_EQ(add_rule_fd(rfd, LANDLOCK_RULE_PATH_BENEATH, pfd, LANDLOCK_ACCESS_FS_READ_FILE, 0),
		 0, "the same rule again");
	close(pfd);
	CHECK_ERRNO(restrict_self(-1), EBADF, "restrict_self with a bad fd");
	CHECK_ERRNO(syscall(SYS_landlock_restrict_self, rfd, 1u << 30), EINVAL, "restrict_self with flags");
	close(rfd);
}

/* Without no_new_privs and CAP_SYS_ADMIN: EPERM (checked first). */
static int no_nnp(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	int rfd = ruleset(LANDLOCK_ACCESS_FS_READ_FILE, NULL, 0);

	if (syscall(SYS_capget, &h, d) == 0) {
		d[0].effective &= ~(1u << CAP_SYS_ADMIN);
		syscall(SYS_capset, &h, d);
	}
	CHECK_ERRNO(restrict_self(rfd), EPERM, "restrict_self without no_new_privs");
	CHECK_ERRNO(syscall(SYS_landlock_restrict_self, rfd, 1u << 30), EPERM,
		    "restrict_self with flags, without no_new_privs");
	return GUEST_DONE();
}

static int can_read(const char *p)
{
	int fd = open(p, O_RDONLY);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Two layers: the outer allows reads everywhere, the inner only beneath
 * dir/sub. Rights neither handles stay allowed. Then up to 16 layers. */
static int layers(void)
{
	int rfd, i, ret = 0;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	rfd = ruleset(LANDLOCK_ACCESS_FS_READ_FILE, "/", LANDLOCK_ACCESS_FS_READ_FILE);
	CHECK_EQ(restrict_self(rfd), 0, "layer 1");
	close(rfd);
	CHECK_EQ(can_read(in("file")), 0, "layer 1 allows reading everywhere");
	rfd = ruleset(LANDLOCK_ACCESS_FS_READ_FILE, in("sub"), LANDLOCK_ACCESS_FS_READ_FILE);
	/* A rule added after restrict_self does not change the domain. */
	CHECK_EQ(restrict_self(rfd), 0, "layer 2");
	CHECK_EQ(add_rule(rfd, dir, LANDLOCK_ACCESS_FS_READ_FILE), 0, "a rule added afterwards");
	close(rfd);
	CHECK_EQ(can_read(in("file")), -EACCES, "layer 2 denies reading outside sub");
	CHECK_EQ(can_read(in("sub/file")), 0, "both layers allow reading in sub");
	CHECK_EQ(can_read(dir), 0, "reading a directory is not handled");
	CHECK_EQ(mkdir(in("sub/d"), 0700), 0, "mkdir is not handled");
	CHECK_EQ(rmdir(in("sub/d")), 0, "rmdir is not handled");
	rfd = ruleset(LANDLOCK_ACCESS_FS_WRITE_FILE, NULL, 0);
	for (i = 3; i <= 16 && ret == 0; i++)
		ret = (int)restrict_self(rfd);
	CHECK(ret == 0 && i == 17, "layers 3 to 16");
	CHECK_ERRNO(restrict_self(rfd), E2BIG, "a 17th layer");
	close(rfd);
	CHECK_EQ(can_read(in("sub/file")), 0, "reading in sub still works");
	return GUEST_DONE();
}

static int peek(pid_t pid, void *addr)
{
	char buf[8];
	struct iovec l = {buf, sizeof(buf)}, r = {addr, sizeof(buf)};

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(buf) ? 0 : -errno;
}

/* A restricted child cannot read its unrestricted parent's memory; its
 * own child (in its domain) it can. */
static int scope(pid_t parent, void *addr)
{
	int rfd, sync[2];
	pid_t grandchild;
	char c;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	CHECK_EQ(peek(parent, addr), 0, "unrestricted: reading the parent's memory");
	rfd = ruleset(LANDLOCK_ACCESS_FS_WRITE_FILE, NULL, 0);
	CHECK_EQ(restrict_self(rfd), 0, "restrict self");
	close(rfd);
	CHECK_EQ(peek(parent, addr), -EPERM, "restricted: reading the parent's memory");
	if (pipe(sync))
		return 1;
	grandchild = fork();
	if (grandchild == 0) {
		read(sync[0], &c, 1);
		_exit(0);
	}
	CHECK_EQ(peek(grandchild, addr), 0, "restricted: reading its own child's memory");
	write(sync[1], "x", 1);
	waitpid(grandchild, NULL, 0);
	return GUEST_DONE();
}

static int run(int (*fn)(void), const char *what)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		guest_failures = 0;
		_exit(fn());
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
	return 0;
}

static char secret[8] = "secret";

static int scope_here(void)
{
	return scope(getppid(), secret);
}

int main(void)
{
	long abi = create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int fd;

	if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP)) {
		printf("SKIP: landlock is not enabled on this kernel\n");
		return 77;
	}
	CHECK(abi >= 2, "the ABI version is at least 2");
	snprintf(dir, sizeof(dir), "/tmp/ll-basic-XXXXXX");
	if (!mkdtemp(dir) || mkdir(in("sub"), 0700))
		return 2;
	fd = open(in("file"), O_WRONLY | O_CREAT, 0600);
	close(fd);
	fd = open(in("sub/file"), O_WRONLY | O_CREAT, 0600);
	close(fd);

	errors();
	run(no_nnp, "the no_new_privs checks passed");
	run(layers, "the layer checks passed");
	run(scope_here, "the ptrace scope checks passed");

	unlink(in("sub/file"));
	rmdir(in("sub"));
	unlink(in("file"));
	rmdir(dir);
	return GUEST_DONE();
}
