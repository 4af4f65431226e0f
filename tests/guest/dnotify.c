/*
 * Guest test: dnotify (fcntl F_NOTIFY) on a directory of its own. Each
 * DN_* event signals the owner (F_SETSIG's signal with POLL_MSG, si_fd and
 * si_band POLLIN|POLLRDNORM|POLLMSG; plain SIGIO without it); a
 * registration ends at its first event unless DN_MULTISHOT; a second
 * F_NOTIFY adds events; a mask of nothing ends it, and so does closing the
 * descriptor; F_NOTIFY makes the caller the owner; files are ENOTDIR.
 */
#include "fsguest.h"

#include <poll.h>
#include <signal.h>
#include <time.h>

#define RTSIG (SIGRTMIN + 2)

/* Did sig come within ms? Its siginfo in *si. */
static int got(int sig, int ms, siginfo_t *si)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &ts) == sig;
}

static void touch(const char *name)
{
	close(open(name, O_WRONLY | O_CREAT, 0644));
}

int main(void)
{
	sigset_t set;
	siginfo_t si;
	int fd, fd2, f;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, RTSIG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fs_enter("dnotify");
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_EQ(fs_put("file", "x"), 0, "a file");

	f = open("file", O_RDONLY);
	CHECK_ERRNO(fcntl(f, F_NOTIFY, DN_CREATE), ENOTDIR, "F_NOTIFY on a file");
	close(f);

	fd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fcntl(fd, F_SETSIG, RTSIG), 0, "F_SETSIG");
	CHECK_EQ(fcntl(fd, F_NOTIFY, DN_CREATE), 0, "F_NOTIFY DN_CREATE");
	CHECK_EQ(fcntl(fd, F_GETOWN), getpid(), "F_NOTIFY made this process the owner");
	touch("d/a");
	CHECK(got(RTSIG, 2000, &si), "a create in the directory sends the F_SETSIG signal");
	CHECK(si.si_code == POLL_MSG && si.si_fd == fd &&
		      si.si_band == (POLLIN | POLLRDNORM | POLLMSG),
	      "with POLL_MSG, si_fd and si_band POLLIN|POLLRDNORM|POLLMSG");
	touch("d/b");
	CHECK(!got(RTSIG, 200, &si), "without DN_MULTISHOT, only the first event");
	touch("file2");
	CHECK(!got(RTSIG, 100, &si), "nor one outside the directory");

	CHECK_EQ(fcntl(fd, F_NOTIFY, DN_MODIFY | DN_MULTISHOT), 0, "F_NOTIFY DN_MODIFY|DN_MULTISHOT");
	f = open("d/a", O_WRONLY);
	CHECK_EQ(write(f, "1", 1), 1, "a write");
	CHECK(got(RTSIG, 2000, &si), "a write to a file in it is DN_MODIFY");
	CHECK_EQ(write(f, "2", 1), 1, "another write");
	CHECK(got(RTSIG, 2000, &si), "DN_MULTISHOT: and again");
	close(f);
	CHECK_EQ(unlink("d/b"), 0, "unlink d/b");
	CHECK(!got(RTSIG, 200, &si), "an unlink is not DN_MODIFY");
	CHECK_EQ(fcntl(fd, F_NOTIFY, DN_DELETE | DN_ATTRIB | DN_MULTISHOT), 0,
		 "F_NOTIFY adds DN_DELETE and DN_ATTRIB");
	CHECK_EQ(unlink("d/a"), 0, "unlink d/a");
	CHECK(got(RTSIG, 2000, &si), "now an unlink signals");
	touch("d/c");
	CHECK_EQ(chmod("d/c", 0600), 0, "chmod d/c");
	CHECK(got(RTSIG, 2000, &si) && si.si_fd == fd, "a chmod is DN_ATTRIB");
	CHECK(!got(RTSIG, 200, &si), "once");
	CHECK_EQ(fcntl(fd, F_NOTIFY, DN_MULTISHOT), 0, "F_NOTIFY of no event");
	CHECK_EQ(chmod("d/c", 0644), 0, "chmod d/c again");
	CHECK(!got(RTSIG, 200, &si), "ends the registration");

	/* Plain SIGIO without F_SETSIG, for a rename (DN_RENAME). */
	fd2 = open("d", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(fcntl(fd2, F_NOTIFY, DN_RENAME), 0, "F_NOTIFY DN_RENAME");
	CHECK_EQ(rename("d/c", "d/e"), 0, "rename in the directory");
	CHECK(got(SIGIO, 2000, &si) && si.si_code == SI_KERNEL, "sends SIGIO (SI_KERNEL)");

	/* Closing the descriptor ends it. */
	CHECK_EQ(fcntl(fd2, F_NOTIFY, DN_CREATE | DN_MULTISHOT), 0, "F_NOTIFY DN_CREATE again");
	close(fd2);
	touch("d/f");
	CHECK(!got(SIGIO, 200, &si), "closing the descriptor ends the registration");
	close(fd);
	fs_leave();
	return GUEST_DONE();
}
