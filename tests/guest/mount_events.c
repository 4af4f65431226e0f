/*
 * What mounts look like from the outside, in a mount namespace of the
 * test's own (every mount private first: natively nothing reaches the
 * host's), on tmpfs mounts of its own: a poll of /proc/self/mountinfo
 * reports POLLPRI once per change (mount, remount, unmount); the file,
 * read again from the start, lists the change; mountinfo's options (the
 * mount's atime mode, the filesystem's mode=); a read-only bind refuses
 * O_TRUNC whatever the access mode; a noexec mount refuses PROT_EXEC to
 * mprotect; tmpfs's nr_inodes= limits its inodes; reads move atimes as relatime, strictatime and noatime say;
 * /proc/sys/fs/mount-max is there.
 */
#include "mountguest.h"
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>

/* POLLPRI on fd now (a poll that takes no time)? */
static int pri(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLPRI);
}

/* Read fd from the start: does it name path? */
static int lists(int fd, const char *path)
{
	static char buf[65536];
	size_t n = 0;
	long r;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return strstr(buf, path) != NULL;
}

/* The mountinfo line of the topmost mount at path, in line. */
static int line_of(const char *path, char *line, size_t size)
{
	char buf[4096], mp[1024];
	int found = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "%*s %*s %*s %*s %1023s", mp) == 1 && strcmp(mp, path) == 0) {
			snprintf(line, size, "%s", buf);
			found = 1;
		}
	fclose(f);
	return found;
}

static void events(void)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY);

	CHECK(fd >= 0, "open /proc/self/mountinfo");
	CHECK(!pri(fd), "no event at first");
	mkdir(P("e"), 0755);
	CHECK(mount("none", P("e"), "tmpfs", 0, NULL) == 0, "a tmpfs on e");
	CHECK(pri(fd), "the mount is an event");
	CHECK(!pri(fd), "reported once");
	CHECK(lists(fd, P("e")) == 1, "read again, the file lists it");
	CHECK(mount(NULL, P("e"), NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0, "remount read-only");
	CHECK(pri(fd), "the remount is an event");
	CHECK(umount2(P("e"), 0) == 0, "unmount e");
	CHECK(pri(fd) && lists(fd, P("e")) == 0, "the unmount is an event, e is gone");
	close(fd);
}

static void options(void)
{
	char line[4096];

	mkdir(P("o"), 0755);
	CHECK(mount("none", P("o"), "tmpfs", MS_NOATIME | MS_STRICTATIME, "mode=0710") == 0,
	      "a tmpfs with noatime, strictatime and mode=0710");
	CHECK(line_of(P("o"), line, sizeof(line)), "in mountinfo");
	CHECK(!strstr(line, "noatime") && !strstr(line, "relatime"), "strictatime wins");
	CHECK(strstr(line, "mode=710") != NULL, "the filesystem's options follow the type");
	CHECK(umount2(P("o"), 0) == 0, "unmount o");
	mkdir(P("r"), 0755);
	CHECK(mount("none", P("r"), "tmpfs", 0, NULL) == 0, "a tmpfs on r");
	CHECK(line_of(P("r"), line, sizeof(line)) && strstr(line, " rw,relatime "),
	      "relatime by default");
	CHECK(umount2(P("r"), 0) == 0, "unmount r");
}

/* Set path's atime and mtime to now - a and now - m seconds, read a byte:
 * did its atime move? */
static int atime_moves(const char *path, int a, int m)
{
	struct timespec now, ts[2];
	struct stat st;
	char c;
	int fd;

	clock_gettime(CLOCK_REALTIME, &now);
	ts[0] = (struct timespec){now.tv_sec - a, 0};
	ts[1] = (struct timespec){now.tv_sec - m, 0};
	if (utimensat(AT_FDCWD, path, ts, 0))
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1 || fstat(fd, &st))
		return -1;
	close(fd);
	return st.st_atim.tv_sec != ts[0].tv_sec;
}

/* The atime modes: relatime moves an atime only past the last change. */
static void atimes(void)
{
	static const struct {
		const char *name;
		unsigned long flags;
	} modes[] = {{"relatime", 0}, {"strictatime", MS_STRICTATIME}, {"noatime", MS_NOATIME}};

	mkdir(P("t"), 0755);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char what[128];
		int fd, newer, older;
		CHECK(mount("none", P("t"), "tmpfs", modes[i].flags, NULL) == 0, modes[i].name);
		fd = open(P("t/f"), O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0, "a file of one byte");
		/* The utimensat makes ctime now: an atime newer than it is in the future. */
		newer = atime_moves(P("t/f"), -100, 20);
		older = atime_moves(P("t/f"), 20, 10);
		snprintf(what, sizeof(what), "%s: a read moves an atime newer than the last change: %s",
			 modes[i].name, newer == 1 ? "yes" : newer == 0 ? "no" : "error");
		CHECK(newer >= 0, what);
		snprintf(what, sizeof(what), "%s: a read moves an atime older than the last change: %s",
			 modes[i].name, older == 1 ? "yes" : older == 0 ? "no" : "error");
		CHECK(older >= 0, what);
		CHECK(umount2(P("t"), 0) == 0, "unmount t");
	}
}

/* nr_inodes=3: the root and two more; statfs counts them. */
static void inode_limit(void)
{
	struct statfs sf;
	char line[4096];
	int fd;

	mkdir(P("n"), 0755);
	CHECK(mount("none", P("n"), "tmpfs", 0, "nr_inodes=3") == 0, "a tmpfs with nr_inodes=3");
	CHECK(statfs(P("n"), &sf) == 0 && sf.f_files == 3 && sf.f_ffree == 2,
	      "statfs: 3 inodes, 2 free");
	CHECK(line_of(P("n"), line, sizeof(line)) && strstr(line, "nr_inodes=3"),
	      "mountinfo shows nr_inodes=3");
	fd = creat(P("n/a"), 0644);
	CHECK(fd >= 0 && close(fd) == 0 && mkdir(P("n/b"), 0755) == 0, "two inodes made");
	CHECK_ERRNO(creat(P("n/c"), 0644), ENOSPC, "a third");
	CHECK(unlink(P("n/a")) == 0 && statfs(P("n"), &sf) == 0 && sf.f_ffree == 1,
	      "an unlink gives one back");
	CHECK(umount2(P("n"), 0) == 0, "unmount n");
}

static void readonly_and_noexec(void)
{
	int fd;
	void *p;

	mkdir(P("w"), 0755);
	mkdir(P("ro"), 0755);
	CHECK(mount("none", P("w"), "tmpfs", MS_NOEXEC, NULL) == 0, "a noexec tmpfs on w");
	fd = open(P("w/f"), O_CREAT | O_RDWR, 0755);
	CHECK(fd >= 0 && write(fd, "data", 4) == 4, "a file in it");
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED, "mapped for reading");
	CHECK_ERRNO(mprotect(p, PAGE, PROT_READ | PROT_EXEC), EACCES, "mprotect to PROT_EXEC");
	munmap(p, PAGE);
	close(fd);
	CHECK(mount(P("w"), P("ro"), NULL, MS_BIND, NULL) == 0 &&
		      mount(NULL, P("ro"), NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
	      "a read-only bind of it");
	CHECK_ERRNO(open(P("ro/f"), O_RDONLY | O_TRUNC), EROFS, "O_RDONLY | O_TRUNC on it");
	CHECK_ERRNO(open(P("ro/f"), O_RDWR), EROFS, "O_RDWR on it");
	fd = open(P("w/f"), O_RDONLY | O_TRUNC);
	CHECK(fd >= 0, "O_RDONLY | O_TRUNC where it is writable");
	CHECK_EQ(lseek(fd, 0, SEEK_END), 0, "truncates the file");
	close(fd);
	CHECK(umount2(P("ro"), 0) == 0 && umount2(P("w"), 0) == 0, "unmount both");
}

int main(void)
{
	char buf[32];
	int fd;

	if (mnt_enter("mevents"))
		return 1;
	events();
	options();
	readonly_and_noexec();
	atimes();
	inode_limit();
	fd = open("/proc/sys/fs/mount-max", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && atoi(buf) > 0, "mount-max is a number");
	if (fd >= 0)
		close(fd);
	mnt_leave();
	return GUEST_DONE();
}
