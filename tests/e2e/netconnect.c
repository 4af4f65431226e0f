/*
 * netconnect tcp|udp HOST PORT: resolve HOST (getaddrinfo: /etc/hosts,
 * DNS), then connect to it and exchange a line (tcp), or send it a
 * datagram (udp). Prints what happened, one line per step, with errno's
 * name on failure: "socket: ...", "connect: ok|ERR", "reply: TEXT",
 * "sendto: ok|ERR". Exits 0 when every step worked.
 *
 * netconnect rawhdr SRC DST VIA: an IPPROTO_RAW socket sends a UDP
 * datagram whose own IPv4 header says SRC to DST (port 9), through VIA
 * (sendto's address): "sendto: ok|ERR".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int raw_hdr(const char *src, const char *dst, const char *via)
{
	uint8_t pkt[20 + 8 + 4] = {0x45, 0, 0, 0, 0, 0, 0, 0, 64, IPPROTO_UDP};
	struct sockaddr_in to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ssize_t n;

	if (fd < 0) {
		printf("socket: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (inet_pton(AF_INET, src, pkt + 12) != 1 || inet_pton(AF_INET, dst, pkt + 16) != 1 ||
	    inet_pton(AF_INET, via, &to.sin_addr) != 1)
		return 2;
	pkt[21] = pkt[23] = 9; /* ports 9 */
	pkt[25] = 12;	       /* UDP length */
	memcpy(pkt + 28, "ping", 4);
	n = sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to));
	printf("sendto: %s\n", n == (ssize_t)sizeof(pkt) ? "ok" : strerrorname_np(errno));
	return n == (ssize_t)sizeof(pkt) ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = {0}, *ai;
	char buf[128];
	int fd, r;
	ssize_t n;

	if (argc != 4 && !(argc == 5 && strcmp(argv[1], "rawhdr") == 0))
		return 2;
	if (argc == 5)
		return raw_hdr(argv[2], argv[3], argv[4]);
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
