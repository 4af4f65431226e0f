/* A user namespace of the test's own, as `unshare -r` makes one: the id
 * maps and setgroups through /proc/self, one write per map, then root
 * inside mounts a tmpfs in a new mount namespace (made private first, so
 * natively nothing reaches the host's). */
#include "guest.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
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

static void show(const char *path)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	printf("%s: %s", path, n > 0 ? buf : "(unreadable)\n");
}

static int child(void)
{
	CHECK(unshare(CLONE_NEWUSER) == 0, "unshare(CLONE_NEWUSER)");
	show("/proc/self/uid_map");
	show("/proc/self/setgroups");
	CHECK(put("/proc/self/setgroups", "deny") == 0, "setgroups deny");
	CHECK(put("/proc/self/uid_map", "0 0 1") == 0, "uid_map written");
	CHECK(put("/proc/self/gid_map", "0 0 1") == 0, "gid_map written");
	CHECK_ERRNO(put("/proc/self/uid_map", "0 0 1"), EPERM, "a second uid_map write");
	show("/proc/self/uid_map");
	show("/proc/self/gid_map");
	show("/proc/self/setgroups");
	CHECK(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS) as root of the new namespace");
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "every mount made private");
	CHECK(mount("rungtmp", "/mnt", "tmpfs", 0, NULL) == 0, "tmpfs mounted on /mnt");
	CHECK(close(open("/mnt/a", O_CREAT | O_WRONLY, 0644)) == 0, "root inside creates a file in it");
	CHECK_ERRNO(mount("x", "/mnt", "rung-no-such-fs", 0, NULL), ENODEV, "an unknown type");
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
	show("/proc/self/uid_map");
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's checks passed");
	return GUEST_DONE();
}
