/* Ids through a user namespace: before its maps are written every id reads
 * as the overflow id 65534 (getuid, getresuid, getgroups, stat) and set*id
 * and chown of an id without a name fail with EINVAL; once "1000 0 1" maps
 * uid 1000 to the parent's 0 (as bwrap --uid 1000 does), the caller and /
 * read as 1000 while a file of the parent's uid 1000 stays unmapped. */
#include "guest.h"
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (long)strlen(text) ? 0 : -1;
}

static void show_ids(const char *when)
{
	uid_t r, e, s;
	gid_t groups[4];
	int n = getgroups(4, groups);

	getresuid(&r, &e, &s);
	printf("%s: uid %u euid %u gid %u egid %u resuid %u %u %u", when, getuid(), geteuid(),
	       getgid(), getegid(), r, e, s);
	for (int i = 0; i < n; i++)
		printf(" group %u", groups[i]);
	printf("\n");
}

static void show_owner(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		printf("%s owned by %u:%u\n", path, st.st_uid, st.st_gid);
	else
		printf("%s: stat fails\n", path);
}

static int child(void)
{
	CHECK(unshare(CLONE_NEWUSER) == 0, "unshare(CLONE_NEWUSER)");
	show_ids("no maps");
	show_owner("/");
	show_owner("/tmp/ns_overflow.1000");
	CHECK_ERRNO(setuid(0), EINVAL, "setuid(0) without a uid map");
	CHECK_ERRNO(setgid(0), EINVAL, "setgid(0) without a gid map");
	CHECK_ERRNO(chown("/tmp/ns_overflow.1000", 0, -1), EINVAL, "chown to an unmapped uid");
	CHECK(put("/proc/self/setgroups", "deny") == 0, "setgroups deny");
	CHECK(put("/proc/self/uid_map", "1000 0 1") == 0, "uid_map 1000 0 1");
	CHECK(put("/proc/self/gid_map", "0 0 1") == 0, "gid_map 0 0 1");
	show_ids("mapped");
	show_owner("/tmp/ns_overflow.1000");
	show_owner("/");
	CHECK(setuid(1000) == 0, "setuid(1000): the parent's root");
	CHECK_ERRNO(setuid(0), EINVAL, "setuid(0): unmapped");
	return GUEST_DONE();
}

int main(void)
{
	int status, fd;
	pid_t pid;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	unlink("/tmp/ns_overflow.1000");
	fd = open("/tmp/ns_overflow.1000", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && fchown(fd, 1000, 1000) == 0, "a file of uid 1000");
	close(fd);
	CHECK(setgroups(0, NULL) == 0, "no supplementary groups");
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's checks passed");
	unlink("/tmp/ns_overflow.1000");
	return GUEST_DONE();
}
