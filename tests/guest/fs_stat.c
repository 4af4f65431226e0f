/*
 * Guest test: file attributes, in a fresh directory under /tmp. stat,
 * lstat, fstat, newfstatat and statx agree (size, mode, nlink, uid, gid,
 * type, inode); statfs and fstatfs; chmod, fchmod, fchmodat; chown,
 * fchown, lchown, fchownat to the same ids (which clears set-user-ID);
 * utimensat, futimens, utimes, futimesat and utime (values read back,
 * UTIME_NOW, UTIME_OMIT, mtime moving on write); umask; access,
 * faccessat and faccessat2 as root.
 */
#include "fsguest.h"

#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <utime.h>

/* Do S and X describe the same file the same way? */
static int same(const struct stat *s, const struct statx *x)
{
	return s->st_ino == x->stx_ino && major(s->st_dev) == x->stx_dev_major &&
	       minor(s->st_dev) == x->stx_dev_minor && s->st_mode == x->stx_mode &&
	       s->st_nlink == x->stx_nlink && s->st_uid == x->stx_uid && s->st_gid == x->stx_gid &&
	       s->st_size == (off_t)x->stx_size;
}

static int same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_mode == b->st_mode &&
	       a->st_nlink == b->st_nlink && a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	       a->st_size == b->st_size;
}

static unsigned mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static void stats(void)
{
	struct stat s1, s2, s3, s4;
	struct statx x;
	int fd;

	CHECK_EQ(fs_put("f", "0123456789"), 0, "f: 10 bytes");
	CHECK_EQ(stat("f", &s1), 0, "stat");
	CHECK_EQ(lstat("f", &s2), 0, "lstat");
	fd = open("f", O_RDONLY);
	CHECK_EQ(fstat(fd, &s3), 0, "fstat");
	CHECK_EQ(fstatat(AT_FDCWD, "f", &s4, 0), 0, "newfstatat");
	CHECK(same_stat(&s1, &s2) && same_stat(&s1, &s3) && same_stat(&s1, &s4),
	      "stat, lstat, fstat and newfstatat agree");
	printf("f: mode %o size %ld nlink %ld\n", s1.st_mode, (long)s1.st_size, (long)s1.st_nlink);
	CHECK(s1.st_uid == getuid() && s1.st_gid == getgid(), "owned by the creator");
	CHECK(s1.st_blksize > 0, "st_blksize is positive");
	CHECK_EQ(statx(AT_FDCWD, "f", 0, STATX_BASIC_STATS, &x), 0, "statx");
	CHECK_EQ(x.stx_mask & STATX_BASIC_STATS, STATX_BASIC_STATS, "statx has the basic stats");
	CHECK(same(&s1, &x), "statx agrees with stat");
	CHECK(x.stx_mtime.tv_sec == s1.st_mtim.tv_sec && x.stx_mtime.tv_nsec == s1.st_mtim.tv_nsec,
	      "statx's mtime is stat's");
	CHECK_EQ(statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &x), 0,
		 "statx AT_EMPTY_PATH");
	CHECK(same(&s1, &x), "agrees");
	CHECK_ERRNO(statx(AT_FDCWD, "f", 0x80000000, STATX_BASIC_STATS, &x), EINVAL,
		    "statx with unknown flags");
	CHECK_ERRNO(statx(AT_FDCWD, "f", 0, STATX__RESERVED, &x), EINVAL,
		    "statx with the reserved mask bit");
	CHECK_ERRNO(statx(AT_FDCWD, "f", AT_STATX_FORCE_SYNC | AT_STATX_DONT_SYNC,
			  STATX_BASIC_STATS, &x),
		    EINVAL, "statx FORCE_SYNC with DONT_SYNC");
	CHECK_ERRNO(statx(AT_FDCWD, "missing", 0, STATX_BASIC_STATS, &x), ENOENT,
		    "statx of a missing file");
	close(fd);

	CHECK_EQ(symlink("f", "l"), 0, "symlink l -> f");
	CHECK_EQ(lstat("l", &s2), 0, "lstat l");
	CHECK(S_ISLNK(s2.st_mode) && s2.st_size == 1,
	      "a symlink whose size is its target's length");
	CHECK(s2.st_ino != s1.st_ino, "with an inode of its own");
	CHECK_EQ(stat("l", &s3), 0, "stat l");
	CHECK(same_stat(&s1, &s3), "stat follows it to f");
	CHECK_EQ(fstatat(AT_FDCWD, "l", &s3, AT_SYMLINK_NOFOLLOW), 0,
		 "fstatat AT_SYMLINK_NOFOLLOW");
	CHECK(same_stat(&s2, &s3), "is lstat");
	CHECK_EQ(statx(AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &x), 0,
		 "statx AT_SYMLINK_NOFOLLOW");
	CHECK(same(&s2, &x), "is lstat");
	CHECK_EQ(statx(AT_FDCWD, "l", 0, STATX_BASIC_STATS, &x), 0, "statx of the link");
	CHECK(same(&s1, &x), "follows it");
	CHECK_ERRNO(fstatat(AT_FDCWD, "f", &s3, 0x1), EINVAL, "fstatat with an unknown flag");

	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(stat("d", &s1), 0, "stat d");
	printf("d: mode %o nlink %ld\n", s1.st_mode, (long)s1.st_nlink);
	CHECK_EQ(mkdir("d/sub", 0755), 0, "mkdir d/sub");
	CHECK_EQ(stat("d", &s2), 0, "stat d");
	CHECK_EQ(s2.st_nlink, s1.st_nlink + 1, "a subdirectory adds a link to its parent");
	CHECK_EQ(stat("d/sub/..", &s3), 0, "stat d/sub/..");
	CHECK(s3.st_ino == s2.st_ino, "d/sub/.. is d");
}

static void fsstat(void)
{
	struct statfs a, b;
	int fd;

	CHECK_EQ(statfs(".", &a), 0, "statfs of the cwd");
	CHECK(a.f_bsize > 0, "f_bsize is positive");
	CHECK(a.f_blocks >= a.f_bfree && a.f_bfree >= a.f_bavail, "blocks >= free >= available");
	CHECK(a.f_files >= a.f_ffree, "files >= free files");
	CHECK_EQ(a.f_namelen, 255, "names of up to 255 bytes");
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fstatfs(fd, &b), 0, "fstatfs");
	CHECK(a.f_type == b.f_type && a.f_bsize == b.f_bsize, "agrees with statfs");
	close(fd);
	CHECK_EQ(statfs("/proc", &a), 0, "statfs /proc");
	CHECK_EQ(a.f_type, 0x9fa0, "/proc is procfs");
	CHECK_ERRNO(statfs("missing", &a), ENOENT, "statfs of a missing path");
}

static void modes(void)
{
	struct stat st;
	int fd;

	CHECK_EQ(chmod("f", 0600), 0, "chmod 0600");
	CHECK_EQ(mode_of("f"), S_IFREG | 0600, "the mode is 0600");
	CHECK_EQ(chmod("f", 07777), 0, "chmod 07777");
	CHECK_EQ(mode_of("f"), S_IFREG | 07777, "the mode is 07777");
	CHECK_EQ(chmod("l", 0640), 0, "chmod through a symlink");
	CHECK_EQ(mode_of("f"), S_IFREG | 0640, "changes the target");
	CHECK(S_ISLNK(mode_of("l")) && (mode_of("l") & 0777) == 0777, "not the symlink");
	fd = open("f", O_RDONLY);
	CHECK_EQ(fchmod(fd, 0400), 0, "fchmod 0400 on a read-only descriptor");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_mode, S_IFREG | 0400, "the mode is 0400");
	close(fd);
	CHECK_EQ(fchmodat(AT_FDCWD, "f", 0644, 0), 0, "fchmodat 0644");
	CHECK_EQ(mode_of("f"), S_IFREG | 0644, "the mode is 0644");
	CHECK_EQ(chmod("d", 01777), 0, "chmod a directory 01777");
	CHECK_EQ(mode_of("d"), S_IFDIR | 01777, "the sticky bit is kept");
	CHECK_EQ(chmod("d", 0755), 0, "chmod it back");
	CHECK_ERRNO(chmod("missing", 0644), ENOENT, "chmod of a missing file");
	CHECK_ERRNO(fchmod(99, 0644), EBADF, "fchmod of a closed descriptor");

	/* umask */
	CHECK_EQ(umask(027), 022, "umask returns the old mask, 022");
	fd = open("u1", O_WRONLY | O_CREAT | O_EXCL, 0666);
	close(fd);
	CHECK_EQ(mode_of("u1"), S_IFREG | 0640, "umask 027: a 0666 file is 0640");
	CHECK_EQ(mkdir("u2", 0777), 0, "mkdir 0777");
	CHECK_EQ(mode_of("u2"), S_IFDIR | 0750, "umask 027: a 0777 directory is 0750");
	CHECK_EQ(mknod("u3", S_IFREG | 0666, 0), 0, "mknod a regular file");
	CHECK_EQ(mode_of("u3"), S_IFREG | 0640, "umask 027: mknod 0666 gives 0640");
	CHECK_EQ(mkfifo("u4", 0666), 0, "mkfifo 0666");
	CHECK_EQ(mode_of("u4"), S_IFIFO | 0640, "umask 027: the fifo is 0640");
	CHECK_EQ(umask(0), 027, "umask 0 returns 027");
	CHECK_EQ(mkdir("u5", 0777), 0, "mkdir 0777");
	CHECK_EQ(mode_of("u5"), S_IFDIR | 0777, "umask 0: 0777");
	CHECK_EQ(chmod("u5", 0777), 0, "chmod is not masked");
	CHECK_EQ(umask(0777 | 07000), 0, "umask keeps only the permission bits");
	CHECK_EQ(umask(022), 0777, "umask was 0777");
}

static void owners(void)
{
	struct stat st;
	int fd;

	CHECK_EQ(chown("f", getuid(), getgid()), 0, "chown to the same ids");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(st.st_uid == getuid() && st.st_gid == getgid(), "the ids are unchanged");
	CHECK_EQ(chown("f", -1, -1), 0, "chown -1 -1");
	fd = open("f", O_RDONLY);
	CHECK_EQ(fchown(fd, getuid(), -1), 0, "fchown");
	close(fd);
	CHECK_EQ(lchown("l", getuid(), getgid()), 0, "lchown the symlink");
	CHECK_EQ(fchownat(AT_FDCWD, "l", getuid(), getgid(), AT_SYMLINK_NOFOLLOW), 0,
		 "fchownat AT_SYMLINK_NOFOLLOW");
	CHECK_ERRNO(fchownat(AT_FDCWD, "f", 0, 0, 0x1), EINVAL, "fchownat with an unknown flag");
	CHECK_ERRNO(chown("missing", 0, 0), ENOENT, "chown of a missing file");

	CHECK_EQ(chmod("f", 06755), 0, "chmod 06755");
	CHECK_EQ(chown("f", getuid(), getgid()), 0, "chown to the same ids");
	CHECK_EQ(mode_of("f"), S_IFREG | 0755, "chown clears set-user-ID and set-group-ID");
	CHECK_EQ(chmod("f", 02745), 0, "chmod 02745 (setgid, no group exec)");
	CHECK_EQ(chown("f", -1, -1), 0, "chown -1 -1");
	CHECK_EQ(mode_of("f"), S_IFREG | 02745, "keeps a set-group-ID without group exec");
	CHECK_EQ(chmod("d", 06755), 0, "chmod a directory 06755");
	CHECK_EQ(chown("d", getuid(), getgid()), 0, "chown the directory");
	CHECK_EQ(mode_of("d"), S_IFDIR | 06755, "a directory keeps its set-id bits");
	CHECK_EQ(chmod("f", 0644), 0, "chmod f back");
	CHECK_EQ(chmod("d", 0755), 0, "chmod d back");
}

static int ts_eq(struct timespec a, long sec, long nsec)
{
	return a.tv_sec == sec && a.tv_nsec == nsec;
}

/* Is a later than b? */
static int ts_after(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

static void timestamps(void)
{
	struct timespec ts[2], now;
	struct timeval tv[2];
	struct utimbuf ub;
	struct stat st, st2;
	int fd;

	ts[0] = (struct timespec){1000000000, 123456789};
	ts[1] = (struct timespec){1200000000, 5};
	CHECK_EQ(utimensat(AT_FDCWD, "f", ts, 0), 0, "utimensat");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(ts_eq(st.st_atim, 1000000000, 123456789), "atime is what was asked");
	CHECK(ts_eq(st.st_mtim, 1200000000, 5), "mtime is what was asked");

	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = (struct timespec){1300000000, 0};
	CHECK_EQ(utimensat(AT_FDCWD, "f", ts, 0), 0, "utimensat with UTIME_OMIT for atime");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(ts_eq(st.st_atim, 1000000000, 123456789), "atime is kept");
	CHECK(ts_eq(st.st_mtim, 1300000000, 0), "mtime is set");

	clock_gettime(CLOCK_REALTIME, &now);
	ts[0].tv_nsec = UTIME_NOW;
	ts[1].tv_nsec = UTIME_OMIT;
	CHECK_EQ(utimensat(AT_FDCWD, "f", ts, 0), 0, "utimensat with UTIME_NOW for atime");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(st.st_atim.tv_sec >= now.tv_sec - 1 && st.st_atim.tv_sec <= now.tv_sec + 5,
	      "atime is now");
	CHECK(ts_eq(st.st_mtim, 1300000000, 0), "mtime is kept");
	CHECK(st.st_ctim.tv_sec >= now.tv_sec - 1, "ctime is now");
	{
		struct stat b = st;
		usleep(20000);
		CHECK_EQ(truncate("f", b.st_size + 1), 0, "truncate(2) to another size");
		CHECK_EQ(stat("f", &st), 0, "stat");
		CHECK(ts_after(st.st_ctim, b.st_ctim) && ts_after(st.st_mtim, b.st_mtim),
		      "truncate(2) moves ctime and mtime on");
	}

	CHECK_EQ(utimensat(AT_FDCWD, "f", NULL, 0), 0, "utimensat with NULL times");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(st.st_mtim.tv_sec >= now.tv_sec - 1 && st.st_mtim.tv_sec <= now.tv_sec + 5,
	      "mtime is now");

	ts[0] = (struct timespec){1, 0};
	ts[1] = (struct timespec){2, 0};
	CHECK_EQ(utimensat(AT_FDCWD, "l", ts, AT_SYMLINK_NOFOLLOW), 0,
		 "utimensat AT_SYMLINK_NOFOLLOW");
	CHECK_EQ(lstat("l", &st), 0, "lstat");
	CHECK(ts_eq(st.st_atim, 1, 0) && ts_eq(st.st_mtim, 2, 0), "sets the symlink's times");
	CHECK_EQ(stat("f", &st2), 0, "stat f");
	CHECK(st2.st_mtim.tv_sec >= now.tv_sec - 1, "not the target's");

	fd = open("f", O_RDWR);
	ts[0] = (struct timespec){3, 30};
	ts[1] = (struct timespec){4, 40};
	CHECK_EQ(futimens(fd, ts), 0, "futimens");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK(ts_eq(st.st_atim, 3, 30) && ts_eq(st.st_mtim, 4, 40), "the times are set");
	CHECK_EQ(write(fd, "x", 1), 1, "write");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK(st.st_mtim.tv_sec >= now.tv_sec - 1, "a write moves mtime to now");
	CHECK(ts_eq(st.st_atim, 3, 30), "not atime");
	close(fd);

	tv[0] = (struct timeval){5, 6};
	tv[1] = (struct timeval){7, 8};
	CHECK_EQ(utimes("f", tv), 0, "utimes");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(ts_eq(st.st_atim, 5, 6000) && ts_eq(st.st_mtim, 7, 8000), "utimes sets microseconds");
	tv[1] = (struct timeval){9, 10};
	CHECK_EQ(futimesat(AT_FDCWD, "f", tv), 0, "futimesat");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(ts_eq(st.st_mtim, 9, 10000), "futimesat sets mtime");
	ub = (struct utimbuf){11, 12};
	CHECK_EQ(utime("f", &ub), 0, "utime");
	CHECK_EQ(stat("f", &st), 0, "stat");
	CHECK(ts_eq(st.st_atim, 11, 0) && ts_eq(st.st_mtim, 12, 0), "utime sets seconds");

	ts[0] = (struct timespec){0, 1000000000};
	CHECK_ERRNO(utimensat(AT_FDCWD, "f", ts, 0), EINVAL, "utimensat with tv_nsec 1e9");
	ts[0] = (struct timespec){0, 0};
	CHECK_ERRNO(utimensat(AT_FDCWD, "f", ts, 0x1), EINVAL, "utimensat with an unknown flag");
	CHECK_ERRNO(utimensat(AT_FDCWD, "missing", NULL, 0), ENOENT, "utimensat of a missing file");
	/* (a new entry moves its directory's mtime: fs_pending) */
}

static void accesses(void)
{
	CHECK_EQ(fs_put("a", "x"), 0, "make a");
	CHECK_EQ(chmod("a", 0), 0, "chmod a 0");
	CHECK_EQ(access("a", F_OK), 0, "F_OK");
	CHECK_EQ(access("a", R_OK | W_OK), 0, "R_OK|W_OK on a mode 0 file, as root");
	CHECK_ERRNO(access("a", X_OK), EACCES, "X_OK on a mode 0 file, as root");
	CHECK_EQ(chmod("a", 0644), 0, "chmod a 0644");
	CHECK_ERRNO(access("a", X_OK), EACCES, "X_OK on a mode 0644 file");
	CHECK_ERRNO(access("a", R_OK | X_OK), EACCES, "R_OK|X_OK on a mode 0644 file");
	CHECK_EQ(chmod("a", 0010), 0, "chmod a 0010");
	CHECK_EQ(access("a", X_OK), 0, "X_OK when any execute bit is set");
	CHECK_EQ(chmod("d", 0), 0, "chmod d 0");
	CHECK_EQ(access("d", R_OK | W_OK | X_OK), 0, "a mode 0 directory is all right for root");
	CHECK_EQ(chmod("d", 0755), 0, "chmod d back");
	CHECK_ERRNO(access("missing", F_OK), ENOENT, "F_OK of a missing file");
	CHECK_ERRNO(access("a/x", F_OK), ENOTDIR, "a file as a directory");
	CHECK_ERRNO(access("a", 8), EINVAL, "an unknown mode bit");
	CHECK_EQ(faccessat(AT_FDCWD, "a", X_OK, 0), 0, "faccessat");
	CHECK_EQ(faccessat(AT_FDCWD, "a", X_OK, AT_EACCESS), 0, "faccessat AT_EACCESS");
	CHECK_EQ(symlink("missing", "dangling"), 0, "a dangling symlink");
	CHECK_ERRNO(syscall(SYS_faccessat2, AT_FDCWD, "dangling", F_OK, 0), ENOENT,
		    "faccessat2 follows a dangling symlink");
	CHECK_EQ(syscall(SYS_faccessat2, AT_FDCWD, "dangling", F_OK, AT_SYMLINK_NOFOLLOW), 0,
		 "faccessat2 AT_SYMLINK_NOFOLLOW finds the link");
	CHECK_ERRNO(syscall(SYS_faccessat2, AT_FDCWD, "a", F_OK, 0x1), EINVAL,
		    "faccessat2 with an unknown flag");
	{
		int fd = open("a", O_RDONLY);

		CHECK_EQ(syscall(SYS_faccessat2, fd, "", X_OK, AT_EMPTY_PATH), 0,
			 "faccessat2 AT_EMPTY_PATH");
		close(fd);
	}
	CHECK_EQ(access("/proc/self/status", R_OK), 0, "R_OK on /proc/self/status");
	CHECK_EQ(access("/dev/null", R_OK | W_OK), 0, "R_OK|W_OK on /dev/null");
}

int main(void)
{
	fs_enter("fs_stat");
	stats();
	fsstat();
	modes();
	owners();
	timestamps();
	accesses();
	fs_leave();
	return GUEST_DONE();
}
