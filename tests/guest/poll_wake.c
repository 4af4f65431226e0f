/*
 * Guest test: wake-ups from other threads and processes. The main thread
 * blocks (no timeout) in poll, select, epoll_wait, a nested epoll, a
 * blocking eventfd read and write, and another thread or a child process
 * makes the file ready a little later: data, a hang-up, a new epoll entry
 * that is ready at once.
 */
#include "guest.h"

#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>

enum action { WRITE_PIPE, CLOSE_PIPE, WRITE_EVENTFD, READ_EVENTFD, EPOLL_ADD };

static struct {
	enum action what;
	int fd, ep;
} job;

static void msleep(int ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

static void *later(void *arg)
{
	uint64_t v = 1;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42};

	(void)arg;
	msleep(30);
	switch (job.what) {
	case WRITE_PIPE:
		if (write(job.fd, "x", 1) != 1)
			abort();
		break;
	case CLOSE_PIPE:
		close(job.fd);
		break;
	case WRITE_EVENTFD:
		if (write(job.fd, &v, 8) != 8)
			abort();
		break;
	case READ_EVENTFD:
		if (read(job.fd, &v, 8) != 8)
			abort();
		break;
	case EPOLL_ADD:
		if (epoll_ctl(job.ep, EPOLL_CTL_ADD, job.fd, &ev) != 0)
			abort();
		break;
	}
	return NULL;
}

static pthread_t start(enum action what, int fd)
{
	pthread_t th;

	job.what = what;
	job.fd = fd;
	pthread_create(&th, NULL, later, NULL);
	return th;
}

int main(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	struct pollfd p;
	uint64_t v;
	fd_set in;
	int fds[2], efd, ep, inner, n, status;
	pthread_t th;
	pid_t pid;

	CHECK_EQ(pipe(fds), 0, "a pipe");
	p = (struct pollfd){.fd = fds[0], .events = POLLIN};

	th = start(WRITE_PIPE, fds[1]);
	CHECK_EQ(poll(&p, 1, -1), 1, "poll wakes when another thread writes");
	CHECK_EQ(p.revents, POLLIN, "POLLIN");
	pthread_join(th, NULL);
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "read the byte");

	th = start(WRITE_PIPE, fds[1]);
	FD_ZERO(&in);
	FD_SET(fds[0], &in);
	CHECK_EQ(select(fds[0] + 1, &in, NULL, NULL, NULL), 1, "select wakes too");
	pthread_join(th, NULL);
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "read the byte");

	ep = epoll_create1(0);
	efd = eventfd(0, 0);
	ev.data.u64 = 1;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), 0, "epoll watches an eventfd");
	th = start(WRITE_EVENTFD, efd);
	n = epoll_wait(ep, &out, 1, -1);
	CHECK(n == 1 && out.data.u64 == 1 && out.events == EPOLLIN,
	      "epoll_wait wakes when another thread writes the eventfd");
	pthread_join(th, NULL);
	CHECK_EQ(read(efd, &v, 8), 8, "read the counter");

	inner = epoll_create1(0);
	ev.data.u64 = 2;
	CHECK_EQ(epoll_ctl(inner, EPOLL_CTL_ADD, fds[0], &ev), 0,
		 "an inner epoll watches the pipe");
	ev.data.u64 = 3;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, inner, &ev), 0, "the outer one watches the inner");
	th = start(WRITE_PIPE, fds[1]);
	n = epoll_wait(ep, &out, 1, -1);
	CHECK(n == 1 && out.data.u64 == 3, "the outer epoll wakes through the inner one");
	pthread_join(th, NULL);
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "read the byte");
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, inner, NULL), 0, "DEL the inner epoll");

	/* Blocking eventfd: a read waits for a write, a write for room. */
	th = start(WRITE_EVENTFD, efd);
	CHECK_EQ(read(efd, &v, 8), 8, "a blocking eventfd read waits for the write");
	CHECK_EQ(v, 1, "and gets 1");
	pthread_join(th, NULL);
	v = UINT64_MAX - 1;
	CHECK_EQ(write(efd, &v, 8), 8, "fill the counter");
	v = 1;
	th = start(READ_EVENTFD, efd);
	CHECK_EQ(write(efd, &v, 8), 8, "a blocking write waits until a read makes room");
	pthread_join(th, NULL);
	CHECK_EQ(read(efd, &v, 8), 8, "read");
	CHECK_EQ(v, 1, "the count is the second write");

	/* A new entry that is ready at once wakes a waiting epoll_wait. */
	CHECK_EQ(write(fds[1], "y", 1), 1, "make the pipe readable");
	job.ep = ep;
	th = start(EPOLL_ADD, fds[0]);
	n = epoll_wait(ep, &out, 1, -1);
	CHECK(n == 1 && out.data.u64 == 42,
	      "epoll_wait wakes for an entry added by another thread");
	pthread_join(th, NULL);
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "read the byte");

	/* A child process writes. */
	pid = fork();
	if (pid == 0) {
		msleep(30);
		_exit(write(fds[1], "z", 1) == 1 ? 0 : 1);
	}
	n = epoll_wait(ep, &out, 1, -1);
	CHECK(n == 1 && out.data.u64 == 42, "epoll_wait wakes when a child writes");
	waitpid(pid, &status, 0);
	CHECK_EQ(read(fds[0], (char[4]){0}, 4), 1, "read the byte");

	/* The last writer goes while poll waits: POLLHUP. */
	th = start(CLOSE_PIPE, fds[1]);
	CHECK_EQ(poll(&p, 1, -1), 1, "poll wakes when the writer closes");
	CHECK_EQ(p.revents, POLLHUP, "POLLHUP");
	pthread_join(th, NULL);
	close(fds[0]);
	close(inner);
	close(efd);
	close(ep);
	return GUEST_DONE();
}
