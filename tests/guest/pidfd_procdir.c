/* pidfd_send_signal takes an fd of a /proc/<pid> directory in place of a
 * pidfd (Python's signal.pidfd_send_signal test does this): a signal to
 * the process itself and to a child, ESRCH once the child is reaped, and
 * EBADF for a thread's directory and for other files. */
#include "guest.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

static long send(int fd, int sig)
{
	return syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

int main(void)
{
	char path[64];
	int self, child_fd, status, fd;
	pid_t pid;

	signal(SIGUSR1, on_usr1);
	self = open("/proc/self", O_DIRECTORY | O_RDONLY);
	CHECK(self >= 0, "open /proc/self");
	CHECK(send(self, SIGUSR1) == 0 && got == SIGUSR1, "a signal to itself through /proc/self");
	snprintf(path, sizeof(path), "/proc/self/task/%d", getpid());
	fd = open(path, O_DIRECTORY | O_RDONLY);
	CHECK_ERRNO(send(fd, SIGUSR1), EBADF, "a thread's directory is no pidfd");
	close(fd);
	fd = open("/proc/self/status", O_RDONLY);
	CHECK_ERRNO(send(fd, SIGUSR1), EBADF, "a file of /proc is no pidfd");
	close(fd);
	CHECK_ERRNO(send(self, 65), EINVAL, "an invalid signal");

	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d", pid);
	child_fd = open(path, O_DIRECTORY | O_RDONLY);
	CHECK(child_fd >= 0, "open the child's /proc directory");
	CHECK(send(child_fd, SIGTERM) == 0, "SIGTERM to the child through it");
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	      "the child died of it");
	CHECK_ERRNO(send(child_fd, SIGTERM), ESRCH, "a reaped child");
	close(child_fd);
	close(self);
	return GUEST_DONE();
}
