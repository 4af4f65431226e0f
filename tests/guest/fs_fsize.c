/*
 * Guest test: RLIMIT_FSIZE. A write that straddles the limit writes up to
 * it; one that starts at or past it fails with EFBIG and sends the writer
 * SIGXFSZ (SI_USER, from itself), whose default action kills the process;
 * a write of nothing is not refused. write, pwrite, writev, O_APPEND,
 * sendfile, copy_file_range; truncate, ftruncate and fallocate that would
 * grow a file past the limit (shrinking is fine). Pipes have no limit.
 */
#include "fsguest.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define LIMIT 10000

static char buf[3 * LIMIT];
static volatile int caught, caught_code, caught_self;

static void on_xfsz(int sig, siginfo_t *si, void *uc)
{
	caught++;
	caught_code = si->si_code;
	caught_self = si->si_pid == getpid();
}

static void set_limit(rlim_t cur)
{
	struct rlimit r = {cur, RLIM_INFINITY};

	if (setrlimit(RLIMIT_FSIZE, &r) != 0)
		printf("FAIL: setrlimit\n");
}

/* The default action of SIGXFSZ, in a child: killed by it. */
static void default_action(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct rlimit none = {0, 0};
		int fd = open("child", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setrlimit(RLIMIT_CORE, &none);
		signal(SIGXFSZ, SIG_DFL);
		set_limit(LIMIT);
		if (write(fd, buf, LIMIT + 1) != LIMIT)
			_exit(2);
		write(fd, buf, 1);
		_exit(3);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ,
	      "SIGXFSZ's default action kills the writer");
	CHECK(!WCOREDUMP(status), "without a core under RLIMIT_CORE 0");
}

int main(void)
{
	struct sigaction sa = {.sa_sigaction = on_xfsz, .sa_flags = SA_SIGINFO};
	struct iovec iov[3] = {{buf, 4000}, {buf, 4000}, {buf, 4000}};
	struct stat st;
	int fd, p[2];

	fs_enter("fs_fsize");
	default_action();

	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
	set_limit(LIMIT);
	fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(write(fd, buf, 2 * LIMIT), LIMIT, "a write that straddles the limit is cut at it");
	CHECK_EQ(caught, 0, "and sends no signal");
	CHECK_ERRNO(write(fd, buf, 1), EFBIG, "a write at the limit");
	CHECK_EQ(caught, 1, "sends SIGXFSZ");
	CHECK_EQ(caught_code, SI_USER, "with si_code SI_USER");
	CHECK(caught_self, "from the writer itself");
	CHECK_EQ(write(fd, buf, 0), 0, "a write of nothing at the limit");
	CHECK_EQ(pwrite(fd, buf, 10, LIMIT - 1), 1, "pwrite straddling the limit");
	CHECK_ERRNO(pwrite(fd, buf, 10, 2 * LIMIT), EFBIG, "pwrite past the limit");
	CHECK_EQ(caught, 2, "SIGXFSZ again");
	CHECK_EQ(pwritev(fd, iov, 3, 1000), LIMIT - 1000, "pwritev straddling the limit");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "lseek to 0");
	CHECK_EQ(writev(fd, iov, 3), LIMIT,
		 "writev straddling the limit");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_size, LIMIT, "the file is at the limit");

	CHECK_ERRNO(ftruncate(fd, LIMIT + 1), EFBIG, "ftruncate past the limit");
	CHECK_EQ(caught, 3, "SIGXFSZ for ftruncate");
	CHECK_EQ(ftruncate(fd, LIMIT / 2), 0, "ftruncate shorter");
	CHECK_EQ(ftruncate(fd, LIMIT), 0, "ftruncate to the limit");
	CHECK_ERRNO(truncate("f", 3 * LIMIT), EFBIG, "truncate past the limit");
	CHECK_EQ(caught, 4, "SIGXFSZ for truncate");
	CHECK_ERRNO(fallocate(fd, 0, LIMIT - 10, 20), EFBIG, "fallocate past the limit");
	CHECK_EQ(caught, 5, "SIGXFSZ for fallocate");
	close(fd);

	fd = open("f", O_WRONLY | O_APPEND);
	CHECK_ERRNO(write(fd, buf, 1), EFBIG, "an O_APPEND write at the limit");
	CHECK_EQ(ftruncate(fd, LIMIT - 5), 0, "ftruncate shorter");
	CHECK_EQ(write(fd, buf, 100), 5, "an O_APPEND write straddling the limit");
	close(fd);

	/* sendfile and copy_file_range into a file: the same limit. */
	fd = open("f", O_RDONLY);
	p[1] = open("h", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(lseek(p[1], LIMIT - 100, SEEK_SET), LIMIT - 100, "lseek near the limit");
	CHECK_EQ(sendfile(p[1], fd, NULL, 1000), 100, "sendfile straddling the limit");
	CHECK_EQ(caught, 7, "SIGXFSZ for the rest (Linux's splice loop tries it)");
	CHECK_ERRNO(sendfile(p[1], fd, NULL, 1000), EFBIG, "sendfile at the limit");
	CHECK_EQ(caught, 8, "SIGXFSZ for sendfile");
	off_t in = 0, out = LIMIT - 10;
	CHECK_EQ(copy_file_range(fd, &in, p[1], &out, 1000, 0), 10,
		 "copy_file_range straddling the limit");
	CHECK_ERRNO(copy_file_range(fd, &in, p[1], &out, 1000, 0), EFBIG,
		    "copy_file_range at the limit");
	CHECK_EQ(caught, 9, "SIGXFSZ for copy_file_range");
	close(p[1]);
	close(fd);

	CHECK_EQ(pipe(p), 0, "pipe");
	CHECK_EQ(write(p[1], buf, LIMIT + 100), LIMIT + 100, "a pipe has no size limit");
	close(p[0]);
	close(p[1]);

	signal(SIGXFSZ, SIG_IGN);
	fd = open("g", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(pwrite(fd, buf, 1, LIMIT), -1, "an ignored SIGXFSZ: still EFBIG");
	close(fd);
	set_limit(RLIM_INFINITY);
	fs_leave();
	return GUEST_DONE();
}
