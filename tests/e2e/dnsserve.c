/*
 * dnsserve ADDR PORT LOG NAME=IPV4...: a tiny DNS responder for the tests,
 * on UDP and TCP ADDR:PORT (IPv4). An A query for one of the NAMEs gets
 * its address, an AAAA query for one of them no answer (NOERROR), any other
 * name NXDOMAIN. Each query appends "udp|tcp TYPE NAME" to the file LOG.
 * One TCP connection at a time, several queries each.
 *
 * DNSSERVE_NETNS=PATH: once its sockets are bound, it moves into the
 * network namespace PATH, as dockerd's embedded DNS serves a container's
 * namespace from a socket it made there without living in it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MSG_MAX 1500

static char **names;
static int nnames;
static FILE *logf;

/* The question's name at q (len bytes left) as text into out; its length
 * in the message, or -1. */
static int qname(const uint8_t *q, size_t len, char *out, size_t size)
{
	size_t i = 0, o = 0;

	while (i < len && q[i]) {
		size_t l = q[i++];
		if (l > 63 || i + l > len || o + l + 2 > size)
			return -1;
		if (o)
			out[o++] = '.';
		for (size_t j = 0; j < l; j++)
			out[o++] = (char)tolower(q[i + j]);
		i += l;
	}
	if (i >= len)
		return -1;
	out[o] = '\0';
	return (int)i + 1;
}

/* The answer to query (qlen bytes) into ans; its length, or -1 to drop it. */
static int answer(const uint8_t *query, size_t qlen, uint8_t *ans, const char *proto)
{
	char name[256];
	const char *ip = NULL;
	int nl, qtype;
	size_t end;

	if (qlen < 12 || query[4] != 0 || query[5] != 1)
		return -1;
	nl = qname(query + 12, qlen - 12, name, sizeof(name));
	if (nl < 0 || 12 + (size_t)nl + 4 > qlen)
		return -1;
	end = 12 + (size_t)nl + 4;
	qtype = query[12 + nl] << 8 | query[13 + nl];
	for (int i = 0; i < nnames; i++) {
		size_t n = strcspn(names[i], "=");
		if (strlen(name) == n && strncmp(names[i], name, n) == 0)
			ip = names[i] + n + 1;
	}
	fprintf(logf, "%s %s %s\n", proto, qtype == 1 ? "A" : qtype == 28 ? "AAAA" : "other", name);
	fflush(logf);
	memcpy(ans, query, end);
	ans[2] = 0x84 | (query[2] & 0x01); /* QR, AA, RD as asked */
	ans[3] = ip ? 0x80 : 0x83;	   /* RA; NOERROR or NXDOMAIN */
	memset(ans + 6, 0, 6);
	if (ip && qtype == 1) {
		uint8_t rr[16] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4};
		inet_pton(AF_INET, ip, rr + 12);
		memcpy(ans + end, rr, sizeof(rr));
		ans[7] = 1;
		end += sizeof(rr);
	}
	return (int)end;
}

static void serve_tcp(int c)
{
	struct timeval tv = {.tv_sec = 5};
	uint8_t q[2 + MSG_MAX], a[2 + MSG_MAX + 16];

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		size_t got = 0, want = 2;
		int n;

		while (got < want) {
			ssize_t r = read(c, q + got, want - got);
			if (r <= 0)
				return;
			got += (size_t)r;
			if (got == 2) {
				want = 2 + (size_t)(q[0] << 8 | q[1]);
				if (want > sizeof(q))
					return;
			}
		}
		n = answer(q + 2, want - 2, a + 2, "tcp");
		if (n < 0)
			return;
		a[0] = (uint8_t)(n >> 8);
		a[1] = (uint8_t)n;
		if (write(c, a, (size_t)n + 2) != n + 2)
			return;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int u, t, one = 1;

	if (argc < 5 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return 2;
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	logf = fopen(argv[3], "a");
	names = argv + 4;
	nnames = argc - 4;
	u = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!logf || u < 0 || t < 0 || bind(u, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    bind(t, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(t, 8) < 0) {
		perror("dnsserve");
		return 1;
	}
	if (getenv("DNSSERVE_NETNS")) {
		int ns = open(getenv("DNSSERVE_NETNS"), O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET) < 0) {
			perror("dnsserve: setns");
			return 1;
		}
		close(ns);
	}
	for (;;) {
		struct pollfd pf[2] = {{u, POLLIN, 0}, {t, POLLIN, 0}};
		uint8_t q[MSG_MAX], a[MSG_MAX + 16];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);

		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[0].revents & POLLIN) {
			ssize_t n = recvfrom(u, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
			int m = n > 0 ? answer(q, (size_t)n, a, "udp") : -1;
			if (m > 0)
				sendto(u, a, (size_t)m, 0, (struct sockaddr *)&from, fl);
		}
		if (pf[1].revents & POLLIN) {
			int c = accept(t, NULL, NULL);
			if (c >= 0) {
				serve_tcp(c);
				close(c);
			}
		}
	}
}
