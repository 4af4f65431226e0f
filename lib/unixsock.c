/* AF_UNIX sockets named by paths of any length. */
#include "config.h"
#include "lib/unixsock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Fill sa with path, or with /proc/self/fd/N/BASENAME where *dirfd (opened
 * here, closed by the caller once bind/connect is done) is path's
 * directory. */
static int fill_addr(const char *path, struct sockaddr_un *sa, int *dirfd)
{
	const char *slash;
	char dir[4096];
	size_t dlen;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	*dirfd = -1;
	if (!*path)
		return -ENOENT;
	if (strlen(path) < sizeof(sa->sun_path)) {
		strcpy(sa->sun_path, path);
		return 0;
	}
	slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return -ENAMETOOLONG;
	dlen = slash == path ? 1 : (size_t)(slash - path);
	if (dlen >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	*dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return -errno;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", *dirfd,
			     slash + 1) >= sizeof(sa->sun_path)) {
		close(*dirfd);
		*dirfd = -1;
		return -ENAMETOOLONG;
	}
	return 0;
}

static int unix_socket_at(const char *path, int type, int backlog, int do_listen)
{
	struct sockaddr_un sa;
	int dirfd, fd, ret = fill_addr(path, &sa, &dirfd);

	if (ret < 0)
		return ret;
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (do_listen) {
		unlink(sa.sun_path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, backlog) < 0)
			ret = -errno;
	} else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
	}
	if (ret < 0)
		close(fd);
	else
		ret = fd;
out:
	if (dirfd >= 0)
		close(dirfd);
	return ret;
}

int unix_listen(const char *path, int type, int backlog)
{
	return unix_socket_at(path, type, backlog, 1);
}

int unix_connect(const char *path, int type)
{
	return unix_socket_at(path, type, 0, 0);
}
