/*
 * Guest test: epoll file descriptors inside others. Readiness of an epoll
 * fd (poll, select, another epoll), events travelling up a chain, the loop
 * check (ELOOP for cycles and for chains deeper than Linux's limit of 5),
 * the wake-up path limits (EINVAL), and an inner epoll fd closed while an
 * outer one watches it.
 */
#include "guest.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>

static int add(int ep, int fd, unsigned events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Print the events one epoll_wait returns (timeout 0). */
static int show(int ep, const char *what)
{
	struct epoll_event evs[8];
	int n = epoll_wait(ep, evs, 8, 0);

	printf("%s:", what);
	if (n < 0)
		printf(" error %s", strerrorname_np(errno));
	for (int i = 0; i < n; i++)
		printf(" [%llu %#x]", (unsigned long long)evs[i].data.u64, evs[i].events);
	printf("\n");
	return n;
}

static int revents(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT | POLLPRI};

	return poll(&p, 1, 0) < 0 ? -errno : p.revents;
}

int main(void)
{
	int inner, outer, top, fds[2], r, w, e[8], f[16];

	for (int i = 3; i < 1024; i++)
		close(i);
	CHECK_EQ(pipe2(fds, O_NONBLOCK), 0, "a pipe");
	r = fds[0];
	w = fds[1];
	inner = epoll_create1(0);
	outer = epoll_create1(0);
	top = epoll_create1(0);

	/* An epoll fd is readable when one of its files is ready. */
	CHECK_EQ(revents(inner), 0, "an empty epoll fd is not ready");
	CHECK_EQ(add(inner, r, EPOLLIN, 1), 0, "inner watches the read end (data 1)");
	CHECK_EQ(add(outer, inner, EPOLLIN, 2), 0, "outer watches inner (data 2)");
	CHECK_EQ(add(top, outer, EPOLLIN | EPOLLET, 3), 0, "top watches outer, ET (data 3)");
	CHECK_EQ(revents(inner), 0, "nothing ready: inner is not readable");
	CHECK_EQ(show(top, "top, nothing ready"), 0, "nothing");
	CHECK_EQ(write(w, "x", 1), 1, "write to the pipe");
	CHECK_EQ(revents(inner), POLLIN, "inner is readable (POLLIN only)");
	CHECK_EQ(revents(outer), POLLIN, "outer too");
	CHECK_EQ(show(top, "top"), 1, "the event went up two levels");
	CHECK_EQ(show(top, "top again"), 0, "ET at the top: once");
	CHECK_EQ(show(outer, "outer"), 1, "outer reports inner");
	CHECK_EQ(show(outer, "outer again"), 1, "level-triggered: again");
	CHECK_EQ(show(inner, "inner"), 1, "inner reports the pipe");
	CHECK_EQ(write(w, "y", 1), 1, "write again");
	CHECK_EQ(show(top, "top after another write"), 1, "a new edge reached the top");
	CHECK_EQ(read(r, (char[4]){0}, 4), 2, "drain the pipe");
	CHECK_EQ(revents(inner), 0, "inner is not readable any more");
	CHECK_EQ(show(outer, "outer after the drain"), 0, "nothing");
	{
		struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = 4};
		CHECK_EQ(epoll_ctl(outer, EPOLL_CTL_MOD, inner, &ev), 0, "outer asks OUT of inner");
		CHECK_EQ(write(w, "z", 1), 1, "write");
		CHECK_EQ(show(outer, "OUT of an epoll fd"), 0, "never");
		CHECK_EQ(read(r, (char[4]){0}, 4), 1, "drain");
	}

	/* Loops: EINVAL for itself, ELOOP through others. */
	CHECK_ERRNO(add(inner, inner, EPOLLIN, 0), EINVAL, "inner into itself");
	CHECK_ERRNO(add(inner, outer, EPOLLIN, 0), ELOOP, "outer into inner (a cycle)");
	CHECK_ERRNO(add(inner, top, EPOLLIN, 0), ELOOP, "top into inner (a longer cycle)");
	CHECK_ERRNO(add(outer, top, EPOLLIN, 0), ELOOP, "top into outer");
	CHECK_ERRNO(add(top, outer, EPOLLIN, 0), EEXIST, "outer into top again");
	CHECK_EQ(add(top, inner, EPOLLIN, 5), 0, "inner into top as well (a diamond, data 5)");
	CHECK_EQ(epoll_ctl(top, EPOLL_CTL_DEL, inner, NULL), 0, "and out again");

	/* Depth: a chain of 5 epoll fds is the most Linux allows. */
	for (int i = 0; i < 8; i++)
		e[i] = epoll_create1(0);
	CHECK_EQ(add(e[0], r, EPOLLIN, 0), 0, "e0 watches the pipe");
	CHECK_EQ(add(e[1], e[0], EPOLLIN, 0), 0, "e1 watches e0");
	CHECK_EQ(add(e[2], e[1], EPOLLIN, 0), 0, "e2 watches e1");
	CHECK_EQ(add(e[3], e[2], EPOLLIN, 0), 0, "e3 watches e2");
	CHECK_EQ(add(e[4], e[3], EPOLLIN, 0), 0, "e4 watches e3 (5 levels)");
	CHECK_ERRNO(add(e[5], e[4], EPOLLIN, 0), ELOOP, "e5 watching e4 would make 6");
	CHECK_ERRNO(add(e[0], e[6], EPOLLIN, 0), ELOOP, "so would e6 under e0 (counted upwards)");
	CHECK_EQ(add(e[6], e[7], EPOLLIN, 0), 0, "e6 watches e7");
	CHECK_ERRNO(add(e[7], e[4], EPOLLIN, 0), ELOOP, "a chain from both sides");
	CHECK_EQ(add(e[4], e[7], EPOLLIN, 0), 0,
		 "e7 under e4: only the depth below the new entry counts");
	CHECK_EQ(write(w, "w", 1), 1, "write");
	CHECK_EQ(revents(e[4]), POLLIN, "readiness crosses all 5 levels");
	CHECK_EQ(read(r, (char[4]){0}, 4), 1, "drain");
	CHECK_EQ(close(e[2]), 0, "close e2 in the middle of the chain");
	CHECK_EQ(add(e[5], e[4], EPOLLIN, 0), 0, "the chain is short again: e5 watches e4");
	for (int i = 0; i < 8; i++)
		close(e[i]);

	/* Wake-up paths: at most 10 of length 5 from one file, 50 of length 4, ... */
	{
		int base = epoll_create1(0), n = 0, ret = 0;
		CHECK_EQ(add(base, r, EPOLLIN, 0), 0, "base watches the pipe");
		for (int i = 0; i < 16; i++) {
			f[i] = epoll_create1(0);
			ret = add(f[i], base, EPOLLIN, 0);
			if (ret)
				break;
			n++;
		}
		printf("epolls watching base: %d\n", n);
		CHECK_EQ(ret, 0, "16 epoll fds can watch one");
		for (int i = 0; i < 16; i++)
			close(f[i]);
		close(base);
	}
	{
		/* r -> a -> b0..b11 (12 paths of length 2) -> c -> d -> g */
		int a = epoll_create1(0), c = epoll_create1(0), d = epoll_create1(0);
		int g = epoll_create1(0), ret = 0, i;
		CHECK_EQ(add(c, d, EPOLLIN, 0), 0, "c watches d");
		CHECK_EQ(add(g, c, EPOLLIN, 0), 0, "g watches c");
		CHECK_EQ(add(a, r, EPOLLIN, 0), 0, "a watches the pipe");
		for (i = 0; i < 12; i++) {
			f[i] = epoll_create1(0);
			ret = add(f[i], a, EPOLLIN, 0);
			if (!ret)
				ret = add(d, f[i], EPOLLIN, 0);
			if (ret)
				break;
		}
		printf("paths of length 5 from the pipe: %d, then %s\n", i,
		       ret ? strerrorname_np(errno) : "ok");
		CHECK(i == 10 && ret == -1 && errno == EINVAL,
		      "the 11th wake-up path of length 5 fails with EINVAL");
		close(a);
		close(c);
		close(d);
		close(g);
		for (int j = 0; j <= i && j < 12; j++)
			close(f[j]);
	}

	/* An inner epoll fd closed while watched: it leaves the outer set. */
	CHECK_EQ(write(w, "v", 1), 1, "write");
	CHECK_EQ(show(outer, "outer before inner closes"), 0, "(OUT asked: nothing)");
	CHECK_EQ(close(inner), 0, "close inner");
	CHECK_EQ(show(outer, "outer after inner closed"), 0, "nothing");
	CHECK_ERRNO(add(outer, inner, EPOLLIN, 0), EBADF, "inner's fd is gone");
	CHECK_EQ(revents(outer), 0, "outer is empty");
	close(outer);
	CHECK_EQ(show(top, "top after outer closed"), 0, "nothing");
	close(top);
	close(r);
	close(w);
	return GUEST_DONE();
}
