/*
 * Guest test: timerfd_create, timerfd_settime and timerfd_gettime on the
 * monotonic, realtime and boottime clocks: one-shot and interval timers,
 * expirations counted by read (an absolute start in the past gives a known
 * count), blocking and non-blocking reads, readiness for poll and epoll,
 * disarming, the old value, and bad arguments (EINVAL, EBADF, EFAULT).
 */
#include "guest.h"

#pragma GCC diagnostic ignored "-Wnonnull"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>

#define MS 1000000L

static long rd(int fd)
{
	uint64_t v = 0;
	long n = read(fd, &v, sizeof(v));

	return n == 8 ? (long)v : n < 0 ? -errno : -1000;
}

static int revents(int fd, int timeout)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};

	return poll(&p, 1, timeout) < 0 ? -errno : p.revents;
}

static struct itimerspec its(long value_ns, long interval_ns)
{
	return (struct itimerspec){
		.it_value = {value_ns / 1000000000L, value_ns % 1000000000L},
		.it_interval = {interval_ns / 1000000000L, interval_ns % 1000000000L},
	};
}

static long ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000L + ts->tv_nsec;
}

int main(void)
{
	struct itimerspec set, cur, old;
	struct timespec now;
	struct stat st;
	char link[64] = {0};
	int fd, fd2, ep;

	for (int i = 3; i < 1024; i++)
		close(i);

	/* Creation. */
	CHECK_ERRNO(timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL, "a CPU-time clock");
	CHECK_ERRNO(timerfd_create(CLOCK_MONOTONIC_RAW, 0), EINVAL, "CLOCK_MONOTONIC_RAW");
	CHECK_ERRNO(timerfd_create(42, 0), EINVAL, "clock 42");
	CHECK_ERRNO(timerfd_create(CLOCK_MONOTONIC, 1), EINVAL, "an unknown flag");
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	CHECK_EQ(fd, 3, "timerfd_create(CLOCK_MONOTONIC)");
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR, "read-write, blocking");
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "no close-on-exec");
	CHECK_EQ(readlink("/proc/self/fd/3", link, sizeof(link) - 1), 20, "readlink");
	CHECK(strcmp(link, "anon_inode:[timerfd]") == 0, "anon_inode:[timerfd]");
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK_EQ(st.st_mode, 0600, "mode 0600 without a file type");
	fd2 = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	CHECK_EQ(fcntl(fd2, F_GETFL), O_RDWR | O_NONBLOCK, "TFD_NONBLOCK");
	CHECK_EQ(fcntl(fd2, F_GETFD), FD_CLOEXEC, "TFD_CLOEXEC");

	/* A new timer is disarmed. */
	memset(&cur, 0x55, sizeof(cur));
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) == 0 && ns(&cur.it_interval) == 0, "disarmed: all zero");
	CHECK_EQ(rd(fd2), -EAGAIN, "a non-blocking read of a disarmed timer: EAGAIN");
	CHECK_EQ(revents(fd, 0), 0, "not readable");
	CHECK_EQ(revents(fd, 20), 0, "not within 20 ms either");

	/* One-shot, relative. */
	set = its(50 * MS, 0);
	CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm 50 ms, one-shot");
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) > 0 && ns(&cur.it_value) <= 50 * MS, "0 < time left <= 50 ms");
	CHECK_EQ(ns(&cur.it_interval), 0, "no interval");
	CHECK_EQ(revents(fd, 5000), POLLIN, "poll waits for the expiration: POLLIN");
	CHECK_EQ(rd(fd), 1, "one expiration");
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) == 0, "expired one-shot: disarmed");
	CHECK_EQ(revents(fd, 0), 0, "read: not readable any more");

	/* A blocking read waits for the expiration. */
	set = its(20 * MS, 0);
	CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm 20 ms");
	CHECK_EQ(rd(fd), 1, "a blocking read waits and gets 1");

	/* Interval timers, started in the past: the expirations are counted. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	set = its(ns(&now) - 1050 * MS, 100 * MS);
	CHECK_EQ(timerfd_settime(fd, TFD_TIMER_ABSTIME, &set, &old), 0,
		 "arm at now - 1.05 s, every 100 ms (absolute)");
	CHECK(ns(&old.it_value) == 0 && ns(&old.it_interval) == 0, "the old value: disarmed");
	CHECK_EQ(rd(fd), 11, "11 expirations so far");
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) > 0 && ns(&cur.it_value) <= 100 * MS, "next in 0-100 ms");
	CHECK_EQ(ns(&cur.it_interval), 100 * MS, "interval 100 ms");
	CHECK_EQ(revents(fd, 5000), POLLIN, "poll: the next one");
	CHECK(rd(fd) >= 1, "at least one more");
	set = its(0, 0);
	CHECK_EQ(timerfd_settime(fd, 0, &set, &old), 0, "disarm");
	CHECK_EQ(ns(&old.it_interval), 100 * MS, "the old interval is 100 ms");
	CHECK(ns(&old.it_value) > 0 && ns(&old.it_value) <= 100 * MS,
	      "the old value: 0-100 ms left");
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) == 0 && ns(&cur.it_interval) == 0, "disarmed");

	/* Settime forgets expirations not read yet. */
	set = its(1 * MS, 0);
	CHECK_EQ(timerfd_settime(fd2, 0, &set, NULL), 0, "arm the realtime timer, 1 ms");
	CHECK_EQ(revents(fd2, 5000), POLLIN, "it expires");
	set = its(0, 0);
	CHECK_EQ(timerfd_settime(fd2, 0, &set, NULL), 0, "disarm it before reading");
	CHECK_EQ(rd(fd2), -EAGAIN, "the expiration is gone");

	/* Realtime, absolute, and cancel-on-set (accepted). */
	clock_gettime(CLOCK_REALTIME, &now);
	set = its(ns(&now) - 250 * MS, 100 * MS);
	CHECK_EQ(timerfd_settime(fd2, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &set, NULL), 0,
		 "realtime, absolute, cancel on set, 250 ms ago every 100 ms");
	CHECK_EQ(rd(fd2), 3, "3 expirations");
	CHECK_EQ(timerfd_settime(fd2, TFD_TIMER_CANCEL_ON_SET, &set, NULL), 0,
		 "cancel-on-set without ABSTIME is accepted");
	close(fd2);

	/* Boottime. */
	fd2 = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK);
	CHECK(fd2 >= 0, "timerfd_create(CLOCK_BOOTTIME)");
	clock_gettime(CLOCK_BOOTTIME, &now);
	set = its(ns(&now) - 10 * MS, 0);
	CHECK_EQ(timerfd_settime(fd2, TFD_TIMER_ABSTIME, &set, NULL), 0, "armed in the past");
	CHECK_EQ(rd(fd2), 1, "expired at once");

	/* epoll: each expiration is an edge. */
	ep = epoll_create1(0);
	{
		struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 7}, out[2];
		CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0,
			 "epoll watches the timer (IN|ET)");
		CHECK_EQ(epoll_wait(ep, out, 2, 0), 0, "disarmed: nothing");
		set = its(10 * MS, 10 * MS);
		CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm every 10 ms");
		CHECK_EQ(epoll_wait(ep, out, 2, 5000), 1, "an event");
		CHECK(out[0].events == EPOLLIN && out[0].data.u64 == 7, "IN, data 7");
		CHECK_EQ(epoll_wait(ep, out, 2, 50), 0,
			 "no more edges until the timer is read (Linux re-arms it then)");
		CHECK(rd(fd) >= 5, "at least 5 expirations in 50 ms");
		CHECK_EQ(epoll_wait(ep, out, 2, 5000), 1, "the next expiration is an edge");
		CHECK(rd(fd) >= 1, "at least 1 expiration");
		set = its(0, 0);
		CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "disarm");
	}
	close(ep);

	/* Blocking waits that the timer ends: poll of several fds, select, nested epoll. */
	{
		struct pollfd p[2];
		struct epoll_event ev = {.events = EPOLLIN}, out[2];
		int pipefd[2], inner, outer;
		fd_set in;
		CHECK_EQ(pipe(pipefd), 0, "a pipe");
		p[0] = (struct pollfd){.fd = pipefd[0], .events = POLLIN};
		p[1] = (struct pollfd){.fd = fd, .events = POLLIN};
		set = its(20 * MS, 0);
		CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm 20 ms");
		CHECK_EQ(poll(p, 2, -1), 1, "poll of a pipe and the timer, no timeout: 1");
		CHECK(p[0].revents == 0 && p[1].revents == POLLIN, "the timer is the one");
		CHECK_EQ(rd(fd), 1, "read it");
		CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm 20 ms");
		FD_ZERO(&in);
		FD_SET(pipefd[0], &in);
		FD_SET(fd, &in);
		CHECK_EQ(select(fd + 1, &in, NULL, NULL, NULL), 1, "select without a timeout: 1");
		CHECK(FD_ISSET(fd, &in) && !FD_ISSET(pipefd[0], &in), "the timer is the one");
		CHECK_EQ(rd(fd), 1, "read it");
		inner = epoll_create1(0);
		outer = epoll_create1(0);
		CHECK_EQ(epoll_ctl(inner, EPOLL_CTL_ADD, fd, &ev), 0,
			 "inner epoll watches the timer");
		CHECK_EQ(epoll_ctl(outer, EPOLL_CTL_ADD, inner, &ev), 0, "outer watches inner");
		CHECK_EQ(timerfd_settime(fd, 0, &set, NULL), 0, "arm 20 ms");
		CHECK_EQ(epoll_wait(outer, out, 2, -1), 1, "epoll_wait on outer, no timeout: 1");
		CHECK_EQ(rd(fd), 1, "read the timer");
		CHECK_EQ(epoll_wait(outer, out, 2, 0), 0, "nothing left");
		close(outer);
		close(inner);
		close(pipefd[0]);
		close(pipefd[1]);
	}

	/* Bad arguments. */
	set = its(MS, 0);
	CHECK_ERRNO(timerfd_settime(fd, 4, &set, NULL), EINVAL, "settime with an unknown flag");
	CHECK_ERRNO(timerfd_settime(100, 4, &set, NULL), EINVAL, "... before the fd is looked at");
	CHECK_ERRNO(timerfd_settime(100, 0, &set, NULL), EBADF, "settime of a closed fd");
	CHECK_ERRNO(timerfd_settime(0, 0, &set, NULL), EINVAL, "settime of stdin");
	CHECK_ERRNO(timerfd_gettime(100, &cur), EBADF, "gettime of a closed fd");
	CHECK_ERRNO(timerfd_gettime(0, &cur), EINVAL, "gettime of stdin");
	set.it_value.tv_nsec = 1000000000;
	CHECK_ERRNO(timerfd_settime(fd, 0, &set, NULL), EINVAL, "it_value.tv_nsec 1e9");
	set = its(MS, 0);
	set.it_interval.tv_sec = -1;
	CHECK_ERRNO(timerfd_settime(fd, 0, &set, NULL), EINVAL, "a negative interval");
	CHECK_ERRNO(timerfd_settime(fd, 0, NULL, NULL), EFAULT, "settime with a NULL value");
	CHECK_ERRNO(timerfd_gettime(fd, NULL), EFAULT, "gettime into NULL");
	set = its(20 * MS, 0);
	CHECK_ERRNO(timerfd_settime(fd, 0, &set, (void *)8), EFAULT,
		    "settime with a bad old pointer");
	CHECK_EQ(timerfd_gettime(fd, &cur), 0, "gettime");
	CHECK(ns(&cur.it_value) > 0, "the timer was armed nevertheless");
	CHECK_ERRNO(read(fd, &cur, 7), EINVAL, "a 7-byte read");
	CHECK_EQ(rd(fd), 1, "the blocking read still works");
	CHECK_ERRNO(pread(fd, &cur, 8, 0), ESPIPE, "pread: ESPIPE");
	CHECK_ERRNO(write(fd, &cur, 8), EINVAL, "write: EINVAL");
	close(fd);
	close(fd2);
	return GUEST_DONE();
}
