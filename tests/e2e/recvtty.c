/*
 * e2e host helper: the shim's half of the console-socket protocol, with
 * every rule the shim holds a runtime to checked (go-runc console.go):
 * one connection, one message with a payload of 1 to 4095 bytes, exactly
 * one SCM_RIGHTS control message carrying exactly one descriptor, and that
 * descriptor a terminal (tcgetattr) whose slave has a name (ptsname).
 *
 *   recvtty SOCKET OUTPUT [resize MARKER ROWS COLS] [send MARKER TEXT]...
 *
 * Listens on SOCKET, prints what it received ("payload: ...", "fds: N",
 * "isatty: 1", "ptsname: /dev/pts/N") on stdout, then copies the terminal's
 * output to OUTPUT until the last slave descriptor closes. Once the output
 * holds MARKER, "resize" sets the window size on the master (as the shim
 * does for `docker run -t` resizes) and "send" writes TEXT to it, each
 * once, in order. Exits 0, or 1 when the protocol was broken (saying how),
 * or 2 when nothing arrived within 60 seconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

struct action {
	const char *marker;
	int resize; /* 1: resize to rows x cols; 0: send text */
	unsigned short rows, cols;
	const char *text;
};

static void on_alarm(int sig)
{
	static const char msg[] = "recvtty: timed out\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(2);
}

static int fail(const char *what)
{
	printf("FAIL: %s\n", what);
	fflush(stdout);
	return 1;
}

/* Receive the master: -1 (after saying why) unless the message is exactly right. */
static int receive(int conn)
{
	char payload[4096];
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = {payload, sizeof(payload) - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf.buf,
			     .msg_controllen = sizeof(cbuf.buf)};
	struct cmsghdr *c;
	struct termios tio;
	struct stat st;
	int nfds = 0, fd = -1;
	ssize_t n;
	char *name;

	memset(&cbuf, 0, sizeof(cbuf));
	do
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail("recvmsg failed"), -1;
	payload[n] = '\0';
	printf("payload: %s\n", payload);
	if (n < 1)
		return fail("an empty payload (no ancillary data can come with it)"), -1;
	if (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC))
		return fail("truncated message"), -1;
	if (msg.msg_controllen != CMSG_SPACE(sizeof(int)))
		return fail("control data is not one SCM_RIGHTS with one fd"), -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			return fail("a control message that is not SCM_RIGHTS"), -1;
		nfds += (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	}
	printf("fds: %d\n", nfds);
	if (nfds != 1)
		return fail("not exactly one descriptor"), -1;
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return fail("the descriptor is not a character device"), -1;
	printf("isatty: %d\n", tcgetattr(fd, &tio) == 0);
	name = ptsname(fd);
	printf("ptsname: %s\n", name ? name : "(none)");
	fflush(stdout);
	if (tcgetattr(fd, &tio) < 0 || !name)
		return fail("not a pty master"), -1;
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct action acts[16];
	size_t nacts = 0, next = 0, have = 0;
	char *seen = NULL;
	int lfd, conn, master, out;

	if (argc < 3) {
		fprintf(stderr, "usage: recvtty SOCKET OUTPUT [resize MARKER ROWS COLS] "
				"[send MARKER TEXT]...\n");
		return 1;
	}
	for (int i = 3; i < argc && nacts < 16;) {
		if (strcmp(argv[i], "resize") == 0 && i + 3 < argc) {
			acts[nacts++] =
				(struct action){argv[i + 1], 1, (unsigned short)atoi(argv[i + 2]),
						(unsigned short)atoi(argv[i + 3]), NULL};
			i += 4;
		} else if (strcmp(argv[i], "send") == 0 && i + 2 < argc) {
			acts[nacts++] = (struct action){argv[i + 1], 0, 0, 0, argv[i + 2]};
			i += 3;
		} else {
			fprintf(stderr, "recvtty: bad action `%s`\n", argv[i]);
			return 1;
		}
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(60);
	if (strlen(argv[1]) >= sizeof(sa.sun_path))
		return 1;
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4) < 0) {
		perror("recvtty: listen");
		return 1;
	}
	conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0) {
		perror("recvtty: accept");
		return 1;
	}
	master = receive(conn);
	close(conn);
	close(lfd);
	if (master < 0)
		return 1;
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		perror("recvtty: output");
		return 1;
	}
	alarm(120);
	for (;;) {
		char buf[4096];
		ssize_t n = read(master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EIO: no slave descriptor is left */
		if (write(out, buf, (size_t)n) != n)
			break;
		seen = realloc(seen, have + (size_t)n + 1);
		memcpy(seen + have, buf, (size_t)n);
		have += (size_t)n;
		seen[have] = '\0';
		while (next < nacts && strstr(seen, acts[next].marker)) {
			if (acts[next].resize) {
				struct winsize ws = {.ws_row = acts[next].rows,
						     .ws_col = acts[next].cols};
				if (ioctl(master, TIOCSWINSZ, &ws) < 0)
					perror("recvtty: TIOCSWINSZ");
			} else if (write(master, acts[next].text, strlen(acts[next].text)) < 0) {
				perror("recvtty: write");
			}
			next++;
		}
	}
	printf("eof\n");
	free(seen);
	close(out);
	return 0;
}
