/*
 * Guest test: what a TCP receive and a TCP socket's state say, as Linux:
 * - recvmsg's control messages: SO_TIMESTAMP's time (if the data came
 *   timed) then TCP_INQ's count of bytes left (TCP_CM_INQ), none without
 *   the options;
 * - TCP_DEFER_ACCEPT reads back the time its retransmissions take (3 s
 *   as 3, 5 as 7, 0 as 0);
 * - SO_ACCEPTCONN is 0 once the listener is shut for reading;
 * - a read after a refused non-blocking connect (its error taken) is 0.
 */
#include "netguest.h"

#include <fcntl.h>
#include <poll.h>

static int getint(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, level, name, &v, &l) < 0 ? -2 : v;
}

static void connected_pair(int *c, int *a)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &len);

	*c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(*c, (struct sockaddr *)&addr, len) < 0)
		*c = -1;
	*a = accept(l, NULL, NULL);
	close(l);
}

static void cmsgs(void)
{
	int c, a, one = 1;
	char buf[100], ctl[256];
	struct iovec iov = {buf, 40};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	int inq = -1;

	printf("-- control messages\n");
	connected_pair(&c, &a);
	CHECK(c >= 0 && a >= 0, "a connection");
	CHECK_EQ(net_write_all(c, buf, 10), 10, "10 bytes");
	iov.iov_len = 10;
	CHECK_EQ(recvmsg(a, &mh, MSG_WAITALL), 10, "read, no options");
	CHECK(CMSG_FIRSTHDR(&mh) == NULL, "... no control message");
	CHECK_EQ(setsockopt(a, IPPROTO_TCP, TCP_INQ, &one, sizeof(one)), 0, "TCP_INQ on");
	CHECK_EQ(setsockopt(a, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)), 0, "SO_TIMESTAMP on");
	CHECK_EQ(net_write_all(c, buf, 60), 60, "60 bytes");
	mh.msg_controllen = sizeof(ctl);
	iov.iov_len = 40;
	CHECK_EQ(recvmsg(a, &mh, MSG_WAITALL), 40, "40 of them");
	/* Linux turns timestamping on for the host a moment later (a work
	 * item), so the data may come untimed: then there is no time. */
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_level == SOL_SOCKET) {
		CHECK(cm->cmsg_type == SCM_TIMESTAMP &&
			      cm->cmsg_len == CMSG_LEN(sizeof(struct timeval)),
		      "... SCM_TIMESTAMP, if any, first");
		cm = CMSG_NXTHDR(&mh, cm);
	} else {
		CHECK(1, "... SCM_TIMESTAMP, if any, first");
	}
	CHECK(cm && cm->cmsg_level == IPPROTO_TCP && cm->cmsg_type == TCP_CM_INQ &&
		      cm->cmsg_len == CMSG_LEN(sizeof(int)),
	      "... then TCP_CM_INQ");
	if (cm)
		memcpy(&inq, CMSG_DATA(cm), sizeof(inq));
	CHECK_EQ(inq, 20, "... 20 bytes left");
	CHECK(!cm || CMSG_NXTHDR(&mh, cm) == NULL, "... and nothing else");
	close(c);
	mh.msg_controllen = sizeof(ctl);
	iov.iov_len = sizeof(buf);
	CHECK_EQ(recvmsg(a, &mh, MSG_WAITALL), 20, "the last 20, the peer gone");
	mh.msg_controllen = sizeof(ctl);
	CHECK_EQ(recvmsg(a, &mh, 0), 0, "then the end");
	cm = CMSG_FIRSTHDR(&mh);
	CHECK(cm && cm->cmsg_level == IPPROTO_TCP && cm->cmsg_type == TCP_CM_INQ,
	      "... with TCP_CM_INQ only (nothing read: no time)");
	if (cm)
		memcpy(&inq, CMSG_DATA(cm), sizeof(inq));
	CHECK_EQ(inq, 1, "... 1 at the end of the stream");
	close(a);
}

static void defer_accept(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), v;

	printf("-- TCP_DEFER_ACCEPT\n");
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT), 0, "0 at first");
	v = 3;
	CHECK_EQ(setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v)), 0, "3 s");
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT), 3, "... reads 3");
	v = 5;
	CHECK_EQ(setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v)), 0, "5 s");
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT), 7, "... reads 7 (1+2+4)");
	v = 1000;
	CHECK_EQ(setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v)), 0, "1000 s");
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT), 1087, "... reads 1087 (127 + 8 x 120)");
	v = -1;
	CHECK_EQ(setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v)), 0, "-1");
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT), 0, "... reads 0");
	close(fd);
}

static void acceptconn(void)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &len);

	printf("-- SO_ACCEPTCONN\n");
	CHECK_EQ(getint(l, SOL_SOCKET, SO_ACCEPTCONN), 1, "a listener: 1");
	CHECK_EQ(shutdown(l, SHUT_RD), 0, "SHUT_RD");
	CHECK_EQ(getint(l, SOL_SOCKET, SO_ACCEPTCONN), 0, "... then 0");
	close(l);
}

static void refused(void)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int l = net_bound(AF_INET, SOCK_STREAM, &addr, &len), fd;
	struct pollfd p;
	char c;

	printf("-- a read after a refused connect\n");
	close(l);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&addr, len), EINPROGRESS,
		    "non-blocking connect to a closed port");
	p = (struct pollfd){fd, POLLOUT, 0};
	CHECK_EQ(poll(&p, 1, 5000), 1, "it ends");
	CHECK_EQ(getint(fd, SOL_SOCKET, SO_ERROR), ECONNREFUSED, "SO_ERROR: ECONNREFUSED");
	CHECK_EQ(read(fd, &c, 1), 0, "then a read: 0");
	close(fd);
}

int main(void)
{
	alarm(30);
	cmsgs();
	defer_accept();
	acceptconn();
	refused();
	return GUEST_DONE();
}
