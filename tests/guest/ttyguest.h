/*
 * Helpers for the terminal guest tests (tty_*, pty_*): pseudo-terminal
 * pairs, reads that wait for a known number of bytes (a pty hands data on
 * asynchronously on Linux, so one read may return part of it), and a
 * watchdog so that a test that would block forever fails instead.
 */
#ifndef RUNG_TTYGUEST_H
#define RUNG_TTYGUEST_H

#include "guest.h"

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

/* A pty pair (master, slave) with the slave not our controlling terminal. */
static inline int tty_openpty(int *m, int *s)
{
	return openpty(m, s, NULL, NULL, NULL);
}

/* Read exactly n bytes from fd (blocking reads until they are all there,
 * EOF or an error). Returns the count read, or -1 when the first read failed. */
static inline long tty_read_n(int fd, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		long r = read(fd, buf + done, n - done);
		if (r < 0)
			return done ? (long)done : -1;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	buf[done] = '\0';
	return (long)done;
}

/* Does reading n bytes from fd give exactly want (n = strlen(want))? */
static inline int tty_expect(int fd, const char *want)
{
	char buf[512];
	size_t n = strlen(want);

	if (n >= sizeof(buf))
		return 0;
	return tty_read_n(fd, buf, n) == (long)n && memcmp(buf, want, n) == 0;
}

/* Write a whole string. */
static inline int tty_put(int fd, const char *s)
{
	return write(fd, s, strlen(s)) == (long)strlen(s);
}

/* Sleep for ms milliseconds. */
static inline void tty_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Kill the whole test (and everything in its process group) after s seconds. */
static inline void tty_watchdog(unsigned s)
{
	alarm(s);
}

/* Change one termios of fd: clear then set flags in the field given. */
static inline int tty_lflag(int fd, tcflag_t clear, tcflag_t set)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	t.c_lflag = (t.c_lflag & ~clear) | set;
	return tcsetattr(fd, TCSANOW, &t);
}

static inline int tty_iflag(int fd, tcflag_t clear, tcflag_t set)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	t.c_iflag = (t.c_iflag & ~clear) | set;
	return tcsetattr(fd, TCSANOW, &t);
}

static inline int tty_oflag(int fd, tcflag_t clear, tcflag_t set)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	t.c_oflag = (t.c_oflag & ~clear) | set;
	return tcsetattr(fd, TCSANOW, &t);
}

/* Set VMIN and VTIME (and leave canonical mode). */
static inline int tty_raw_min_time(int fd, int min, int time)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = (cc_t)min;
	t.c_cc[VTIME] = (cc_t)time;
	return tcsetattr(fd, TCSANOW, &t);
}

#endif
