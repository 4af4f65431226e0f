/*
 * Guest test: volume over TCP on the loopback. 64 MiB of pseudo-random
 * bytes from one guest process to another, checked by a checksum on both
 * ends; then 64 clients connected at once to one server that serves them
 * with poll(), each echoing 64 KiB, all checked.
 */
#include "netguest.h"

#include <poll.h>
#include <signal.h>

#define BULK	(64ul << 20)
#define CLIENTS 64
#define PER	(64ul << 10)

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void fill(unsigned char *p, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		p[i] = (unsigned char)(*state >> 56);
	}
}

static void bulk(void)
{
	static unsigned char buf[128 << 10];
	struct sockaddr_storage addr;
	socklen_t alen;
	uint64_t sent_sum = 0xcbf29ce484222325ull, got_sum = 0xcbf29ce484222325ull;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c, s, pfd[2], status;
	size_t got = 0;
	pid_t pid;

	CHECK(l >= 0 && pipe(pfd) == 0, "listener and result pipe");
	pid = fork();
	if (pid == 0) {
		uint64_t st = 42, sum = 0xcbf29ce484222325ull;
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&addr, alen) < 0)
			_exit(10);
		for (size_t done = 0; done < BULK; done += sizeof(buf)) {
			fill(buf, sizeof(buf), &st);
			sum = fnv(sum, buf, sizeof(buf));
			if (net_write_all(c, buf, sizeof(buf)) < 0)
				_exit(11);
		}
		close(c);
		if (write(pfd[1], &sum, sizeof(sum)) != sizeof(sum))
			_exit(12);
		_exit(0);
	}
	s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept the sender");
	for (;;) {
		ssize_t n = read(s, buf, sizeof(buf));
		if (n <= 0)
			break;
		got_sum = fnv(got_sum, buf, (size_t)n);
		got += (size_t)n;
	}
	CHECK_EQ(got, BULK, "64 MiB arrive");
	CHECK_EQ(read(pfd[0], &sent_sum, sizeof(sent_sum)), sizeof(sent_sum), "the sender's sum");
	CHECK(sent_sum == got_sum, "the checksums agree");
	CHECK_EQ(waitpid(pid, &status, 0), pid, "the sender exits");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the sender's checks passed");
	close(s);
	close(l);
}

/* The server: accept CLIENTS connections and echo on all of them with poll. */
static void serve(int l)
{
	struct pollfd p[CLIENTS + 1];
	static char buf[16384];
	int n = 0, open = 0;

	p[0] = (struct pollfd){.fd = l, .events = POLLIN};
	while (n < CLIENTS || open > 0) {
		if (poll(p, (nfds_t)n + 1, 20000) <= 0)
			_exit(20);
		if ((p[0].revents & POLLIN) && n < CLIENTS) {
			int s = accept(l, NULL, NULL);
			if (s < 0)
				_exit(21);
			p[++n] = (struct pollfd){.fd = s, .events = POLLIN};
			open++;
		}
		for (int i = 1; i <= n; i++) {
			ssize_t r;
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open--;
				continue;
			}
			if (net_write_all(p[i].fd, buf, (size_t)r) < 0)
				_exit(22);
		}
	}
	_exit(0);
}

static void many(void)
{
	static unsigned char out[PER], in[PER];
	struct sockaddr_storage addr;
	socklen_t alen;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &alen), c[CLIENTS], ok = 0, status;
	uint64_t st = 7;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		serve(l);
	close(l);
	for (int i = 0; i < CLIENTS; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c[i], (struct sockaddr *)&addr, alen) < 0)
			c[i] = -1;
	}
	/* In turns, so that no echo waits behind a full buffer. */
	for (int i = 0; i < CLIENTS; i++) {
		fill(out, sizeof(out), &st);
		if (c[i] < 0)
			continue;
		for (size_t off = 0; off < PER; off += 16384) {
			if (net_write_all(c[i], out + off, 16384) < 0 ||
			    net_read_all(c[i], in + off, 16384) != 16384)
				break;
		}
		if (memcmp(in, out, PER) == 0)
			ok++;
		close(c[i]);
	}
	CHECK_EQ(ok, CLIENTS, "64 connections at once, each echoed whole");
	CHECK_EQ(waitpid(pid, &status, 0), pid, "the server exits");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server's checks passed");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	bulk();
	many();
	return GUEST_DONE();
}
