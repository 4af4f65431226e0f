/* setns(2) through /proc/PID/ns: a child opens its parent's mount and UTS
 * namespaces, unshares both, mounts a tmpfs and renames its host, then
 * setns takes it back: the old mount table (no tmpfs) and hostname again.
 * The links of one namespace stat as one file (st_dev, st_ino), a new
 * namespace's differ; a wrong nstype and a file that is no namespace are
 * EINVAL. */
#include "guest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static int same(const char *a, const char *b)
{
	struct stat x, y;

	if (stat(a, &x) != 0 || stat(b, &y) != 0)
		return -1;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static int fstat_same(int fd, const char *path)
{
	struct stat x, y;

	if (fstat(fd, &x) != 0 || stat(path, &y) != 0)
		return -1;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static char first_host[65];

static void show_host(const char *when)
{
	struct utsname u;

	uname(&u);
	printf("%s: hostname %s, /mnt/mark %s\n", when,
	       strcmp(u.nodename, first_host) == 0 ? "the first one" : u.nodename,
	       access("/mnt/mark", F_OK) == 0 ? "exists" : "absent");
	fflush(stdout);
}

static int child(void)
{
	char parent[64];
	int mnt, uts, plain;
	struct stat st;

	snprintf(parent, sizeof(parent), "/proc/%d/ns/mnt", (int)getppid());
	CHECK(same("/proc/self/ns/mnt", parent) == 1, "the child's mount namespace is its parent's");
	CHECK(stat("/proc/self/ns/mnt", &st) == 0 && S_ISREG(st.st_mode) &&
		      (st.st_mode & 07777) == 0444,
	      "a /proc/self/ns link leads to a 0444 regular file");
	mnt = open("/proc/self/ns/mnt", O_RDONLY);
	uts = open("/proc/self/ns/uts", O_RDONLY);
	CHECK(mnt >= 0 && uts >= 0, "the namespaces opened");
	CHECK(unshare(CLONE_NEWNS | CLONE_NEWUTS) == 0, "unshare(CLONE_NEWNS | CLONE_NEWUTS)");
	CHECK(same("/proc/self/ns/mnt", parent) == 0, "the new mount namespace is another file");
	CHECK(fstat_same(mnt, parent) == 1, "the open one is still the parent's");
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "mounts made private");
	CHECK(mount("rungtmp", "/mnt", "tmpfs", 0, NULL) == 0, "tmpfs on /mnt");
	CHECK(close(open("/mnt/mark", O_CREAT | O_WRONLY, 0644)) == 0, "/mnt/mark made");
	CHECK(sethostname("ns-setns", 8) == 0, "sethostname");
	show_host("unshared");

	CHECK_ERRNO(setns(mnt, CLONE_NEWUTS), EINVAL, "setns of a mount namespace as UTS");
	plain = open("/proc/self/stat", O_RDONLY);
	CHECK_ERRNO(setns(plain, 0), EINVAL, "setns of a file that is no namespace");
	CHECK_ERRNO(setns(-1, 0), EBADF, "setns of no descriptor");
	CHECK(setns(mnt, CLONE_NEWNS) == 0, "setns back to the parent's mount namespace");
	CHECK(setns(uts, 0) == 0, "setns back to its UTS namespace (nstype 0)");
	CHECK(same("/proc/self/ns/mnt", parent) == 1, "in the parent's mount namespace again");
	show_host("after setns");
	return GUEST_DONE();
}

int main(void)
{
	struct utsname u;
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	uname(&u);
	snprintf(first_host, sizeof(first_host), "%s", u.nodename);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's checks passed");
	return GUEST_DONE();
}
