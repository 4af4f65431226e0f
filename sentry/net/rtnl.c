/* Route netlink dumps and requests (rtnl.h). */
#include "config.h"
#include "sentry/net/rtnl.h"
#include "lib/cleanup.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define DUMP_BUF 32768

int rtnl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	return fd < 0 ? -errno : fd;
}

int rtnl_dump(int fd, int type, int family, rtnl_msg_fn fn, void *arg)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = (unsigned short)type,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = (unsigned)type},
		 .g = {.rtgen_family = (unsigned char)family}};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	cleanup_free char *buf = xmalloc(DUMP_BUF);

	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, DUMP_BUF, 0);
		int len = (int)n;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != (unsigned)type)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				return e->error ? e->error : -EIO;
			}
			fn(arg, h);
		}
		if (n == 0)
			return -EIO;
	}
}

int rtnl_call(int fd, struct nlmsghdr *req, int ignore)
{
	struct iovec v = {req, req->nlmsg_len};
	struct msghdr mh = {.msg_iov = &v, .msg_iovlen = 1};
	char reply[512];
	struct iovec rv = {reply, sizeof(reply)};
	struct msghdr rh = {.msg_iov = &rv, .msg_iovlen = 1};
	const struct nlmsghdr *h = (const struct nlmsghdr *)reply;
	ssize_t n;

	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendmsg(fd, &mh, 0) < 0)
		return -errno;
	do
		n = recvmsg(fd, &rh, 0);
	while (n < 0 && errno == EINTR);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return n < 0 ? -errno : -EIO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);
		if (e->error && e->error != -ignore)
			return e->error;
	}
	return 0;
}

void rtnl_attr(struct nlmsghdr *h, int type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	rta->rta_type = (unsigned short)type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len);
}
