/*
 * Guest test: named unix sockets. bind() on a filesystem path (an S_IFSOCK
 * file with the umask applied, EADDRINUSE while the name exists), abstract
 * names, autobind, listen/accept/accept4/connect for SOCK_STREAM and
 * SOCK_SEQPACKET, the backlog (non-blocking EAGAIN, SO_SNDTIMEO), addresses
 * from getsockname/getpeername/accept, connection errors, and a listener
 * that closes with connections it never accepted.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define ALEN(path) ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1))

static struct sockaddr_un mkaddr(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	return a;
}

int main(void)
{
	char dir[] = "/tmp/unix_listenXXXXXX", path[128], path2[128], buf[64];
	struct sockaddr_un a, got;
	socklen_t l;
	struct stat st;
	int lfd, c1, c2, c3, s1, n, fd;

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir)) {
		printf("FAIL: mkdtemp\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sock", dir);
	snprintf(path2, sizeof(path2), "%s/file", dir);
	a = mkaddr(path);

	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(listen(lfd, 5), EINVAL, "listen on an unbound socket");
	c1 = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(connect(c1, (struct sockaddr *)&a, ALEN(path)), ENOENT,
		    "connect to a path that does not exist");
	umask(022);
	CHECK_EQ(bind(lfd, (struct sockaddr *)&a, ALEN(path)), 0, "bind to a path");
	CHECK_EQ(stat(path, &st), 0, "the path exists");
	CHECK(S_ISSOCK(st.st_mode), "it is a socket file");
	CHECK_EQ(st.st_mode & 07777, 0755, "its mode is 0777 less the umask");
	CHECK_ERRNO(bind(lfd, (struct sockaddr *)&a, ALEN(path)), EADDRINUSE,
		    "bind twice to the same path");
	{
		struct sockaddr_un a2 = mkaddr(path2);
		CHECK_ERRNO(bind(lfd, (struct sockaddr *)&a2, ALEN(path2)), EINVAL,
			    "bind a bound socket to another path");
		CHECK_ERRNO(access(path2, F_OK), ENOENT, "which leaves no file behind");
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(bind(fd, (struct sockaddr *)&a, ALEN(path)), EADDRINUSE,
		    "another socket binds the same path");
	close(fd);
	CHECK_ERRNO(connect(c1, (struct sockaddr *)&a, ALEN(path)), ECONNREFUSED,
		    "connect before listen");
	l = sizeof(got);
	CHECK_EQ(getsockname(lfd, (struct sockaddr *)&got, &l), 0, "getsockname");
	CHECK(l == ALEN(path) && strcmp(got.sun_path, path) == 0, "getsockname gives the path");

	CHECK_EQ(listen(lfd, 1), 0, "listen(1)");
	CHECK_EQ(listen(lfd, 1), 0, "listen again");
	{
		int v = 0;
		socklen_t vl = sizeof(v);
		getsockopt(lfd, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl);
		CHECK_EQ(v, 1, "SO_ACCEPTCONN on a listener");
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&a, ALEN(path)), EPROTOTYPE,
		    "a datagram socket connects to a stream listener");
	CHECK_ERRNO(listen(fd, 1), EOPNOTSUPP, "listen on a datagram socket");
	close(fd);
	CHECK_ERRNO(accept4(lfd, NULL, NULL, SOCK_NONBLOCK << 1), EINVAL, "accept4 bad flags");
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	CHECK_ERRNO(accept(lfd, NULL, NULL), EAGAIN, "non-blocking accept with nothing pending");
	fcntl(lfd, F_SETFL, 0);

	/* The backlog: queue length may reach backlog + 1. */
	CHECK_EQ(connect(c1, (struct sockaddr *)&a, ALEN(path)), 0, "connect");
	CHECK_ERRNO(connect(c1, (struct sockaddr *)&a, ALEN(path)), EISCONN, "connect again");
	CHECK_ERRNO(listen(c1, 1), EINVAL, "listen on a connected socket");
	c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK_EQ(connect(c2, (struct sockaddr *)&a, ALEN(path)), 0, "a second connect fits");
	c3 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK_ERRNO(connect(c3, (struct sockaddr *)&a, ALEN(path)), EAGAIN,
		    "non-blocking connect to a full backlog");
	fcntl(c3, F_SETFL, 0);
	{
		struct timeval tv = {0, 50000};
		setsockopt(c3, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	CHECK_ERRNO(connect(c3, (struct sockaddr *)&a, ALEN(path)), EAGAIN,
		    "blocking connect to a full backlog times out");
	CHECK_EQ(write(c1, "ping", 4), 4, "write before accept");

	l = sizeof(got);
	memset(&got, 0x55, sizeof(got));
	s1 = accept(lfd, (struct sockaddr *)&got, &l);
	CHECK(s1 >= 0, "accept");
	CHECK(l == sizeof(sa_family_t) && got.sun_family == AF_UNIX,
	      "an unbound peer's address is the family alone");
	CHECK_EQ(read(s1, buf, sizeof(buf)), 4, "the accepted socket reads what was written");
	CHECK_EQ(write(s1, "pong", 4), 4, "and writes back");
	CHECK_EQ(read(c1, buf, sizeof(buf)), 4, "the client reads it");
	l = sizeof(got);
	CHECK_EQ(getpeername(c1, (struct sockaddr *)&got, &l), 0, "getpeername of the client");
	CHECK(l == ALEN(path) && strcmp(got.sun_path, path) == 0, "its peer is the path");
	l = sizeof(got);
	CHECK_EQ(getsockname(s1, (struct sockaddr *)&got, &l), 0, "getsockname of the accepted");
	CHECK(l == ALEN(path) && strcmp(got.sun_path, path) == 0,
	      "the accepted socket has the listener's name");
	l = sizeof(got);
	CHECK_EQ(getsockname(c1, (struct sockaddr *)&got, &l), 0, "getsockname of the client");
	CHECK_EQ(l, sizeof(sa_family_t), "the client has no name");
	l = 4;
	CHECK_EQ(getpeername(c1, (struct sockaddr *)&got, &l), 0, "getpeername into 4 bytes");
	CHECK_EQ(l, ALEN(path), "reports the full length");
	CHECK_ERRNO(getpeername(lfd, (struct sockaddr *)&got, &l), ENOTCONN,
		    "getpeername of a listener");
	{
		struct ucred cr;
		socklen_t cl = sizeof(cr);
		getsockopt(c1, SOL_SOCKET, SO_PEERCRED, &cr, &cl);
		CHECK(cr.pid == getpid() && cr.uid == getuid(), "SO_PEERCRED through connect");
	}
	n = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	CHECK(n >= 0, "accept4 the second");
	CHECK((fcntl(n, F_GETFL) & O_NONBLOCK) && (fcntl(n, F_GETFD) & FD_CLOEXEC),
	      "accept4 sets O_NONBLOCK and FD_CLOEXEC");
	CHECK_EQ(connect(c3, (struct sockaddr *)&a, ALEN(path)), 0, "now the third connects");
	close(n);
	CHECK_EQ(read(c2, buf, 1), 0, "closing an accepted socket gives its peer EOF");
	close(c2);

	/* A listener that dies with a connection it did not accept resets it. */
	close(lfd);
	CHECK_ERRNO(read(c3, buf, 1), ECONNRESET, "unaccepted connection is reset");
	CHECK_EQ(read(c3, buf, 1), 0, "then EOF");
	CHECK_ERRNO(send(c3, "x", 1, MSG_NOSIGNAL), EPIPE, "and sending fails");
	CHECK_EQ(write(s1, "x", 1), 1, "an accepted connection outlives the listener");
	CHECK_EQ(read(c1, buf, 1), 1, "and still works");
	close(c1);
	close(c3);
	close(s1);

	/* The name stays in the filesystem. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&a, ALEN(path)), ECONNREFUSED,
		    "connect to a socket file nobody listens on");
	CHECK_ERRNO(bind(fd, (struct sockaddr *)&a, ALEN(path)), EADDRINUSE,
		    "bind to a stale socket file");
	CHECK_EQ(unlink(path), 0, "unlink it");
	CHECK_EQ(bind(fd, (struct sockaddr *)&a, ALEN(path)), 0, "bind works again");
	close(fd);
	unlink(path);
	close(open(path2, O_CREAT | O_WRONLY, 0600));
	a = mkaddr(path2);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&a, ALEN(path2)), ECONNREFUSED,
		    "connect to a regular file");
	CHECK_ERRNO(bind(fd, (struct sockaddr *)&a, ALEN(path2)), EADDRINUSE,
		    "bind over a regular file");
	close(fd);
	unlink(path2);

	/* SOCK_SEQPACKET listeners. */
	a = mkaddr(path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK_EQ(bind(lfd, (struct sockaddr *)&a, ALEN(path)), 0, "bind a seqpacket socket");
	CHECK_EQ(listen(lfd, 5), 0, "listen");
	c1 = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK_EQ(connect(c1, (struct sockaddr *)&a, ALEN(path)), 0, "connect");
	s1 = accept(lfd, NULL, NULL);
	CHECK(s1 >= 0, "accept");
	CHECK_EQ(send(c1, "one", 3, 0), 3, "send one");
	CHECK_EQ(send(c1, "two!", 4, 0), 4, "send two");
	CHECK_EQ(recv(s1, buf, sizeof(buf), 0), 3, "records keep their boundaries");
	CHECK_EQ(recv(s1, buf, sizeof(buf), 0), 4, "second record");
	close(c1);
	CHECK_EQ(recv(s1, buf, sizeof(buf), 0), 0, "EOF when the peer closes");
	close(s1);
	close(lfd);
	unlink(path);

	/* A path of the full 108 bytes, without a NUL: Linux's length is 111. */
	{
		struct sockaddr_un full = {.sun_family = AF_UNIX};
		unsigned char out[200];
		char name[109];
		int k = snprintf(name, sizeof(name), "%s/", dir);
		memset(name + k, 'n', sizeof(name) - 1 - (size_t)k);
		name[108] = 0;
		memcpy(full.sun_path, name, 108);
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		CHECK_EQ(bind(fd, (struct sockaddr *)&full, sizeof(full)), 0,
			 "bind a 108-byte path without a NUL");
		memset(out, 0x55, sizeof(out));
		l = sizeof(out);
		getsockname(fd, (struct sockaddr *)out, &l);
		CHECK(l == 111 && out[109] == 'n' && out[110] == 0,
		      "getsockname: length 111, ending in a NUL");
		close(fd);
		unlink(name);
	}

	/* A name on a tmpfs (/dev/shm) works the same. */
	{
		char shm[64];
		snprintf(shm, sizeof(shm), "/dev/shm/unix_listen.%d", getpid());
		a = mkaddr(shm);
		lfd = socket(AF_UNIX, SOCK_DGRAM, 0);
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		CHECK_EQ(bind(lfd, (struct sockaddr *)&a, ALEN(shm)), 0, "bind on /dev/shm");
		CHECK_EQ(sendto(fd, "shm", 3, 0, (struct sockaddr *)&a, ALEN(shm)), 3,
			 "sendto the /dev/shm name");
		CHECK_EQ(recv(lfd, buf, sizeof(buf), 0), 3, "received");
		close(fd);
		close(lfd);
		unlink(shm);
	}

	/* Abstract names and autobind. */
	{
		struct sockaddr_un ab = {.sun_family = AF_UNIX};
		socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 1 + 9;
		memcpy(ab.sun_path, "\0rung-test", 10);
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		CHECK_EQ(bind(lfd, (struct sockaddr *)&ab, alen), 0, "bind an abstract name");
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		CHECK_ERRNO(bind(fd, (struct sockaddr *)&ab, alen), EADDRINUSE,
			    "the abstract name is taken");
		l = sizeof(got);
		getsockname(lfd, (struct sockaddr *)&got, &l);
		CHECK(l == alen && memcmp(got.sun_path, "\0rung-test", 10) == 0,
		      "getsockname gives the abstract name");
		listen(lfd, 5);
		CHECK_EQ(connect(fd, (struct sockaddr *)&ab, alen), 0, "connect to it");
		CHECK_ERRNO(connect(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&ab,
				    alen - 1),
			    ECONNREFUSED, "a shorter name is another name");
		close(fd);
		close(lfd);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		CHECK_EQ(bind(fd, (struct sockaddr *)&ab, alen), 0,
			 "the name is free once its socket closed");
		close(fd);

		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		CHECK_EQ(bind(fd, (struct sockaddr *)&ab, sizeof(sa_family_t)), 0, "autobind");
		l = sizeof(got);
		getsockname(fd, (struct sockaddr *)&got, &l);
		CHECK(l == sizeof(sa_family_t) + 6 && got.sun_path[0] == 0,
		      "autobind picks an abstract name of 5 characters");
		n = 1;
		for (int i = 1; i < 6; i++)
			if (!strchr("0123456789abcdef", got.sun_path[i]))
				n = 0;
		CHECK(n, "in hex");
		close(fd);
	}
	rmdir(dir);
	return GUEST_DONE();
}
