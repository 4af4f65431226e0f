/*
 * Guest test: pseudo-terminal pairs through glibc (posix_openpt, grantpt,
 * unlockpt, ptsname, openpty) and the ioctls beneath (TIOCGPTN,
 * TIOCSPTLCK/TIOCGPTLCK, TIOCGPTPEER); /dev/pts entries and what stat,
 * ttyname and /proc/self/fd say about them; data both ways; what each side
 * sees when the other closes (EIO, EOF, hang-up, the entry gone).
 */
#include "ttyguest.h"

#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

static void glibc_api(void)
{
	char name[64], path[64], link[64];
	struct stat st, st2;
	unsigned n = 0;
	int m, s, lock = -1;
	long r;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(m >= 0, "posix_openpt opens /dev/ptmx");
	CHECK(isatty(m), "the master is a terminal");
	CHECK_EQ(ioctl(m, TIOCGPTN, &n), 0, "TIOCGPTN gives the pair's number");
	CHECK_EQ(ioctl(m, TIOCGPTLCK, &lock), 0, "TIOCGPTLCK");
	CHECK_EQ(lock, 1, "a new pair is locked");
	snprintf(path, sizeof(path), "/dev/pts/%u", n);
	CHECK(ptsname_r(m, name, sizeof(name)) == 0 && strcmp(name, path) == 0,
	      "ptsname is /dev/pts/ and TIOCGPTN's number");
	CHECK_ERRNO(open(name, O_RDWR | O_NOCTTY), EIO, "opening a locked slave");
	CHECK_ERRNO(ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY), EIO, "TIOCGPTPEER of a locked pair");
	CHECK_EQ(grantpt(m), 0, "grantpt");
	CHECK_EQ(unlockpt(m), 0, "unlockpt");
	CHECK_EQ(ioctl(m, TIOCGPTLCK, &lock), 0, "TIOCGPTLCK again");
	CHECK_EQ(lock, 0, "unlockpt unlocked it");
	s = open(name, O_RDWR | O_NOCTTY);
	CHECK(s >= 0, "the slave opens by its name");
	CHECK(isatty(s), "the slave is a terminal");
	CHECK(fstat(s, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 136 &&
		      minor(st.st_rdev) == n,
	      "the slave is character device 136:N");
	CHECK(stat(name, &st2) == 0 && st2.st_ino == st.st_ino && st2.st_dev == st.st_dev &&
		      st2.st_rdev == st.st_rdev,
	      "stat of /dev/pts/N is the open slave");
	CHECK(fstat(m, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
		      minor(st.st_rdev) == 2,
	      "the master is the ptmx device 5:2");
	CHECK(ttyname(s) && strcmp(ttyname(s), name) == 0, "ttyname of the slave is its name");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s);
	r = readlink(path, link, sizeof(link) - 1);
	link[r > 0 ? r : 0] = '\0';
	CHECK(strcmp(link, name) == 0, "/proc/self/fd names the slave");
	CHECK_ERRNO(ioctl(s, TIOCGPTN, &n), ENOTTY, "TIOCGPTN on the slave");
	CHECK_ERRNO(ioctl(s, TIOCGPTPEER, O_RDWR), EIO, "TIOCGPTPEER on the slave");
	CHECK_ERRNO(lseek(s, 0, SEEK_SET), ESPIPE, "a terminal cannot seek");
	errno = 0;
	CHECK(!isatty(open("/dev/null", O_RDONLY)) && errno == ENOTTY, "/dev/null is no terminal");
	close(s);
	close(m);
}

static void openpty_peer(void)
{
	char name[64], buf[64];
	unsigned n = 0, n2 = 0;
	int m, s, p, flags;
	struct winsize ws = {.ws_row = 24, .ws_col = 80}, got = {0};
	struct stat st, st2;

	CHECK_EQ(openpty(&m, &s, name, NULL, &ws), 0, "openpty with a window size");
	CHECK(strncmp(name, "/dev/pts/", 9) == 0, "openpty names the slave");
	CHECK(ioctl(s, TIOCGWINSZ, &got) == 0 && got.ws_row == 24 && got.ws_col == 80,
	      "the slave has openpty's window size");
	memset(&got, 0, sizeof(got));
	CHECK(ioctl(m, TIOCGWINSZ, &got) == 0 && got.ws_row == 24 && got.ws_col == 80,
	      "the master reports the same size");
	p = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	CHECK(p >= 0, "TIOCGPTPEER opens the slave");
	flags = fcntl(p, F_GETFL);
	CHECK((flags & O_ACCMODE) == O_RDWR && (flags & O_NONBLOCK), "with the flags asked for");
	CHECK_EQ(fcntl(p, F_GETFD), FD_CLOEXEC, "and close-on-exec");
	CHECK(fstat(p, &st) == 0 && fstat(s, &st2) == 0 && st.st_ino == st2.st_ino &&
		      st.st_rdev == st2.st_rdev,
	      "the peer is the same slave");
	CHECK_ERRNO(read(p, buf, sizeof(buf)), EAGAIN, "a non-blocking slave read with nothing");
	ioctl(m, TIOCGPTN, &n);
	close(p);

	/* Data both ways (the slave in its default canonical mode). */
	CHECK(tty_put(m, "hello\n"), "the master writes a line");
	CHECK(tty_expect(m, "hello\r\n"), "the master reads the echo (newline as CR LF)");
	CHECK(tty_expect(s, "hello\n"), "the slave reads the line");
	CHECK(tty_put(s, "out\n"), "the slave writes a line");
	CHECK(tty_expect(m, "out\r\n"), "the master reads it with ONLCR");

	/* Every slave closed: the master reads what is left, then EIO. */
	CHECK(tty_put(s, "bye\n"), "the slave writes before it closes");
	close(s);
	CHECK(tty_expect(m, "bye\r\n"), "the master still reads it");
	CHECK_ERRNO(read(m, buf, sizeof(buf)), EIO, "then EIO with no slave open");
	s = open(name, O_RDWR | O_NOCTTY);
	CHECK(s >= 0, "the slave opens again");
	CHECK(tty_put(s, "again\n") && tty_expect(m, "again\r\n"), "and talks to the master");

	/* The master closed: the slave is hung up. */
	close(m);
	CHECK_EQ(read(s, buf, sizeof(buf)), 0, "a hung-up slave reads EOF");
	CHECK_ERRNO(write(s, "x", 1), EIO, "writing a hung-up slave");
	CHECK_ERRNO(tcgetattr(s, (struct termios *)buf), EIO, "tcgetattr of a hung-up slave");
	CHECK_ERRNO(open(name, O_RDWR | O_NOCTTY), ENOENT, "its /dev/pts entry is gone");
	close(s);
	/* The number is free again once both ends are closed. */
	m = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(m >= 0 && ioctl(m, TIOCGPTN, &n2) == 0, "a new pair");
	close(m);
}

static void ptmx_errors(void)
{
	int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	unsigned n;
	int lock = 0;
	struct stat st;

	CHECK(m >= 0, "open /dev/ptmx");
	CHECK(stat("/dev/pts", &st) == 0 && S_ISDIR(st.st_mode), "/dev/pts is a directory");
	CHECK(stat("/dev/pts/ptmx", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
		      minor(st.st_rdev) == 2,
	      "/dev/pts/ptmx is the ptmx device");
	CHECK_EQ(ioctl(m, TIOCSPTLCK, &lock), 0, "TIOCSPTLCK 0 unlocks");
	CHECK_EQ(ioctl(m, TIOCGPTN, &n), 0, "TIOCGPTN");
	CHECK_ERRNO(ioctl(m, TIOCSPTLCK, (void *)8), EFAULT, "TIOCSPTLCK with a bad pointer");
	CHECK_ERRNO(ioctl(m, TIOCGPTN, (void *)8), EFAULT, "TIOCGPTN with a bad pointer");
	CHECK_ERRNO(ioctl(m, 0x54ff, 0), ENOTTY, "an unknown terminal ioctl");
	close(m);
}

int main(void)
{
	tty_watchdog(20);
	glibc_api();
	openpty_peer();
	ptmx_errors();
	return GUEST_DONE();
}
