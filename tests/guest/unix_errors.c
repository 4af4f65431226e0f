/*
 * Guest test: errors and hostile arguments of the socket calls. Bad
 * descriptors (EBADF) and non-sockets (ENOTSOCK), socket() arguments,
 * address lengths and families, EFAULT for bad pointers everywhere, and
 * msghdrs built to hurt: huge msg_iovlen, msg_controllen, bogus cmsg
 * lengths, iovecs whose lengths overflow; a chain of 10000 sockets each in
 * flight in the next one's queue, released at once. The sentry must answer
 * each with Linux's error and go on.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#define BAD ((void *)16)

static long sendmsg_raw(int fd, struct msghdr *mh, int flags)
{
	return sendmsg(fd, mh, flags);
}

static long send_fd(int sock, int fd)
{
	char c[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {"x", 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c};
	struct cmsghdr *h;

	mh.msg_controllen = sizeof(c);
	h = CMSG_FIRSTHDR(&mh);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	return sendmsg(sock, &mh, 0);
}

/* Each socket travels in the queue of the next; closing the last frees all. */
static int chain(int n)
{
	int prev = -1, made = 0;

	for (int i = 0; i < n; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			break;
		if (prev >= 0) {
			if (send_fd(sv[0], prev) != 1)
				break;
			close(prev);
		}
		close(sv[0]);
		prev = sv[1];
		made++;
	}
	close(prev);
	return made;
}

int main(void)
{
	int sv[2], p[2], v = 0;
	char buf[64], cbuf[256];
	socklen_t l = sizeof(v);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct iovec iov[4];
	struct msghdr mh;
	struct cmsghdr *c;

	signal(SIGPIPE, SIG_IGN);
	pipe(p);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);

	/* Not sockets, not descriptors. */
	CHECK_ERRNO(send(p[1], "x", 1, 0), ENOTSOCK, "send on a pipe");
	CHECK_ERRNO(recv(p[0], buf, 1, 0), ENOTSOCK, "recv on a pipe");
	CHECK_ERRNO(bind(p[0], (struct sockaddr *)&a, sizeof(a)), ENOTSOCK, "bind on a pipe");
	CHECK_ERRNO(listen(p[0], 1), ENOTSOCK, "listen on a pipe");
	CHECK_ERRNO(accept(p[0], NULL, NULL), ENOTSOCK, "accept on a pipe");
	CHECK_ERRNO(connect(p[0], (struct sockaddr *)&a, sizeof(a)), ENOTSOCK, "connect on a pipe");
	CHECK_ERRNO(shutdown(p[0], SHUT_RD), ENOTSOCK, "shutdown on a pipe");
	CHECK_ERRNO(getsockname(p[0], (struct sockaddr *)&a, &l), ENOTSOCK, "getsockname on a pipe");
	CHECK_ERRNO(getsockopt(p[0], SOL_SOCKET, SO_TYPE, &v, &l), ENOTSOCK, "getsockopt on a pipe");
	CHECK_ERRNO(setsockopt(p[0], SOL_SOCKET, SO_TYPE, &v, l), ENOTSOCK, "setsockopt on a pipe");
	CHECK_ERRNO(send(999, "x", 1, 0), EBADF, "send on a closed fd");
	CHECK_ERRNO(recvmsg(-1, &mh, 0), EBADF, "recvmsg on fd -1");
	CHECK_ERRNO(listen(999, 1), EBADF, "listen on a closed fd");
	CHECK_ERRNO(accept4(999, NULL, NULL, 0), EBADF, "accept4 on a closed fd");

	/* socket() and socketpair() arguments. */
	CHECK_ERRNO(socket(12345, SOCK_STREAM, 0), EAFNOSUPPORT, "an unknown family");
	CHECK_ERRNO(socket(AF_UNIX, 12345, 0), EINVAL, "an unknown type");
	CHECK_ERRNO(socket(AF_UNIX, SOCK_RDM, 0), ESOCKTNOSUPPORT, "SOCK_RDM");
	CHECK_ERRNO(socket(AF_UNIX, SOCK_STREAM, 2), EPROTONOSUPPORT, "protocol 2");
	CHECK_ERRNO(socket(AF_UNIX, SOCK_STREAM | 0x40000000, 0), EINVAL, "unknown type flags");
	v = socket(AF_UNIX, SOCK_RAW, 0);
	l = sizeof(v);
	CHECK(v >= 0, "SOCK_RAW is accepted");
	{
		int t = 0;
		getsockopt(v, SOL_SOCKET, SO_TYPE, &t, &l);
		CHECK_EQ(t, SOCK_DGRAM, "as SOCK_DGRAM");
		close(v);
	}
	v = socket(AF_UNIX, SOCK_STREAM, PF_UNIX);
	CHECK(v >= 0, "protocol PF_UNIX is accepted");
	close(v);
	CHECK_ERRNO(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, BAD), EFAULT,
		    "socketpair to a bad pointer");

	/* Addresses. */
	v = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(bind(v, (struct sockaddr *)&a, 1), EINVAL, "bind with length 1");
	CHECK_ERRNO(bind(v, (struct sockaddr *)&a, sizeof(a) + 1), EINVAL, "bind with length 111");
	CHECK_ERRNO(bind(v, (struct sockaddr *)&a, -1), EINVAL, "bind with length -1");
	CHECK_ERRNO(bind(v, BAD, sizeof(a)), EFAULT, "bind from a bad pointer");
	a.sun_family = AF_INET;
	strcpy(a.sun_path, "/tmp/nope");
	CHECK_ERRNO(bind(v, (struct sockaddr *)&a, sizeof(a)), EINVAL, "bind with AF_INET");
	CHECK_ERRNO(connect(v, (struct sockaddr *)&a, sizeof(a)), EINVAL, "connect with AF_INET");
	a.sun_family = AF_UNIX;
	CHECK_ERRNO(connect(v, BAD, sizeof(a)), EFAULT, "connect from a bad pointer");
	CHECK_ERRNO(connect(v, (struct sockaddr *)&a, 1), EINVAL, "connect with length 1");
	l = sizeof(a);
	CHECK_ERRNO(getsockname(v, BAD, &l), EFAULT, "getsockname to a bad pointer");
	CHECK_ERRNO(getsockname(v, (struct sockaddr *)&a, BAD), EFAULT, "getsockname, bad length");
	l = -1;
	CHECK_ERRNO(getsockname(v, (struct sockaddr *)&a, &l), EINVAL, "getsockname, length -1");
	CHECK_ERRNO(accept(sv[0], NULL, NULL), EINVAL, "accept on a connected socket");
	close(v);

	/* Options. */
	l = sizeof(v);
	CHECK_ERRNO(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, BAD, &l), EFAULT, "getsockopt to BAD");
	CHECK_ERRNO(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, BAD), EFAULT, "getsockopt, bad len");
	l = -1;
	CHECK_ERRNO(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &l), EINVAL, "getsockopt len -1");
	l = sizeof(v);
	CHECK_ERRNO(getsockopt(sv[0], SOL_SOCKET, 12345, &v, &l), ENOPROTOOPT,
		    "getsockopt of an unknown option");
	CHECK_ERRNO(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, 2), EINVAL, "setsockopt len 2");
	CHECK_ERRNO(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, BAD, 4), EFAULT, "setsockopt from BAD");
	CHECK_ERRNO(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &v, 4), EINVAL,
		    "SO_RCVTIMEO with a short timeval");
	CHECK_ERRNO(setsockopt(sv[0], SOL_SOCKET, 12345, &v, 4), ENOPROTOOPT,
		    "setsockopt of an unknown option");
	CHECK_ERRNO(setsockopt(sv[0], 6 /* TCP */, 1, &v, 4), EOPNOTSUPP, "a TCP option");
	CHECK_ERRNO(getsockopt(sv[0], 6 /* TCP */, 1, &v, &l), EOPNOTSUPP, "get a TCP option");

	/* Data pointers. */
	CHECK_ERRNO(send(sv[0], BAD, 10, 0), EFAULT, "send from a bad buffer");
	CHECK_ERRNO(syscall(SYS_write, sv[0], BAD, 10), EFAULT, "write from a bad buffer");
	CHECK_ERRNO(sendto(sv[0], "x", 1, 0, (struct sockaddr *)&a, sizeof(a)), EISCONN,
		    "sendto with an address on a connected stream");
	send(sv[0], "data", 4, 0);
	CHECK_ERRNO(recv(sv[1], BAD, 10, 0), EFAULT, "recv into a bad buffer");
	CHECK_EQ(recv(sv[1], buf, 10, 0), 4, "the stream data is still there");
	CHECK_ERRNO(sendmsg(sv[0], BAD, 0), EFAULT, "sendmsg of a bad msghdr");
	CHECK_ERRNO(recvmsg(sv[0], BAD, 0), EFAULT, "recvmsg of a bad msghdr");

	/* Hostile msghdrs. */
	memset(&mh, 0, sizeof(mh));
	iov[0] = (struct iovec){"abc", 3};
	mh.msg_iov = iov;
	mh.msg_iovlen = 1025;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EMSGSIZE, "msg_iovlen 1025");
	mh.msg_iovlen = (size_t)1 << 62;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EMSGSIZE, "msg_iovlen 2^62");
	CHECK_ERRNO(recvmsg(sv[1], &mh, 0), EMSGSIZE, "recvmsg with msg_iovlen 2^62");
	mh.msg_iov = BAD;
	mh.msg_iovlen = 2;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EFAULT, "msg_iov at a bad address");
	iov[0] = (struct iovec){"abc", 3};
	iov[1] = (struct iovec){"def", (size_t)-1};
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "an iovec of length -1");
	iov[1] = (struct iovec){"def", (size_t)1 << 62};
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EFAULT, "an iovec of length 2^62");
	iov[1] = (struct iovec){BAD, 3};
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EFAULT, "a bad iovec after a good one");
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = (size_t)1 << 40;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), ENOBUFS, "msg_controllen 2^40");
	mh.msg_controllen = 1 << 20;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), ENOBUFS, "msg_controllen 1 MiB");
	mh.msg_control = BAD;
	mh.msg_controllen = 64;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EFAULT, "msg_control at a bad address");
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	c = (struct cmsghdr *)cbuf;
	c->cmsg_len = 0;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "cmsg_len 0");
	c->cmsg_len = sizeof(cbuf) + 1;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "cmsg_len past the buffer");
	c->cmsg_len = (size_t)-8;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "cmsg_len -8");
	c->cmsg_len = CMSG_LEN(4);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = 77;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "an unknown SOL_SOCKET cmsg type");
	c->cmsg_level = 6;
	mh.msg_controllen = CMSG_SPACE(4);
	CHECK_EQ(sendmsg_raw(sv[0], &mh, 0), 3, "another level's cmsg is ignored");
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(0);
	CHECK_EQ(sendmsg_raw(sv[0], &mh, 0), 3, "SCM_RIGHTS with no descriptors");
	mh.msg_controllen = 8;
	CHECK_EQ(sendmsg_raw(sv[0], &mh, 0), 3, "a control buffer shorter than a header");
	recv(sv[1], buf, sizeof(buf), 0);
	mh.msg_control = NULL;
	mh.msg_controllen = 0;
	mh.msg_name = BAD;
	mh.msg_namelen = 20;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EFAULT, "msg_name at a bad address");
	mh.msg_name = &a;
	mh.msg_namelen = -1;
	CHECK_ERRNO(sendmsg_raw(sv[0], &mh, 0), EINVAL, "msg_namelen -1");
	{
		int d[2];
		socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
		mh.msg_namelen = 1000;
		CHECK_ERRNO(sendmsg_raw(d[0], &mh, 0), EINVAL, "msg_namelen 1000 on a datagram");
		mh.msg_name = NULL;
		mh.msg_namelen = 0;
		send(d[0], "xyz", 3, 0);
		memset(&mh, 0, sizeof(mh));
		iov[0] = (struct iovec){buf, sizeof(buf)};
		mh.msg_iov = iov;
		mh.msg_iovlen = 1;
		mh.msg_control = BAD;
		mh.msg_controllen = 100;
		CHECK_EQ(recvmsg(d[1], &mh, 0), 3, "recvmsg with a bad control buffer and none to give");
		send(d[0], "xyz", 3, 0);
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		mh.msg_name = BAD;
		mh.msg_namelen = 100;
		CHECK_EQ(recvmsg(d[1], &mh, 0), 3, "recvmsg with a bad name buffer and no name");
		close(d[0]);
		close(d[1]);
	}
	{
		struct mmsghdr mm[2];
		memset(mm, 0, sizeof(mm));
		CHECK_ERRNO(sendmmsg(sv[0], BAD, 2, 0), EFAULT, "sendmmsg of a bad vector");
		CHECK_ERRNO(recvmmsg(sv[0], BAD, 2, 0, NULL), EFAULT, "recvmmsg of a bad vector");
		CHECK_ERRNO(recvmmsg(sv[0], mm, 2, 0, BAD), EFAULT, "recvmmsg of a bad timeout");
	}
	CHECK_EQ(chain(10000), 10000, "a chain of 10000 sockets in flight, released at once");
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
	return GUEST_DONE();
}
