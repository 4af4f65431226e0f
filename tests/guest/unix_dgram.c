/*
 * Guest test: SOCK_DGRAM and SOCK_SEQPACKET unix sockets. Message
 * boundaries, truncation (MSG_TRUNC in and out), empty datagrams, MSG_PEEK,
 * EMSGSIZE, sendto/recvfrom with named and unnamed senders, connect and
 * disconnect (AF_UNSPEC), EPERM to a socket connected elsewhere,
 * ECONNREFUSED after the peer closed, the receive queue limit for
 * unconnected senders, sendmmsg/recvmmsg, and SEQPACKET EOF and EPIPE.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#define ALEN(path) ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1))

static struct sockaddr_un mkaddr(const char *dir, const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name);
	return a;
}

int main(void)
{
	char dir[] = "/tmp/unix_dgramXXXXXX", buf[256];
	static char big[300000];
	struct sockaddr_un a, b, got;
	struct msghdr mh;
	struct iovec iov;
	socklen_t l;
	int sv[2], fa, fb, fc, n;

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir)) {
		printf("FAIL: mkdtemp\n");
		return 1;
	}

	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0, "socketpair(SOCK_DGRAM)");
	CHECK_EQ(send(sv[0], "first", 5, 0), 5, "send 5");
	CHECK_EQ(send(sv[0], "second!", 7, 0), 7, "send 7");
	CHECK_EQ(send(sv[0], "", 0, 0), 0, "send an empty datagram");
	CHECK_EQ(recv(sv[1], buf, 3, MSG_PEEK | MSG_TRUNC), 5, "MSG_PEEK|MSG_TRUNC gives the size");
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 5, "the first datagram alone");
	memset(&mh, 0, sizeof(mh));
	iov = (struct iovec){buf, 3};
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	CHECK_EQ(recvmsg(sv[1], &mh, 0), 3, "a short buffer takes 3 bytes");
	CHECK(mh.msg_flags & MSG_TRUNC, "and MSG_TRUNC says the rest was lost");
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0, "the empty datagram");
	CHECK_ERRNO(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "the rest is gone");
	CHECK_EQ(send(sv[1], big, sizeof(big), 0) == -1 && errno == EMSGSIZE, 1,
		 "a datagram larger than the send buffer is EMSGSIZE");
	n = 10000;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
	CHECK_ERRNO(send(sv[0], big, 19969, 0), EMSGSIZE, "the limit is SO_SNDBUF - 32");
	CHECK_EQ(send(sv[0], big, 19968, 0), 19968, "up to the limit");
	CHECK_EQ(recv(sv[1], big, sizeof(big), 0), 19968, "received whole");
	CHECK_EQ(write(sv[0], "w", 1), 1, "write() sends a datagram");
	l = sizeof(got);
	CHECK_EQ(recvfrom(sv[1], buf, sizeof(buf), 0, (struct sockaddr *)&got, &l), 1,
		 "recvfrom");
	CHECK_EQ(l, 0, "an unnamed sender has an empty address");
	close(sv[0]);
	CHECK_ERRNO(send(sv[1], "x", 1, 0), ECONNREFUSED, "send to a closed peer");
	CHECK_ERRNO(send(sv[1], "x", 1, 0), ENOTCONN, "then the socket is disconnected");
	close(sv[1]);

	/* Named datagram sockets. */
	a = mkaddr(dir, "a");
	b = mkaddr(dir, "b");
	fa = socket(AF_UNIX, SOCK_DGRAM, 0);
	fb = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	fc = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	CHECK_EQ(bind(fa, (struct sockaddr *)&a, ALEN(a.sun_path)), 0, "bind a");
	CHECK_EQ(bind(fb, (struct sockaddr *)&b, ALEN(b.sun_path)), 0, "bind b");
	CHECK_ERRNO(send(fa, "x", 1, 0), ENOTCONN, "send without an address or a peer");
	CHECK_EQ(sendto(fa, "to b", 4, 0, (struct sockaddr *)&b, ALEN(b.sun_path)), 4, "sendto b");
	l = sizeof(got);
	memset(&got, 0, sizeof(got));
	CHECK_EQ(recvfrom(fb, buf, sizeof(buf), 0, (struct sockaddr *)&got, &l), 4, "recvfrom");
	CHECK(l == ALEN(a.sun_path) && strcmp(got.sun_path, a.sun_path) == 0,
	      "recvfrom names the sender");
	CHECK_EQ(sendto(fc, "from c", 6, 0, (struct sockaddr *)&b, ALEN(b.sun_path)), 6,
		 "an unbound socket sends too");
	memset(&mh, 0, sizeof(mh));
	iov = (struct iovec){buf, sizeof(buf)};
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_name = &got;
	mh.msg_namelen = sizeof(got);
	CHECK_EQ(recvmsg(fb, &mh, 0), 6, "recvmsg");
	CHECK_EQ(mh.msg_namelen, 0, "recvmsg: no name for an unbound sender");

	/* Connected datagram sockets. */
	CHECK_EQ(connect(fb, (struct sockaddr *)&a, ALEN(a.sun_path)), 0, "connect b to a");
	CHECK_EQ(send(fb, "b->a", 4, 0), 4, "send without an address");
	CHECK_EQ(recv(fa, buf, sizeof(buf), 0), 4, "a receives it");
	CHECK_EQ(connect(fa, (struct sockaddr *)&b, ALEN(b.sun_path)), 0, "connect a to b");
	CHECK_ERRNO(sendto(fc, "x", 1, 0, (struct sockaddr *)&a, ALEN(a.sun_path)), EPERM,
		    "sendto a socket connected to someone else");
	l = sizeof(got);
	CHECK_EQ(getpeername(fa, (struct sockaddr *)&got, &l), 0, "getpeername");
	CHECK(strcmp(got.sun_path, b.sun_path) == 0, "the peer is b");
	{
		struct sockaddr un = {.sa_family = AF_UNSPEC};
		CHECK_EQ(connect(fa, &un, sizeof(un)), 0, "connect AF_UNSPEC");
		CHECK_ERRNO(getpeername(fa, (struct sockaddr *)&got, &l), ENOTCONN,
			    "disconnects");
	}
	CHECK_EQ(sendto(fc, "x", 1, 0, (struct sockaddr *)&a, ALEN(a.sun_path)), 1,
		 "others may send to it again");
	recv(fa, buf, sizeof(buf), 0);

	/* The queue limit for senders the receiver is not connected to. */
	n = 0;
	while (sendto(fc, "q", 1, MSG_DONTWAIT, (struct sockaddr *)&a, ALEN(a.sun_path)) == 1 &&
	       n < 10000)
		n++;
	{
		int e = errno;
		CHECK_EQ(e, EAGAIN, "a full receive queue gives EAGAIN");
	}
	printf("queued %d datagrams\n", n);
	{
		struct timeval tv = {0, 50000};
		setsockopt(fc, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		fcntl(fc, F_SETFL, 0);
		CHECK_ERRNO(sendto(fc, "q", 1, 0, (struct sockaddr *)&a, ALEN(a.sun_path)), EAGAIN,
			    "a blocking send times out");
	}
	CHECK_EQ(recv(fa, buf, sizeof(buf), 0), 1, "read one");
	CHECK_EQ(sendto(fc, "q", 1, 0, (struct sockaddr *)&a, ALEN(a.sun_path)), 1,
		 "then there is room for one more");
	while (recv(fa, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	close(fb);
	CHECK_ERRNO(sendto(fc, "x", 1, 0, (struct sockaddr *)&b, ALEN(b.sun_path)), ECONNREFUSED,
		    "sendto a closed socket's name");

	/* sendmmsg and recvmmsg. */
	{
		struct mmsghdr mm[3];
		struct iovec iv[3];
		char rb[3][16];
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < 3; i++) {
			iv[i] = (struct iovec){"abcdef", (size_t)i + 1};
			mm[i].msg_hdr.msg_iov = &iv[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &a;
			mm[i].msg_hdr.msg_namelen = ALEN(a.sun_path);
		}
		CHECK_EQ(sendmmsg(fc, mm, 3, 0), 3, "sendmmsg 3 datagrams");
		CHECK(mm[0].msg_len == 1 && mm[1].msg_len == 2 && mm[2].msg_len == 3,
		      "msg_len of each");
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < 3; i++) {
			iv[i] = (struct iovec){rb[i], sizeof(rb[i])};
			mm[i].msg_hdr.msg_iov = &iv[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		CHECK_EQ(recvmmsg(fa, mm, 3, 0, NULL), 3, "recvmmsg 3 datagrams");
		CHECK(mm[0].msg_len == 1 && mm[1].msg_len == 2 && mm[2].msg_len == 3 &&
			      memcmp(rb[2], "abc", 3) == 0,
		      "each in its own buffer");
		CHECK_EQ(sendmmsg(fc, mm, 0, 0), 0, "sendmmsg of nothing");
		CHECK_EQ(recvmmsg(fa, mm, 3, MSG_DONTWAIT, NULL) == -1 && errno == EAGAIN, 1,
			 "recvmmsg with nothing there");
		CHECK_EQ(send(fc, "x", 1, 0) == -1 && errno == ENOTCONN, 1, "fc is unconnected");
	}
	close(fa);
	close(fc);
	unlink(a.sun_path);
	unlink(b.sun_path);

	/* SOCK_SEQPACKET. */
	CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0, "socketpair(SOCK_SEQPACKET)");
	CHECK_EQ(send(sv[0], "abc", 3, 0), 3, "send 3");
	CHECK_EQ(send(sv[0], "defg", 4, 0), 4, "send 4");
	memset(&mh, 0, sizeof(mh));
	iov = (struct iovec){buf, 2};
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	CHECK_EQ(recvmsg(sv[1], &mh, 0), 2, "a short read of a record");
	CHECK(mh.msg_flags & MSG_TRUNC, "MSG_TRUNC");
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 4, "the next record whole");
	CHECK_ERRNO(send(sv[0], big, sizeof(big), 0), EMSGSIZE, "EMSGSIZE");
	CHECK_EQ(shutdown(sv[0], SHUT_WR), 0, "shutdown SHUT_WR");
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0, "the peer reads EOF");
	CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send after shutdown");
	close(sv[1]);
	CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send to a closed peer");
	CHECK_EQ(recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT), 0, "recv from a closed peer is EOF");
	close(sv[0]);
	n = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK_ERRNO(send(n, "x", 1, 0), ENOTCONN, "send on an unconnected seqpacket socket");
	CHECK_ERRNO(recv(n, buf, 1, 0), ENOTCONN, "recv on an unconnected seqpacket socket");
	close(n);
	rmdir(dir);
	return GUEST_DONE();
}
