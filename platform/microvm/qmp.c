/* The QMP client (see qmp.h). */
#include "config.h"
#include "platform/microvm/qmp.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The next line QEMU sends, parsed (the caller puts it), or NULL with err. */
static struct json_object *read_line(struct qmp *q, int timeout_ms, struct rung_error *err)
{
	uint64_t deadline = monotonic_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		char *nl = memchr(q->buf, '\n', q->have);
		if (nl) {
			struct json_object *o;
			*nl = '\0';
			o = json_tokener_parse(q->buf);
			q->have -= (size_t)(nl + 1 - q->buf);
			memmove(q->buf, nl + 1, q->have);
			if (!o) {
				rung_error_make(err, EPROTO, "QMP: malformed reply");
				return NULL;
			}
			return o;
		}
		if (q->have == sizeof(q->buf)) {
			rung_error_make(err, EPROTO, "QMP: reply too long");
			return NULL;
		}
		{
			uint64_t now = monotonic_ns();
			struct pollfd p = {q->fd, POLLIN, 0};
			ssize_t n;
			if (now >= deadline) {
				rung_error_make(err, ETIMEDOUT, "QMP: no reply");
				return NULL;
			}
			if (poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1) <= 0)
				continue;
			n = read(q->fd, q->buf + q->have, sizeof(q->buf) - q->have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rung_error_make(err, n < 0 ? errno : EPIPE, "QMP: QEMU is gone");
				return NULL;
			}
			q->have += (size_t)n;
		}
	}
}

static int send_cmd(struct qmp *q, const char *cmd, int passfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = {(void *)cmd, strlen(cmd)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (passfd >= 0) {
		struct cmsghdr *h;
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		h = CMSG_FIRSTHDR(&msg);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &passfd, sizeof(int));
	}
	/* Commands are short: one sendmsg carries them (and the fd) whole. */
	if (sendmsg(q->fd, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		return -errno;
	return 0;
}

int qmp_call(struct qmp *q, const char *cmd, int passfd, int timeout_ms, struct rung_error *err)
{
	int ret = send_cmd(q, cmd, passfd);

	if (ret < 0)
		return rung_error_make(err, -ret, "QMP: send");
	for (;;) {
		struct json_object *o = read_line(q, timeout_ms, err), *v;
		if (!o)
			return -1;
		if (json_object_object_get_ex(o, "return", NULL)) {
			json_object_put(o);
			return 0;
		}
		if (json_object_object_get_ex(o, "error", &v)) {
			struct json_object *desc;
			ret = rung_error_make(err, 0, "QMP: %s",
					      json_object_object_get_ex(v, "desc", &desc)
						      ? json_object_get_string(desc)
						      : "error");
			json_object_put(o);
			return ret;
		}
		json_object_put(o); /* an event */
	}
}

int qmp_open(struct qmp *q, int fd, int timeout_ms, struct rung_error *err)
{
	struct json_object *o;

	q->fd = fd;
	q->have = 0;
	o = read_line(q, timeout_ms, err);
	if (!o)
		return -1;
	if (!json_object_object_get_ex(o, "QMP", NULL)) {
		json_object_put(o);
		return rung_error_make(err, EPROTO, "QMP: no greeting");
	}
	json_object_put(o);
	return qmp_call(q, "{\"execute\":\"qmp_capabilities\"}", -1, timeout_ms, err);
}
