/*
 * Guest test: advisory locks in one process, in a fresh directory under
 * /tmp. fcntl record locks (a process's own locks never conflict, F_GETLK
 * says F_UNLCK, splitting and merging, closing any descriptor of the file
 * drops them), open file description locks (F_OFD_*: they conflict between
 * two opens of one file, and with the process's record locks), and flock
 * (per open file description, independent of fcntl locks).
 */
#include "fsguest.h"

#include <sys/file.h>

static struct flock lk(short type, off_t start, off_t len)
{
	return (struct flock){.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
}

/* F_GETLK-style query CMD on FD for a write lock on [START, START+LEN):
 * the type found, and its range in *S and *L. */
static int probe(int fd, int cmd, off_t start, off_t len, off_t *s, off_t *l, pid_t *pid)
{
	struct flock f = lk(F_WRLCK, start, len);

	if (fcntl(fd, cmd, &f) != 0)
		return -1;
	if (s)
		*s = f.l_start;
	if (l)
		*l = f.l_len;
	if (pid)
		*pid = f.l_pid;
	return f.l_type;
}

static void record(void)
{
	struct flock f;
	off_t s, l;
	pid_t pid;
	int fd1, fd2, fd3, ro;

	CHECK_EQ(fs_put("file", "0123456789"), 0, "make file");
	fd1 = open("file", O_RDWR);
	fd2 = open("file", O_RDWR);

	f = lk(F_WRLCK, 0, 10);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "F_SETLK a write lock on 0..9");
	CHECK_EQ(probe(fd1, F_GETLK, 0, 10, NULL, NULL, NULL), F_UNLCK,
		 "F_GETLK: the process's own lock does not conflict");
	CHECK_EQ(probe(fd2, F_GETLK, 0, 10, NULL, NULL, NULL), F_UNLCK,
		 "F_GETLK through another open file: still the process's own");
	f = lk(F_WRLCK, 5, 10);
	CHECK_EQ(fcntl(fd2, F_SETLK, &f), 0, "F_SETLK an overlapping lock through fd2");
	f = lk(F_RDLCK, 0, 0);
	CHECK_EQ(fcntl(fd1, F_SETLKW, &f), 0, "F_SETLKW converts it all to a read lock");

	/* OFD locks conflict with the process's own record locks */
	CHECK_EQ(probe(fd1, F_OFD_GETLK, 2, 1, &s, &l, &pid), F_RDLCK,
		 "F_OFD_GETLK sees the process's read lock");
	CHECK(s == 0 && l == 0 && pid == getpid(), "over the whole file, owned by this process");
	f = lk(F_WRLCK, 0, 1);
	CHECK_ERRNO(fcntl(fd1, F_OFD_SETLK, &f), EAGAIN, "an OFD write lock conflicts with it");
	f = lk(F_RDLCK, 0, 1);
	CHECK_EQ(fcntl(fd1, F_OFD_SETLK, &f), 0, "an OFD read lock does not");
	f = lk(F_UNLCK, 0, 1);
	CHECK_EQ(fcntl(fd1, F_OFD_SETLK, &f), 0, "unlock it");

	/* unlock the middle: the lock splits */
	f = lk(F_WRLCK, 0, 100);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "F_SETLK a write lock on 0..99");
	f = lk(F_UNLCK, 100, 0);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "unlock from 100 to the end");
	f = lk(F_UNLCK, 40, 20);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "unlock 40..59");
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 50, 1, NULL, NULL, NULL), F_UNLCK,
		 "F_OFD_GETLK: 50 is free");
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 30, 20, &s, &l, NULL), F_WRLCK,
		 "F_OFD_GETLK: 30..49 meets a lock");
	CHECK(s == 0 && l == 40, "the lock found is 0..39");
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 55, 100, &s, &l, NULL), F_WRLCK,
		 "F_OFD_GETLK: 55..154 meets a lock");
	CHECK(s == 60 && l == 40, "the lock found is 60..99");
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 100, 0, NULL, NULL, NULL), F_UNLCK,
		 "F_OFD_GETLK: from 100 on is free");

	/* closing any descriptor of the file drops the process's locks */
	fd3 = open("file", O_RDONLY);
	close(fd3);
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 0, 0, NULL, NULL, NULL), F_UNLCK,
		 "closing another descriptor of the file dropped the record locks");

	/* argument checks */
	ro = open("file", O_RDONLY);
	f = lk(F_WRLCK, 0, 1);
	CHECK_ERRNO(fcntl(ro, F_SETLK, &f), EBADF, "a write lock on a read-only descriptor");
	f = lk(F_RDLCK, 0, 1);
	CHECK_EQ(fcntl(ro, F_SETLK, &f), 0, "a read lock on it");
	close(ro);
	f = lk(42, 0, 1);
	CHECK_ERRNO(fcntl(fd1, F_SETLK, &f), EINVAL, "an unknown lock type");
	f = lk(F_WRLCK, -5, 1);
	CHECK_ERRNO(fcntl(fd1, F_SETLK, &f), EINVAL, "a lock before the start of the file");
	f = lk(F_WRLCK, 10, -5);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "a negative length locks before l_start");
	CHECK_EQ(probe(fd2, F_OFD_GETLK, 0, 0, &s, &l, NULL), F_WRLCK, "F_OFD_GETLK finds it");
	CHECK(s == 5 && l == 5, "it is 5..9");
	f = lk(F_UNLCK, 0, 0);
	CHECK_EQ(fcntl(fd1, F_SETLK, &f), 0, "unlock everything");
	f = lk(F_WRLCK, 0, 1);
	f.l_whence = 7;
	CHECK_ERRNO(fcntl(fd1, F_SETLK, &f), EINVAL, "an unknown l_whence");
	f = lk(F_WRLCK, 0, 1);
	f.l_pid = 1;
	CHECK_ERRNO(fcntl(fd1, F_OFD_SETLK, &f), EINVAL, "an OFD lock with l_pid set");
	CHECK_ERRNO(fcntl(fd1, F_SETLK, NULL), EFAULT, "F_SETLK with a NULL flock");
	close(fd1);
	close(fd2);
}

static void ofd(void)
{
	struct flock f;
	off_t s, l;
	pid_t pid;
	int a, b, a2;

	a = open("file", O_RDWR);
	b = open("file", O_RDWR);
	f = lk(F_WRLCK, 0, 10);
	CHECK_EQ(fcntl(a, F_OFD_SETLK, &f), 0, "F_OFD_SETLK a write lock through a");
	CHECK_EQ(probe(a, F_OFD_GETLK, 0, 10, NULL, NULL, NULL), F_UNLCK,
		 "F_OFD_GETLK through a: its own lock does not conflict");
	CHECK_EQ(probe(b, F_OFD_GETLK, 5, 1, &s, &l, &pid), F_WRLCK,
		 "F_OFD_GETLK through b: a's lock conflicts");
	CHECK(s == 0 && l == 10 && pid == -1, "0..9, l_pid -1");
	CHECK_EQ(probe(b, F_GETLK, 5, 1, &s, &l, &pid), F_WRLCK,
		 "F_GETLK (a record lock query) sees the OFD lock too");
	CHECK(pid == -1, "with l_pid -1");
	f = lk(F_RDLCK, 0, 1);
	CHECK_ERRNO(fcntl(b, F_OFD_SETLK, &f), EAGAIN, "F_OFD_SETLK through b conflicts");
	CHECK_ERRNO(fcntl(b, F_SETLK, &f), EAGAIN, "so does a record lock of this process");
	f = lk(F_RDLCK, 10, 5);
	CHECK_EQ(fcntl(b, F_OFD_SETLK, &f), 0, "b locks 10..14, next to a's");
	a2 = dup(a);
	f = lk(F_WRLCK, 0, 10);
	CHECK_EQ(fcntl(a2, F_OFD_SETLK, &f), 0, "a dup of a shares a's locks");
	close(a);
	CHECK_EQ(probe(b, F_OFD_GETLK, 0, 1, NULL, NULL, NULL), F_WRLCK,
		 "closing a while its dup is open keeps the lock");
	close(a2);
	CHECK_EQ(probe(b, F_OFD_GETLK, 0, 1, NULL, NULL, NULL), F_UNLCK,
		 "closing the last descriptor drops it");
	f = lk(F_UNLCK, 0, 0);
	CHECK_EQ(fcntl(b, F_OFD_SETLKW, &f), 0, "F_OFD_SETLKW unlock");
	close(b);
}

static void flocks(void)
{
	int a, b, a2, c;

	a = open("file", O_RDONLY);
	b = open("file", O_RDONLY);
	CHECK_EQ(flock(a, LOCK_EX | LOCK_NB), 0, "flock LOCK_EX through a");
	CHECK_ERRNO(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK, "LOCK_EX through another open file");
	CHECK_ERRNO(flock(b, LOCK_SH | LOCK_NB), EWOULDBLOCK, "LOCK_SH through it");
	CHECK_EQ(flock(a, LOCK_EX | LOCK_NB), 0, "LOCK_EX through a again");
	a2 = dup(a);
	CHECK_EQ(flock(a2, LOCK_EX | LOCK_NB), 0, "LOCK_EX through a dup of a");
	CHECK_EQ(flock(a, LOCK_SH | LOCK_NB), 0, "a converts to LOCK_SH");
	CHECK_EQ(flock(b, LOCK_SH | LOCK_NB), 0, "now b can share it");
	CHECK_ERRNO(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK, "but not upgrade");
	CHECK_EQ(flock(a, LOCK_UN), 0, "a unlocks");
	CHECK_EQ(flock(b, LOCK_EX | LOCK_NB), 0, "b upgrades");
	{
		struct flock f = lk(F_WRLCK, 0, 0);
		int w = open("file", O_RDWR);

		CHECK_EQ(fcntl(w, F_OFD_SETLK, &f), 0,
			 "an OFD write lock does not conflict with flock");
		close(w);
	}
	close(b);
	CHECK_EQ(flock(a2, LOCK_EX | LOCK_NB), 0, "closing b dropped its flock");
	close(a);
	close(a2);
	c = open("file", O_RDONLY);
	CHECK_EQ(flock(c, LOCK_EX), 0, "a blocking LOCK_EX that is free");
	CHECK_ERRNO(flock(c, LOCK_SH | LOCK_EX), EINVAL, "flock LOCK_SH|LOCK_EX");
	CHECK_ERRNO(flock(c, 0), EINVAL, "flock with no operation");
	CHECK_ERRNO(flock(99, LOCK_EX), EBADF, "flock of a closed descriptor");
	close(c);
	CHECK_EQ(mkdir("dir", 0755), 0, "mkdir dir");
	c = open("dir", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(flock(c, LOCK_EX | LOCK_NB), 0, "flock a directory");
	close(c);
}

int main(void)
{
	fs_enter("fs_lock");
	record();
	ofd();
	flocks();
	fs_leave();
	return GUEST_DONE();
}
