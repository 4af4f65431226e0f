/*
 * fcntl(F_GETPIPE_SZ, F_SETPIPE_SZ): the default of 16 pages, rounding up
 * to a power of two of pages, what a resized pipe holds, EBUSY below the
 * data held, EPERM past /proc/sys/fs/pipe-max-size for an unprivileged
 * task, EBADF on other files; a write longer than the pipe when its
 * reader goes.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

/* How many bytes a nonblocking writer gets into the pipe before EAGAIN. */
static long fill(int fd)
{
	static char buf[65536];
	long total = 0, n;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((n = write(fd, buf, sizeof(buf))) > 0)
		total += n;
	while ((n = write(fd, buf, 1)) > 0)
		total += n;
	fcntl(fd, F_SETFL, 0);
	return errno == EAGAIN ? total : -1;
}

static void test_sizes(void)
{
	int p[2], fd = open("/dev/null", O_RDONLY);
	char buf[64] = {0};
	static char big[8192];

	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_EQ(fcntl(p[0], F_GETPIPE_SZ), 65536, "16 pages by default, read end");
	CHECK_EQ(fcntl(p[1], F_GETPIPE_SZ), 65536, "and write end");
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 0), 4096, "0 rounds up to a page");
	CHECK_EQ(fcntl(p[0], F_GETPIPE_SZ), 4096, "both ends see it");
	CHECK_EQ(fill(p[1]), 4096, "a one-page pipe holds 4096 bytes");
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 1), 4096, "full, the same size again");
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 5000), 8192, "5000 rounds up to two pages");
	CHECK_EQ(read(p[0], buf, 10), 10, "the data survives a resize");
	CHECK_EQ(read(p[0], big, sizeof(big)), 4086, "all of it");
	CHECK_EQ(fill(p[1]), 8192, "then it holds 8192");
	CHECK_ERRNO(fcntl(p[1], F_SETPIPE_SZ, 4096), EBUSY, "shrinking below the data held");
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 3 * 65536), 262144, "3*64k rounds up to 256k");
	CHECK_EQ(fill(p[1]), 262144 - 8192, "which it holds");
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 1 << 20), 1 << 20, "1 MiB, the default maximum");
	CHECK_ERRNO(fcntl(p[1], F_SETPIPE_SZ, (1L << 31) + 1), EINVAL, "more than 2 GiB");
	CHECK_ERRNO(fcntl(fd, F_GETPIPE_SZ), EBADF, "F_GETPIPE_SZ of a non-pipe");
	CHECK_ERRNO(fcntl(fd, F_SETPIPE_SZ, 4096), EBADF, "F_SETPIPE_SZ of a non-pipe");
	close(p[0]), close(p[1]), close(fd);
}

/* Does this task hold CAP_SYS_RESOURCE (not in every container)? */
static int has_sys_resource(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (d[CAP_SYS_RESOURCE / 32].effective >> (CAP_SYS_RESOURCE % 32)) & 1;
}

/* An unprivileged task: up to pipe-max-size, and shrinking is always allowed. */
static void test_unprivileged(void)
{
	int p[2], status;
	pid_t pid;

	CHECK_EQ(pipe(p), 0, "a pipe");
	if (has_sys_resource())
		CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 2 << 20), 2 << 20, "2 MiB: CAP_SYS_RESOURCE may");
	else
		CHECK_ERRNO(fcntl(p[1], F_SETPIPE_SZ, 2 << 20), EPERM, "2 MiB: CAP_SYS_RESOURCE may");
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (fcntl(p[1], F_SETPIPE_SZ, 4 << 20) != -1 || errno != EPERM)
			_exit(11);
		if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) != 1 << 20)
			_exit(12);
		if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) != 1 << 20)
			_exit(13);
		if (fcntl(p[1], F_SETPIPE_SZ, (1 << 20) + 1) != -1 || errno != EPERM)
			_exit(14);
		if (fcntl(p[1], F_SETPIPE_SZ, 4096) != 4096)
			_exit(15);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0) == pid && WIFEXITED(status), 1, "the child ran");
	CHECK_EQ(WEXITSTATUS(status), 0,
		 "unprivileged: EPERM past 1 MiB, shrinking and 1 MiB allowed");
	close(p[0]), close(p[1]);
}

static volatile sig_atomic_t sigpipes;

static void on_sigpipe(int sig)
{
	sigpipes++;
}

/* A blocked write (or writev) of twice the pipe's size, cut short by the
 * last reader's going, returns what it wrote, and SIGPIPE comes with it as
 * with the EPIPE of the next write. */
static void partial_write(int size, int vectored)
{
	static char buf[2 * 65536];
	struct iovec v[2] = {{buf, size}, {buf + size, size}};
	char what[80];
	int p[2], status;
	pid_t pid;

	CHECK_EQ(pipe(p) == 0 && fcntl(p[1], F_SETPIPE_SZ, size) == size, 1, "a pipe, resized");
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		usleep(100000);
		_exit(0);
	}
	close(p[0]);
	sigpipes = 0;
	signal(SIGPIPE, on_sigpipe);
	snprintf(what, sizeof(what), "%s of %d bytes: %d when the reader goes",
		 vectored ? "writev" : "write", 2 * size, size);
	CHECK_EQ(vectored ? writev(p[1], v, 2) : write(p[1], buf, 2 * size), size, what);
	CHECK_EQ(sigpipes, 1, "and SIGPIPE");
	CHECK_ERRNO(write(p[1], buf, 1), EPIPE, "the next write");
	CHECK_EQ(sigpipes, 2, "and SIGPIPE again");
	signal(SIGPIPE, SIG_DFL);
	waitpid(pid, &status, 0);
	close(p[1]);
}

static void test_max_size_file(void)
{
	char buf[32] = {0};
	int fd = open("/proc/sys/fs/pipe-max-size", O_RDONLY);

	CHECK(fd >= 0, "/proc/sys/fs/pipe-max-size opens");
	CHECK_EQ(read(fd, buf, sizeof(buf) - 1), 8, "it reads 8 bytes");
	CHECK(strcmp(buf, "1048576\n") == 0, "1048576");
	close(fd);
}

int main(void)
{
	test_sizes();
	if (getuid() == 0)
		test_unprivileged();
	else
		printf("ok: (not root: the unprivileged checks are skipped)\n");
	partial_write(4096, 0);
	partial_write(65536, 0);
	partial_write(65536, 1);
	test_max_size_file();
	return GUEST_DONE();
}
