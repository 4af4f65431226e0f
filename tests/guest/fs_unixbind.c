/*
 * Guest test: Unix sockets named in the file system, in a fresh directory
 * under /tmp (and on a gofer-backed directory when the e2e test mounts one
 * there). A server binds "sock" (an S_IFSOCK node with the umask applied),
 * a child process connects, sends and receives; a second bind of the name
 * fails with EADDRINUSE, as does a bind over a regular file; open of the
 * node fails with ENXIO; a connect to a regular file is refused; after
 * unlink the name is gone (ENOENT), and bind can use it again.
 */
#include "fsguest.h"

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static socklen_t sun_of(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", path);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

static int bound(const char *path, int type)
{
	struct sockaddr_un sun;
	socklen_t len = sun_of(&sun, path);
	int s = socket(AF_UNIX, type, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&sun, len) != 0) {
		int e = errno;
		if (s >= 0)
			close(s);
		errno = e;
		return -1;
	}
	return s;
}

static int connect_to(const char *path, int type)
{
	struct sockaddr_un sun;
	socklen_t len = sun_of(&sun, path);
	int s = socket(AF_UNIX, type, 0);

	if (s < 0 || connect(s, (struct sockaddr *)&sun, len) != 0) {
		int e = errno;
		if (s >= 0)
			close(s);
		errno = e;
		return -1;
	}
	return s;
}

/* The child: connect, send "ping", expect "pong". Exit status 0 if so. */
static int client(void)
{
	char buf[8] = {0};
	int s = connect_to("sock", SOCK_STREAM);

	if (s < 0 || write(s, "ping", 4) != 4 || read(s, buf, 4) != 4 || strcmp(buf, "pong"))
		return 1;
	close(s);
	return 0;
}

static void stream(void)
{
	struct stat st;
	char buf[8] = {0};
	int srv, conn, status = -1;
	pid_t pid;

	srv = bound("sock", SOCK_STREAM);
	CHECK(srv >= 0, "bind sock");
	CHECK_EQ(listen(srv, 4), 0, "listen");
	CHECK(lstat("sock", &st) == 0 && S_ISSOCK(st.st_mode), "sock: S_IFSOCK");
	printf("sock: mode %o\n", st.st_mode & 07777);
	CHECK_ERRNO(bound("sock", SOCK_STREAM), EADDRINUSE, "a second bind of sock");
	CHECK_ERRNO(open("sock", O_RDONLY), ENXIO, "open of the socket node");
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(client());
	conn = accept(srv, NULL, NULL);
	CHECK(conn >= 0, "accept the child's connection");
	CHECK_EQ(read(conn, buf, 4), 4, "read what the child sent");
	printf("server got: %s\n", buf);
	CHECK_EQ(write(conn, "pong", 4), 4, "answer");
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child got the answer");
	close(conn);
	CHECK_EQ(unlink("sock"), 0, "unlink sock");
	CHECK(lstat("sock", &st) != 0 && errno == ENOENT, "sock is gone");
	CHECK_ERRNO(connect_to("sock", SOCK_STREAM), ENOENT, "connect after unlink");
	close(srv);
	srv = bound("sock", SOCK_STREAM);
	CHECK(srv >= 0, "bind sock again");
	close(srv);
	CHECK_ERRNO(connect_to("sock", SOCK_STREAM), ECONNREFUSED,
		    "connect to a name whose socket is closed");
	CHECK_EQ(unlink("sock"), 0, "unlink it");
}

static void others(void)
{
	char buf[8] = {0};
	int s, c;

	CHECK_EQ(fs_put("plain", "x"), 0, "plain: a regular file");
	CHECK_ERRNO(bound("plain", SOCK_STREAM), EADDRINUSE, "bind over a regular file");
	CHECK_ERRNO(connect_to("plain", SOCK_STREAM), ECONNREFUSED, "connect to a regular file");
	s = bound("dg", SOCK_DGRAM);
	CHECK(s >= 0, "bind a datagram socket dg");
	CHECK_ERRNO(connect_to("dg", SOCK_STREAM), EPROTOTYPE, "a stream connect to dg");
	c = connect_to("dg", SOCK_DGRAM);
	CHECK(c >= 0, "a datagram connect to dg");
	CHECK_EQ(write(c, "dgram", 5), 5, "send a datagram");
	CHECK_EQ(read(s, buf, sizeof(buf)), 5, "receive it");
	printf("dg got: %s\n", buf);
	close(c);
	close(s);
	unlink("dg");
	unlink("plain");
}

int main(void)
{
	fs_enter("fs_unixbind");
	stream();
	others();
	fs_leave();
	return GUEST_DONE();
}
