/*
 * tcp: TCP over loopback, a server and a client in one program.
 *
 *   tcp rr N          N request/response round trips of 1 byte each
 *   tcp stream MIB    MIB MiB sent from the client to the server
 *
 * The server listens on 127.0.0.1, an ephemeral port, and is a forked child;
 * the client connects (TCP_NODELAY) and is timed around its loop with
 * clock_gettime(CLOCK_MONOTONIC). The two ends may also run apart (a guest
 * and the host, bench/README.md "TCP between a guest and the host"):
 *
 *   tcp serve rr|stream N PORT      the server only: one connection on PORT
 *                                   (any address), then exit
 *   tcp rr|stream N ADDR PORT       the client only, to ADDR:PORT
 *
 * The client prints:
 *
 *   tcp rr n=10000 ns_per_op=23456.7
 *   tcp stream mib=256 ns_per_op=1234567.8 mib_per_s=789.0   (ns per MiB)
 *
 * Every byte is checked. A kernel (or sandbox) without the sockets this
 * needs is not a failure of the benchmark: tcp prints
 *
 *   unsupported: socket: Address family not supported by protocol
 *
 * naming the step and the error, and exits 0, and bench/run reports that
 * cell as unsupported with that reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int unsupported(const char *step)
{
	printf("unsupported: %s: %s\n", step, strerror(errno));
	return 0;
}

/* All of buf, or -1. */
static int read_full(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t r = read(fd, buf, len);

		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t r = write(fd, buf, len);

		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The server: echo each byte (rr), or read everything and check it (stream). */
static int serve(int lfd, int stream, long n)
{
	static char buf[CHUNK];
	int fd = accept(lfd, NULL, NULL);
	int one = 1;

	if (fd < 0)
		return 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!stream) {
		for (long i = 0; i < n; i++) {
			if (read_full(fd, buf, 1) < 0 || write_full(fd, buf, 1) < 0)
				return 1;
		}
		return 0;
	}
	for (long left = n << 20; left > 0;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r <= 0)
			return 1;
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != (char)(((n << 20) - left + i) & 0x7f))
				return 1;
		}
		left -= r;
	}
	return write_full(fd, "k", 1) < 0;
}

/* The client's timed loop on the connected fd; prints the result line. */
static int client(int fd, int stream, long n)
{
	static char buf[CHUNK];
	int one = 1;
	double t0, t1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = now_ns();
	if (!stream) {
		for (long i = 0; i < n; i++) {
			char c = (char)('a' + i % 26);

			if (write_full(fd, &c, 1) < 0 || read_full(fd, buf, 1) < 0 || buf[0] != c) {
				fprintf(stderr, "tcp: round trip %ld failed\n", i);
				return 1;
			}
		}
	} else {
		for (long off = 0; off < n << 20; off += CHUNK) {
			for (int i = 0; i < CHUNK; i++)
				buf[i] = (char)((off + i) & 0x7f);
			if (write_full(fd, buf, CHUNK) < 0) {
				fprintf(stderr, "tcp: write failed at %ld\n", off);
				return 1;
			}
		}
		if (read_full(fd, buf, 1) < 0 || buf[0] != 'k') {
			fprintf(stderr, "tcp: the server did not confirm the data\n");
			return 1;
		}
	}
	t1 = now_ns();
	close(fd);
	if (stream)
		printf("tcp stream mib=%ld ns_per_op=%.1f mib_per_s=%.1f\n", n,
		       (t1 - t0) / (double)n, (double)n / ((t1 - t0) / 1e9));
	else
		printf("tcp rr n=%ld ns_per_op=%.1f\n", n, (t1 - t0) / (double)n);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcp rr|stream N [ADDR PORT] | tcp serve rr|stream N PORT\n");
	return 2;
}

/* "rr" or "stream": *stream set; -1 for anything else. */
static int parse_kind(const char *s, int *stream)
{
	*stream = strcmp(s, "stream") == 0;
	return *stream || strcmp(s, "rr") == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	socklen_t alen = sizeof(addr);
	int stream, lfd, fd, one = 1, status, ret;
	long n;
	pid_t pid;

	if (argc == 5 && strcmp(argv[1], "serve") == 0) {
		if (parse_kind(argv[2], &stream) < 0 || (n = strtol(argv[3], NULL, 0)) <= 0)
			return usage();
		addr.sin_port = htons((uint16_t)atoi(argv[4]));
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 1) < 0) {
			perror("tcp serve");
			return 1;
		}
		return serve(lfd, stream, n);
	}
	if ((argc != 3 && argc != 5) || parse_kind(argv[1], &stream) < 0 ||
	    (n = strtol(argv[2], NULL, 0)) <= 0)
		return usage();
	if (argc == 5) {
		if (inet_pton(AF_INET, argv[3], &addr.sin_addr) != 1)
			return usage();
		addr.sin_port = htons((uint16_t)atoi(argv[4]));
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return unsupported("socket");
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			return unsupported("connect");
		return client(fd, stream, n);
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return unsupported("socket");
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return unsupported("bind 127.0.0.1");
	if (listen(lfd, 1) < 0)
		return unsupported("listen");
	if (getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0)
		return unsupported("getsockname");
	pid = fork();
	if (pid < 0) {
		perror("tcp: fork");
		return 1;
	}
	if (pid == 0)
		_exit(serve(lfd, stream, n));
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = e;
		return unsupported("connect 127.0.0.1");
	}
	ret = client(fd, stream, n);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "tcp: the server failed (status %#x)\n", status);
		return 1;
	}
	return ret;
}
