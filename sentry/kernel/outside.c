/* The process outside the sandbox (outside.h): the sandbox's side. */
#include "config.h"
#include "sentry/kernel/outside.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int sock_fd = -1;
/* One request and its answer at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void outside_init(int fd)
{
	sock_fd = fd;
}

bool outside_present(void)
{
	return sock_fd >= 0;
}

int outside_stop(int sig)
{
	unsigned char req[2] = {OUTSIDE_STOP, (unsigned char)sig}, ans;
	int ret = 0;

	if (sock_fd < 0)
		return -ENOSYS;
	pthread_mutex_lock(&lock);
	/* write and read: what the confined sentry's filter allows. */
	if (write(sock_fd, req, sizeof(req)) != sizeof(req) || read(sock_fd, &ans, 1) != 1)
		ret = -EPIPE;
	pthread_mutex_unlock(&lock);
	return ret;
}

int outside_keeper(const int *ifs, size_t nifs, int sock, int log)
{
	char req[1 + OUTSIDE_MAX_IFS * sizeof(int32_t)], ans[1 + sizeof(int32_t)];
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec v = {req, 1};
	struct msghdr mh = {.msg_iov = &v, .msg_iovlen = 1};
	struct cmsghdr *c;
	int fds[3], ret;
	int32_t pid;

	if (sock_fd < 0)
		return -ENOSYS;
	if (nifs > OUTSIDE_MAX_IFS)
		return -EINVAL;
	req[0] = OUTSIDE_KEEPER;
	for (size_t i = 0; i < nifs; i++) {
		int32_t idx = ifs[i];
		memcpy(req + v.iov_len, &idx, sizeof(idx));
		v.iov_len += sizeof(idx);
	}
	fds[0] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0)
		return -errno;
	fds[1] = sock;
	fds[2] = log;
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	pthread_mutex_lock(&lock);
	ret = sendmsg(sock_fd, &mh, MSG_NOSIGNAL) < 0 ||
			      recv(sock_fd, ans, sizeof(ans), 0) != sizeof(ans) ||
			      ans[0] != OUTSIDE_KEEPER
		      ? -EPIPE
		      : 0;
	pthread_mutex_unlock(&lock);
	close(fds[0]);
	if (ret < 0)
		return ret;
	memcpy(&pid, ans + 1, sizeof(pid));
	return pid;
}
