/*
 * Guest test: ancillary data on unix sockets. SCM_RIGHTS passes a pipe's
 * write end (then used), several descriptors, a socket, with
 * MSG_CMSG_CLOEXEC, through MSG_PEEK, into a short control buffer
 * (MSG_CTRUNC) and into none; SCM_MAX_FD; references in flight are released
 * when the receiving socket closes unread, and when sockets sent over
 * themselves are closed (the garbage collector). SCM_CREDENTIALS with SO_PASSCRED,
 * sent explicitly, and refused for a process that does not exist.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

/* Send one byte with SCM_RIGHTS carrying fds[0..n). */
static long send_fds(int sock, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 260)];
	struct iovec iov = {"F", 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_control = cbuf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	return sendmsg(sock, &mh, 0);
}

/* Receive one message; the fds it carried go to fds (at most max), their
 * count to *nfds; returns recvmsg's result, msg_flags in *flags. */
static long recv_fds(int sock, int *fds, int max, int *nfds, size_t clen, int rflags, int *flags)
{
	static char cbuf[CMSG_SPACE(sizeof(int) * 260)];
	char b[16];
	struct iovec iov = {b, sizeof(b)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	long r;

	mh.msg_control = clen ? cbuf : NULL;
	mh.msg_controllen = clen;
	*nfds = 0;
	r = recvmsg(sock, &mh, rflags);
	*flags = mh.msg_flags;
	if (r < 0)
		return r;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			for (int i = 0; i < k && *nfds < max; i++)
				memcpy(&fds[(*nfds)++], CMSG_DATA(c) + i * sizeof(int),
				       sizeof(int));
		}
	}
	return r;
}

int main(void)
{
	int sv[2], p[2], fds[260], got[260], n, flags, on = 1;
	char buf[64];

	signal(SIGPIPE, SIG_IGN);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pipe(p);

	/* A pipe's write end through the socket, used on the other side. */
	CHECK_EQ(send_fds(sv[0], &p[1], 1), 1, "send a pipe write end");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int)), 0, &flags), 1,
		 "receive it");
	CHECK(n == 1 && flags == 0, "one descriptor, no flags");
	CHECK(got[0] != p[1], "it is a new descriptor");
	CHECK(!(fcntl(got[0], F_GETFD) & FD_CLOEXEC), "without FD_CLOEXEC");
	CHECK_EQ(write(got[0], "via scm", 7), 7, "write through the received descriptor");
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 7, "the pipe carries it");
	close(got[0]);

	/* MSG_CMSG_CLOEXEC and three at once. */
	fds[0] = p[1];
	fds[1] = p[0];
	fds[2] = sv[0];
	CHECK_EQ(send_fds(sv[0], fds, 3), 1, "send three");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int) * 3), MSG_CMSG_CLOEXEC,
			  &flags),
		 1, "receive with MSG_CMSG_CLOEXEC");
	CHECK_EQ(n, 3, "three descriptors");
	CHECK((fcntl(got[0], F_GETFD) & FD_CLOEXEC) && (fcntl(got[2], F_GETFD) & FD_CLOEXEC),
	      "close-on-exec set");
	CHECK_EQ(write(got[2], "S", 1), 1, "a received socket works");
	CHECK_EQ(read(sv[1], buf, 1), 1, "its peer reads");
	for (int i = 0; i < 3; i++)
		close(got[i]);

	/* MSG_PEEK gives copies too. */
	CHECK_EQ(send_fds(sv[0], &p[1], 1), 1, "send one more");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int)), MSG_PEEK, &flags), 1,
		 "peek it");
	CHECK_EQ(n, 1, "peek installs a descriptor");
	close(got[0]);
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int)), 0, &flags), 1,
		 "then receive it");
	CHECK_EQ(n, 1, "and get it again");
	close(got[0]);

	/* A short control buffer. */
	CHECK_EQ(send_fds(sv[0], fds, 3), 1, "send three again");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_LEN(sizeof(int)), 0, &flags), 1,
		 "receive into room for one");
	CHECK(n == 1 && (flags & MSG_CTRUNC), "one arrives, MSG_CTRUNC");
	close(got[0]);
	CHECK_EQ(send_fds(sv[0], fds, 3), 1, "send three again");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, 0, 0, &flags), 1, "receive without a buffer");
	CHECK(n == 0 && (flags & MSG_CTRUNC), "none arrive, MSG_CTRUNC");

	/* SCM_MAX_FD. */
	for (int i = 0; i < 254; i++)
		fds[i] = p[0];
	CHECK_ERRNO(send_fds(sv[0], fds, 254), EINVAL, "254 descriptors are too many");
	CHECK_EQ(send_fds(sv[0], fds, 253), 1, "253 are fine");
	CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int) * 253), 0, &flags), 1,
		 "receive 253");
	CHECK_EQ(n, 253, "all of them");
	for (int i = 0; i < n; i++)
		close(got[i]);
	fds[0] = 999;
	CHECK_ERRNO(send_fds(sv[0], fds, 1), EBADF, "a bad descriptor");

	/* In-flight references die with the socket that holds them. */
	CHECK_EQ(send_fds(sv[0], &p[1], 1), 1, "send the write end and never receive it");
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(read(p[0], buf, 1), EAGAIN, "the write end is still alive in flight");
	close(sv[1]);
	CHECK_EQ(read(p[0], buf, 1), 0, "closing the receiving socket released it: EOF");
	close(sv[0]);
	close(p[0]);

	/* A socket whose only reference is in flight to a live socket is not garbage. */
	{
		int xy[2];
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		socketpair(AF_UNIX, SOCK_STREAM, 0, xy);
		CHECK_EQ(send_fds(sv[0], &xy[0], 1), 1, "send a socket");
		close(xy[0]);
		close(socket(AF_UNIX, SOCK_DGRAM, 0));
		CHECK_EQ(recv_fds(sv[1], got, 260, &n, CMSG_SPACE(sizeof(int)), 0, &flags), 1,
			 "receive it after a collection");
		CHECK_EQ(n, 1, "it is there");
		CHECK_EQ(write(got[0], "alive", 5), 5, "it still works");
		CHECK_EQ(read(xy[1], buf, sizeof(buf)), 5, "its peer reads");
		close(got[0]);
		close(xy[1]);
		close(sv[0]);
		close(sv[1]);
	}

	/* A cycle: both ends travel in one end's own queue, with a pipe's write
	 * end; once both are closed only the collector can free them. It runs
	 * when a unix socket is released (Linux may run it a little later:
	 * wait up to 5 s). */
	pipe(p);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	fds[0] = sv[0];
	fds[1] = sv[1];
	fds[2] = p[1];
	CHECK_EQ(send_fds(sv[0], fds, 3), 1, "send both ends and a pipe into the pair itself");
	close(sv[0]);
	close(sv[1]);
	close(p[1]);
	close(socket(AF_UNIX, SOCK_DGRAM, 0));
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (n = 0; n < 500 && read(p[0], buf, 1) < 0 && errno == EAGAIN; n++)
		usleep(10000);
	CHECK_EQ(read(p[0], buf, 1), 0, "the collector frees the cycle: the pipe reads EOF");
	close(p[0]);

	/* SCM_CREDENTIALS. */
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0, "SO_PASSCRED");
	send(sv[0], "c", 1, 0);
	{
		char cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct iovec iov = {buf, sizeof(buf)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		struct cmsghdr *c;
		struct ucred uc;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		CHECK_EQ(recvmsg(sv[1], &mh, 0), 1, "recvmsg with SO_PASSCRED");
		c = CMSG_FIRSTHDR(&mh);
		CHECK(c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			      c->cmsg_len == CMSG_LEN(sizeof(uc)),
		      "an SCM_CREDENTIALS message");
		if (c)
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
		CHECK(c && uc.pid == getpid() && uc.uid == getuid() && uc.gid == getgid(),
		      "with the sender's pid, uid and gid");
		CHECK_EQ(mh.msg_controllen, CMSG_SPACE(sizeof(uc)), "msg_controllen is what was used");

		/* Explicit credentials. */
		memset(cbuf, 0, sizeof(cbuf));
		iov = (struct iovec){"e", 1};
		mh = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1};
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(uc));
		uc = (struct ucred){getpid(), getuid(), getgid()};
		memcpy(CMSG_DATA(c), &uc, sizeof(uc));
		CHECK_EQ(sendmsg(sv[0], &mh, 0), 1, "send explicit credentials");
		uc.pid = 0x3ffffff0;
		memcpy(CMSG_DATA(c), &uc, sizeof(uc));
		CHECK_ERRNO(sendmsg(sv[0], &mh, 0), ESRCH, "credentials of no process");
		c->cmsg_len = CMSG_LEN(sizeof(uc) - 1);
		CHECK_ERRNO(sendmsg(sv[0], &mh, 0), EINVAL, "credentials of the wrong size");
		iov = (struct iovec){buf, sizeof(buf)};
		mh = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1};
		CHECK_EQ(recvmsg(sv[1], &mh, 0), 1, "receive without a control buffer");
		CHECK(mh.msg_flags & MSG_CTRUNC, "SO_PASSCRED with no buffer sets MSG_CTRUNC");
	}
	close(sv[0]);
	close(sv[1]);
	return GUEST_DONE();
}
