/*
 * netconnect tcp|udp HOST PORT: resolve HOST (getaddrinfo: /etc/hosts,
 * DNS), then connect to it and exchange a line (tcp), or send it a
 * datagram (udp). Prints what happened, one line per step, with errno's
 * name on failure: "socket: ...", "connect: ok|ERR", "reply: TEXT",
 * "sendto: ok|ERR". Exits 0 when every step worked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct addrinfo hints = {0}, *ai;
	char buf[128];
	int fd, r;
	ssize_t n;

	if (argc != 4)
		return 2;
	hints.ai_socktype = strcmp(argv[1], "udp") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	r = getaddrinfo(argv[2], argv[3], &hints, &ai);
	if (r != 0) {
		printf("resolve: %s\n", gai_strerror(r));
		return 1;
	}
	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd < 0) {
		printf("socket: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (hints.ai_socktype == SOCK_DGRAM) {
		n = sendto(fd, "ping\n", 5, 0, ai->ai_addr, ai->ai_addrlen);
		printf("sendto: %s\n", n == 5 ? "ok" : strerrorname_np(errno));
		return n == 5 ? 0 : 1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		printf("connect: %s\n", strerrorname_np(errno));
		return 1;
	}
	printf("connect: ok\n");
	if (write(fd, "ping\n", 5) != 5)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return 1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("reply: %s\n", buf);
	return 0;
}
