/*
 * Guest test: signal-driven I/O. fcntl's owner commands (F_SETOWN,
 * F_GETOWN, F_SETOWN_EX, F_GETOWN_EX, F_SETSIG, F_GETSIG) and their
 * errors; with O_ASYNC, a write to a pipe or a socket pair sends the
 * reading end's owner SIGIO (si_code SI_KERNEL), or the F_SETSIG signal
 * with POLL_IN, si_band and si_fd; O_ASYNC off stops it. The ioctl forms
 * (FIOASYNC, FIOSETOWN, FIOGETOWN, SIOCSPGRP, SIOCGPGRP) do the same.
 */
#include "guest.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#define RTSIG 40

/* Wait up to ms for sig (blocked); its siginfo in si. 1 if it came. */
static int got(int sig, int ms, siginfo_t *si)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &ts) == sig;
}

int main(void)
{
	struct f_owner_ex ex;
	int p[2], s[2];
	sigset_t set;
	siginfo_t si;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, RTSIG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setpgid(0, 0); /* a group of its own (in the sandbox it is init, in group 0) */
	pipe(p);

	CHECK_EQ(fcntl(p[0], F_GETOWN), 0, "no owner at first");
	CHECK_EQ(fcntl(p[0], F_GETSIG), 0, "no signal at first");
	CHECK(fcntl(p[0], F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_TID && ex.pid == 0,
	      "F_GETOWN_EX at first: TID 0");
	CHECK_ERRNO(fcntl(p[0], F_SETOWN, 999999), ESRCH, "F_SETOWN of no process");
	CHECK_ERRNO(fcntl(p[0], F_SETSIG, 65), EINVAL, "F_SETSIG 65");
	CHECK_ERRNO(fcntl(p[0], F_SETSIG, -1), EINVAL, "F_SETSIG -1");
	ex.type = 7;
	ex.pid = getpid();
	CHECK_ERRNO(fcntl(p[0], F_SETOWN_EX, &ex), EINVAL, "F_SETOWN_EX of type 7");
	CHECK_ERRNO(fcntl(p[0], F_SETOWN_EX, (void *)8), EFAULT, "F_SETOWN_EX of a bad pointer");
	CHECK_EQ(fcntl(p[0], F_SETOWN, -getpgrp()), 0, "F_SETOWN of the process group");
	CHECK_EQ(fcntl(p[0], F_GETOWN), -getpgrp(), "F_GETOWN gives it negated");
	CHECK(fcntl(p[0], F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_PGRP && ex.pid == getpgrp(),
	      "F_GETOWN_EX: PGRP");
	ex.type = F_OWNER_TID;
	ex.pid = gettid();
	CHECK(fcntl(p[0], F_SETOWN_EX, &ex) == 0 && fcntl(p[0], F_GETOWN) == gettid(),
	      "F_SETOWN_EX of this thread");

	/* plain SIGIO */
	CHECK_EQ(fcntl(p[0], F_SETOWN, getpid()), 0, "F_SETOWN of this process");
	write(p[1], "a", 1);
	CHECK(!got(SIGIO, 100, &si), "no SIGIO without O_ASYNC");
	read(p[0], &c, 1);
	CHECK_EQ(fcntl(p[0], F_SETFL, O_ASYNC), 0, "O_ASYNC on the read end");
	CHECK(fcntl(p[0], F_GETFL) & O_ASYNC, "F_GETFL shows it");
	write(p[1], "b", 1);
	CHECK(got(SIGIO, 2000, &si) && si.si_code == SI_KERNEL, "a write sends SIGIO (SI_KERNEL)");
	read(p[0], &c, 1);

	/* F_SETSIG */
	CHECK_EQ(fcntl(p[0], F_SETSIG, RTSIG), 0, "F_SETSIG 40");
	CHECK_EQ(fcntl(p[0], F_GETSIG), RTSIG, "F_GETSIG");
	write(p[1], "c", 1);
	CHECK(got(RTSIG, 2000, &si), "a write sends signal 40");
	CHECK(si.si_code == POLL_IN && si.si_fd == p[0] && si.si_band == (POLLIN | POLLRDNORM),
	      "with POLL_IN, si_fd and si_band POLLIN|POLLRDNORM");
	read(p[0], &c, 1);

	/* off again */
	CHECK_EQ(fcntl(p[0], F_SETFL, 0), 0, "O_ASYNC off");
	write(p[1], "d", 1);
	CHECK(!got(RTSIG, 100, &si) && !got(SIGIO, 10, &si), "then no signal");
	read(p[0], &c, 1);

	/* a socket pair */
	socketpair(AF_UNIX, SOCK_STREAM, 0, s);
	fcntl(s[0], F_SETOWN, getpid());
	CHECK_EQ(fcntl(s[0], F_SETFL, O_ASYNC | O_NONBLOCK), 0, "O_ASYNC on a socket");
	while (got(SIGIO, 50, &si))
		; /* (what arming may have said about its write space) */
	write(s[1], "e", 1);
	CHECK(got(SIGIO, 2000, &si), "data on the socket sends SIGIO");
	read(s[0], &c, 1);

	/* the same through ioctl: FIOASYNC, FIOSETOWN/FIOGETOWN, SIOC[SG]PGRP */
	{
		int on = 0, pid = 0, q[2];
		CHECK_ERRNO(ioctl(s[0], FIOASYNC, NULL), EFAULT, "FIOASYNC of a bad pointer");
		CHECK(ioctl(s[0], FIOASYNC, &on) == 0 && !(fcntl(s[0], F_GETFL) & O_ASYNC),
		      "FIOASYNC 0 clears O_ASYNC");
		write(s[1], "f", 1);
		CHECK(!got(SIGIO, 100, &si), "then no SIGIO");
		read(s[0], &c, 1);
		on = 1;
		CHECK(ioctl(s[0], FIOASYNC, &on) == 0 && (fcntl(s[0], F_GETFL) & O_ASYNC),
		      "FIOASYNC 1 sets it");
		while (got(SIGIO, 50, &si))
			;
		pid = -getpgrp();
		CHECK(ioctl(s[0], FIOSETOWN, &pid) == 0 && fcntl(s[0], F_GETOWN) == -getpgrp(),
		      "FIOSETOWN of the process group");
		pid = getpid();
		CHECK_EQ(ioctl(s[0], SIOCSPGRP, &pid), 0, "SIOCSPGRP of this process");
		pid = 0;
		CHECK(ioctl(s[0], FIOGETOWN, &pid) == 0 && pid == getpid(), "FIOGETOWN reads it");
		pid = 0;
		CHECK(ioctl(s[0], SIOCGPGRP, &pid) == 0 && pid == getpid(), "and SIOCGPGRP");
		write(s[1], "g", 1);
		CHECK(got(SIGIO, 2000, &si), "data sends SIGIO again");
		pipe(q);
		CHECK_ERRNO(ioctl(q[0], SIOCGPGRP, &pid), ENOTTY, "SIOCGPGRP of a pipe");
		CHECK_ERRNO(ioctl(q[0], FIOGETOWN, &pid), ENOTTY, "FIOGETOWN of a pipe");
		close(q[0]);
		close(q[1]);
	}
	close(p[0]);
	close(p[1]);
	return GUEST_DONE();
}
