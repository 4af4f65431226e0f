/*
 * nstackpeer: both ends of nstack_veth.sh's exchanges, run in the sandbox
 * and natively in the other network namespace.
 *   serve tcp PORT        accept one connection on 0.0.0.0:PORT, read to
 *                         EOF, answer "BYTES SUM" (a checksum), exit
 *   serve udp PORT        answer one datagram with it reversed, exit
 *   send tcp HOST PORT N  connect (retrying for 10 s), send N bytes of a
 *                         fixed pattern, half-close, print the answer
 *   send udp HOST PORT    send "datagram" (again each 200 ms, up to 10 s)
 *                         until an answer comes; print it
 * Prints one line per step; exits 0 when every step worked.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint8_t pattern(size_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

static int fail(const char *what)
{
	printf("%s: %s\n", what, strerrorname_np(errno));
	return 1;
}

static struct sockaddr_in addr(const char *host, const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};

	if (host)
		inet_pton(AF_INET, host, &a.sin_addr);
	return a;
}

static int serve_tcp(const char *port)
{
	struct sockaddr_in a = addr(NULL, port);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, c;
	uint64_t sum = 0, n = 0;
	uint8_t buf[16384];
	char out[64];
	ssize_t r;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 4) < 0)
		return fail("listen");
	printf("listening\n");
	fflush(stdout);
	c = accept(l, NULL, NULL);
	if (c < 0)
		return fail("accept");
	while ((r = read(c, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++, n++)
			sum = sum * 31 + buf[i];
	if (r < 0)
		return fail("read");
	snprintf(out, sizeof(out), "%llu %llu", (unsigned long long)n, (unsigned long long)sum);
	if (write(c, out, strlen(out)) != (ssize_t)strlen(out))
		return fail("write");
	close(c);
	printf("served %llu bytes\n", (unsigned long long)n);
	return 0;
}

static int serve_udp(const char *port)
{
	struct sockaddr_in a = addr(NULL, port), from;
	socklen_t fl = sizeof(from);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[256], rev[256];
	ssize_t n;

	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail("bind");
	printf("listening\n");
	fflush(stdout);
	n = recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	if (n < 0)
		return fail("recvfrom");
	for (ssize_t i = 0; i < n; i++)
		rev[i] = buf[n - 1 - i];
	if (sendto(s, rev, (size_t)n, 0, (struct sockaddr *)&from, fl) != n)
		return fail("sendto");
	printf("served a datagram of %zd bytes\n", n);
	return 0;
}

static int send_tcp(const char *host, const char *port, size_t len)
{
	struct sockaddr_in a = addr(host, port);
	uint8_t buf[16384];
	uint64_t sum = 0;
	char ans[64] = {0};
	size_t off = 0;
	int s = -1;

	for (int i = 0; i < 100; i++) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		close(s);
		s = -1;
		usleep(100000);
	}
	if (s < 0)
		return fail("connect");
	printf("connect: ok\n");
	while (off < len) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		ssize_t w;
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		w = write(s, buf, n);
		if (w <= 0)
			return fail("write");
		for (ssize_t i = 0; i < w; i++)
			sum = sum * 31 + buf[i];
		off += (size_t)w;
	}
	if (shutdown(s, SHUT_WR) < 0)
		return fail("shutdown");
	for (size_t got = 0;;) {
		ssize_t r = read(s, ans + got, sizeof(ans) - 1 - got);
		if (r < 0)
			return fail("read");
		if (r == 0)
			break;
		got += (size_t)r;
	}
	snprintf((char *)buf, sizeof(buf), "%zu %llu", len, (unsigned long long)sum);
	printf("answer: %s\n", strcmp(ans, (char *)buf) == 0 ? "the same bytes" : ans);
	return strcmp(ans, (char *)buf) != 0;
}

static int send_udp(const char *host, const char *port)
{
	struct sockaddr_in a = addr(host, port);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[256];

	for (int i = 0; i < 50; i++) {
		struct pollfd pf = {s, POLLIN, 0};
		ssize_t n;
		if (sendto(s, "datagram", 8, 0, (struct sockaddr *)&a, sizeof(a)) != 8)
			return fail("sendto");
		if (poll(&pf, 1, 200) != 1)
			continue;
		n = recv(s, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			if (errno == ECONNREFUSED) { /* no server yet */
				usleep(200000);
				continue;
			}
			return fail("recv");
		}
		buf[n] = 0;
		printf("answer: %s\n", buf);
		return 0;
	}
	printf("answer: none\n");
	return 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return !strcmp(argv[2], "tcp") ? serve_tcp(argv[3]) : serve_udp(argv[3]);
	if (argc == 6 && !strcmp(argv[1], "send") && !strcmp(argv[2], "tcp"))
		return send_tcp(argv[3], argv[4], strtoul(argv[5], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "send") && !strcmp(argv[2], "udp"))
		return send_udp(argv[3], argv[4]);
	fprintf(stderr, "usage: nstackpeer serve tcp|udp PORT | send tcp HOST PORT N | send udp "
			"HOST PORT\n");
	return 2;
}
