/*
 * Extended attributes, "user." namespace only. The f*xattr calls need a
 * real open file, so the node is reopened read-only through /proc/self/fd
 * for the one call. As in Linux, user attributes exist on regular files and
 * directories only.
 */
#include "config.h"
#include "gofer/server.h"
#include "lib/cleanup.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define USER_PREFIX "user."

/* The fixed part and the name; EOPNOTSUPP outside "user.". */
static int xattr_parse(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w,
		       struct gofer_xattr_req *req, const char **name)
{
	int err;

	if ((err = wire_take(w, req, sizeof(*req))) ||
	    (err = wire_string(w, XATTR_NAME_MAX + 1, name)))
		return err;
	if (strncmp(*name, USER_PREFIX, strlen(USER_PREFIX)) != 0)
		return EOPNOTSUPP;
	if ((*name)[strlen(USER_PREFIX)] == '\0')
		return EINVAL;
	ch->req.obj[0] = gofer_table_get(&s->handles, req->handle);
	return ch->req.obj[0] ? 0 : EBADF;
}

static bool has_user_xattrs(const struct gofer_obj *o)
{
	return o->type == S_IFREG || o->type == S_IFDIR;
}

/* A readable fd on the node for one f*xattr call (O_NONBLOCK: never wait). */
static int xattr_open(struct gofer_server *s, struct gofer_chan *ch, int *fd)
{
	*fd = openat(s->procfd, gofer_fdname(ch, ch->req.obj[0]->fd),
		     O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return *fd < 0 ? errno : 0;
}

int gofer_op_getxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_xattr_req req;
	uint8_t *body = gofer_body(ch);
	cleanup_close int fd = -1;
	const char *name;
	uint32_t size;
	ssize_t n;
	int err;

	if ((err = xattr_parse(s, ch, w, &req, &name)) || (err = wire_end(w)))
		return err;
	if (req.flags)
		return EINVAL;
	if (!has_user_xattrs(ch->req.obj[0]))
		return ENODATA;
	if ((err = xattr_open(s, ch, &fd)))
		return err;
	size = MIN(req.size, (uint32_t)XATTR_SIZE_MAX);
	n = fgetxattr(fd, name, size ? body + sizeof(uint32_t) : NULL, size);
	if (n < 0)
		return errno;
	size = (uint32_t)n;
	memcpy(body, &size, sizeof(size));
	gofer_reply(s, ch, 0, sizeof(size) + (req.size ? size : 0));
	return 0;
}

int gofer_op_setxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_xattr_req req;
	cleanup_close int fd = -1;
	const char *name;
	const void *value;
	int err;

	if ((err = xattr_parse(s, ch, w, &req, &name)))
		return err;
	if (req.size != w->left || (req.flags & ~(uint32_t)(XATTR_CREATE | XATTR_REPLACE)))
		return EINVAL;
	if (req.size > XATTR_SIZE_MAX)
		return E2BIG;
	if ((err = wire_bytes(w, req.size, &value)))
		return err;
	if (!has_user_xattrs(ch->req.obj[0]))
		return EPERM;
	if ((err = xattr_open(s, ch, &fd)))
		return err;
	if (fsetxattr(fd, name, value, req.size, (int)req.flags) < 0)
		return errno;
	gofer_reply(s, ch, 0, 0);
	return 0;
}

int gofer_op_removexattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_xattr_req req;
	cleanup_close int fd = -1;
	const char *name;
	int err;

	if ((err = xattr_parse(s, ch, w, &req, &name)) || (err = wire_end(w)))
		return err;
	if (req.size || req.flags)
		return EINVAL;
	if (!has_user_xattrs(ch->req.obj[0]))
		return EPERM;
	if ((err = xattr_open(s, ch, &fd)))
		return err;
	if (fremovexattr(fd, name) < 0)
		return errno;
	gofer_reply(s, ch, 0, 0);
	return 0;
}

int gofer_op_listxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_handle_req req;
	char *body = gofer_body(ch), *list = (char *)s->scratch;
	cleanup_close int fd = -1;
	size_t used = 0;
	ssize_t n;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)))
		return err;
	ch->req.obj[0] = gofer_table_get(&s->handles, req.handle);
	if (!ch->req.obj[0])
		return EBADF;
	if (!has_user_xattrs(ch->req.obj[0])) {
		gofer_reply(s, ch, 0, 0);
		return 0;
	}
	if ((err = xattr_open(s, ch, &fd)))
		return err;
	n = flistxattr(fd, list, MIN(GOFER_SCRATCH, (size_t)XATTR_LIST_MAX));
	if (n < 0)
		return errno;
	/* Keep the "user." names; the list is NUL-separated. */
	for (ssize_t off = 0; off < n;) {
		size_t len = strnlen(list + off, (size_t)(n - off));

		if (strncmp(list + off, USER_PREFIX, strlen(USER_PREFIX)) == 0 &&
		    off + len < (size_t)n) {
			memcpy(body + used, list + off, len + 1);
			used += len + 1;
		}
		off += (ssize_t)len + 1;
	}
	gofer_reply(s, ch, 0, used);
	return 0;
}
