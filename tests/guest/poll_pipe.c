/*
 * Guest test: poll and ppoll on pipes, FIFOs, devices and inherited stdio:
 * readiness of both ends of a pipe as data comes and goes, hang-up and
 * error when the other end closes, the requested-events mask, POLLNVAL,
 * negative fds, timeouts, ppoll's remaining-time write-back, and bad
 * arguments (EFAULT, EINVAL).
 */
#include "guest.h"

#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#define ALL_IN	(POLLIN | POLLRDNORM | POLLRDBAND | POLLPRI)
#define ALL_OUT (POLLOUT | POLLWRNORM | POLLWRBAND)
#define ALL	(ALL_IN | ALL_OUT | POLLRDHUP)

/* The revents of fd for events, with a zero timeout. */
static int revents(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events, .revents = 0x7fff};
	int n = poll(&p, 1, 0);

	if (n < 0)
		return -errno;
	if (n != (p.revents != 0))
		return -1000;
	return p.revents;
}

static long raw_ppoll(struct pollfd *fds, unsigned long n, void *ts, void *mask, long size)
{
	return syscall(SYS_ppoll, fds, n, ts, mask, size);
}

int main(void)
{
	char buf[65536];
	struct pollfd p[4];
	struct timespec ts;
	struct rlimit rl;
	int fds[2], fd, r, w;
	long n;

	CHECK_EQ(pipe(fds), 0, "pipe");
	r = fds[0];
	w = fds[1];

	/* An empty pipe: the read end is not ready, the write end is. */
	CHECK_EQ(revents(r, ALL), 0, "empty pipe: read end has no events");
	CHECK_EQ(revents(w, ALL), POLLOUT | POLLWRNORM, "empty pipe: write end POLLOUT|POLLWRNORM");
	CHECK_EQ(revents(w, POLLIN), 0, "write end: POLLIN alone is not reported");

	CHECK_EQ(write(w, "abc", 3), 3, "write 3 bytes");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM, "data: read end POLLIN|POLLRDNORM");
	CHECK_EQ(revents(r, POLLIN), POLLIN, "only the requested events come back");
	CHECK_EQ(revents(r, POLLOUT), 0, "read end: POLLOUT is never reported");
	CHECK_EQ(read(r, buf, sizeof(buf)), 3, "read them");
	CHECK_EQ(revents(r, ALL), 0, "drained: read end not ready again");

	/* Several entries at once: the count is the number of ready entries. */
	CHECK_EQ(write(w, "x", 1), 1, "write 1 byte");
	p[0] = (struct pollfd){.fd = r, .events = POLLIN};
	p[1] = (struct pollfd){.fd = w, .events = POLLIN | POLLOUT};
	p[2] = (struct pollfd){.fd = -1, .events = POLLIN, .revents = 0x55};
	p[3] = (struct pollfd){.fd = 1000, .events = 0, .revents = 0x55};
	CHECK_EQ(poll(p, 4, 0), 3, "poll of 4 entries: 3 have events");
	CHECK_EQ(p[0].revents, POLLIN, "read end POLLIN");
	CHECK_EQ(p[1].revents, POLLOUT, "write end POLLOUT");
	CHECK_EQ(p[2].revents, 0, "a negative fd is skipped and its revents zeroed");
	CHECK_EQ(p[3].revents, POLLNVAL, "a closed fd gets POLLNVAL, even with no events asked");
	CHECK_EQ(p[1].fd, w, "fd fields are left alone");
	CHECK_EQ(p[1].events, POLLIN | POLLOUT, "events fields are left alone");
	CHECK_EQ(read(r, buf, 1), 1, "read the byte back");

	/* Fill the pipe: POLLOUT goes away; it comes back with a page of room. */
	CHECK_EQ(fcntl(w, F_SETFL, O_NONBLOCK), 0, "make the write end non-blocking");
	n = 0;
	for (;;) {
		long k = write(w, buf, 4096);
		if (k < 0) {
			k = errno;
			CHECK_EQ(k, EAGAIN, "the full pipe refuses more with EAGAIN");
			break;
		}
		n += k;
	}
	CHECK_EQ(n, 65536, "the pipe held 64 KiB");
	CHECK_EQ(revents(w, ALL), 0, "full pipe: write end has no events");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM, "full pipe: read end POLLIN");
	CHECK_EQ(read(r, buf, 100), 100, "read 100 bytes");
	CHECK_EQ(revents(w, ALL), 0, "100 bytes of room: still no POLLOUT");
	CHECK_EQ(read(r, buf, 4096 - 100), 4096 - 100, "read the rest of a page");
	CHECK_EQ(revents(w, ALL), POLLOUT | POLLWRNORM, "a page of room: POLLOUT again");
	while (read(r, buf, sizeof(buf)) == sizeof(buf) && revents(r, POLLIN))
		;
	CHECK_EQ(revents(r, ALL), 0, "drained");

	/* The writer goes: the reader sees POLLHUP, asked for or not. */
	CHECK_EQ(write(w, "yz", 2), 2, "write 2 bytes");
	fd = dup(w);
	CHECK_EQ(close(w), 0, "close the write end");
	CHECK_EQ(revents(r, POLLIN), POLLIN, "a duplicate writer remains: no POLLHUP");
	CHECK_EQ(close(fd), 0, "close the last writer");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM | POLLHUP,
		 "data and no writer: POLLIN|POLLHUP");
	CHECK_EQ(revents(r, 0), POLLHUP, "POLLHUP is reported though not asked for");
	CHECK_EQ(read(r, buf, sizeof(buf)), 2, "read the data");
	CHECK_EQ(revents(r, ALL), POLLHUP, "no data, no writer: POLLHUP alone");
	CHECK_EQ(close(r), 0, "close the read end");

	/* The reader goes: the writer sees POLLERR. */
	CHECK_EQ(pipe(fds), 0, "another pipe");
	CHECK_EQ(close(fds[0]), 0, "close its read end");
	CHECK_EQ(revents(fds[1], ALL), POLLOUT | POLLWRNORM | POLLERR,
		 "no reader: POLLOUT|POLLERR");
	CHECK_EQ(revents(fds[1], 0), POLLERR, "POLLERR is reported though not asked for");
	CHECK_EQ(close(fds[1]), 0, "close the write end");
	CHECK_EQ(revents(fds[1], POLLIN), POLLNVAL, "a closed descriptor: POLLNVAL");

	/* FIFOs: a non-blocking reader sees no hang-up before a writer came. */
	unlink("/tmp/rung-poll-fifo");
	CHECK_EQ(mkfifo("/tmp/rung-poll-fifo", 0600), 0, "mkfifo");
	r = open("/tmp/rung-poll-fifo", O_RDONLY | O_NONBLOCK);
	CHECK(r >= 0, "open the fifo for reading, non-blocking");
	CHECK_EQ(revents(r, ALL), 0, "no writer yet: no POLLHUP");
	w = open("/tmp/rung-poll-fifo", O_WRONLY | O_NONBLOCK);
	CHECK(w >= 0, "open it for writing");
	CHECK_EQ(revents(w, ALL), POLLOUT | POLLWRNORM, "the fifo writer: POLLOUT");
	CHECK_EQ(write(w, "q", 1), 1, "write a byte");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM, "the fifo reader: POLLIN");
	CHECK_EQ(close(w), 0, "the writer goes");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM | POLLHUP, "then POLLIN|POLLHUP");
	fd = open("/tmp/rung-poll-fifo", O_RDWR);
	CHECK(fd >= 0, "open the fifo read-write");
	CHECK_EQ(revents(fd, ALL), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM,
		 "a read-write fifo end: POLLIN|POLLOUT");
	CHECK_EQ(revents(r, ALL), POLLIN | POLLRDNORM, "a writer again: no POLLHUP");
	close(fd);
	close(r);
	unlink("/tmp/rung-poll-fifo");

	/* Files without a poll operation are always ready. */
	fd = open("/dev/null", O_RDWR);
	CHECK_EQ(revents(fd, ALL), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM,
		 "/dev/null is ready");
	close(fd);
	fd = open("/dev/zero", O_RDONLY);
	CHECK_EQ(revents(fd, POLLIN | POLLOUT), POLLIN | POLLOUT, "/dev/zero is ready both ways");
	close(fd);
	fd = open("/dev/urandom", O_RDONLY);
	CHECK_EQ(revents(fd, ALL), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM,
		 "/dev/urandom is ready");
	close(fd);
	fd = open("/dev/random", O_RDONLY);
	CHECK_EQ(revents(fd, ALL), POLLIN | POLLRDNORM, "/dev/random is ready for reading only");
	close(fd);
	fd = open("/proc/self/exe", O_RDONLY);
	CHECK_EQ(revents(fd, ALL), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM,
		 "a regular file is ready");
	close(fd);
	CHECK_EQ(revents(0, POLLIN | POLLOUT), POLLIN | POLLOUT, "stdin (/dev/null) is ready");
	CHECK_EQ(revents(1, POLLOUT), POLLOUT, "stdout is ready for writing");

	/* Timeouts: nothing ready, the call times out with 0. */
	CHECK_EQ(pipe(fds), 0, "a third pipe");
	p[0] = (struct pollfd){.fd = fds[0], .events = POLLIN};
	CHECK_EQ(poll(p, 1, 20), 0, "poll times out after 20 ms with 0");
	CHECK_EQ(p[0].revents, 0, "with no events");
	CHECK_EQ(poll(NULL, 0, 10), 0, "poll of nothing sleeps and returns 0");
	ts = (struct timespec){0, 20000000};
	CHECK_EQ(raw_ppoll(p, 1, &ts, NULL, 8), 0, "ppoll times out with 0");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0, "and writes back no time left");
	ts = (struct timespec){5, 0};
	CHECK_EQ(raw_ppoll(p, 1, &ts, NULL, 8), 0, "... nothing ready: 0 again");
	ts = (struct timespec){0, 0};
	CHECK_EQ(raw_ppoll(p, 1, &ts, NULL, 8), 0, "ppoll with a zero timeout returns at once");
	CHECK_EQ(write(fds[1], "z", 1), 1, "write a byte");
	ts = (struct timespec){5, 0};
	CHECK_EQ(raw_ppoll(p, 1, &ts, NULL, 8), 1, "ppoll finds the byte");
	CHECK(ts.tv_sec == 4 || (ts.tv_sec == 5 && ts.tv_nsec == 0),
	      "and writes back the time left (between 4 and 5 s)");
	CHECK_EQ(raw_ppoll(p, 1, NULL, NULL, 8), 1, "ppoll without a timeout");
	{
		sigset_t mask;
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		CHECK_EQ(raw_ppoll(p, 1, NULL, &mask, 8), 1, "ppoll with a signal mask");
		CHECK_EQ(ppoll(p, 1, NULL, &mask), 1, "glibc's ppoll with a signal mask");
		CHECK_ERRNO(raw_ppoll(p, 1, NULL, &mask, 4), EINVAL, "ppoll with sigsetsize 4");
		CHECK_ERRNO(raw_ppoll(p, 1, NULL, (void *)8, 8), EFAULT, "ppoll with a bad mask");
		CHECK_EQ(raw_ppoll(p, 1, NULL, NULL, 4), 1, "no mask: its size does not matter");
	}

	/* Bad arguments. */
	ts = (struct timespec){0, 1000000000};
	CHECK_ERRNO(raw_ppoll(p, 1, &ts, NULL, 8), EINVAL, "ppoll with tv_nsec 1e9");
	ts = (struct timespec){-1, 0};
	CHECK_ERRNO(raw_ppoll(p, 1, &ts, NULL, 8), EINVAL, "ppoll with a negative timeout");
	CHECK_ERRNO(raw_ppoll(p, 1, (void *)8, NULL, 8), EFAULT,
		    "ppoll with a bad timeout pointer");
	CHECK_ERRNO(poll((void *)8, 1, 0), EFAULT, "poll with a bad array");
	CHECK_ERRNO(poll(NULL, 1, 0), EFAULT, "poll with a NULL array");
	CHECK_EQ(poll((void *)8, 0, 0), 0, "poll of 0 entries never reads the array");
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0, "getrlimit NOFILE");
	CHECK_ERRNO(poll(p, rl.rlim_cur + 1, 0), EINVAL, "poll of more entries than RLIMIT_NOFILE");
	{
		/* revents are written back: a read-only array faults after the poll. */
		struct pollfd *ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ro[0] = (struct pollfd){.fd = fds[0], .events = POLLIN};
		mprotect(ro, PAGE, PROT_READ);
		CHECK_ERRNO(poll(ro, 1, 0), EFAULT, "poll of a read-only array");
		/* An array that runs off the end of its mapping. */
		mprotect(ro, PAGE, PROT_READ | PROT_WRITE);
		ro = (struct pollfd *)((char *)ro + PAGE - sizeof(struct pollfd));
		ro[0] = (struct pollfd){.fd = fds[0], .events = POLLIN};
		CHECK_ERRNO(poll(ro, 2, 0), EFAULT,
			    "poll of an array crossing into unmapped memory");
		CHECK_EQ(poll(ro, 1, 0), 1, "its last entry alone is fine");
	}
	close(fds[0]);
	close(fds[1]);
	return GUEST_DONE();
}
