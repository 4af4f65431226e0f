/*
 * Guest test: job control on a pty. A child session takes the slave as its
 * controlling terminal (TIOCSCTTY, /dev/tty, TIOCGPGRP/TIOCGSID), moves
 * the foreground between process groups (tcsetpgrp and its EPERM, ESRCH,
 * ENOTTY and EINVAL rules), and its background groups get SIGTTIN on a
 * read (EIO when SIGTTIN is ignored or blocked, or the group is orphaned)
 * and SIGTTOU on a write with TOSTOP and on tcsetattr. ^C, ^\ and ^Z
 * written to the master signal the foreground group, a new window size
 * sends it SIGWINCH, TIOCNOTTY gives the terminal up, and a hang-up (the
 * master closed, the controlling process gone) sends SIGHUP.
 *
 * Only one process prints at a time: the others wait for it.
 */
#include "ttyguest.h"

#include <stdio.h>

static volatile sig_atomic_t got[65];

static void on_sig(int sig)
{
	got[sig]++;
}

static void catch(int sig)
{
	struct sigaction sa = {.sa_handler = on_sig};

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void block(int sig, int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(how, &set, NULL);
}

/* Wait for p to stop or end: the stop signal, 1000 + exit status, or
 * 2000 + the signal that killed it. */
static int wait_for(pid_t p)
{
	int st;

	if (waitpid(p, &st, WUNTRACED) != p)
		return -1;
	if (WIFSTOPPED(st))
		return WSTOPSIG(st);
	if (WIFEXITED(st))
		return 1000 + WEXITSTATUS(st);
	return 2000 + WTERMSIG(st);
}

/* A child in a process group of its own running fn; the caller gets its pid. */
static pid_t in_group(int (*fn)(int s), int s)
{
	pid_t p = fork();

	if (p == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		_exit(fn(s));
	}
	setpgid(p, p);
	return p;
}

static int bg_read(int s)
{
	char c;

	return read(s, &c, 1) == 1 && c == 'x' ? 0 : 1;
}

static int bg_read_eio(int s)
{
	char c;

	return read(s, &c, 1) == -1 && errno == EIO ? 0 : 1;
}

static int bg_read_ign(int s)
{
	signal(SIGTTIN, SIG_IGN);
	return bg_read_eio(s);
}

static int bg_read_blocked(int s)
{
	block(SIGTTIN, SIG_BLOCK);
	return bg_read_eio(s);
}

static int bg_write(int s)
{
	return write(s, "w", 1) == 1 ? 0 : 1;
}

static int bg_write_ign(int s)
{
	signal(SIGTTOU, SIG_IGN);
	return bg_write(s);
}

static int bg_tcsetattr(int s)
{
	struct termios t;

	tcgetattr(s, &t);
	return tcsetattr(s, TCSANOW, &t) == 0 ? 0 : 1;
}

static int bg_tcsetpgrp(int s)
{
	return tcsetpgrp(s, getpgrp()) == 0 ? 0 : 1;
}

/* The orphan: a child whose parent exits, leaving its group with no parent
 * in another group of the session. It reports on the pipe report[]. */
static int report[2];

static int orphan(int s)
{
	pid_t parent = getpid();
	char c;

	if (fork() != 0)
		_exit(0); /* the group's only link to the session's other groups */
	while (getppid() == parent)
		tty_sleep_ms(10);
	c = bg_read_eio(s) == 0 ? 'y' : 'n';
	write(report[1], &c, 1);
	_exit(0);
}

/* The foreground child: waits for signals from the keyboard. */
static int fg_child(int s)
{
	catch(SIGINT);
	catch(SIGQUIT);
	catch(SIGWINCH);
	write(report[1], "r", 1); /* ready: the leader may send (a slow start must not lose one) */
	for (int i = 0; i < 500 && !(got[SIGINT] && got[SIGQUIT] && got[SIGWINCH] >= 1); i++)
		tty_sleep_ms(10);
	tty_sleep_ms(100); /* a second SIGWINCH would come now */
	return (got[SIGINT] == 1 ? 1 : 0) | (got[SIGQUIT] == 1 ? 2 : 0) |
	       (got[SIGWINCH] == 1 ? 4 : 0);
}

static int stop_me(int s)
{
	for (int i = 0; i < 500; i++)
		tty_sleep_ms(10);
	return 0;
}

/* Give the terminal to pgrp (from the session's leader). */
static int give(int s, pid_t pgrp)
{
	return tcsetpgrp(s, pgrp);
}

static void leader(int m, int s, int s2)
{
	struct winsize ws = {.ws_row = 30, .ws_col = 100};
	char buf[64];
	pid_t p, me = getpid();
	int fd, r;

	CHECK_EQ(setsid(), me, "the child leads a new session");
	CHECK_ERRNO(open("/dev/tty", O_RDWR), ENXIO, "no controlling terminal: /dev/tty");
	CHECK_ERRNO(tcgetpgrp(s), ENOTTY, "tcgetpgrp of a terminal that is not ours");
	CHECK_ERRNO(tcsetpgrp(s, me), ENOTTY, "tcsetpgrp of a terminal that is not ours");
	CHECK_ERRNO(ioctl(s, TIOCGSID, &r), ENOTTY, "TIOCGSID of a terminal that is not ours");
	CHECK_ERRNO(ioctl(s, TIOCNOTTY), ENOTTY, "TIOCNOTTY without a controlling terminal");
	CHECK_EQ(ioctl(s, TIOCSCTTY, 0), 0, "TIOCSCTTY makes the slave ours");
	CHECK_EQ(tcgetpgrp(s), me, "our group is in the foreground");
	CHECK_EQ(tcgetsid(s), me, "the terminal's session is ours");
	CHECK_EQ(ioctl(m, TIOCGPGRP, &r), 0, "TIOCGPGRP through the master");
	CHECK_EQ(r, me, "gives the same group");
	CHECK_EQ(ioctl(s, TIOCSCTTY, 0), 0, "TIOCSCTTY again is a no-op");
	CHECK_ERRNO(ioctl(s2, TIOCSCTTY, 0), EPERM, "a second controlling terminal");
	CHECK_ERRNO(tcsetpgrp(s2, me), ENOTTY, "tcsetpgrp of another terminal");
	fd = open("/dev/tty", O_RDWR);
	CHECK(fd >= 0, "/dev/tty opens the controlling terminal");
	CHECK(ttyname(fd) && strcmp(ttyname(fd), "/dev/tty") == 0, "and is called /dev/tty");
	CHECK(tty_put(fd, "via tty\n") && tty_expect(m, "via tty\r\n"),
	      "writing /dev/tty reaches the master");
	close(fd);

	CHECK_ERRNO(tcsetpgrp(s, getppid()), EPERM, "tcsetpgrp to a group of another session");
	CHECK_ERRNO(tcsetpgrp(s, 999999), ESRCH, "tcsetpgrp to no group");
	CHECK_ERRNO(tcsetpgrp(s, -1), EINVAL, "tcsetpgrp to a negative group");

	/* Background reads: SIGTTIN stops the group; in the foreground it reads. */
	block(SIGTTOU, SIG_BLOCK); /* so that we can take the terminal back */
	p = in_group(bg_read, s);
	CHECK_EQ(wait_for(p), SIGTTIN, "a background read stops its group with SIGTTIN");
	CHECK_EQ(give(s, p), 0, "tcsetpgrp moves the reader to the foreground");
	CHECK_EQ(tcgetpgrp(s), p, "tcgetpgrp shows it");
	tty_put(m, "x\n");
	kill(-p, SIGCONT);
	CHECK_EQ(wait_for(p), 1000, "continued in the foreground, it reads");
	CHECK_EQ(give(s, me), 0, "the leader takes the terminal back (SIGTTOU blocked)");
	tty_expect(m, "x\r\n");
	read(s, buf, sizeof(buf)); /* the newline the reader left */

	p = in_group(bg_read_ign, s);
	CHECK_EQ(wait_for(p), 1000, "a background read with SIGTTIN ignored fails with EIO");
	p = in_group(bg_read_blocked, s);
	CHECK_EQ(wait_for(p), 1000, "a background read with SIGTTIN blocked fails with EIO");
	pipe(report);
	p = in_group(orphan, s);
	wait_for(p);
	CHECK(read(report[0], buf, 1) == 1 && buf[0] == 'y',
	      "a read from an orphaned background group fails with EIO");
	close(report[0]);
	close(report[1]);

	p = in_group(bg_write, s);
	CHECK_EQ(wait_for(p), 1000, "a background write without TOSTOP");
	CHECK(tty_expect(m, "w"), "is written");
	tty_lflag(s, 0, TOSTOP);
	p = in_group(bg_write, s);
	CHECK_EQ(wait_for(p), SIGTTOU, "with TOSTOP it stops the group with SIGTTOU");
	kill(-p, SIGKILL);
	wait_for(p);
	p = in_group(bg_write_ign, s);
	CHECK_EQ(wait_for(p), 1000, "with TOSTOP and SIGTTOU ignored it writes");
	CHECK(tty_expect(m, "w"), "and the master reads it");
	tty_lflag(s, TOSTOP, 0);
	p = in_group(bg_tcsetattr, s);
	CHECK_EQ(wait_for(p), SIGTTOU, "tcsetattr from the background gets SIGTTOU");
	kill(-p, SIGKILL);
	wait_for(p);
	p = in_group(bg_tcsetpgrp, s);
	CHECK_EQ(wait_for(p), SIGTTOU, "tcsetpgrp from the background gets SIGTTOU");
	kill(-p, SIGKILL);
	wait_for(p);

	/* Keyboard signals go to the foreground group. */
	catch(SIGINT);
	pipe(report);
	p = in_group(fg_child, s);
	CHECK_EQ(give(s, p), 0, "a child group in the foreground");
	CHECK(read(report[0], buf, 1) == 1, "the child has its handlers");
	close(report[0]);
	close(report[1]);
	tty_sleep_ms(100);
	tty_put(m, "\003");
	tty_sleep_ms(100);
	tty_put(m, "\034");
	tty_sleep_ms(100);
	CHECK_EQ(ioctl(m, TIOCSWINSZ, &ws), 0, "a new window size");
	CHECK_EQ(ioctl(m, TIOCSWINSZ, &ws), 0, "the same size again");
	CHECK_EQ(wait_for(p), 1007, "^C, ^\\ and the size change reached it, once each");
	CHECK_EQ(got[SIGINT], 0, "the background leader got no SIGINT");
	tty_sleep_ms(50);
	r = (int)read(m, buf, sizeof(buf));
	CHECK(r == 4 && memcmp(buf, "^C^\\", 4) == 0, "the master reads the echoes ^C^\\");
	p = in_group(stop_me, s);
	give(s, p);
	tty_sleep_ms(50);
	tty_put(m, "\032");
	CHECK_EQ(wait_for(p), SIGTSTP, "^Z stops the foreground group");
	kill(-p, SIGKILL);
	wait_for(p);
	CHECK_EQ(give(s, me), 0, "the leader takes the terminal back");
	tty_sleep_ms(50);
	read(m, buf, sizeof(buf));

	/* TIOCNOTTY from a member of the session: it alone gives the terminal up. */
	p = fork();
	if (p == 0) {
		int ok = ioctl(s, TIOCNOTTY) == 0;
		ok = ok && tcgetpgrp(s) == -1 && errno == ENOTTY;
		ok = ok && open("/dev/tty", O_RDWR) == -1 && errno == ENXIO;
		_exit(ok ? 0 : 1);
	}
	CHECK_EQ(wait_for(p), 1000, "TIOCNOTTY: the child has no terminal any more");
	CHECK_EQ(tcgetpgrp(s), me, "the leader still has it");

	close(s2);
}

/* A session whose leader exits while a child group has the foreground. */
static void leader_exit(void)
{
	int m, s, fds[2], ready[2], st;
	char c = 0;
	pid_t l, f;

	tty_openpty(&m, &s);
	pipe(fds);
	pipe(ready);
	l = fork();
	if (l == 0) {
		setsid();
		ioctl(s, TIOCSCTTY, 0);
		f = fork();
		if (f == 0) {
			setpgid(0, 0);
			catch(SIGHUP);
			catch(SIGCONT);
			write(ready[1], "r", 1); /* handlers in place before the hang-up */
			while (!got[SIGHUP])
				tty_sleep_ms(10);
			tty_sleep_ms(50);
			c = (char)('0' + got[SIGHUP] + 2 * got[SIGCONT]);
			write(fds[1], &c, 1);
			_exit(0);
		}
		setpgid(f, f);
		tcsetpgrp(s, f);
		read(ready[0], &c, 1);
		_exit(0); /* the controlling process goes */
	}
	close(ready[0]);
	close(ready[1]);
	close(fds[1]);
	waitpid(l, &st, 0);
	CHECK_EQ(read(fds[0], &c, 1), 1, "the foreground child reports");
	CHECK_EQ(c, '1', "the controlling process's exit sent it SIGHUP (no SIGCONT)");
	close(fds[0]);
	close(s);
	close(m);
}

/* The master closes: the session's leader gets SIGHUP and SIGCONT, and the
 * foreground group gets SIGHUP when the leader then exits. */
static void hangup(void)
{
	int m, s, fds[2], st;
	char rep[3] = {0};
	pid_t l;

	tty_openpty(&m, &s);
	pipe(fds);
	l = fork();
	if (l == 0) {
		pid_t f;
		char buf[8];
		close(m);
		setsid();
		ioctl(s, TIOCSCTTY, 0);
		f = fork();
		if (f == 0) {
			setpgid(0, 0);
			catch(SIGHUP);
			while (!got[SIGHUP])
				tty_sleep_ms(10);
			write(fds[1], "f", 1);
			_exit(0);
		}
		setpgid(f, f);
		tcsetpgrp(s, f);
		catch(SIGHUP);
		catch(SIGCONT);
		write(fds[1], "r", 1);
		while (!got[SIGHUP])
			tty_sleep_ms(10);
		tty_sleep_ms(50);
		rep[0] = (char)('0' + got[SIGHUP] + 2 * got[SIGCONT]);
		rep[1] = read(s, buf, sizeof(buf)) == 0 ? 'e' : 'x';
		rep[2] = (tcgetpgrp(s) == -1 && errno == EIO) ? 'i' : 'x';
		write(fds[1], rep, 3);
		_exit(0);
	}
	close(fds[1]);
	close(s);
	read(fds[0], rep, 1);
	CHECK_EQ(rep[0], 'r', "the session is ready");
	close(m);
	CHECK_EQ(tty_read_n(fds[0], rep, 3), 3, "the leader reports");
	CHECK_EQ(rep[0], '3', "closing the master sent the leader SIGHUP and SIGCONT");
	CHECK_EQ(rep[1], 'e', "a hung-up terminal reads EOF");
	CHECK_EQ(rep[2], 'i', "and its ioctls fail with EIO");
	waitpid(l, &st, 0);
	CHECK_EQ(read(fds[0], rep, 1), 1, "the foreground child reports");
	CHECK_EQ(rep[0], 'f', "the leader's exit sent the old foreground group SIGHUP");
	close(fds[0]);
}

int main(void)
{
	int m, s, m2, s2, r;
	pid_t p;

	tty_watchdog(30);
	/* Not a session leader, no controlling terminal of ours. */
	tty_openpty(&m, &s);
	tty_openpty(&m2, &s2);
	CHECK_ERRNO(ioctl(s, TIOCSCTTY, 0), EPERM, "TIOCSCTTY by a process that leads no session");
	CHECK(ioctl(m, TIOCGPGRP, &r) == 0 && r == 0, "a pty nobody controls has no foreground");
	p = fork();
	if (p == 0) {
		leader(m, s, s2);
		_exit(GUEST_DONE());
	}
	close(s2);
	close(m2);
	CHECK_EQ(wait_for(p), 1000, "the session's checks passed");
	close(s);
	close(m);
	leader_exit();
	hangup();
	return GUEST_DONE();
}
