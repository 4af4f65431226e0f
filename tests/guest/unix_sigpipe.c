/*
 * Guest test: a send to a unix stream socket whose peer has gone raises
 * SIGPIPE, unless MSG_NOSIGNAL; the default action kills the process
 * (exit status 141 in both runs). SOCK_SEQPACKET gives EPIPE without a
 * signal, as Linux does.
 */
#include "guest.h"

#include <sys/socket.h>

int main(void)
{
	int sv[2];

	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	close(sv[1]);
	CHECK_ERRNO(send(sv[0], "x", 1, 0), EPIPE, "seqpacket: EPIPE and no SIGPIPE");
	CHECK_ERRNO(write(sv[0], "x", 1), EPIPE, "seqpacket write: EPIPE and no SIGPIPE");
	close(sv[0]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	close(sv[1]);
	CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "MSG_NOSIGNAL: EPIPE, no signal");
	printf("sending without MSG_NOSIGNAL\n");
	fflush(stdout);
	send(sv[0], "x", 1, 0);
	printf("FAIL: still alive after SIGPIPE\n");
	return 1;
}
