/*
 * Helpers of the network guest tests (net_*): loopback listeners on an
 * ephemeral port, connected pairs, full reads and writes. Nothing printed
 * depends on the port or the address chosen.
 */
#ifndef RUNG_NETGUEST_H
#define RUNG_NETGUEST_H

#include "guest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* The loopback address of family (AF_INET or AF_INET6), port 0. */
static inline socklen_t net_loopback(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

/* A socket of family/type bound to the loopback on a port the kernel
 * picks; addr and len: where it is. listen() is called for SOCK_STREAM. */
static inline int net_bound(int family, int type, struct sockaddr_storage *addr, socklen_t *len)
{
	int fd = socket(family, type, 0);

	*len = net_loopback(family, addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, *len) < 0 ||
	    getsockname(fd, (struct sockaddr *)addr, len) < 0)
		return -1;
	if ((type & 0xf) == SOCK_STREAM && listen(fd, 128) < 0)
		return -1;
	return fd;
}

/* Write all of buf (a stream); -1 on error. */
static inline long net_write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return (long)done;
}

/* Read exactly len bytes unless EOF comes first; the count, or -1. */
static inline long net_read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (long)done;
}

/*
 * Run fn(family) for IPv6 in a child whose output is dropped, and print
 * one line: the host may have no ::1 (IPv6 disabled), which the sandbox's
 * own stack has, so the details cannot be compared. The child exits 77
 * when it cannot bind ::1, 0 when its checks passed.
 */
static inline void net_ipv6_quietly(void (*fn)(int family))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sockaddr_storage ss;
		socklen_t len = net_loopback(AF_INET6, &ss);
		int fd = socket(AF_INET6, SOCK_DGRAM, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0)
			_exit(77);
		close(fd);
		if (!freopen("/dev/null", "w", stdout))
			_exit(2);
		fn(AF_INET6);
		_exit(guest_failures ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("FAIL: the IPv6 child\n");
		guest_failures++;
		return;
	}
	if (WEXITSTATUS(status) == 77)
		fprintf(stderr, "no ::1 here: the IPv6 checks were skipped\n");
	CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77,
	      "IPv6: the same checks pass (or the host has no ::1)");
}

#endif
