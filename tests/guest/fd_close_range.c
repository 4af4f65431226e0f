/*
 * Guest test: close_range(2). A process that shares its descriptor table
 * (clone CLONE_FILES) closes descriptors for both, unless it asks for
 * CLOSE_RANGE_UNSHARE, which gives it a table of its own first; the same
 * for a thread. CLOSE_RANGE_CLOEXEC marks instead of closing. Bad flags
 * and a range whose end is below its start are EINVAL.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

static long close_range_(unsigned lo, unsigned hi, unsigned flags)
{
	return syscall(SYS_close_range, lo, hi, flags);
}

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int is_cloexec(int fd)
{
	return fcntl(fd, F_GETFD) == FD_CLOEXEC;
}

/* A child sharing the table runs close_range(fd, ~0, flags) and reports
 * (exit status) whether fd is open and close-on-exec for it. */
static int in_sharing_child(int fd, unsigned flags)
{
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	int status;

	if (pid == 0) {
		if (close_range_((unsigned)fd, ~0u, flags) != 0)
			_exit(9);
		_exit((is_open(fd) ? 1 : 0) | (is_cloexec(fd) ? 2 : 0));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int thread_fd;
static volatile int thread_saw;

static void *thread_unshares(void *arg)
{
	close_range_((unsigned)thread_fd, (unsigned)thread_fd, CLOSE_RANGE_UNSHARE);
	thread_saw = is_open(thread_fd);
	return arg;
}

int main(void)
{
	int fd = open("/dev/null", O_RDONLY);
	pthread_t th;

	CHECK(fd >= 0, "open");
	CHECK_ERRNO(close_range_(5, 4, 0), EINVAL, "a range ending below its start");
	CHECK_ERRNO(close_range_(fd, fd, 8), EINVAL, "an unknown flag");

	CHECK_EQ(in_sharing_child(fd, CLOSE_RANGE_UNSHARE), 0, "UNSHARE: closed for the child");
	CHECK(is_open(fd), "UNSHARE: still open for the parent");
	CHECK_EQ(in_sharing_child(fd, CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC), 3,
		 "UNSHARE|CLOEXEC: close-on-exec for the child");
	CHECK(!is_cloexec(fd), "UNSHARE|CLOEXEC: not for the parent");
	CHECK_EQ(in_sharing_child(fd, CLOSE_RANGE_CLOEXEC), 3, "CLOEXEC: close-on-exec");
	CHECK(is_cloexec(fd), "CLOEXEC: for the parent too (one table)");
	CHECK_EQ(in_sharing_child(fd, 0), 0, "no flags: closed for the child");
	CHECK(!is_open(fd), "no flags: closed for the parent too");

	thread_fd = open("/dev/null", O_RDONLY);
	pthread_create(&th, NULL, thread_unshares, NULL);
	pthread_join(th, NULL);
	CHECK(!thread_saw, "UNSHARE in a thread: closed for the thread");
	CHECK(is_open(thread_fd), "still open for the other threads");
	CHECK_EQ(close_range_(3, ~0u, 0), 0, "close_range of all but the standard three");
	CHECK(!is_open(thread_fd), "closed");
	return GUEST_DONE();
}
