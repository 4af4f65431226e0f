/*
 * Guest test: signalfd. Reading takes the caller's pending signals of the
 * fd's mask (thread's and process's) as struct signalfd_siginfo, filled
 * per kind of signal (kill, tgkill, sigqueue, SIGCHLD, a POSIX timer's);
 * reads block until one comes, or fail with EAGAIN when non-blocking; the
 * mask can be changed on the same fd; bad arguments fail as on Linux.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>

static void mask_of(sigset_t *s, int a, int b)
{
	sigemptyset(s);
	if (a)
		sigaddset(s, a);
	if (b)
		sigaddset(s, b);
}

int main(void)
{
	struct signalfd_siginfo si[4];
	sigset_t m, blocked;
	union sigval v = {.sival_int = 42};
	pid_t p, me = getpid();
	int fd, st;
	long n;

	alarm(20);
	mask_of(&blocked, SIGUSR1, SIGUSR2);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, NULL);

	mask_of(&m, SIGUSR1, 0);
	fd = signalfd(-1, &m, SFD_CLOEXEC | SFD_NONBLOCK);
	CHECK(fd >= 0, "signalfd makes a descriptor");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "SFD_CLOEXEC");
	CHECK_EQ(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDWR | O_NONBLOCK,
		 "it is read-write and non-blocking");
	CHECK_ERRNO(read(fd, si, sizeof(si[0]) - 1), EINVAL, "a read smaller than one siginfo");
	CHECK_ERRNO(read(fd, si, sizeof(si)), EAGAIN, "nothing pending, non-blocking");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "lseek does nothing");
	{
		char link[64], path[64];
		long r;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		r = readlink(path, link, sizeof(link) - 1);
		link[r > 0 ? r : 0] = '\0';
		CHECK(strcmp(link, "anon_inode:[signalfd]") == 0, "/proc/self/fd names it");
	}

	kill(me, SIGUSR1);
	n = read(fd, si, sizeof(si));
	CHECK_EQ(n, sizeof(si[0]), "kill: one siginfo");
	CHECK(si[0].ssi_signo == SIGUSR1 && si[0].ssi_code == SI_USER &&
		      si[0].ssi_pid == (uint32_t)me && si[0].ssi_uid == getuid(),
	      "with SIGUSR1, SI_USER, our pid and uid");
	sigset_t pend;
	sigpending(&pend);
	CHECK(!sigismember(&pend, SIGUSR1), "the signal is no longer pending");

	raise(SIGUSR1);
	CHECK_EQ(read(fd, si, sizeof(si)), sizeof(si[0]), "raise (tgkill)");
	CHECK_EQ(si[0].ssi_code, SI_TKILL, "SI_TKILL");
	sigqueue(me, SIGUSR1, v);
	CHECK_EQ(read(fd, si, sizeof(si)), sizeof(si[0]), "sigqueue");
	CHECK(si[0].ssi_code == SI_QUEUE && si[0].ssi_int == 42, "SI_QUEUE with its value");

	kill(me, SIGUSR2);
	CHECK_ERRNO(read(fd, si, sizeof(si)), EAGAIN, "a signal outside the mask is not read");
	mask_of(&m, SIGUSR1, SIGUSR2);
	CHECK_EQ(signalfd(fd, &m, 0), fd, "signalfd on the fd changes its mask");
	kill(me, SIGUSR1);
	CHECK_EQ(read(fd, si, sizeof(si)), 2 * sizeof(si[0]), "two signals in one read");
	CHECK(si[0].ssi_signo == SIGUSR1 && si[1].ssi_signo == SIGUSR2, "lowest first");

	/* SIGCHLD carries the child's status. */
	close(fd);
	mask_of(&m, SIGCHLD, 0);
	fd = signalfd(-1, &m, 0);
	p = fork();
	if (p == 0)
		_exit(3);
	CHECK_EQ(read(fd, si, sizeof(si)), sizeof(si[0]), "a blocking read waits for SIGCHLD");
	CHECK(si[0].ssi_signo == SIGCHLD && si[0].ssi_code == CLD_EXITED &&
		      si[0].ssi_pid == (uint32_t)p && si[0].ssi_status == 3,
	      "CLD_EXITED, the child's pid and status");
	waitpid(p, &st, 0);

	/* A blocking read until another process signals us. */
	close(fd);
	mask_of(&m, SIGUSR2, 0);
	fd = signalfd(-1, &m, 0);
	p = fork();
	if (p == 0) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
		kill(getppid(), SIGUSR2);
		_exit(0);
	}
	CHECK_EQ(read(fd, si, sizeof(si)), sizeof(si[0]), "a blocking read wakes for the signal");
	CHECK(si[0].ssi_signo == SIGUSR2 && si[0].ssi_pid == (uint32_t)p, "sent by the child");
	waitpid(p, &st, 0);

	/* A blocking read until a POSIX timer's signal comes. */
	{
		struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2};
		struct itimerspec its = {.it_value = {0, 100000000}};
		timer_t tid;

		sev.sigev_value.sival_int = 7;
		CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &tid), 0, "timer_create");
		CHECK_EQ(timer_settime(tid, 0, &its, NULL), 0, "armed for 100 ms");
		CHECK_EQ(read(fd, si, sizeof(si)), sizeof(si[0]),
			 "a blocking read wakes for the timer's signal");
		CHECK(si[0].ssi_signo == SIGUSR2 && si[0].ssi_code == SI_TIMER &&
			      si[0].ssi_tid == (uint32_t)(intptr_t)tid && si[0].ssi_overrun == 0 &&
			      si[0].ssi_int == 7,
		      "SI_TIMER with the timer's id, no overrun and its value");
		timer_delete(tid);
	}

	CHECK_ERRNO(signalfd(0, &m, 0), EINVAL, "signalfd on a descriptor that is not one");
	CHECK_ERRNO(signalfd(99, &m, 0), EBADF, "signalfd on no descriptor");
	CHECK_ERRNO(syscall(SYS_signalfd4, -1, &m, 4, 0), EINVAL, "a mask size other than 8");
	CHECK_ERRNO(syscall(SYS_signalfd4, -1, &m, 8, 1), EINVAL, "unknown flags");
	CHECK_ERRNO(syscall(SYS_signalfd4, -1, (void *)8, 8, 0), EFAULT, "a bad mask pointer");
	close(fd);
	return GUEST_DONE();
}
