/*
 * Guest test: eventfd and eventfd2. The counter's arithmetic (reads take
 * it all, EFD_SEMAPHORE reads take one), its limit (a write that would
 * overflow blocks or fails with EAGAIN, 2^64-1 is EINVAL), readiness for
 * poll and epoll, flags, short buffers, bad pointers, and what fstat and
 * /proc/self/fd show.
 */
#include "guest.h"

#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/uio.h>

static int revents(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT | POLLPRI};

	return poll(&p, 1, 0) < 0 ? -errno : p.revents;
}

static long rd(int fd)
{
	uint64_t v = 0;
	long n = read(fd, &v, sizeof(v));

	return n == 8 ? (long)v : n < 0 ? -errno : -1000;
}

static long wr(int fd, uint64_t v)
{
	long n = write(fd, &v, sizeof(v));

	return n < 0 ? -errno : n;
}

int main(void)
{
	struct stat st;
	char link[64] = {0};
	uint64_t v;
	int fd, sem, ep;

	for (int i = 3; i < 1024; i++)
		close(i);

	/* Flags. */
	CHECK_ERRNO(eventfd(0, 2), EINVAL, "eventfd2 with an unknown flag");
	CHECK_ERRNO(eventfd(0, O_APPEND), EINVAL, "eventfd2 with O_APPEND");
	fd = syscall(SYS_eventfd, 5);
	CHECK_EQ(fd, 3, "eventfd(5) (the old call)");
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR, "read-write, blocking");
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "no close-on-exec");
	close(fd);
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | O_NONBLOCK, "EFD_NONBLOCK");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "EFD_CLOEXEC");
	CHECK_EQ(readlink("/proc/self/fd/3", link, sizeof(link) - 1), 20, "readlink");
	CHECK(strcmp(link, "anon_inode:[eventfd]") == 0, "anon_inode:[eventfd]");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_mode, 0600, "mode 0600 without a file type");
	CHECK_EQ(st.st_size, 0, "size 0");
	CHECK_EQ(st.st_nlink, 1, "one link");

	/* The counter. */
	CHECK_EQ(rd(fd), -EAGAIN, "a zero counter: EAGAIN");
	CHECK_EQ(revents(fd), POLLOUT, "a zero counter: POLLOUT only");
	CHECK_EQ(wr(fd, 3), 8, "add 3");
	CHECK_EQ(wr(fd, 4), 8, "add 4");
	CHECK_EQ(revents(fd), POLLIN | POLLOUT, "POLLIN|POLLOUT");
	CHECK_EQ(rd(fd), 7, "a read takes the whole count (7)");
	CHECK_EQ(rd(fd), -EAGAIN, "and leaves 0");
	CHECK_EQ(wr(fd, 0), 8, "adding 0 is fine");
	CHECK_EQ(revents(fd), POLLOUT, "and changes nothing");

	/* The limit: the counter holds at most 2^64-2. */
	CHECK_EQ(wr(fd, UINT64_MAX), -EINVAL, "writing 2^64-1 is EINVAL");
	CHECK_EQ(wr(fd, UINT64_MAX - 1), 8, "writing 2^64-2 is fine");
	CHECK_EQ(revents(fd), POLLIN, "at the limit: POLLIN, no POLLOUT");
	CHECK_EQ(wr(fd, 1), -EAGAIN, "one more would overflow: EAGAIN (non-blocking)");
	CHECK_EQ(wr(fd, 0), 8, "adding 0 at the limit is fine");
	CHECK_EQ(rd(fd), (long)(UINT64_MAX - 1), "read 2^64-2 back");
	CHECK_EQ(wr(fd, UINT64_MAX - 2), 8, "write 2^64-3");
	CHECK_EQ(revents(fd), POLLIN | POLLOUT, "one below the limit: still POLLOUT");
	CHECK_EQ(wr(fd, 1), 8, "add 1");
	CHECK_EQ(wr(fd, 1), -EAGAIN, "add 1 more: EAGAIN");
	CHECK_EQ(rd(fd), (long)(UINT64_MAX - 1), "read it all");

	/* Buffers. */
	CHECK_EQ(wr(fd, 9), 8, "add 9");
	CHECK_ERRNO(read(fd, &v, 7), EINVAL, "a 7-byte read");
	CHECK_ERRNO(write(fd, &v, 7), EINVAL, "a 7-byte write");
	{
		uint64_t big[2] = {0, 0};
		CHECK_EQ(read(fd, big, sizeof(big)), 8, "a 16-byte read reads 8");
		CHECK_EQ(big[0], 9, "the count");
		big[0] = 2;
		CHECK_ERRNO(write(fd, big, sizeof(big)), EINVAL,
			    "a 16-byte write is EINVAL (Linux 6.8 on: exactly 8)");
		CHECK_EQ(write(fd, big, 8), 8, "an 8-byte write");
	}
	CHECK_ERRNO(read(fd, (void *)8, 8), EFAULT, "a read into a bad pointer");
	CHECK_EQ(rd(fd), -EAGAIN, "loses the count, as on Linux");
	CHECK_ERRNO(write(fd, (void *)8, 8), EFAULT, "a write from a bad pointer");
	CHECK_EQ(rd(fd), -EAGAIN, "adds nothing");
	{
		uint64_t a = 0, b = 5;
		struct iovec iov[2] = {{&a, 4}, {(char *)&a + 4, 4}};
		CHECK_EQ(wr(fd, 0x100000001ull), 8, "add 2^32+1");
		CHECK_EQ(readv(fd, iov, 2), 8, "readv into two 4-byte pieces");
		CHECK_EQ(a, 0x100000001ull, "gets the count");
		iov[0] = (struct iovec){&b, 8};
		CHECK_EQ(writev(fd, iov, 1), 8, "writev");
		CHECK_EQ(rd(fd), 5, "adds");
	}
	CHECK_ERRNO(pread(fd, &v, 8, 0), ESPIPE, "pread: ESPIPE");
	CHECK_EQ(lseek(fd, 10, SEEK_SET), 0, "lseek does nothing and returns 0");

	/* EFD_SEMAPHORE: each read takes 1. */
	sem = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	CHECK(sem >= 0, "eventfd(2, EFD_SEMAPHORE)");
	CHECK_EQ(rd(sem), 1, "a read gives 1");
	CHECK_EQ(revents(sem), POLLIN | POLLOUT, "one left: POLLIN");
	CHECK_EQ(rd(sem), 1, "a read gives 1");
	CHECK_EQ(rd(sem), -EAGAIN, "then EAGAIN");
	CHECK_EQ(wr(sem, 1000), 8, "add 1000");
	for (int i = 0; i < 999; i++)
		rd(sem);
	CHECK_EQ(rd(sem), 1, "the 1000th read gives 1");
	CHECK_EQ(rd(sem), -EAGAIN, "then EAGAIN");

	/* A blocking read with a count returns at once. */
	CHECK_EQ(fcntl(sem, F_SETFL, 0), 0, "make the semaphore blocking");
	CHECK_EQ(wr(sem, 1), 8, "add 1");
	CHECK_EQ(rd(sem), 1, "a blocking read with a count");

	/* epoll: eventfd writes are edges. */
	ep = epoll_create1(0);
	{
		struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 1}, out[2];
		CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0, "epoll watches it (IN|ET)");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 0, "zero: nothing");
		CHECK_EQ(wr(fd, 1), 8, "add 1");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 1, "an event");
		CHECK_EQ(out[0].events, EPOLLIN, "EPOLLIN");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 0, "once");
		CHECK_EQ(wr(fd, 1), 8, "add 1 more");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 1, "another event");
		CHECK_EQ(rd(fd), 2, "read");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 0, "a read is no IN edge");
		ev.events = EPOLLOUT | EPOLLET;
		CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev), 0, "MOD to OUT|ET");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 1, "writable");
		CHECK_EQ(wr(fd, 1), 8, "add 1");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 0, "a write is no OUT edge");
		CHECK_EQ(rd(fd), 1, "read");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 1, "a read is an OUT edge");
	}
	close(ep);
	close(sem);
	close(fd);
	return GUEST_DONE();
}
