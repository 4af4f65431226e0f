/*
 * The sentry's gofer client: a pool of channels, one synchronous request
 * per channel at a time. Replies are checked as strictly as the gofer checks
 * requests; a channel that errs or answers nonsense is closed and never
 * used again (calls then fail with -EIO).
 */
#include "config.h"
#include "gofer/client.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <linux/limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct slot {
	int fd;
	bool busy;
	bool broken;
};

struct gofer_client {
	int refs; /* one per filesystem served through it */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned nchan;
	struct slot ch[];
};

/* One request and where its reply goes. */
struct call {
	uint16_t op;
	struct iovec req[GOFER_MAX_WALK + 2];
	unsigned nreq;
	struct iovec rep[2];
	unsigned nrep;
	bool exact;   /* the body must fill rep[] exactly (else: at most) */
	bool want_fd; /* a successful reply carries one fd */
	/* An extra check of a variable-sized body: 0 or -EIO. */
	int (*check)(const struct call *k);
	size_t len;   /* body bytes received */
	int fd;	      /* the fd received, or -1 */
	bool lost_fd; /* a good reply whose fd this process had no room for */
};

int gofer_client_new(const int *fds, unsigned nchan, struct gofer_client **out)
{
	struct gofer_client *c;

	if (nchan == 0)
		return -EINVAL;
	c = xzalloc(sizeof(*c) + nchan * sizeof(c->ch[0]));
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->nchan = nchan;
	for (unsigned i = 0; i < nchan; i++)
		c->ch[i].fd = fds[i];
	*out = c;
	return 0;
}

struct gofer_client *gofer_client_get(struct gofer_client *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	return c;
}

void gofer_client_free(struct gofer_client *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (unsigned i = 0; i < c->nchan; i++)
		if (c->ch[i].fd >= 0)
			close(c->ch[i].fd);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int take(struct gofer_client *c, unsigned *idx)
{
	pthread_mutex_lock(&c->lock);
	for (;;) {
		bool alive = false;

		for (unsigned i = 0; i < c->nchan; i++) {
			if (c->ch[i].broken)
				continue;
			alive = true;
			if (!c->ch[i].busy) {
				c->ch[i].busy = true;
				*idx = i;
				pthread_mutex_unlock(&c->lock);
				return 0;
			}
		}
		if (!alive) {
			pthread_mutex_unlock(&c->lock);
			return -EIO;
		}
		pthread_cond_wait(&c->cond, &c->lock);
	}
}

static void give(struct gofer_client *c, unsigned idx, bool broken)
{
	pthread_mutex_lock(&c->lock);
	c->ch[idx].busy = false;
	if (broken && !c->ch[idx].broken) {
		c->ch[idx].broken = true;
		/* The gofer sees the channel end and forgets what it held for it. */
		close(c->ch[idx].fd);
		c->ch[idx].fd = -1;
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Send k's request and receive its reply; broken: the channel is unusable. */
static int exchange(int fd, struct call *k, bool *broken)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(8 * sizeof(int))];
	} cbuf;
	struct iovec iov[GOFER_MAX_WALK + 3];
	struct gofer_hdr hdr = {.op = k->op}, rhdr;
	struct msghdr msg = {.msg_iov = iov};
	size_t total = sizeof(hdr), room = 0;
	bool extra_fd = false;
	ssize_t n;

	*broken = true;
	iov[0] = (struct iovec){.iov_base = &hdr, .iov_len = sizeof(hdr)};
	for (unsigned i = 0; i < k->nreq; i++) {
		iov[1 + i] = k->req[i];
		total += k->req[i].iov_len;
	}
	if (total > GOFER_MAX_MSG) {
		*broken = false;
		return -EINVAL;
	}
	hdr.size = (uint32_t)total;
	msg.msg_iovlen = 1 + k->nreq;
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)total)
		return -EIO;

	iov[0] = (struct iovec){.iov_base = &rhdr, .iov_len = sizeof(rhdr)};
	for (unsigned i = 0; i < k->nrep; i++) {
		iov[1 + i] = k->rep[i];
		room += k->rep[i].iov_len;
	}
	msg = (struct msghdr){
		.msg_iov = iov,
		.msg_iovlen = 1 + k->nrep,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm;
	     cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int got;

			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (k->fd < 0 && k->want_fd) {
				k->fd = got;
			} else {
				close(got);
				extra_fd = true;
			}
		}
	}
	if (n < (ssize_t)sizeof(rhdr) || (msg.msg_flags & MSG_TRUNC) || extra_fd ||
	    ((msg.msg_flags & MSG_CTRUNC) && (!k->want_fd || k->fd >= 0)))
		return -EIO;
	if (rhdr.size != (uint32_t)n || rhdr.op != k->op || rhdr.flags || rhdr.pad)
		return -EIO;
	if (rhdr.err) {
		if (n != sizeof(rhdr) || rhdr.err < 0 || rhdr.err > 4095 || k->fd >= 0)
			return -EIO;
		*broken = false;
		return -rhdr.err;
	}
	k->len = (size_t)n - sizeof(rhdr);
	if ((k->exact && k->len != room) || (k->check && k->check(k) < 0))
		return -EIO;
	if (k->want_fd && k->fd < 0) {
		if (!(msg.msg_flags & MSG_CTRUNC))
			return -EIO;
		/* The reply came whole, but this process is out of descriptors
		 * (the kernel dropped the one it carried): the channel is fine. */
		k->lost_fd = true;
		*broken = false;
		return -EMFILE;
	}
	*broken = false;
	return 0;
}

static int call(struct gofer_client *c, struct call *k)
{
	unsigned idx;
	bool broken;
	int ret;

	k->fd = -1;
	ret = take(c, &idx);
	if (ret < 0)
		return ret;
	ret = exchange(c->ch[idx].fd, k, &broken);
	give(c, idx, broken);
	if (ret < 0 && k->fd >= 0) {
		close(k->fd);
		k->fd = -1;
	}
	return ret;
}

static int simple(struct gofer_client *c, uint16_t op, const void *req, size_t reqlen,
		  const char *s1, const char *s2, void *rep, size_t replen);

#define IOV(p, n) ((struct iovec){.iov_base = (void *)(p), .iov_len = (n)})
#define STR(s)	  IOV((s), strlen(s) + 1)

int gofer_attach(struct gofer_client *c, struct gofer_node *root)
{
	struct call k = {.op = GOFER_OP_ATTACH, .nrep = 1, .exact = true};

	k.rep[0] = IOV(root, sizeof(*root));
	return call(c, &k);
}

int gofer_attach_root(struct gofer_client *c, uint32_t index, struct gofer_node *root)
{
	struct gofer_attach_req req = {.root = index};

	return simple(c, GOFER_OP_ATTACH, &req, sizeof(req), NULL, NULL, root, sizeof(*root));
}

static int walk_check(const struct call *k)
{
	const struct gofer_walk_reply *rep = k->rep[0].iov_base;

	if (k->len < sizeof(*rep) || rep->nwalked > k->rep[1].iov_len / sizeof(struct gofer_node) ||
	    k->len != sizeof(*rep) + rep->nwalked * sizeof(struct gofer_node))
		return -EIO;
	return 0;
}

int gofer_walk(struct gofer_client *c, uint64_t dir, const char *const *names, unsigned n,
	       struct gofer_node *nodes, unsigned *nwalked, int *status)
{
	struct gofer_walk_req req = {.dir = dir, .nnames = n};
	struct gofer_walk_reply rep;
	struct call k = {.op = GOFER_OP_WALK, .nreq = 1 + n, .nrep = 2, .check = walk_check};
	int ret;

	if (n == 0 || n > GOFER_MAX_WALK)
		return -EINVAL;
	k.req[0] = IOV(&req, sizeof(req));
	for (unsigned i = 0; i < n; i++)
		k.req[1 + i] = STR(names[i]);
	k.rep[0] = IOV(&rep, sizeof(rep));
	k.rep[1] = IOV(nodes, n * sizeof(*nodes));
	ret = call(c, &k);
	if (ret < 0)
		return ret;
	*nwalked = rep.nwalked;
	*status = rep.status;
	return 0;
}

/* A request of one fixed part (and strings), a reply of one fixed part. */
static int simple(struct gofer_client *c, uint16_t op, const void *req, size_t reqlen,
		  const char *s1, const char *s2, void *rep, size_t replen)
{
	struct call k = {.op = op, .nreq = 1, .exact = true};

	k.req[0] = IOV(req, reqlen);
	if (s1)
		k.req[k.nreq++] = STR(s1);
	if (s2)
		k.req[k.nreq++] = STR(s2);
	if (replen)
		k.rep[k.nrep++] = IOV(rep, replen);
	return call(c, &k);
}

int gofer_stat(struct gofer_client *c, uint64_t handle, struct gofer_stat *st)
{
	struct gofer_handle_req req = {.handle = handle};

	return simple(c, GOFER_OP_STAT, &req, sizeof(req), NULL, NULL, st, sizeof(*st));
}

int gofer_open(struct gofer_client *c, uint64_t handle, uint32_t flags, bool donate, uint64_t *fid,
	       int *fd)
{
	struct gofer_open_req req = {
		.handle = handle,
		.flags = flags,
		.mode = donate ? GOFER_OPEN_DONATE : 0,
	};
	struct gofer_open_reply rep;
	struct call k = {.op = GOFER_OP_OPEN, .nreq = 1, .nrep = 1, .exact = true};
	int ret;

	k.want_fd = donate;
	k.req[0] = IOV(&req, sizeof(req));
	k.rep[0] = IOV(&rep, sizeof(rep));
	ret = call(c, &k);
	if (ret < 0)
		return ret;
	*fid = rep.fid;
	*fd = k.fd;
	return 0;
}

int gofer_create(struct gofer_client *c, uint64_t dir, const char *name, uint32_t flags,
		 uint32_t mode, uint32_t uid, uint32_t gid, bool donate, struct gofer_node *node,
		 uint64_t *fid, int *fd)
{
	struct gofer_create_req req = {
		.dir = dir,
		.flags = flags,
		.mode = mode,
		.uid = uid,
		.gid = gid,
		.open_mode = donate ? GOFER_OPEN_DONATE : 0,
	};
	struct gofer_create_reply rep;
	struct call k = {.op = GOFER_OP_CREATE, .nreq = 2, .nrep = 1, .exact = true};
	int ret;

	k.want_fd = donate;
	k.req[0] = IOV(&req, sizeof(req));
	k.req[1] = STR(name);
	k.rep[0] = IOV(&rep, sizeof(rep));
	ret = call(c, &k);
	if (ret < 0 && k.lost_fd) {
		/* The node was handed out with the descriptor we could not take. */
		gofer_close(c, &rep.node.handle, 1, rep.fid ? &rep.fid : NULL, rep.fid ? 1 : 0);
	}
	if (ret < 0)
		return ret;
	*node = rep.node;
	*fid = rep.fid;
	*fd = k.fd;
	return 0;
}

int gofer_mkdir(struct gofer_client *c, uint64_t dir, const char *name, uint32_t mode, uint32_t uid,
		uint32_t gid, struct gofer_node *node)
{
	struct gofer_mknod_req req = {.dir = dir, .mode = mode, .uid = uid, .gid = gid};

	return simple(c, GOFER_OP_MKDIR, &req, sizeof(req), name, NULL, node, sizeof(*node));
}

int gofer_mknod(struct gofer_client *c, uint64_t dir, const char *name, uint32_t mode,
		uint64_t rdev, uint32_t uid, uint32_t gid, struct gofer_node *node)
{
	struct gofer_mknod_req req = {
		.dir = dir,
		.mode = mode,
		.uid = uid,
		.gid = gid,
		.rdev = rdev,
	};

	return simple(c, GOFER_OP_MKNOD, &req, sizeof(req), name, NULL, node, sizeof(*node));
}

int gofer_symlink(struct gofer_client *c, uint64_t dir, const char *name, const char *target,
		  uint32_t uid, uint32_t gid, struct gofer_node *node)
{
	struct gofer_mknod_req req = {.dir = dir, .uid = uid, .gid = gid};

	return simple(c, GOFER_OP_SYMLINK, &req, sizeof(req), name, target, node, sizeof(*node));
}

int gofer_link(struct gofer_client *c, uint64_t dir, const char *name, uint64_t target,
	       struct gofer_node *node)
{
	struct gofer_link_req req = {.dir = dir, .target = target};

	return simple(c, GOFER_OP_LINK, &req, sizeof(req), name, NULL, node, sizeof(*node));
}

int gofer_unlink(struct gofer_client *c, uint64_t dir, const char *name, uint32_t flags)
{
	struct gofer_unlink_req req = {.dir = dir, .flags = flags};

	return simple(c, GOFER_OP_UNLINK, &req, sizeof(req), name, NULL, NULL, 0);
}

int gofer_rename(struct gofer_client *c, uint64_t olddir, const char *oldname, uint64_t newdir,
		 const char *newname, uint32_t flags)
{
	struct gofer_rename_req req = {.olddir = olddir, .newdir = newdir, .flags = flags};

	return simple(c, GOFER_OP_RENAME, &req, sizeof(req), oldname, newname, NULL, 0);
}

/* A body that is one NUL-terminated string with no NUL before its end. */
static int string_check(const struct call *k)
{
	const char *s = k->rep[0].iov_base;

	if (k->len == 0 || strnlen(s, k->len) != k->len - 1)
		return -EIO;
	return 0;
}

long gofer_readlink(struct gofer_client *c, uint64_t handle, char *buf, size_t size)
{
	struct gofer_handle_req req = {.handle = handle};
	char target[PATH_MAX];
	struct call k = {.op = GOFER_OP_READLINK, .nreq = 1, .nrep = 1, .check = string_check};
	size_t len;
	int ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.rep[0] = IOV(target, sizeof(target));
	ret = call(c, &k);
	if (ret < 0)
		return ret;
	len = k.len - 1;
	if (size) {
		size_t n = MIN(len, size - 1);

		memcpy(buf, target, n);
		buf[n] = '\0';
	}
	return (long)len;
}

/* Records that stay inside the body, each with its NUL-terminated name. */
static int dirents_check(const struct call *k)
{
	const uint8_t *p = k->rep[0].iov_base;
	size_t off = 0;

	while (off < k->len) {
		struct gofer_dirent d;

		if (k->len - off < sizeof(d))
			return -EIO;
		memcpy(&d, p + off, sizeof(d));
		if (d.reclen % 8 || d.reclen < sizeof(d) + d.namelen + 1u ||
		    d.reclen > k->len - off || d.namelen == 0 || p[off + sizeof(d) + d.namelen] ||
		    strnlen((const char *)p + off + sizeof(d), d.namelen) != d.namelen)
			return -EIO;
		off += d.reclen;
	}
	return 0;
}

long gofer_getdents(struct gofer_client *c, uint64_t fid, uint64_t cookie, void *buf, size_t count)
{
	struct gofer_getdents_req req = {
		.fid = fid,
		.cookie = cookie,
		.count = (uint32_t)MIN(count, (size_t)GOFER_MAX_IO),
	};
	struct call k = {.op = GOFER_OP_GETDENTS, .nreq = 1, .nrep = 1, .check = dirents_check};
	int ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.rep[0] = IOV(buf, req.count);
	ret = call(c, &k);
	return ret < 0 ? ret : (long)k.len;
}

int gofer_setattr(struct gofer_client *c, const struct gofer_setattr_req *req,
		  struct gofer_stat *st)
{
	return simple(c, GOFER_OP_SETATTR, req, sizeof(*req), NULL, NULL, st, sizeof(*st));
}

int gofer_statfs(struct gofer_client *c, uint64_t handle, struct gofer_statfs *out)
{
	struct gofer_handle_req req = {.handle = handle};

	return simple(c, GOFER_OP_STATFS, &req, sizeof(req), NULL, NULL, out, sizeof(*out));
}

static int getxattr_check(const struct call *k)
{
	uint32_t size;

	if (k->len < sizeof(size))
		return -EIO;
	memcpy(&size, k->rep[0].iov_base, sizeof(size));
	/* The value follows only when one was asked for. */
	if (k->rep[1].iov_len ? k->len != sizeof(size) + size : k->len != sizeof(size))
		return -EIO;
	return 0;
}

long gofer_getxattr(struct gofer_client *c, uint64_t handle, const char *name, void *buf,
		    size_t size)
{
	struct gofer_xattr_req req = {
		.handle = handle,
		.size = (uint32_t)MIN(size, (size_t)XATTR_SIZE_MAX),
	};
	struct call k = {.op = GOFER_OP_GETXATTR, .nreq = 2, .nrep = 2, .check = getxattr_check};
	uint32_t vsize;
	int ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.req[1] = STR(name);
	k.rep[0] = IOV(&vsize, sizeof(vsize));
	k.rep[1] = IOV(buf, req.size);
	ret = call(c, &k);
	return ret < 0 ? ret : (long)vsize;
}

int gofer_setxattr(struct gofer_client *c, uint64_t handle, const char *name, const void *value,
		   size_t size, uint32_t flags)
{
	struct gofer_xattr_req req = {.handle = handle, .size = (uint32_t)size, .flags = flags};
	struct call k = {.op = GOFER_OP_SETXATTR, .nreq = 3, .exact = true};

	if (size > XATTR_SIZE_MAX)
		return -E2BIG;
	k.req[0] = IOV(&req, sizeof(req));
	k.req[1] = STR(name);
	k.req[2] = IOV(value, size);
	return call(c, &k);
}

static int names_check(const struct call *k)
{
	const char *p = k->rep[0].iov_base;

	return k->len == 0 || p[k->len - 1] == '\0' ? 0 : -EIO;
}

long gofer_listxattr(struct gofer_client *c, uint64_t handle, char *buf, size_t size)
{
	struct gofer_handle_req req = {.handle = handle};
	struct call k = {.op = GOFER_OP_LISTXATTR, .nreq = 1, .nrep = 1, .check = names_check};
	char *list = xmalloc(XATTR_LIST_MAX);
	long ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.rep[0] = IOV(list, XATTR_LIST_MAX);
	ret = call(c, &k);
	if (ret == 0) {
		ret = (long)k.len;
		if (size && k.len > size)
			ret = -ERANGE;
		else if (size)
			memcpy(buf, list, k.len);
	}
	free(list);
	return ret;
}

int gofer_removexattr(struct gofer_client *c, uint64_t handle, const char *name)
{
	struct gofer_xattr_req req = {.handle = handle};

	return simple(c, GOFER_OP_REMOVEXATTR, &req, sizeof(req), name, NULL, NULL, 0);
}

int gofer_fsync(struct gofer_client *c, uint64_t fid, bool datasync)
{
	struct gofer_fsync_req req = {.fid = fid, .datasync = datasync};

	return simple(c, GOFER_OP_FSYNC, &req, sizeof(req), NULL, NULL, NULL, 0);
}

long gofer_read(struct gofer_client *c, uint64_t fid, uint64_t offset, void *buf, size_t len)
{
	struct gofer_io_req req = {
		.fid = fid,
		.offset = offset,
		.count = (uint32_t)MIN(len, (size_t)GOFER_MAX_IO),
	};
	struct call k = {.op = GOFER_OP_READ, .nreq = 1, .nrep = 1};
	int ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.rep[0] = IOV(buf, req.count);
	ret = call(c, &k);
	return ret < 0 ? ret : (long)k.len;
}

long gofer_write(struct gofer_client *c, uint64_t fid, uint64_t offset, const void *buf, size_t len)
{
	struct gofer_io_req req = {
		.fid = fid,
		.offset = offset,
		.count = (uint32_t)MIN(len, (size_t)GOFER_MAX_IO),
	};
	struct gofer_io_reply rep;
	struct call k = {.op = GOFER_OP_WRITE, .nreq = 2, .nrep = 1, .exact = true};
	int ret;

	k.req[0] = IOV(&req, sizeof(req));
	k.req[1] = IOV(buf, req.count);
	k.rep[0] = IOV(&rep, sizeof(rep));
	ret = call(c, &k);
	if (ret < 0)
		return ret;
	return rep.count > req.count ? -EIO : (long)rep.count;
}

int gofer_fallocate(struct gofer_client *c, uint64_t fid, uint32_t mode, uint64_t offset,
		    uint64_t len)
{
	struct gofer_fallocate_req req = {.fid = fid, .mode = mode, .offset = offset, .len = len};

	return simple(c, GOFER_OP_FALLOCATE, &req, sizeof(req), NULL, NULL, NULL, 0);
}

int gofer_close(struct gofer_client *c, const uint64_t *handles, unsigned nhandles,
		const uint64_t *fids, unsigned nfids)
{
	/* As many ids as one message holds; more go in further messages. */
	const unsigned max =
		(GOFER_MAX_MSG - sizeof(struct gofer_hdr) - sizeof(struct gofer_close_req)) /
		sizeof(uint64_t);
	int ret = 0;

	do {
		struct gofer_close_req req;
		struct call k = {.op = GOFER_OP_CLOSE, .nreq = 3, .exact = true};
		int r;

		req.nhandles = MIN(nhandles, max);
		req.nfids = MIN(nfids, max - req.nhandles);
		k.req[0] = IOV(&req, sizeof(req));
		k.req[1] = IOV(handles, req.nhandles * sizeof(uint64_t));
		k.req[2] = IOV(fids, req.nfids * sizeof(uint64_t));
		r = call(c, &k);
		if (r < 0 && ret == 0)
			ret = r;
		handles += req.nhandles;
		nhandles -= req.nhandles;
		fids += req.nfids;
		nfids -= req.nfids;
	} while (nhandles || nfids);
	return ret;
}
