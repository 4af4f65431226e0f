/*
 * Guest test: SOCK_STREAM unix sockets from socketpair(): coalescing of
 * writes, MSG_PEEK, MSG_DONTWAIT, MSG_WAITALL with a receive timeout,
 * readv/writev/sendmsg with several pieces, FIONREAD, non-blocking mode
 * through fcntl, filling the buffer, SO_SNDTIMEO/SO_RCVTIMEO, shutdown in
 * both directions, EOF and ECONNRESET after the peer closes, fstat and the
 * /proc/self/fd link, and the basic socket options.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>

static int getint(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &l) < 0 || l != sizeof(v))
		return -2;
	return v;
}

static void set_timeout(int fd, int opt, long usec)
{
	struct timeval tv = {usec / 1000000, usec % 1000000};

	setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

int main(void)
{
	int sv[2], avail = -1, n;
	char buf[256], a[4], b[8], link[64], path[64];
	struct iovec iov[3];
	struct msghdr mh;
	struct stat st;
	struct ucred cr;
	socklen_t l;
	long total;

	signal(SIGPIPE, SIG_IGN);
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0, "socketpair(AF_UNIX, SOCK_STREAM)");

	/* Options. */
	CHECK_EQ(getint(sv[0], SO_TYPE), SOCK_STREAM, "SO_TYPE is SOCK_STREAM");
	CHECK_EQ(getint(sv[0], SO_DOMAIN), AF_UNIX, "SO_DOMAIN is AF_UNIX");
	CHECK_EQ(getint(sv[0], SO_PROTOCOL), 0, "SO_PROTOCOL is 0");
	CHECK_EQ(getint(sv[0], SO_ACCEPTCONN), 0, "SO_ACCEPTCONN is 0");
	CHECK_EQ(getint(sv[0], SO_ERROR), 0, "SO_ERROR is 0");
	CHECK_EQ(getint(sv[0], SO_PASSCRED), 0, "SO_PASSCRED is off");
	CHECK_EQ(getint(sv[0], SO_SNDBUF), 212992, "SO_SNDBUF default");
	CHECK_EQ(getint(sv[0], SO_RCVBUF), 212992, "SO_RCVBUF default");
	n = 10000;
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &n, sizeof(n)), 0, "set SO_SNDBUF");
	CHECK_EQ(getint(sv[0], SO_SNDBUF), 20000, "SO_SNDBUF reads back doubled");
	n = 1;
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &n, sizeof(n)), 0, "set SO_SNDBUF 1");
	CHECK_EQ(getint(sv[0], SO_SNDBUF), 4608, "SO_SNDBUF has a minimum");
	n = 1;
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &n, sizeof(n)), 0, "set SO_RCVBUF 1");
	CHECK_EQ(getint(sv[0], SO_RCVBUF), 2304, "SO_RCVBUF has a minimum");
	n = 3;
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_PRIORITY, &n, sizeof(n)), 0, "SO_PRIORITY 3");
	CHECK_EQ(getint(sv[0], SO_PRIORITY), 3, "SO_PRIORITY reads back");
	{
		static const int bools[] = {SO_BROADCAST, SO_NO_CHECK, SO_REUSEADDR, SO_KEEPALIVE};
		for (unsigned i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
			n = 1;
			CHECK(getint(sv[0], bools[i]) == 0 &&
				      setsockopt(sv[0], SOL_SOCKET, bools[i], &n, sizeof(n)) == 0 &&
				      getint(sv[0], bools[i]) == 1,
			      "SO_BROADCAST, SO_NO_CHECK, SO_REUSEADDR, SO_KEEPALIVE: off, set, on");
		}
	}
	if (getuid() == 0) {
		n = 1000000;
		CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &n, sizeof(n)), 0,
			 "SO_SNDBUFFORCE (root)");
		CHECK_EQ(getint(sv[0], SO_SNDBUF), 2000000, "is not held to wmem_max");
	}
	n = 212992 / 2;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_REUSEADDR, &n, sizeof(n)), 0, "SO_REUSEADDR");
	CHECK_EQ(getint(sv[0], SO_REUSEADDR), 1, "SO_REUSEADDR reads back 1");
	l = sizeof(cr);
	CHECK_EQ(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cr, &l), 0, "SO_PEERCRED");
	CHECK(l == sizeof(cr) && cr.pid == getpid() && cr.uid == getuid() && cr.gid == getgid(),
	      "SO_PEERCRED names this process");
	l = 2;
	n = -1;
	CHECK_EQ(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &n, &l), 0, "SO_TYPE into 2 bytes");
	CHECK(l == 2 && (n & 0xffff) == SOCK_STREAM, "a short option length truncates");

	/* The file. */
	CHECK_EQ(fstat(sv[0], &st), 0, "fstat a socket");
	CHECK(S_ISSOCK(st.st_mode), "it is S_IFSOCK");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
	n = readlink(path, link, sizeof(link) - 1);
	CHECK(n > 9 && strncmp(link, "socket:[", 8) == 0 && link[n - 1] == ']',
	      "/proc/self/fd shows socket:[ino]");
	CHECK_ERRNO(lseek(sv[0], 0, SEEK_SET), ESPIPE, "lseek on a socket");
	CHECK_ERRNO(pread(sv[0], buf, 1, 0), ESPIPE, "pread on a socket");

	/* Data: writes coalesce, reads take what is there. */
	CHECK_EQ(write(sv[0], "hello ", 6), 6, "write 6 bytes");
	CHECK_EQ(send(sv[0], "world", 5, 0), 5, "send 5 bytes");
	CHECK_EQ(ioctl(sv[1], FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, 11, "FIONREAD counts 11 bytes");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(recv(sv[1], buf, 5, MSG_PEEK), 5, "MSG_PEEK 5 bytes");
	CHECK(memcmp(buf, "hello", 5) == 0, "peek sees the start");
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), MSG_PEEK), 11, "MSG_PEEK sees both writes");
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 11, "one read takes both writes");
	CHECK(memcmp(buf, "hello world", 11) == 0, "in order");
	CHECK_ERRNO(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "MSG_DONTWAIT when empty");

	/* Scatter and gather. */
	iov[0] = (struct iovec){"abc", 3};
	iov[1] = (struct iovec){"", 0};
	iov[2] = (struct iovec){"defghij", 7};
	CHECK_EQ(writev(sv[1], iov, 3), 10, "writev 3 pieces");
	iov[0] = (struct iovec){a, sizeof(a)};
	iov[1] = (struct iovec){b, sizeof(b)};
	CHECK_EQ(readv(sv[0], iov, 2), 10, "readv into 4 + 8");
	CHECK(memcmp(a, "abcd", 4) == 0 && memcmp(b, "efghij", 6) == 0, "readv scatters in order");
	memset(&mh, 0, sizeof(mh));
	iov[0] = (struct iovec){"12", 2};
	iov[1] = (struct iovec){"345", 3};
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	CHECK_EQ(sendmsg(sv[0], &mh, 0), 5, "sendmsg 2 pieces");
	memset(&mh, 0, sizeof(mh));
	iov[0] = (struct iovec){buf, sizeof(buf)};
	mh.msg_iov = iov;
	mh.msg_iovlen = 1;
	CHECK_EQ(recvmsg(sv[1], &mh, 0), 5, "recvmsg");
	CHECK(memcmp(buf, "12345", 5) == 0 && mh.msg_flags == 0, "recvmsg data, no flags");

	/* MSG_WAITALL: waits for more until the receive timeout, then returns what it has. */
	set_timeout(sv[1], SO_RCVTIMEO, 50000);
	CHECK_EQ(write(sv[0], "12345", 5), 5, "write 5 bytes");
	CHECK_EQ(recv(sv[1], buf, 10, MSG_WAITALL), 5, "MSG_WAITALL returns 5 after the timeout");
	CHECK_ERRNO(recv(sv[1], buf, 10, 0), EAGAIN, "SO_RCVTIMEO expires with EAGAIN");
	CHECK_EQ(write(sv[0], "1234567890", 10), 10, "write 10 bytes");
	CHECK_EQ(recv(sv[1], buf, 10, MSG_WAITALL), 10, "MSG_WAITALL with all of it there");
	set_timeout(sv[1], SO_RCVTIMEO, 0);

	/* Non-blocking mode, and a full buffer. */
	CHECK_EQ(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0, "fcntl O_NONBLOCK");
	CHECK_EQ(fcntl(sv[0], F_GETFL) & (O_NONBLOCK | O_ACCMODE), O_NONBLOCK | O_RDWR,
		 "F_GETFL: O_RDWR | O_NONBLOCK");
	CHECK_ERRNO(read(sv[0], buf, 1), EAGAIN, "non-blocking read when empty");
	memset(buf, 'x', sizeof(buf));
	total = 0;
	for (;;) {
		static char big[65536];
		long w = write(sv[0], big, sizeof(big));
		if (w < 0)
			break;
		total += w;
		if (total > 64L << 20)
			break;
	}
	CHECK(errno == EAGAIN && total > 65536 && total < 8 << 20,
	      "writes fill the buffer, then EAGAIN");
	CHECK_EQ(fcntl(sv[0], F_SETFL, 0), 0, "back to blocking");
	set_timeout(sv[0], SO_SNDTIMEO, 50000);
	CHECK_ERRNO(write(sv[0], "x", 1), EAGAIN, "SO_SNDTIMEO expires with EAGAIN");
	{
		long got = 0, r;
		static char big[65536];
		while ((r = recv(sv[1], big, sizeof(big), MSG_DONTWAIT)) > 0)
			got += r;
		CHECK_EQ(got, total, "every byte written is read back");
	}
	CHECK_EQ(write(sv[0], "y", 1), 1, "writable again after reading");
	CHECK_EQ(read(sv[1], buf, 1), 1, "read it");
	set_timeout(sv[0], SO_SNDTIMEO, 0);

	/* Shutdown. */
	CHECK_ERRNO(shutdown(sv[0], 3), EINVAL, "shutdown(3)");
	CHECK_EQ(shutdown(sv[0], SHUT_WR), 0, "shutdown SHUT_WR");
	CHECK_ERRNO(send(sv[0], "z", 1, MSG_NOSIGNAL), EPIPE, "send after SHUT_WR");
	CHECK_ERRNO(write(sv[0], "z", 1), EPIPE, "write after SHUT_WR (SIGPIPE ignored)");
	CHECK_EQ(read(sv[1], buf, 1), 0, "the peer reads EOF");
	CHECK_EQ(write(sv[1], "back", 4), 4, "the peer can still write");
	CHECK_EQ(read(sv[0], buf, 4), 4, "and the half-closed end reads it");
	CHECK_EQ(shutdown(sv[0], SHUT_RD), 0, "shutdown SHUT_RD");
	CHECK_EQ(read(sv[0], buf, 4), 0, "read after SHUT_RD is EOF");
	CHECK_ERRNO(send(sv[1], "z", 1, MSG_NOSIGNAL), EPIPE, "the peer's send after SHUT_RD");
	close(sv[0]);
	close(sv[1]);

	/* EOF when the peer closes, ECONNRESET when it closed with unread data. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	CHECK_EQ(write(sv[0], "abc", 3), 3, "write before close");
	close(sv[0]);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 3, "data written before the close is read");
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 0, "then EOF");
	CHECK_ERRNO(send(sv[1], "z", 1, MSG_NOSIGNAL), EPIPE, "send to a closed peer");
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	CHECK_EQ(write(sv[1], "unread", 6), 6, "write to a socket that will not read it");
	close(sv[0]);
	CHECK_ERRNO(read(sv[1], buf, sizeof(buf)), ECONNRESET,
		    "closing with unread data resets the peer");
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 0, "then EOF");
	close(sv[1]);

	/* SOCK_NONBLOCK and SOCK_CLOEXEC. */
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0,
		 "socketpair with SOCK_NONBLOCK | SOCK_CLOEXEC");
	CHECK(fcntl(sv[0], F_GETFL) & O_NONBLOCK, "O_NONBLOCK set");
	CHECK(fcntl(sv[1], F_GETFD) & FD_CLOEXEC, "FD_CLOEXEC set");
	CHECK_ERRNO(read(sv[1], buf, 1), EAGAIN, "non-blocking from the start");
	close(sv[0]);
	close(sv[1]);
	return GUEST_DONE();
}
