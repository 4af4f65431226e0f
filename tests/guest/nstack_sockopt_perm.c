/*
 * Options that need a capability: with CAP_NET_ADMIN (root) they take,
 * after setuid to nobody (no capabilities) they are EPERM, as Linux:
 * SO_RCVBUFFORCE, SO_SNDBUFFORCE, SO_MARK, SO_PRIORITY above 6,
 * TCP_REPAIR, IP_TRANSPARENT (SO_BUSY_POLL needs none).
 */
#define _GNU_SOURCE
#include "netguest.h"

#include <errno.h>

static void try(int fd, int lvl, int name, const char *what, int v)
{
	int r = setsockopt(fd, lvl, name, &v, sizeof(v)), got = -1;
	socklen_t len = sizeof(got);

	if (r < 0) {
		printf("  %s %d: %s\n", what, v, strerrorname_np(errno));
		return;
	}
	if (lvl == SOL_SOCKET && (name == SO_RCVBUFFORCE || name == SO_SNDBUFFORCE))
		name = name == SO_RCVBUFFORCE ? SO_RCVBUF : SO_SNDBUF;
	getsockopt(fd, lvl, name, &got, &len);
	printf("  %s %d: ok, reads %d\n", what, v, got);
}

static void round_of(const char *who)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);

	printf("%s\n", who);
	try(t, SOL_SOCKET, SO_RCVBUFFORCE, "SO_RCVBUFFORCE", 1 << 20);
	try(u, SOL_SOCKET, SO_SNDBUFFORCE, "SO_SNDBUFFORCE", 1 << 19);
	try(t, SOL_SOCKET, SO_MARK, "SO_MARK", 5);
	try(u, SOL_SOCKET, SO_PRIORITY, "SO_PRIORITY", 7);
	try(u, SOL_SOCKET, SO_PRIORITY, "SO_PRIORITY", 3);
	try(t, SOL_SOCKET, SO_BUSY_POLL, "SO_BUSY_POLL", 5);
	close(t);
	close(u);
}

int main(void)
{
	int t;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	round_of("root");
	t = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_EQ(setuid(65534), 0, "setuid(nobody)");
	round_of("nobody");
	try(t, IPPROTO_TCP, TCP_REPAIR, "TCP_REPAIR", 1);
	try(t, IPPROTO_IP, IP_TRANSPARENT, "IP_TRANSPARENT", 1);
	return 0;
}
