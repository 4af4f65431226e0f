/*
 * splice(2), tee(2) and vmsplice(2) between pipes, sockets, /dev/null and
 * guest memory: the data moved, Linux's errors, blocking and nonblocking
 * ends, partial counts, interruption by a signal, EPIPE with SIGPIPE. (The
 * file ends, with offsets, are fs_splice.c's.)
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

static volatile sig_atomic_t got_sigpipe, got_alarm;

static void on_signal(int sig)
{
	if (sig == SIGPIPE)
		got_sigpipe++;
	else
		got_alarm++;
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		printf("FAIL: write to the pipe\n");
}

/* Read what is in fd (nonblocking reads until EAGAIN or end) into buf. */
static ssize_t drain(int fd, char *buf, size_t size)
{
	int fl = fcntl(fd, F_GETFL);
	ssize_t n, total = 0;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while ((size_t)total < size && (n = read(fd, buf + total, size - total)) > 0)
		total += n;
	fcntl(fd, F_SETFL, fl);
	buf[total] = '\0';
	return total;
}

static void test_errors(void)
{
	int p[2], q[2], devnull = open("/dev/null", O_RDWR);
	loff_t off = 0;
	struct iovec v = {"x", 1};

	CHECK_EQ(pipe(p) == 0 && pipe(q) == 0, 1, "two pipes");
	/* positional I/O on a pipe: ESPIPE, even on the end of the other direction */
	CHECK_ERRNO(preadv(p[1], &v, 1, 0), ESPIPE, "preadv on a pipe's write end");
	CHECK_ERRNO(pwritev(p[0], &v, 1, 0), ESPIPE, "pwritev on a pipe's read end");
	CHECK_ERRNO(pread(p[1], &off, 1, 0), ESPIPE, "pread on a pipe's write end");
	CHECK_EQ(splice(-1, NULL, -1, NULL, 0, 0), 0, "splice of 0 bytes is 0, before the fds");
	CHECK_ERRNO(splice(p[0], NULL, q[1], NULL, 1, 0x10), EINVAL, "splice with unknown flags");
	CHECK_ERRNO(splice(-1, NULL, q[1], NULL, 1, 0), EBADF, "splice from a bad fd");
	CHECK_ERRNO(splice(p[0], NULL, 99, NULL, 1, 0), EBADF, "splice to a bad fd");
	CHECK_ERRNO(splice(devnull, NULL, devnull, NULL, 1, 0), EINVAL,
		    "splice with neither end a pipe");
	CHECK_ERRNO(splice(p[0], &off, q[1], NULL, 1, 0), ESPIPE, "splice with an offset on a pipe");
	CHECK_ERRNO(splice(devnull, NULL, p[1], &off, 1, 0), ESPIPE,
		    "splice with an out offset on a pipe");
	CHECK_ERRNO(splice(p[0], NULL, p[1], NULL, 1, 0), EINVAL, "splice of a pipe into itself");
	CHECK_ERRNO(splice(p[1], NULL, q[1], NULL, 1, 0), EBADF, "splice from a write end");
	CHECK_ERRNO(splice(p[0], NULL, q[0], NULL, 1, 0), EBADF, "splice to a read end");
	CHECK_ERRNO(splice(p[0], (loff_t *)8, q[1], NULL, 1, 0), ESPIPE,
		    "ESPIPE comes before the offset is read");
	CHECK_ERRNO(tee(p[0], q[1], 1, 0x10), EINVAL, "tee with unknown flags");
	CHECK_EQ(tee(-1, -1, 0, 0), 0, "tee of 0 bytes is 0");
	CHECK_ERRNO(tee(p[0], devnull, 1, 0), EINVAL, "tee to a non-pipe");
	CHECK_ERRNO(tee(p[0], p[1], 1, 0), EINVAL, "tee of a pipe into itself");
	CHECK_ERRNO(tee(p[1], q[1], 1, 0), EBADF, "tee from a write end");
	CHECK_ERRNO(vmsplice(devnull, &v, 1, 0), EBADF, "vmsplice on a non-pipe");
	CHECK_ERRNO(vmsplice(p[1], &v, 1, 0x10), EINVAL, "vmsplice with unknown flags");
	CHECK_ERRNO(vmsplice(p[1], (struct iovec *)8, 1, 0), EFAULT, "vmsplice of a bad iovec");
	CHECK_ERRNO(vmsplice(p[1], &v, 1025, 0), EINVAL, "vmsplice of more than UIO_MAXIOV");
	CHECK_EQ(vmsplice(devnull, &v, 0, 0), 0, "vmsplice of nothing is 0, even on a non-pipe");
	close(p[0]), close(p[1]), close(q[0]), close(q[1]), close(devnull);
}

static void test_pipe_to_pipe(void)
{
	int p[2], q[2];
	char buf[64];

	CHECK_EQ(pipe(p) == 0 && pipe(q) == 0, 1, "two pipes");
	put(p[1], "hello world");
	CHECK_EQ(splice(p[0], NULL, q[1], NULL, 5, SPLICE_F_MOVE | SPLICE_F_MORE), 5,
		 "splice moves 5 of 11 bytes");
	CHECK_EQ(drain(q[0], buf, sizeof(buf) - 1), 5, "the out pipe holds 5");
	CHECK(strcmp(buf, "hello") == 0, "they are the first 5");
	CHECK_EQ(tee(p[0], q[1], 100, 0), 6, "tee copies what there is (6) of 100");
	CHECK_EQ(drain(q[0], buf, sizeof(buf) - 1), 6, "the out pipe holds 6");
	CHECK(strcmp(buf, " world") == 0, "the rest, copied");
	CHECK_EQ(splice(p[0], NULL, q[1], NULL, 100, 0), 6, "tee left them in: splice moves 6");
	CHECK_EQ(drain(q[0], buf, sizeof(buf) - 1), 6, "and the out pipe has them");
	CHECK_ERRNO(splice(p[0], NULL, q[1], NULL, 1, SPLICE_F_NONBLOCK), EAGAIN,
		    "SPLICE_F_NONBLOCK on an empty pipe");
	CHECK_ERRNO(tee(p[0], q[1], 1, SPLICE_F_NONBLOCK), EAGAIN,
		    "tee with SPLICE_F_NONBLOCK on an empty pipe");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(splice(p[0], NULL, q[1], NULL, 1, 0), EAGAIN, "an O_NONBLOCK in end");
	fcntl(p[0], F_SETFL, 0);
	close(p[1]);
	CHECK_EQ(splice(p[0], NULL, q[1], NULL, 1, 0), 0, "no writer left: 0");
	CHECK_EQ(tee(p[0], q[1], 1, 0), 0, "tee with no writer left: 0");
	close(p[0]);
	close(q[0]);
	CHECK_EQ(pipe(p), 0, "a pipe");
	put(p[1], "x");
	signal(SIGPIPE, on_signal);
	got_sigpipe = 0;
	CHECK_ERRNO(splice(p[0], NULL, q[1], NULL, 1, 0), EPIPE, "splice into a pipe without reader");
	CHECK_EQ(got_sigpipe, 1, "and SIGPIPE");
	CHECK_ERRNO(tee(p[0], q[1], 1, 0), EPIPE, "tee into a pipe without reader");
	CHECK_EQ(got_sigpipe, 2, "and SIGPIPE again");
	signal(SIGPIPE, SIG_DFL);
	close(p[0]), close(p[1]), close(q[1]);
}

/* A blocking splice waits for data (a child writes later) and returns what came. */
static void test_blocking(void)
{
	int p[2], q[2], status;
	struct itimerval it = {{0, 0}, {0, 100000}};
	struct sigaction sa = {.sa_handler = on_signal};
	char buf[16];
	pid_t pid;

	CHECK_EQ(pipe(p) == 0 && pipe(q) == 0, 1, "two pipes");
	pid = fork();
	if (pid == 0) {
		usleep(100000);
		put(p[1], "late");
		_exit(0);
	}
	CHECK_EQ(splice(p[0], NULL, q[1], NULL, 100, 0), 4, "a blocking splice waits for 4 bytes");
	CHECK_EQ(read(q[0], buf, sizeof(buf)), 4, "which arrive");
	waitpid(pid, &status, 0);
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERRNO(splice(p[0], NULL, q[1], NULL, 1, 0), EINTR,
		    "a signal interrupts a splice from an empty pipe");
	CHECK_EQ(got_alarm, 1, "the handler ran");
	close(p[0]), close(p[1]), close(q[0]), close(q[1]);
}

static void test_vmsplice(void)
{
	int p[2];
	char a[] = "abc", b[] = "defgh", out1[4] = {0}, out2[8] = {0};
	struct iovec in[2] = {{a, 3}, {b, 5}}, out[2] = {{out1, 2}, {out2, 7}};

	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_EQ(vmsplice(p[1], in, 2, SPLICE_F_GIFT), 8, "vmsplice puts two segments in");
	CHECK_EQ(vmsplice(p[0], out, 2, 0), 8, "vmsplice on the read end takes them out");
	CHECK(memcmp(out1, "ab", 2) == 0 && strcmp(out2, "cdefgh") == 0, "in the order put");
	CHECK_ERRNO(vmsplice(p[0], out, 2, SPLICE_F_NONBLOCK), EAGAIN,
		    "vmsplice from an empty pipe with SPLICE_F_NONBLOCK");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERRNO(vmsplice(p[1], in, 2, 0), EPIPE, "vmsplice into a pipe without reader");
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

/* Sockets at either end, and /dev/null (what grep does with its input). */
static void test_sockets(void)
{
	int p[2], s[2], devnull = open("/dev/null", O_WRONLY);
	loff_t off = 0;
	char buf[64];

	CHECK_EQ(pipe(p), 0, "a pipe");
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0, "a socket pair");
	put(s[0], "over the socket");
	CHECK_EQ(splice(s[1], NULL, p[1], NULL, 4, 0), 4, "splice 4 bytes from a socket");
	CHECK_EQ(splice(s[1], NULL, p[1], NULL, 100, 0), 11, "and the other 11 of 100");
	CHECK_EQ(splice(p[0], NULL, s[1], NULL, 100, 0), 15, "splice them back into the socket");
	CHECK_EQ(drain(s[0], buf, sizeof(buf) - 1), 15, "the peer reads 15");
	CHECK(strcmp(buf, "over the socket") == 0, "the same bytes");
	CHECK_ERRNO(splice(p[0], NULL, s[1], &off, 1, 0), EINVAL,
		    "splice at an offset of a socket (no pwrite)");
	CHECK_ERRNO(splice(s[1], &off, p[1], NULL, 1, 0), EINVAL,
		    "splice from an offset of a socket (no pread)");
	fcntl(s[1], F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(splice(s[1], NULL, p[1], NULL, 1, 0), EAGAIN,
		    "splice from an empty nonblocking socket");
	fcntl(s[1], F_SETFL, 0);
	put(p[1], "into the void");
	CHECK_EQ(splice(p[0], NULL, devnull, NULL, 1 << 20, 0), 13, "splice to /dev/null");
	CHECK_ERRNO(splice(p[0], NULL, devnull, NULL, 1, SPLICE_F_NONBLOCK), EAGAIN,
		    "and nothing left");
	close(s[0]);
	CHECK_EQ(splice(s[1], NULL, p[1], NULL, 1, 0), 0, "the peer closed: 0");
	close(s[1]), close(p[0]), close(p[1]), close(devnull);
}

/* More than a pipe holds: a writer child and a splicing loop move 1 MiB. */
static void test_bulk(void)
{
	int p[2], q[2], status;
	static char chunk[65536], buf[65536];
	size_t moved = 0, got = 0;
	unsigned sum = 0, want = 0;
	pid_t w, r;
	ssize_t n;

	CHECK_EQ(pipe(p) == 0 && pipe(q) == 0, 1, "two pipes");
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 7 + 3);
	w = fork();
	if (w == 0) {
		close(p[0]);
		close(q[0]);
		close(q[1]);
		for (int i = 0; i < 16; i++)
			if (write(p[1], chunk, sizeof(chunk)) != sizeof(chunk))
				_exit(1);
		_exit(0);
	}
	r = fork();
	if (r == 0) {
		close(p[0]);
		close(p[1]);
		close(q[1]);
		while ((n = read(q[0], buf, sizeof(buf))) > 0)
			for (ssize_t i = 0; i < n; i++)
				sum = sum * 31 + (unsigned char)buf[i], got++;
		_exit(got == 16 * sizeof(chunk) ? (int)(sum & 0x7f) : 255);
	}
	close(p[1]);
	close(q[0]);
	while ((n = splice(p[0], NULL, q[1], NULL, 100000, 0)) > 0)
		moved += (size_t)n;
	close(q[1]);
	CHECK_EQ(moved, 16 * sizeof(chunk), "splice moved all 1 MiB");
	for (int i = 0; i < 16; i++)
		for (size_t k = 0; k < sizeof(chunk); k++)
			want = want * 31 + (unsigned char)chunk[k];
	waitpid(w, &status, 0);
	CHECK_EQ(WEXITSTATUS(status), 0, "the writer wrote it");
	waitpid(r, &status, 0);
	CHECK_EQ(WEXITSTATUS(status), (int)(want & 0x7f), "the reader got the same bytes");
	close(p[0]);
}

int main(void)
{
	test_errors();
	test_pipe_to_pipe();
	test_blocking();
	test_vmsplice();
	test_sockets();
	test_bulk();
	return GUEST_DONE();
}
