/* pidfds: pidfd_open's rules, a pidfd readable once its process exits,
 * pidfd_send_signal, waitid(P_PIDFD), pidfd_getfd and clone(CLONE_PIDFD). */
#include "guest.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

static int pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int pidfd_send_signal(int fd, int sig, siginfo_t *info, unsigned flags)
{
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static int pidfd_getfd(int fd, int target, unsigned flags)
{
	return (int)syscall(SYS_pidfd_getfd, fd, target, flags);
}

static short ready(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, ms) == 1 ? p.revents : 0;
}

int main(void)
{
	int self, fd, pfd[2], ack[2], got;
	char buf[64], link[64], path[64];
	siginfo_t si;
	pid_t pid;

	self = pidfd_open(getpid(), 0);
	CHECK(self >= 0 && (fcntl(self, F_GETFD) & FD_CLOEXEC), "pidfd_open of itself: close-on-exec");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", self);
	got = (int)readlink(path, link, sizeof(link) - 1);
	link[got > 0 ? got : 0] = '\0';
	printf("link: %s\n", link);
	CHECK_EQ(ready(self, 0), 0, "its own process has not exited");
	CHECK_ERRNO(read(self, buf, 8), EINVAL, "read of a pidfd");
	CHECK_ERRNO(pidfd_open(getpid(), 1), EINVAL, "pidfd_open with an unknown flag");
	CHECK_ERRNO(pidfd_open(0, 0), EINVAL, "pidfd_open of pid 0");
	CHECK_ERRNO(pidfd_open(4000000, 0), ESRCH, "pidfd_open of a pid not in use");
	CHECK_ERRNO(pidfd_send_signal(0, 0, NULL, 0), EBADF, "pidfd_send_signal to a non-pidfd");
	/* (flag 1 is PIDFD_SIGNAL_THREAD since Linux 6.9; the sandbox is 6.1's) */
	CHECK_ERRNO(pidfd_send_signal(self, 0, NULL, 0x80), EINVAL, "pidfd_send_signal with a flag");

	/* A child that waits on a pipe until it is killed. */
	CHECK(pipe(pfd) == 0, "pipe");
	CHECK(pipe(ack) == 0, "a pipe back, to know the child has printed");
	pid = fork();
	if (pid == 0) {
		close(pfd[1]);
		close(ack[0]);
		for (;;) {
			char c;
			if (read(pfd[0], &c, 1) == 1)
				printf("child read %c\n", c);
			else
				_exit(3);
			fflush(stdout);
			if (write(ack[1], &c, 1) != 1)
				_exit(4);
		}
	}
	close(pfd[0]);
	close(ack[1]);
	fd = pidfd_open(pid, O_NONBLOCK);
	CHECK(fd >= 0, "pidfd_open of the child");
	CHECK_EQ(ready(fd, 0), 0, "not readable while it lives");
	CHECK_EQ(pidfd_send_signal(fd, 0, NULL, 0), 0, "signal 0: it may be signalled");
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTERM;
	si.si_code = SI_USER;
	CHECK_ERRNO(pidfd_send_signal(fd, SIGTERM, &si, 0), EPERM,
		    "a made-up SI_USER siginfo to another process");
	si.si_signo = SIGINT;
	si.si_code = SI_QUEUE;
	CHECK_ERRNO(pidfd_send_signal(fd, SIGTERM, &si, 0), EINVAL, "a siginfo of another signal");

	/* pidfd_getfd: the child's pipe end, used by the parent. */
	{
		int dup = pidfd_getfd(fd, pfd[0] + 0 == 3 ? 3 : 3, 0);
		CHECK_ERRNO(pidfd_getfd(fd, 900, 0), EBADF, "pidfd_getfd of a descriptor it lacks");
		CHECK_ERRNO(pidfd_getfd(fd, 3, 1), EINVAL, "pidfd_getfd with a flag");
		CHECK_ERRNO(pidfd_getfd(pfd[1], 3, 0), EBADF, "pidfd_getfd through a non-pidfd");
		CHECK(dup >= 0 && (fcntl(dup, F_GETFD) & FD_CLOEXEC),
		      "pidfd_getfd copies the child's descriptor 3, close-on-exec");
		if (dup >= 0)
			close(dup);
	}
	{
		char c;
		int ok = write(pfd[1], "x", 1) == 1 && read(ack[0], &c, 1) == 1;
		CHECK(ok, "the child reads a byte");
	}
	CHECK_EQ(pidfd_send_signal(fd, SIGTERM, NULL, 0), 0, "SIGTERM through the pidfd");
	CHECK_EQ(ready(fd, 5000), POLLIN, "the pidfd becomes readable");
	memset(&si, 0, sizeof(si));
	CHECK_ERRNO(waitid(P_PIDFD, 900, &si, WEXITED), EBADF, "waitid(P_PIDFD) of a bad descriptor");
	CHECK(waitid(P_PIDFD, fd, &si, WEXITED) == 0 && si.si_pid == pid &&
		      si.si_code == CLD_KILLED && si.si_status == SIGTERM,
	      "waitid(P_PIDFD) reaps it: killed by SIGTERM");
	/* (Linux 6.9 adds POLLHUP once reaped) */
	CHECK_EQ(ready(fd, 0) & POLLIN, POLLIN, "still readable once reaped");
	CHECK_ERRNO(pidfd_send_signal(fd, SIGTERM, NULL, 0), ESRCH, "signal to a reaped process");
	CHECK_ERRNO(pidfd_getfd(fd, 0, 0), ESRCH, "pidfd_getfd of a reaped process");
	CHECK_ERRNO(waitid(P_PIDFD, self, &si, WEXITED | WNOHANG), ECHILD,
		    "waitid(P_PIDFD) of a process that is not a child");
	close(fd);

	/* clone(CLONE_PIDFD): the pidfd is written where parent_tid points. */
	fd = -1;
	pid = (pid_t)syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &fd, 0, 0);
	if (pid == 0)
		_exit(7);
	CHECK(pid > 0 && fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	      "clone(CLONE_PIDFD) gives a close-on-exec pidfd");
	CHECK(waitid(P_PIDFD, fd, &si, WEXITED) == 0 && si.si_pid == pid &&
		      si.si_code == CLD_EXITED && si.si_status == 7,
	      "waitid(P_PIDFD) of the clone: status 7");
	close(fd);
	CHECK_ERRNO(syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &fd, 0, 0),
		    EINVAL, "CLONE_PIDFD with CLONE_PARENT_SETTID");

	/* clone3: its own pidfd field, the exit signal apart from the flags. */
	{
		struct {
			uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
				tls;
		} ca = {0};
		unsigned char big[128] = {0};
		pid_t tid = 0;
		fd = -1;
		ca.flags = CLONE_PIDFD | CLONE_PARENT_SETTID;
		ca.pidfd = (uint64_t)(uintptr_t)&fd;
		ca.parent_tid = (uint64_t)(uintptr_t)&tid;
		ca.exit_signal = SIGCHLD;
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid == 0)
			_exit(9);
		CHECK(pid > 0 && tid == pid && fd >= 0, "clone3: the tid and the pidfd, each in its place");
		CHECK(waitid(P_PIDFD, fd, &si, WEXITED) == 0 && si.si_status == 9 &&
			      si.si_code == CLD_EXITED,
		      "the clone3 child exits 9, and SIGCHLD told of it");
		close(fd);
		CHECK_ERRNO(syscall(SYS_clone3, &ca, 32), EINVAL, "clone3 with a size below 64");
		memcpy(big, &ca, sizeof(ca));
		big[100] = 1;
		CHECK_ERRNO(syscall(SYS_clone3, big, sizeof(big)), E2BIG,
			    "clone3 with unknown bytes set");
		ca.flags = SIGCHLD;
		CHECK_ERRNO(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL,
			    "clone3 with a signal in the flags");
		ca.flags = 0;
		ca.stack = 4096;
		CHECK_ERRNO(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL,
			    "clone3 with a stack but no size");
	}
	/* A nonblocking pidfd: waitid without WNOHANG says EAGAIN while it lives. */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	fd = pidfd_open(pid, O_NONBLOCK);
	CHECK_ERRNO(waitid(P_PIDFD, fd, &si, WEXITED), EAGAIN, "waitid of a live child's nonblocking pidfd");
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, NULL, 0) == pid, "reap it");
	close(fd);
	return GUEST_DONE();
}
