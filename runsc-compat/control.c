/* The control socket protocol (client and server halves share it). */
#include "config.h"
#include "runsc-compat/control.h"
#include "lib/error.h"
#include "lib/unixsock.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

char *ctl_path(const char *root, const char *id)
{
	return xasprintf("%s/%s/control.sock", root, id);
}

int ctl_listen(const char *path)
{
	return unix_listen(path, SOCK_SEQPACKET, 16);
}

int ctl_connect(const char *path, int *out, struct rung_error *err)
{
	int fd = unix_connect(path, SOCK_SEQPACKET);

	if (fd == -ENAMETOOLONG)
		return rung_error_make(err, ENAMETOOLONG, "control socket path too long");
	if (fd < 0)
		return rung_error_make(err, 0, "container not running");
	*out = fd;
	return 0;
}

int ctl_send(int fd, uint32_t type, int32_t a, int32_t b, const void *data, size_t len,
	     const int *fds, int nfds)
{
	struct ctl_header h = {.type = type, .a = a, .b = b, .len = (uint32_t)len};
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
		struct cmsghdr align;
	} cmsg;
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
	ssize_t n;

	if (len > CTL_MAX_PAYLOAD || nfds < 0 || nfds > CTL_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *c;
		memset(&cmsg, 0, sizeof(cmsg));
		msg.msg_control = cmsg.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	do {
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(h) + len ? 0 : -EPROTO;
}

int ctl_recv(int fd, struct ctl_msg *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
		struct cmsghdr align;
	} cmsg;
	char *buf = xmalloc(sizeof(struct ctl_header) + CTL_MAX_PAYLOAD);
	struct iovec iov = {buf, sizeof(struct ctl_header) + CTL_MAX_PAYLOAD};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cmsg.buf,
			     .msg_controllen = sizeof(cmsg.buf)};
	struct cmsghdr *c;
	ssize_t n;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	do {
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		free(buf);
		return n == 0 ? -ECONNRESET : -errno;
	}
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (m->nfds < CTL_MAX_FDS)
				m->fds[m->nfds++] = got;
			else
				close(got), ret = -EPROTO;
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		ret = -EPROTO;
	if ((size_t)n < sizeof(struct ctl_header))
		ret = -EPROTO;
	if (ret == 0) {
		memcpy(&m->h, buf, sizeof(m->h));
		if (m->h.len != (size_t)n - sizeof(m->h) || m->h.len > CTL_MAX_PAYLOAD)
			ret = -EPROTO;
	}
	if (ret == 0 && m->h.len) {
		m->data = xmalloc(m->h.len + 1);
		memcpy(m->data, buf + sizeof(m->h), m->h.len);
		m->data[m->h.len] = '\0';
	}
	free(buf);
	if (ret < 0)
		ctl_msg_release(m);
	return ret;
}

void ctl_msg_release(struct ctl_msg *m)
{
	for (int i = 0; i < m->nfds; i++)
		close(m->fds[i]);
	free(m->data);
	memset(m, 0, sizeof(*m));
}

int ctl_call(int fd, uint32_t type, int32_t a, int32_t b, const void *data, size_t len,
	     const int *fds, int nfds, int32_t *reply_a, struct rung_error *err)
{
	struct ctl_msg m;
	int ret = ctl_send(fd, type, a, b, data, len, fds, nfds);

	if (ret < 0)
		return rung_error_make(err, -ret, "talk to the sandbox");
	ret = ctl_recv(fd, &m);
	if (ret < 0)
		return rung_error_make(err, -ret, "no answer from the sandbox");
	if (m.h.type == CTL_ERROR) {
		ret = rung_error_make(err, 0, "%s", m.data ? m.data : "the sandbox refused");
	} else if (m.h.type != CTL_OK) {
		ret = rung_error_make(err, EPROTO, "unexpected answer from the sandbox");
	} else if (reply_a) {
		*reply_a = m.h.a;
	}
	ctl_msg_release(&m);
	return ret;
}
