/* Mounts in a mount namespace of the test's own: a child unshares
 * CLONE_NEWNS, makes every mount private (so nothing can reach the
 * namespace it came from: natively that is the host's), mounts a tmpfs
 * on /mnt, binds a directory of it, remounts the bind read-only and
 * unmounts; the parent, still in the first namespace, never sees any of
 * it. */
#include "guest.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Is there a line "SOURCE TARGET TYPE ..." in /proc/self/mounts? */
static int mounted(const char *source, const char *target, const char *type)
{
	char s[256], t[256], ty[64];
	int found = 0;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", s, t, ty) == 3)
		if (!strcmp(s, source) && !strcmp(t, target) && !strcmp(ty, type))
			found = 1;
	fclose(f);
	return found;
}

static int entries(const char *dir)
{
	int n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int child(void)
{
	int fd;

	CHECK(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS)");
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "every mount made private");
	CHECK_ERRNO(mount("x", "/mnt", "rung-no-such-fs", 0, NULL), ENODEV,
		    "an unknown filesystem type");
	CHECK(mount("rungtmp", "/mnt", "tmpfs", 0, "mode=755") == 0, "tmpfs mounted on /mnt");
	CHECK_EQ(mounted("rungtmp", "/mnt", "tmpfs"), 1, "/proc/self/mounts lists it");
	CHECK_EQ(entries("/mnt"), 0, "the new tmpfs is empty");
	CHECK(mkdir("/mnt/d", 0755) == 0 && mkdir("/mnt/e", 0755) == 0, "two directories in it");
	fd = open("/mnt/d/f", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "hi", 2) == 2, "a file in one");
	close(fd);
	CHECK(mount("/mnt/d", "/mnt/e", NULL, MS_BIND, NULL) == 0, "bind mount of d on e");
	CHECK_EQ(access("/mnt/e/f", F_OK), 0, "the file is seen through the bind");
	CHECK(mount(NULL, "/mnt/e", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
	      "the bind remounted read-only");
	CHECK_ERRNO(open("/mnt/e/g", O_CREAT | O_WRONLY, 0644), EROFS,
		    "creating through the read-only bind");
	fd = open("/mnt/d/g", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "creating through the writable original");
	close(fd);
	CHECK_ERRNO(umount2("/mnt/d", 0), EINVAL, "umount of a directory that is no mount point");
	CHECK_ERRNO(umount2("/mnt", 0), EBUSY, "umount of /mnt while the bind is on it");
	CHECK(umount2("/mnt/e", 0) == 0, "umount of the bind");
	CHECK_EQ(entries("/mnt/e"), 0, "e is empty again");
	CHECK(umount2("/mnt", MNT_DETACH) == 0, "lazy umount of the tmpfs");
	CHECK_EQ(mounted("rungtmp", "/mnt", "tmpfs"), 0, "/proc/self/mounts no longer lists it");
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
	CHECK_EQ(mounted("rungtmp", "/mnt", "tmpfs"), 0, "the parent's namespace never had it");
	return GUEST_DONE();
}
