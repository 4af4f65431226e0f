/*
 * Guest test: one event wakes one exclusive waiter. Threads that wait in
 * epoll_wait on one epoll file wait exclusively: an edge-triggered event
 * wakes one of them, the next event the next. Two epoll files that watch
 * one file with EPOLLEXCLUSIVE, each with a thread waiting: an event wakes
 * one of the threads, the next the other. Without EPOLLEXCLUSIVE one event
 * wakes both.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>

static int returned;

static void msleep(int ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* Wait (up to 10 s) for one event on the epoll file arg, then count it. */
static void *waiter(void *arg)
{
	struct epoll_event ev;
	int ep = (int)(intptr_t)arg;

	if (epoll_wait(ep, &ev, 1, 10000) == 1)
		__atomic_add_fetch(&returned, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Has the count reached n, and does it stay there? */
static int returned_settles_at(int n)
{
	for (int i = 0; i < 5000 && __atomic_load_n(&returned, __ATOMIC_SEQ_CST) < n; i++)
		msleep(1);
	msleep(100);
	return __atomic_load_n(&returned, __ATOMIC_SEQ_CST) == n;
}

static int watch(int ep, int fd, uint32_t events)
{
	struct epoll_event ev = {.events = events};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void post(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		printf("FAIL: eventfd write\n");
}

static void drain(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		printf("FAIL: eventfd read\n");
}

/* Two threads in epoll_wait on one epoll file, an edge-triggered entry. */
static void one_epoll_two_threads(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_NONBLOCK);
	pthread_t th[2];

	returned = 0;
	CHECK(watch(ep, efd, EPOLLIN | EPOLLET) == 0, "EPOLLET entry added");
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, waiter, (void *)(intptr_t)ep);
	msleep(100);
	post(efd);
	CHECK(returned_settles_at(1), "one event wakes one epoll_wait caller");
	drain(efd);
	post(efd);
	CHECK(returned_settles_at(2), "the next event wakes the other");
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	close(efd);
	close(ep);
}

/* Two epoll files watching one eventfd, a thread waiting on each. */
static void two_epolls(uint32_t flag, int want, const char *what)
{
	int ep[2], efd = eventfd(0, EFD_NONBLOCK);
	pthread_t th[2];

	returned = 0;
	for (int i = 0; i < 2; i++) {
		ep[i] = epoll_create1(EPOLL_CLOEXEC);
		if (watch(ep[i], efd, EPOLLIN | EPOLLET | flag) != 0)
			printf("FAIL: epoll_ctl\n");
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, waiter, (void *)(intptr_t)ep[i]);
	msleep(100);
	post(efd);
	CHECK(returned_settles_at(want), what);
	/* A new edge wakes the rest. */
	drain(efd);
	post(efd);
	CHECK(returned_settles_at(2), "the next event wakes the other");
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		close(ep[i]);
	}
	close(efd);
}

int main(void)
{
	one_epoll_two_threads();
	two_epolls(EPOLLEXCLUSIVE, 1, "EPOLLEXCLUSIVE: one event wakes one of two epolls");
	two_epolls(0, 2, "without EPOLLEXCLUSIVE one event wakes both epolls");
	return GUEST_DONE();
}
