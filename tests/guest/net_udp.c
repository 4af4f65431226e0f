/*
 * Guest test: UDP over the loopback (IPv4 and IPv6) between two guest
 * processes: an echo of several datagrams with their source address,
 * message boundaries, truncation (MSG_TRUNC in and out), an empty
 * datagram, connect() filtering and ECONNREFUSED after sending to a closed
 * port on a connected socket, sendmsg/recvmsg with several iovecs, and
 * SO_RCVTIMEO.
 */
#include "netguest.h"

#include <sys/uio.h>

/* The child: echo datagrams back to their sender until "quit". */
static void echo_server(int fd)
{
	char buf[2048];

	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);

		if (n < 0)
			_exit(10);
		if (n == 4 && memcmp(buf, "quit", 4) == 0)
			_exit(0);
		if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, flen) != n)
			_exit(11);
	}
}

static void family_tests(int family)
{
	struct sockaddr_storage srv, from, me;
	socklen_t slen, flen, mlen = sizeof(me);
	char buf[64], big[1500], a[3], b[5];
	struct iovec iov[2];
	struct msghdr mh;
	int s, c, status;
	pid_t pid;

	printf("-- %s\n", family == AF_INET ? "IPv4" : "IPv6");
	s = net_bound(family, SOCK_DGRAM, &srv, &slen);
	CHECK(s >= 0, "server bound to the loopback");
	pid = fork();
	if (pid == 0)
		echo_server(s);
	close(s);
	c = socket(family, SOCK_DGRAM, 0);
	CHECK(c >= 0, "client socket");

	CHECK_EQ(sendto(c, "one", 3, 0, (struct sockaddr *)&srv, slen), 3, "sendto 3 bytes");
	CHECK_EQ(sendto(c, "two!", 4, 0, (struct sockaddr *)&srv, slen), 4, "sendto 4 bytes");
	flen = sizeof(from);
	CHECK_EQ(recvfrom(c, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 3,
		 "the first echo, whole");
	CHECK(flen == slen && memcmp(&from, &srv, slen) == 0, "it comes from the server");
	CHECK_EQ(recv(c, buf, sizeof(buf), 0), 4, "the second echo: boundaries kept");
	CHECK(memcmp(buf, "two!", 4) == 0, "... with its bytes");
	CHECK_EQ(getsockname(c, (struct sockaddr *)&me, &mlen), 0, "the client got a port");

	memset(big, 'x', sizeof(big));
	CHECK_EQ(sendto(c, big, sizeof(big), 0, (struct sockaddr *)&srv, slen), 1500,
		 "a 1500-byte datagram");
	CHECK_EQ(recv(c, buf, 10, MSG_PEEK | MSG_TRUNC), 1500, "MSG_PEEK|MSG_TRUNC: its length");
	memset(&mh, 0, sizeof(mh));
	iov[0] = (struct iovec){buf, 10};
	mh.msg_iov = iov;
	mh.msg_iovlen = 1;
	CHECK_EQ(recvmsg(c, &mh, 0), 10, "recvmsg into 10 bytes");
	CHECK(mh.msg_flags & MSG_TRUNC, "... says MSG_TRUNC");

	CHECK_EQ(sendto(c, "", 0, 0, (struct sockaddr *)&srv, slen), 0, "an empty datagram");
	CHECK_EQ(recv(c, buf, sizeof(buf), 0), 0, "its empty echo");

	/* Scatter and gather. */
	iov[0] = (struct iovec){"abc", 3};
	iov[1] = (struct iovec){"defgh", 5};
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &srv;
	mh.msg_namelen = slen;
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	CHECK_EQ(sendmsg(c, &mh, 0), 8, "sendmsg of two pieces");
	iov[0] = (struct iovec){a, sizeof(a)};
	iov[1] = (struct iovec){b, sizeof(b)};
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	CHECK_EQ(recvmsg(c, &mh, 0), 8, "recvmsg into two pieces");
	CHECK(memcmp(a, "abc", 3) == 0 && memcmp(b, "defgh", 5) == 0, "... split as sent");

	/* Connected: the server's echo still arrives; a stop and a refusal. */
	CHECK_EQ(connect(c, (struct sockaddr *)&srv, slen), 0, "connect the client");
	CHECK_EQ(send(c, "quit", 4, 0), 4, "send quit");
	CHECK_EQ(waitpid(pid, &status, 0), pid, "the server exits");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server's checks passed");
	CHECK_EQ(send(c, "anyone?", 7, 0), 7, "a send to the closed port");
	usleep(50000);
	CHECK_ERRNO(recv(c, buf, sizeof(buf), MSG_DONTWAIT), ECONNREFUSED,
		    "the refusal comes back on the connected socket");
	{
		struct sockaddr_storage zero = srv, peer;
		socklen_t plen = sizeof(peer);
		if (family == AF_INET)
			((struct sockaddr_in *)&zero)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&zero)->sin6_port = 0;
		CHECK_EQ(connect(c, (struct sockaddr *)&zero, slen), 0, "connect to port 0");
		CHECK_ERRNO(getpeername(c, (struct sockaddr *)&peer, &plen), ENOTCONN,
			    "then there is no peer to name");
	}
	close(c);
}

int main(void)
{
	struct sockaddr_storage addr;
	socklen_t alen;
	struct timeval tv = {0, 100000};
	char buf[4];
	int s;

	family_tests(AF_INET);
	net_ipv6_quietly(family_tests);
	printf("-- timeout\n");
	s = net_bound(AF_INET, SOCK_DGRAM, &addr, &alen);
	CHECK_EQ(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0, "SO_RCVTIMEO");
	CHECK_ERRNO(recv(s, buf, sizeof(buf), 0), EAGAIN, "a recv times out");
	CHECK_ERRNO(recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "MSG_DONTWAIT with nothing");
	close(s);
	return GUEST_DONE();
}
