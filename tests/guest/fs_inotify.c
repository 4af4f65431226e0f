/*
 * Guest test: inotify. The exact events (watch, mask, name, shared rename
 * cookies) of creating, writing, closing, renaming, linking, unlinking,
 * rmdir, chmod and inotify_rm_watch, on a directory watch and a file
 * watch; a watched directory moved and removed; sendfile, copy_file_range
 * and readdir; O_TRUNC, utimes, chown, dup, O_PATH; IN_ONESHOT, IN_MASK_ADD, IN_MASK_CREATE, IN_EXCL_UNLINK,
 * IN_ONLYDIR, IN_DONT_FOLLOW; the same inode watched twice; coalescing of
 * identical events; IN_DELETE_SELF of an open file at its close; read's
 * EINVAL for a short buffer, FIONREAD, poll and epoll readiness;
 * IN_Q_OVERFLOW past max_queued_events; EMFILE past max_user_instances;
 * and the errors. In /tmp (the overlay in rung) and again on a tmpfs
 * (/dev/shm).
 */
#include "fsguest.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/wait.h>

#ifndef IN_MASK_CREATE
#define IN_MASK_CREATE 0x10000000
#endif

/* Watch descriptors and the names they print as. */
static int wds[8];
static const char *wd_names[8];
static int nwds;

static void name_wd(int wd, const char *name)
{
	wds[nwds] = wd;
	wd_names[nwds++] = name;
}

static const char *wd_name(int wd)
{
	for (int i = 0; i < nwds; i++)
		if (wds[i] == wd)
			return wd_names[i];
	return wd == -1 ? "-1" : "?";
}

static const char *mask_text(uint32_t m)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} bits[] = {
		{IN_ACCESS, "ACCESS"},
		{IN_MODIFY, "MODIFY"},
		{IN_ATTRIB, "ATTRIB"},
		{IN_CLOSE_WRITE, "CLOSE_WRITE"},
		{IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"},
		{IN_OPEN, "OPEN"},
		{IN_MOVED_FROM, "MOVED_FROM"},
		{IN_MOVED_TO, "MOVED_TO"},
		{IN_CREATE, "CREATE"},
		{IN_DELETE, "DELETE"},
		{IN_DELETE_SELF, "DELETE_SELF"},
		{IN_MOVE_SELF, "MOVE_SELF"},
		{IN_UNMOUNT, "UNMOUNT"},
		{IN_Q_OVERFLOW, "Q_OVERFLOW"},
		{IN_IGNORED, "IGNORED"},
		{IN_ISDIR, "ISDIR"},
	};
	static char out[256];

	out[0] = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (m & bits[i].bit) {
			strcat(out, out[0] ? "|" : "");
			strcat(out, bits[i].name);
			m &= ~bits[i].bit;
		}
	}
	if (m)
		sprintf(out + strlen(out), "|0x%x", m);
	return out;
}

static char evbuf[65536] __attribute__((aligned(8)));
static uint32_t last_cookie;

/* Read every queued event of fd (non-blocking) and print them, one a line;
 * a MOVED_TO says whether its cookie is its MOVED_FROM's. */
static void drain(int fd, const char *what)
{
	int queued = -1;
	long n, got = 0;

	printf("events of %s:\n", what);
	CHECK_EQ(ioctl(fd, FIONREAD, &queued), 0, "FIONREAD");
	for (;;) {
		n = read(fd, evbuf, sizeof(evbuf));
		if (n < 0)
			break;
		got += n;
		for (long off = 0; off < n;) {
			struct inotify_event *e = (struct inotify_event *)(evbuf + off);
			const char *cookie = "";

			if (e->mask & IN_MOVED_FROM)
				last_cookie = e->cookie;
			if (e->mask & IN_MOVED_TO)
				cookie = e->cookie && e->cookie == last_cookie ? " (same cookie)"
									       : " (other cookie)";
			if (!(e->mask & (IN_MOVED_FROM | IN_MOVED_TO)) && e->cookie)
				cookie = " (a cookie)";
			if (e->len % sizeof(struct inotify_event))
				cookie = " (len not padded)";
			printf("  %s %s%s%s%s\n", wd_name(e->wd), mask_text(e->mask),
			       e->len ? " " : "", e->len ? e->name : "", cookie);
			off += sizeof(*e) + e->len;
		}
	}
	CHECK(errno == EAGAIN, "read ends with EAGAIN");
	CHECK_EQ(queued, got, "FIONREAD said how many bytes were queued");
}

/* Create, write, close, open, read, chmod, rename, mkdir, rmdir, unlink,
 * rm_watch: on a directory watch and a file watch. */
static void test_sequence(void)
{
	int in = inotify_init1(IN_NONBLOCK), fd, d, f;
	char c;

	nwds = 0;
	CHECK(in >= 0, "inotify_init1(IN_NONBLOCK)");
	CHECK_EQ(mkdir("w", 0755), 0, "mkdir w");
	d = inotify_add_watch(in, "w", IN_ALL_EVENTS);
	CHECK(d >= 1, "watch w");
	name_wd(d, "w");
	fd = open("w/f", O_CREAT | O_WRONLY, 0644);
	CHECK_EQ(write(fd, "hi", 2), 2, "write w/f");
	CHECK_EQ(write(fd, "ho", 2), 2, "write w/f again");
	CHECK_EQ(close(fd), 0, "close w/f");
	drain(in, "create, write twice, close");

	f = inotify_add_watch(in, "w/f", IN_ALL_EVENTS);
	CHECK(f > d, "watch w/f: a new wd");
	name_wd(f, "f");
	CHECK_EQ(inotify_add_watch(in, "w/f", IN_ALL_EVENTS), f, "the same inode: the same wd");
	fd = open("w/f", O_RDONLY);
	CHECK_EQ(read(fd, &c, 1), 1, "read w/f");
	CHECK_EQ(close(fd), 0, "close w/f");
	CHECK_EQ(chmod("w/f", 0600), 0, "chmod w/f");
	CHECK_EQ(truncate("w/f", 1), 0, "truncate w/f");
	drain(in, "open, read, close, chmod, truncate");

	CHECK_EQ(rename("w/f", "w/g"), 0, "rename w/f w/g");
	CHECK_EQ(link("w/g", "w/h"), 0, "link w/g w/h");
	CHECK_EQ(unlink("w/h"), 0, "unlink w/h");
	CHECK_EQ(mkdir("w/sub", 0755), 0, "mkdir w/sub");
	CHECK_EQ(rename("w/sub", "w/sub2"), 0, "rename w/sub w/sub2");
	CHECK_EQ(rmdir("w/sub2"), 0, "rmdir w/sub2");
	CHECK_EQ(symlink("g", "w/s"), 0, "symlink w/s");
	CHECK_EQ(unlink("w/s"), 0, "unlink w/s");
	CHECK_EQ(unlink("w/g"), 0, "unlink w/g");
	drain(in, "rename, link, unlink, mkdir, rename, rmdir, symlink, unlink the last name");

	fd = open("w/a", O_CREAT | O_WRONLY, 0644);
	close(fd);
	fd = open("w/b", O_CREAT | O_WRONLY, 0644);
	close(fd);
	f = inotify_add_watch(in, "w/b", IN_ALL_EVENTS);
	name_wd(f, "b");
	CHECK_EQ(rename("w/a", "w/b"), 0, "rename w/a over w/b");
	CHECK_EQ(inotify_rm_watch(in, d), 0, "rm_watch w");
	CHECK_ERRNO(inotify_rm_watch(in, d), EINVAL, "rm_watch w again");
	CHECK_EQ(unlink("w/b"), 0, "unlink w/b");
	drain(in, "rename over a watched file, rm_watch");
	CHECK_EQ(rmdir("w"), 0, "rmdir w");
	close(in);
}

/* A watched directory moved to another and removed; sendfile,
 * copy_file_range and readdir. */
static void test_dirs(void)
{
	int in = inotify_init1(IN_NONBLOCK), fd, out;
	loff_t off = 0;
	DIR *dir;

	nwds = 0;
	mkdir("p", 0755);
	mkdir("q", 0755);
	mkdir("p/s", 0755);
	name_wd(inotify_add_watch(in, "p", IN_ALL_EVENTS), "p");
	name_wd(inotify_add_watch(in, "q", IN_ALL_EVENTS), "q");
	name_wd(inotify_add_watch(in, "p/s", IN_ALL_EVENTS), "s");
	CHECK_EQ(rename("p/s", "q/s"), 0, "rename p/s q/s");
	fd = open("q/s/f", O_CREAT | O_WRONLY, 0644);
	CHECK_EQ(write(fd, "ab", 2), 2, "write q/s/f");
	close(fd);
	out = open("q/s/g", O_CREAT | O_WRONLY, 0644);
	fd = open("q/s/f", O_RDONLY);
	CHECK_EQ(sendfile(out, fd, NULL, 1), 1, "sendfile f to g");
	CHECK_EQ(copy_file_range(fd, &off, out, NULL, 1, 0), 1, "copy_file_range f to g");
	close(fd);
	close(out);
	unlink("q/s/f");
	unlink("q/s/g");
	CHECK_EQ(rmdir("q/s"), 0, "rmdir q/s");
	dir = opendir("q");
	while (dir && readdir(dir))
		;
	if (dir)
		closedir(dir);
	drain(in, "a directory moved and removed; sendfile, copy_file_range, readdir");
	rmdir("p");
	rmdir("q");
	close(in);
}

/* O_TRUNC, utimes, chown, a dup'ed descriptor, O_PATH, stat and access. */
static void test_misc(void)
{
	int in = inotify_init1(IN_NONBLOCK), fd, fd2;
	struct stat st;

	nwds = 0;
	fd = open("m", O_CREAT | O_WRONLY, 0644);
	CHECK_EQ(write(fd, "abc", 3), 3, "write m");
	close(fd);
	name_wd(inotify_add_watch(in, ".", IN_ALL_EVENTS), "cwd");
	fd = open("m", O_WRONLY | O_TRUNC);
	fd2 = dup(fd);
	CHECK_EQ(close(fd), 0, "close one of two descriptors");
	CHECK_EQ(close(fd2), 0, "close the other");
	CHECK_EQ(utimensat(AT_FDCWD, "m", NULL, 0), 0, "utimensat now");
	CHECK_EQ(chown("m", getuid(), getgid()), 0, "chown to its owner");
	fd = open("m", O_PATH);
	CHECK_EQ(fstat(fd, &st), 0, "fstat an O_PATH descriptor");
	close(fd);
	CHECK_EQ(stat("m", &st), 0, "stat");
	CHECK_EQ(access("m", R_OK), 0, "access");
	fd = open("m", O_RDONLY);
	CHECK_EQ(read(fd, &st, 1), 0, "read at the end: nothing");
	close(fd);
	drain(in, "O_TRUNC, dup, utimes, chown, O_PATH, stat, access, an empty read");
	unlink("m");
	close(in);
}

/* The flags of a watch. */
static void test_flags(void)
{
	int in = inotify_init1(IN_NONBLOCK), d, f, fd;

	nwds = 0;
	mkdir("x", 0755);
	fd = open("x/f", O_CREAT | O_RDWR, 0644);
	f = inotify_add_watch(in, "x/f", IN_ATTRIB | IN_ONESHOT);
	name_wd(f, "f");
	chmod("x/f", 0600);
	chmod("x/f", 0644);
	drain(in, "IN_ONESHOT: two chmods");
	f = inotify_add_watch(in, "x/f", IN_ATTRIB);
	CHECK(f > wds[0], "a new watch after IN_ONESHOT: a new wd");
	name_wd(f, "f2");
	CHECK_EQ(inotify_add_watch(in, "x/f", IN_MODIFY | IN_MASK_ADD), f, "IN_MASK_ADD: the same wd");
	CHECK_ERRNO(inotify_add_watch(in, "x/f", IN_MODIFY | IN_MASK_CREATE), EEXIST,
		    "IN_MASK_CREATE on a watched inode");
	chmod("x/f", 0600);
	CHECK_EQ(write(fd, "a", 1), 1, "write");
	drain(in, "IN_MASK_ADD: chmod and write");
	CHECK_EQ(inotify_add_watch(in, "x/f", IN_MODIFY), f, "replace the mask");
	chmod("x/f", 0644);
	CHECK_EQ(write(fd, "b", 1), 1, "write");
	drain(in, "the mask replaced: chmod and write");

	d = inotify_add_watch(in, "x", IN_MODIFY | IN_EXCL_UNLINK);
	name_wd(d, "x");
	CHECK_EQ(write(fd, "c", 1), 1, "write");
	CHECK_EQ(unlink("x/f"), 0, "unlink the open x/f");
	CHECK_EQ(write(fd, "d", 1), 1, "write to the unlinked x/f");
	drain(in, "IN_EXCL_UNLINK: write, unlink, write");
	CHECK_EQ(inotify_add_watch(in, "x", IN_DELETE | IN_DELETE_SELF | IN_CLOSE), d,
		 "watch x for deletes and closes");
	CHECK_EQ(inotify_add_watch(in, "x/..", IN_ONLYDIR | IN_CREATE), d + 1,
		 "IN_ONLYDIR on a directory");
	name_wd(d + 1, "cwd");
	CHECK_EQ(inotify_add_watch(in, "x/f", IN_ALL_EVENTS), -1, "x/f is gone");
	CHECK_EQ(close(fd), 0, "close the unlinked x/f");
	drain(in, "the unlinked x/f closed");

	fd = open("x/g", O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_EQ(symlink("g", "x/l"), 0, "symlink x/l -> g");
	f = inotify_add_watch(in, "x/g", IN_ATTRIB);
	CHECK_EQ(inotify_add_watch(in, "x/l", IN_ATTRIB), f, "a symlink followed: the target's wd");
	CHECK(inotify_add_watch(in, "x/l", IN_ATTRIB | IN_DONT_FOLLOW) > f,
	      "IN_DONT_FOLLOW: the link's own wd");
	CHECK_ERRNO(inotify_add_watch(in, "x/g", IN_ATTRIB | IN_ONLYDIR), ENOTDIR,
		    "IN_ONLYDIR on a file");
	unlink("x/l");
	unlink("x/g");
	rmdir("x");
	close(in);
}

static void test_errors(void)
{
	int in, efd, fd;
	char small[sizeof(struct inotify_event)];

	CHECK_ERRNO(inotify_init1(1), EINVAL, "inotify_init1 with an unknown flag");
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	CHECK_EQ(fcntl(in, F_GETFD), FD_CLOEXEC, "IN_CLOEXEC");
	CHECK_EQ(fcntl(in, F_GETFL) & (O_NONBLOCK | O_ACCMODE), O_NONBLOCK | O_RDONLY,
		 "IN_NONBLOCK, read-only");
	CHECK_ERRNO(read(in, evbuf, sizeof(evbuf)), EAGAIN, "read with nothing queued");
	CHECK_ERRNO(write(in, "x", 1), EBADF, "write to an instance");
	CHECK_EQ(lseek(in, 0, SEEK_SET), 0, "lseek on an instance does nothing");
	CHECK_ERRNO(inotify_add_watch(in, ".", 0), EINVAL, "an empty mask");
	CHECK_ERRNO(inotify_add_watch(in, ".", IN_MODIFY | 0x1000), EINVAL, "an unknown mask bit");
	CHECK_ERRNO(inotify_add_watch(in, ".", IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE), EINVAL,
		    "IN_MASK_ADD with IN_MASK_CREATE");
	CHECK_ERRNO(inotify_add_watch(999, ".", IN_MODIFY), EBADF, "a closed fd");
	efd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_ERRNO(inotify_add_watch(efd, ".", IN_MODIFY), EINVAL, "not an inotify fd");
	CHECK_ERRNO(inotify_rm_watch(efd, 1), EINVAL, "rm_watch on not an inotify fd");
	CHECK_ERRNO(inotify_rm_watch(999, 1), EBADF, "rm_watch on a closed fd");
	CHECK_ERRNO(inotify_rm_watch(in, 12345), EINVAL, "rm_watch of an unknown wd");
	CHECK_ERRNO(inotify_add_watch(in, "nothing-here", IN_MODIFY), ENOENT, "a missing path");
	CHECK_ERRNO(inotify_add_watch(in, "", IN_MODIFY), ENOENT, "an empty path");
	CHECK_ERRNO(inotify_add_watch(in, (const char *)8, IN_MODIFY), EFAULT, "a bad pointer");
	close(efd);

	/* Watching needs read permission. */
	fd = open("secret", O_CREAT | O_WRONLY, 0000);
	close(fd);
	if (geteuid() == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			if (setresuid(65534, 65534, 65534) != 0)
				_exit(3);
			errno = 0;
			_exit(inotify_add_watch(in, "secret", IN_MODIFY) == -1 && errno == EACCES ? 0
												: 1);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "watch without read permission: EACCES");
	} else {
		CHECK_ERRNO(inotify_add_watch(in, "secret", IN_MODIFY), EACCES,
			    "watch without read permission");
		printf("ok: watch without read permission: EACCES\n");
	}
	unlink("secret");

	/* A read too small for the next event. */
	mkdir("y", 0755);
	inotify_add_watch(in, "y", IN_CREATE);
	fd = open("y/a-long-name", O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_ERRNO(read(in, small, sizeof(small)), EINVAL, "read too small for the event");
	CHECK_EQ(read(in, evbuf, sizeof(struct inotify_event) + 16), sizeof(struct inotify_event) + 16,
		 "read of the event: its name padded to 16");
	CHECK_EQ(strcmp(((struct inotify_event *)evbuf)->name, "a-long-name"), 0, "its name");
	unlink("y/a-long-name");
	rmdir("y");
	close(in);
}

/* max_user_instances, counted per user (one of no other process's). */
static void test_instances(void)
{
	pid_t pid;
	int st = 0;

	if (geteuid() != 0) {
		printf("ok: 128 instances a user, then EMFILE (not tested without root)\n");
		return;
	}
	pid = fork();
	if (pid == 0) {
		int n = 0;
		if (setresuid(54321, 54321, 54321) != 0)
			_exit(3);
		while (n < 200 && inotify_init() >= 0)
			n++;
		_exit(n == 128 && errno == EMFILE ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "128 instances a user, then EMFILE");
}

/* poll and epoll readiness; a blocking read woken by another process. */
static void test_readiness(void)
{
	int in = inotify_init(), ep = epoll_create1(0), fd;
	struct pollfd p = {.fd = in, .events = POLLIN};
	struct epoll_event ev = {.events = EPOLLIN}, out;
	pid_t pid;
	long n;

	mkdir("z", 0755);
	inotify_add_watch(in, "z", IN_CREATE);
	CHECK_EQ(poll(&p, 1, 0), 0, "poll: nothing queued");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev), 0, "epoll_ctl ADD");
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0, "epoll_wait: nothing queued");
	pid = fork();
	if (pid == 0) {
		usleep(100000);
		fd = open("z/new", O_CREAT | O_WRONLY, 0644);
		_exit(fd < 0);
	}
	CHECK_EQ(epoll_wait(ep, &out, 1, 10000), 1, "epoll_wait: the child's create");
	CHECK_EQ(out.events, EPOLLIN, "EPOLLIN");
	CHECK_EQ(poll(&p, 1, 0), 1, "poll: an event queued");
	CHECK_EQ(p.revents, POLLIN, "POLLIN");
	n = read(in, evbuf, sizeof(evbuf));
	CHECK_EQ(n, sizeof(struct inotify_event) + 16, "a blocking read: one event");
	CHECK_EQ(strcmp(((struct inotify_event *)evbuf)->name, "new"), 0, "the child's file");
	waitpid(pid, NULL, 0);
	unlink("z/new");
	rmdir("z");
	close(ep);
	close(in);
}

/* Past max_queued_events: one IN_Q_OVERFLOW. */
static void test_overflow(void)
{
	int in = inotify_init1(IN_NONBLOCK), fd, f, max = 0;
	long total = 0, overflows = 0, n;
	FILE *p = fopen("/proc/sys/fs/inotify/max_queued_events", "r");

	CHECK(p && fscanf(p, "%d", &max) == 1, "read max_queued_events");
	if (p)
		fclose(p);
	printf("max_queued_events %d\n", max);
	fd = open("q", O_CREAT | O_RDWR, 0644);
	f = inotify_add_watch(in, "q", IN_ACCESS | IN_MODIFY);
	/* Writes and reads alternate: no two events in a row are alike. */
	for (int i = 0; i < max / 2 + 8; i++) {
		char c = 'x';
		if (pwrite(fd, &c, 1, 0) != 1 || pread(fd, &c, 1, 0) != 1)
			break;
	}
	while ((n = read(in, evbuf, sizeof(evbuf))) > 0) {
		for (long off = 0; off < n;) {
			struct inotify_event *e = (struct inotify_event *)(evbuf + off);
			if (e->mask == IN_Q_OVERFLOW && e->wd == -1)
				overflows++;
			else if (e->wd == f)
				total++;
			off += sizeof(*e) + e->len;
		}
	}
	CHECK_EQ(total, max, "max_queued_events events queued");
	CHECK_EQ(overflows, 1, "then one IN_Q_OVERFLOW");
	CHECK_EQ(pwrite(fd, "y", 1, 0), 1, "a write after the queue drained");
	CHECK_EQ(read(in, evbuf, sizeof(evbuf)), sizeof(struct inotify_event), "its event is queued");
	close(fd);
	unlink("q");
	close(in);
}

int main(void)
{
	FILE *p = fopen("/proc/sys/fs/inotify/max_user_instances", "r");
	int v = 0;

	CHECK(p && fscanf(p, "%d", &v) == 1 && v == 128, "max_user_instances is 128");
	if (p)
		fclose(p);
	fs_enter("fs_inotify");
	test_sequence();
	test_dirs();
	test_misc();
	test_flags();
	test_errors();
	test_instances();
	test_readiness();
	test_overflow();
	fs_leave();

	/* The same on a tmpfs. */
	snprintf(fs_dir, sizeof(fs_dir), "/dev/shm/fs_inotify-%d", (int)getpid());
	if (mkdir(fs_dir, 0755) == 0 && chdir(fs_dir) == 0) {
		printf("on /dev/shm:\n");
		test_sequence();
		fs_leave();
	}
	return GUEST_DONE();
}
