/*
 * Guest test: the line discipline of a pty's slave. The default termios;
 * canonical mode (lines, erase, kill, word erase, EOF, literal next,
 * reprint) with what is echoed to the master; input translations (ICRNL,
 * IGNCR, INLCR); non-canonical reads with VMIN/VTIME; O_NONBLOCK; output
 * processing (ONLCR, OCRNL, ONOCR, XTABS, OLCUC, -OPOST); FIONREAD,
 * TIOCOUTQ, tcflush, tcdrain, window sizes. Echoes are printed with their
 * control characters spelled out, to be compared with Linux's.
 */
#include "ttyguest.h"

#include <ctype.h>
#include <stdio.h>
#include <sys/time.h>

/* Print "what: bytes" with control characters as \r, \n, \b, \t, \xNN. */
static void show(const char *what, const char *s, long n)
{
	printf("%s: '", what);
	for (long i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r')
			printf("\\r");
		else if (c == '\n')
			printf("\\n");
		else if (c == '\b')
			printf("\\b");
		else if (c == '\t')
			printf("\\t");
		else if (c < 32 || c >= 127)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("'\n");
	fflush(stdout);
}

/* Read what the master has now (after a short wait: Linux moves pty data
 * asynchronously), up to size bytes, and show it. */
static void show_master(int m, const char *what)
{
	char buf[512];
	long n;
	int fl = fcntl(m, F_GETFL);

	tty_sleep_ms(50);
	fcntl(m, F_SETFL, fl | O_NONBLOCK);
	n = read(m, buf, sizeof(buf));
	fcntl(m, F_SETFL, fl);
	show(what, buf, n < 0 ? 0 : n);
}

/* Read one canonical read's worth from the slave and show it. */
static void show_slave(int s, const char *what)
{
	char buf[512];
	long n = read(s, buf, sizeof(buf));

	if (n < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		show(what, buf, n);
	fflush(stdout);
}

static void defaults(void)
{
	struct termios t;
	int m, s;

	tty_openpty(&m, &s);
	CHECK_EQ(tcgetattr(s, &t), 0, "tcgetattr of a new slave");
	printf("iflag %#x oflag %#x cflag %#x lflag %#x\n", t.c_iflag, t.c_oflag, t.c_cflag,
	       t.c_lflag);
	printf("cc");
	for (int i = 0; i < 17; i++)
		printf(" %d", t.c_cc[i]);
	printf("\nspeed %d %d\n", (int)cfgetispeed(&t), (int)cfgetospeed(&t));
	CHECK_EQ(tcgetattr(m, &t), 0, "tcgetattr of the master");
	printf("master: iflag %#x oflag %#x lflag %#x\n", t.c_iflag, t.c_oflag, t.c_lflag);
	close(s);
	close(m);
}

static void canonical(void)
{
	char buf[64];
	int m, s, n = -1;

	tty_openpty(&m, &s);
	tty_put(m, "abc");
	show_master(m, "echo of abc");
	CHECK(ioctl(s, FIONREAD, &n) == 0 && n == 0, "FIONREAD counts no unfinished line");
	fcntl(s, F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(read(s, buf, sizeof(buf)), EAGAIN, "no line yet: a non-blocking read fails");
	fcntl(s, F_SETFL, 0);
	tty_put(m, "\n");
	show_master(m, "echo of the newline");
	CHECK(ioctl(s, FIONREAD, &n) == 0 && n == 4, "FIONREAD counts the finished line");
	show_slave(s, "line");

	tty_put(m, "l1\nl2\n");
	show_master(m, "echo of two lines");
	show_slave(s, "first read");
	show_slave(s, "second read");
	tty_put(m, "abcdef\n");
	show_master(m, "echo");
	CHECK_EQ(read(s, buf, 3), 3, "a short read takes part of a line");
	show_slave(s, "the rest of the line");

	tty_put(m, "abx\177c\n");
	show_master(m, "echo of erase");
	show_slave(s, "after erase");
	tty_put(m, "a\001\177b\n");
	show_master(m, "echo of erasing a control character");
	show_slave(s, "after erasing it");
	tty_put(m, "junk\025ok\n");
	show_master(m, "echo of kill");
	show_slave(s, "after kill");
	tty_put(m, "one two\027three\n");
	show_master(m, "echo of word erase");
	show_slave(s, "after word erase");
	tty_put(m, "x\ty\177\177z\n");
	show_master(m, "echo of erasing a tab");
	show_slave(s, "after erasing a tab");
	tty_put(m, "\026\177\026\003\n");
	show_master(m, "echo of literal next");
	show_slave(s, "literal characters");
	tty_put(m, "re\022print\n");
	show_master(m, "echo of reprint");
	show_slave(s, "after reprint");
	tty_put(m, "\001\n");
	show_master(m, "echo of a control character");
	show_slave(s, "control character");
	tty_put(m, "\177\177x\n");
	show_master(m, "echo of erase at the line start");
	show_slave(s, "nothing erased");

	tty_put(m, "ab\004");
	show_master(m, "echo of EOF");
	show_slave(s, "EOF ends a line without a newline");
	tty_put(m, "\004");
	CHECK_EQ(read(s, buf, sizeof(buf)), 0, "EOF at a line start reads 0");
	close(s);
	close(m);
}

static void echo_modes(void)
{
	int m, s;

	tty_openpty(&m, &s);
	tty_lflag(s, ECHO, 0);
	tty_put(m, "secret\n");
	show_slave(s, "read without echo");
	show_master(m, "no echo");
	tty_lflag(s, 0, ECHONL);
	tty_put(m, "quiet\n");
	show_slave(s, "read with ECHONL");
	show_master(m, "ECHONL echoes only the newline");
	tty_lflag(s, ECHONL, ECHO);
	tty_lflag(s, ECHOCTL, 0);
	tty_put(m, "\001\n");
	show_slave(s, "read");
	show_master(m, "echo without ECHOCTL");
	tty_lflag(s, ECHOE, 0);
	tty_put(m, "ab\177\n");
	show_slave(s, "read");
	show_master(m, "erase without ECHOE");
	tty_lflag(s, ECHOKE, ECHOE);
	tty_put(m, "ab\025c\n");
	show_slave(s, "read");
	show_master(m, "kill without ECHOKE");
	tty_lflag(s, ECHOK, 0);
	tty_put(m, "ab\025c\n");
	show_slave(s, "read");
	show_master(m, "kill without ECHOK");
	close(s);
	close(m);
}

static void input_modes(void)
{
	int m, s;

	tty_openpty(&m, &s);
	tty_put(m, "cr\r");
	show_slave(s, "ICRNL turns CR into NL");
	show_master(m, "echo");
	tty_iflag(s, ICRNL, 0);
	tty_put(m, "keep\r\n");
	show_slave(s, "without ICRNL");
	show_master(m, "echo");
	tty_iflag(s, 0, IGNCR);
	tty_put(m, "ign\r\n");
	show_slave(s, "IGNCR drops CR");
	show_master(m, "echo");
	tty_iflag(s, IGNCR, INLCR | ICRNL);
	tty_raw_min_time(s, 1, 0);
	tty_put(m, "a\nb\r");
	{
		char buf[8];
		long n = tty_read_n(s, buf, 4);
		show("INLCR and ICRNL swap NL and CR", buf, n);
	}
	close(s);
	close(m);
}

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void noncanonical(void)
{
	char buf[64];
	int m, s, n = -1;
	double t0, dt;
	pid_t p;
	int st;

	tty_openpty(&m, &s);
	tty_raw_min_time(s, 1, 0);
	tty_put(m, "xyz");
	CHECK_EQ(tty_read_n(s, buf, 3), 3, "raw mode: bytes arrive without a newline");
	CHECK(memcmp(buf, "xyz", 3) == 0, "as written");
	show_master(m, "no echo with ECHO off");
	tty_put(m, "12");
	tty_sleep_ms(50);
	CHECK(ioctl(s, FIONREAD, &n) == 0 && n == 2, "FIONREAD counts raw input");
	CHECK_EQ(tty_read_n(s, buf, 2), 2, "read it");

	tty_raw_min_time(s, 0, 0);
	t0 = now();
	CHECK_EQ(read(s, buf, sizeof(buf)), 0, "VMIN 0 VTIME 0: nothing there reads 0 at once");
	CHECK(now() - t0 < 0.5, "without waiting");
	tty_raw_min_time(s, 0, 2);
	t0 = now();
	CHECK_EQ(read(s, buf, sizeof(buf)), 0, "VMIN 0 VTIME 2: reads 0 after the time");
	dt = now() - t0;
	CHECK(dt > 0.15 && dt < 2, "after about 0.2 s");
	tty_put(m, "q");
	tty_sleep_ms(50);
	CHECK_EQ(read(s, buf, sizeof(buf)), 1, "VMIN 0 VTIME 2: a byte there reads at once");

	tty_raw_min_time(s, 3, 0);
	p = fork();
	if (p == 0) {
		long r = read(s, buf, sizeof(buf));
		_exit(r == 3 && memcmp(buf, "abc", 3) == 0 ? 0 : 1);
	}
	tty_sleep_ms(100);
	tty_put(m, "ab");
	tty_sleep_ms(100);
	tty_put(m, "c");
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "VMIN 3: a read waits for three bytes");

	tty_raw_min_time(s, 5, 2);
	tty_put(m, "ab");
	t0 = now();
	CHECK_EQ(read(s, buf, sizeof(buf)), 2, "VMIN 5 VTIME 2: the interbyte timer ends a read");

	tty_raw_min_time(s, 1, 0);
	fcntl(s, F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(read(s, buf, sizeof(buf)), EAGAIN, "O_NONBLOCK with nothing to read");
	fcntl(s, F_SETFL, 0);

	tty_lflag(s, ISIG, ECHO);
	tty_put(m, "\003\032");
	CHECK_EQ(tty_read_n(s, buf, 2), 2, "without ISIG, ^C and ^Z are data");
	CHECK(buf[0] == 3 && buf[1] == 26, "as they were");
	show_master(m, "their echo");
	close(s);
	close(m);
}

/* What the master reads after the slave writes s with output flags oflag. */
static void output(const char *what, tcflag_t oflag, const char *s)
{
	int m, sl;

	tty_openpty(&m, &sl);
	tty_oflag(sl, ~(tcflag_t)0, oflag);
	tty_put(sl, s);
	show_master(m, what);
	close(sl);
	close(m);
}

static void output_modes(void)
{
	int m, s, n = -1;

	output("OPOST ONLCR", OPOST | ONLCR, "a\nb\n");
	output("no OPOST", ONLCR, "a\nb\r\n");
	output("OCRNL", OPOST | OCRNL, "a\rb");
	output("ONOCR", OPOST | ONOCR, "\rx\r\r");
	output("ONLRET ONOCR", OPOST | ONLRET | ONOCR, "x\n\r");
	output("XTABS", OPOST | XTABS, "a\tbc\td\t\n");
	output("OLCUC", OPOST | OLCUC, "Hello, World 1\n");

	tty_openpty(&m, &s);
	tty_put(s, "xyz");
	CHECK(ioctl(s, TIOCOUTQ, &n) == 0 && n == 0, "TIOCOUTQ of a pty slave is 0");
	CHECK(tty_expect(m, "x"), "the master reads a byte");
	tty_sleep_ms(50);
	CHECK(ioctl(m, FIONREAD, &n) == 0 && n == 2, "FIONREAD of the master counts the rest");
	CHECK_EQ(tcdrain(s), 0, "tcdrain");
	CHECK_EQ(tcsendbreak(s, 0), 0, "tcsendbreak");
	tty_put(m, "abc\n");
	show_master(m, "echo");
	CHECK_EQ(tcflush(s, TCIFLUSH), 0, "tcflush(TCIFLUSH)");
	tty_put(m, "d\n");
	show_master(m, "echo");
	show_slave(s, "the flushed line is gone");
	CHECK_ERRNO(tcflush(s, 7), EINVAL, "tcflush with a bad queue");
	close(s);
	close(m);
}

static void winsize(void)
{
	struct winsize ws = {.ws_row = 50, .ws_col = 132, .ws_xpixel = 1, .ws_ypixel = 2}, got;
	int m, s;

	tty_openpty(&m, &s);
	memset(&got, 0xff, sizeof(got));
	CHECK(ioctl(s, TIOCGWINSZ, &got) == 0 && got.ws_row == 0 && got.ws_col == 0,
	      "a new pty has no size");
	CHECK_EQ(ioctl(m, TIOCSWINSZ, &ws), 0, "the master sets the size");
	CHECK(ioctl(s, TIOCGWINSZ, &got) == 0 && got.ws_row == 50 && got.ws_col == 132 &&
		      got.ws_xpixel == 1 && got.ws_ypixel == 2,
	      "the slave sees it");
	CHECK_ERRNO(ioctl(s, TIOCGWINSZ, (void *)8), EFAULT, "TIOCGWINSZ to a bad pointer");
	CHECK_ERRNO(ioctl(s, TIOCSWINSZ, (void *)8), EFAULT, "TIOCSWINSZ from a bad pointer");
	CHECK_ERRNO(ioctl(s, TCGETS, (void *)8), EFAULT, "TCGETS to a bad pointer");
	CHECK_ERRNO(ioctl(s, TCSETS, (void *)8), EFAULT, "TCSETS from a bad pointer");
	close(s);
	close(m);
}

int main(void)
{
	tty_watchdog(30);
	defaults();
	canonical();
	echo_modes();
	input_modes();
	noncanonical();
	output_modes();
	winsize();
	return GUEST_DONE();
}
