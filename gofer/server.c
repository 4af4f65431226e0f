/*
 * The gofer's serving loop: one io_uring for every channel. See server.h for
 * the shape of a request; this file owns the ring, the channels, parsing the
 * header, dispatching to op handlers and sending replies.
 */
#include "config.h"
#include "gofer/serve.h"
#include "gofer/server.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Everything the gofer submits, and nothing else: the ring refuses other opcodes. */
static const uint8_t ring_ops[] = {
	IORING_OP_RECVMSG, IORING_OP_SENDMSG,	IORING_OP_OPENAT,   IORING_OP_OPENAT2,
	IORING_OP_STATX,   IORING_OP_MKDIRAT,	IORING_OP_UNLINKAT, IORING_OP_RENAMEAT,
	IORING_OP_LINKAT,  IORING_OP_SYMLINKAT, IORING_OP_READ,	    IORING_OP_WRITE,
	IORING_OP_FSYNC,   IORING_OP_CLOSE,
};

static const struct {
	gofer_op_fn fn;
	bool mutates; /* refused with EROFS in read-only mode */
} op_table[GOFER_OP_MAX] = {
	[GOFER_OP_ATTACH] = {gofer_op_attach, false},
	[GOFER_OP_WALK] = {gofer_op_walk, false},
	[GOFER_OP_STAT] = {gofer_op_stat, false},
	[GOFER_OP_OPEN] = {gofer_op_open, false}, /* checks its flags itself */
	[GOFER_OP_CREATE] = {gofer_op_create, true},
	[GOFER_OP_MKDIR] = {gofer_op_mkdir, true},
	[GOFER_OP_MKNOD] = {gofer_op_mknod, true},
	[GOFER_OP_SYMLINK] = {gofer_op_symlink, true},
	[GOFER_OP_LINK] = {gofer_op_link, true},
	[GOFER_OP_UNLINK] = {gofer_op_unlink, true},
	[GOFER_OP_RENAME] = {gofer_op_rename, true},
	[GOFER_OP_READLINK] = {gofer_op_readlink, false},
	[GOFER_OP_GETDENTS] = {gofer_op_getdents, false},
	[GOFER_OP_SETATTR] = {gofer_op_setattr, true},
	[GOFER_OP_STATFS] = {gofer_op_statfs, false},
	[GOFER_OP_GETXATTR] = {gofer_op_getxattr, false},
	[GOFER_OP_SETXATTR] = {gofer_op_setxattr, true},
	[GOFER_OP_LISTXATTR] = {gofer_op_listxattr, false},
	[GOFER_OP_REMOVEXATTR] = {gofer_op_removexattr, true},
	[GOFER_OP_FSYNC] = {gofer_op_fsync, false},
	[GOFER_OP_READ] = {gofer_op_read, false},
	[GOFER_OP_WRITE] = {gofer_op_write, true},
	[GOFER_OP_FALLOCATE] = {gofer_op_fallocate, true},
	[GOFER_OP_CLOSE] = {gofer_op_close, false},
};

static void recv_done(struct gofer_server *s, struct gofer_chan *ch, int res);
static void send_done(struct gofer_server *s, struct gofer_chan *ch, int res);

struct io_uring_sqe *gofer_sqe(struct gofer_server *s, struct gofer_chan *ch, gofer_step_fn next)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

	/* A full submission queue drains on submit (no SQPOLL). */
	for (int tries = 0; !sqe && tries < 100; tries++) {
		io_uring_submit(&s->ring);
		sqe = io_uring_get_sqe(&s->ring);
	}
	if (!sqe) {
		log_error("gofer: io_uring submission queue stuck");
		abort();
	}
	io_uring_sqe_set_data(sqe, ch);
	ch->req.next = next;
	ch->req.pending++;
	return sqe;
}

const char *gofer_fdname(struct gofer_chan *ch, int fd)
{
	snprintf(ch->req.num, sizeof(ch->req.num), "%d", fd);
	return ch->req.num;
}

uint64_t gofer_new_id(struct gofer_server *s)
{
	return s->next_id++;
}

struct gofer_obj *gofer_add(struct gofer_server *s, struct gofer_chan *ch, bool file, int fd,
			    uint32_t type)
{
	struct gofer_req *r = &ch->req;
	uint64_t id = gofer_new_id(s);
	struct gofer_obj *o = gofer_table_add(file ? &s->files : &s->handles, id, fd, type);

	if (r->ncreated < ARRAY_SIZE(r->created))
		r->created[r->ncreated++] = (struct gofer_created){.id = id, .file = file};
	return o;
}

void gofer_stat_from_statx(struct gofer_stat *st, const struct statx *x)
{
	memset(st, 0, sizeof(*st));
	st->mode = x->stx_mode;
	st->uid = x->stx_uid;
	st->gid = x->stx_gid;
	st->ino = x->stx_ino;
	st->dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	st->nlink = x->stx_nlink;
	st->size = x->stx_size;
	st->blocks = x->stx_blocks;
	st->blksize = x->stx_blksize;
	st->rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor);
	st->atime_sec = x->stx_atime.tv_sec;
	st->atime_nsec = x->stx_atime.tv_nsec;
	st->mtime_sec = x->stx_mtime.tv_sec;
	st->mtime_nsec = x->stx_mtime.tv_nsec;
	st->ctime_sec = x->stx_ctime.tv_sec;
	st->ctime_nsec = x->stx_ctime.tv_nsec;
}

/* Release what the request holds: references and fds not handed over. */
static void req_release(struct gofer_chan *ch)
{
	struct gofer_req *r = &ch->req;

	for (unsigned i = 0; i < ARRAY_SIZE(r->obj); i++)
		if (r->obj[i]) {
			gofer_obj_put(r->obj[i]);
			r->obj[i] = NULL;
		}
	if (r->cur) {
		gofer_obj_put(r->cur);
		r->cur = NULL;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(r->fd); i++)
		if (r->fd[i] >= 0) {
			close(r->fd[i]);
			r->fd[i] = -1;
		}
	free(r->close_fds);
	r->close_fds = NULL;
}

/* The sentry never learnt of the ids this request created: drop them. */
static void forget_created(struct gofer_server *s, struct gofer_chan *ch)
{
	struct gofer_req *r = &ch->req;

	for (unsigned i = 0; i < r->ncreated; i++) {
		struct gofer_table *t = r->created[i].file ? &s->files : &s->handles;
		struct gofer_obj *o = gofer_table_take(t, r->created[i].id);

		if (o)
			gofer_obj_put(o);
	}
	r->ncreated = 0;
}

static void chan_close(struct gofer_server *s, struct gofer_chan *ch)
{
	req_release(ch);
	forget_created(s, ch);
	if (ch->donate_fd >= 0)
		close(steal_fd(&ch->donate_fd));
	close(steal_fd(&ch->fd));
	ch->open = false;
	s->nopen--;
}

static void chan_recv(struct gofer_server *s, struct gofer_chan *ch)
{
	struct io_uring_sqe *sqe = gofer_sqe(s, ch, recv_done);

	memset(&ch->msg, 0, sizeof(ch->msg));
	ch->iov = (struct iovec){.iov_base = ch->in, .iov_len = GOFER_MAX_MSG};
	ch->msg.msg_iov = &ch->iov;
	ch->msg.msg_iovlen = 1;
	/*
	 * MSG_TRUNC makes the result the datagram's real length, so an
	 * oversized request is recognised. There is no control buffer: any
	 * fds the sentry attaches are discarded (closed) by the kernel.
	 */
	io_uring_prep_recvmsg(sqe, ch->fd, &ch->msg, MSG_TRUNC);
}

void gofer_reply(struct gofer_server *s, struct gofer_chan *ch, int err, size_t len)
{
	struct gofer_hdr hdr = {.op = ch->req.op, .err = err};
	struct io_uring_sqe *sqe;

	req_release(ch);
	if (err) {
		len = 0;
		forget_created(s, ch);
		if (ch->donate_fd >= 0)
			close(steal_fd(&ch->donate_fd));
	}
	hdr.size = (uint32_t)(sizeof(hdr) + len);
	memcpy(ch->out, &hdr, sizeof(hdr));

	memset(&ch->msg, 0, sizeof(ch->msg));
	ch->iov = (struct iovec){.iov_base = ch->out, .iov_len = hdr.size};
	ch->msg.msg_iov = &ch->iov;
	ch->msg.msg_iovlen = 1;
	if (ch->donate_fd >= 0) {
		struct cmsghdr *cm;

		memset(&ch->cmsg, 0, sizeof(ch->cmsg));
		ch->msg.msg_control = ch->cmsg.buf;
		ch->msg.msg_controllen = sizeof(ch->cmsg.buf);
		cm = CMSG_FIRSTHDR(&ch->msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &ch->donate_fd, sizeof(int));
	}
	sqe = gofer_sqe(s, ch, send_done);
	io_uring_prep_sendmsg(sqe, ch->fd, &ch->msg, MSG_NOSIGNAL);
}

static void undo_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	gofer_reply(s, ch, ch->req.err, 0);
}

void gofer_fail(struct gofer_server *s, struct gofer_chan *ch, int err)
{
	struct gofer_req *r = &ch->req;
	struct io_uring_sqe *sqe;

	if (!r->undo) {
		gofer_reply(s, ch, err, 0);
		return;
	}
	r->undo = false;
	r->err = err;
	sqe = gofer_sqe(s, ch, undo_done);
	io_uring_prep_unlinkat(sqe, r->obj[0]->fd, r->name, r->undo_flags);
}

static void node_statted(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	struct gofer_node node;
	struct gofer_obj *o;

	if (res < 0) {
		gofer_fail(s, ch, -res);
		return;
	}
	o = gofer_add(s, ch, false, steal_fd(&r->fd[0]), r->stx.stx_mode & S_IFMT);
	node.handle = r->new_id = o->id;
	gofer_stat_from_statx(&node.stat, &r->stx);
	memcpy(r->node_dst, &node, sizeof(node));
	r->then(s, ch);
}

void gofer_node_finish(struct gofer_server *s, struct gofer_chan *ch, int fd,
		       struct gofer_node *dst, gofer_then_fn then)
{
	struct gofer_req *r = &ch->req;
	struct io_uring_sqe *sqe;

	r->fd[0] = fd;
	r->node_dst = dst;
	r->then = then;
	sqe = gofer_sqe(s, ch, node_statted);
	io_uring_prep_statx(sqe, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
			    &r->stx);
}

void gofer_reply_node(struct gofer_server *s, struct gofer_chan *ch)
{
	gofer_reply(s, ch, 0, sizeof(struct gofer_node));
}

static void send_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	if (ch->donate_fd >= 0)
		close(steal_fd(&ch->donate_fd));
	if (res < 0) {
		/* The sentry went away mid-request: what the reply handed out is lost. */
		log_debug("gofer: channel %d: send: %s", ch->fd, strerrorname_np(-res));
		chan_close(s, ch);
		return;
	}
	ch->req.ncreated = 0;
	chan_recv(s, ch);
}

static void req_init(struct gofer_chan *ch, uint16_t op)
{
	struct gofer_req *r = &ch->req;

	memset(r, 0, sizeof(*r));
	r->op = op;
	r->fd[0] = r->fd[1] = -1;
}

static void recv_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_hdr hdr;
	struct gofer_wire w;
	int err;

	/* An error, the end of the channel, or not even a header: drop the channel. */
	if (res < (int)sizeof(hdr)) {
		if (res < 0)
			log_debug("gofer: channel %d: receive: %s", ch->fd, strerrorname_np(-res));
		else if (res > 0)
			log_debug("gofer: channel %d: %d-byte message", ch->fd, res);
		chan_close(s, ch);
		return;
	}
	memcpy(&hdr, ch->in, sizeof(hdr));
	req_init(ch, hdr.op);
	if ((size_t)res > GOFER_MAX_MSG || hdr.size != (uint32_t)res || hdr.flags || hdr.err ||
	    hdr.pad || hdr.op == 0 || hdr.op >= GOFER_OP_MAX) {
		gofer_reply(s, ch, EINVAL, 0);
		return;
	}
	if (op_table[hdr.op].mutates && s->read_only) {
		gofer_reply(s, ch, EROFS, 0);
		return;
	}
	w = (struct gofer_wire){.p = ch->in + sizeof(hdr), .left = (size_t)res - sizeof(hdr)};
	err = op_table[hdr.op].fn(s, ch, &w);
	if (err)
		gofer_reply(s, ch, err, 0);
}

static void complete(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	/* Batched steps (CLOSE) continue once the last of them is done. */
	if (--ch->req.pending > 0)
		return;
	ch->req.next(s, ch, res);
}

static int ring_setup(struct gofer_server *s, unsigned entries, struct rung_error *err)
{
	struct io_uring_restriction res[ARRAY_SIZE(ring_ops) + 1];
	struct io_uring_params p = {.flags = IORING_SETUP_R_DISABLED};
	unsigned n = 0;
	int ret;

	ret = io_uring_queue_init_params(entries, &s->ring, &p);
	if (ret < 0)
		return rung_error_make(err, -ret, "io_uring_setup");
	memset(res, 0, sizeof(res));
	for (; n < ARRAY_SIZE(ring_ops); n++) {
		res[n].opcode = IORING_RESTRICTION_SQE_OP;
		res[n].sqe_op = ring_ops[n];
	}
	/* No SQE flags at all: no links, no fixed files, no provided buffers. */
	res[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[n++].sqe_flags = 0;
	/* liburing 2.3 has no wrappers for these two. */
	if (syscall(__NR_io_uring_register, s->ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, n) <
	    0) {
		ret = rung_error_make(err, errno, "io_uring: register restrictions");
		goto fail;
	}
	if (syscall(__NR_io_uring_register, s->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL,
		    0) < 0) {
		ret = rung_error_make(err, errno, "io_uring: enable ring");
		goto fail;
	}
	return 0;
fail:
	io_uring_queue_exit(&s->ring);
	s->ring.ring_fd = -1;
	return ret;
}

int gofer_server_new(const int *fds, unsigned n, int procfd, const int *roots, unsigned nroots,
		     bool read_only, struct gofer_server **out, struct rung_error *err)
{
	struct gofer_server *s = xzalloc(sizeof(*s));
	int ret;

	s->procfd = procfd;
	s->nroots = nroots;
	s->roots = xzalloc((nroots ? nroots : 1) * sizeof(*s->roots));
	memcpy(s->roots, roots, nroots * sizeof(*s->roots));
	s->read_only = read_only;
	s->next_id = 1;
	s->nchan = s->nopen = n;
	s->chans = xzalloc(n * sizeof(*s->chans));
	for (unsigned i = 0; i < n; i++) {
		struct gofer_chan *ch = &s->chans[i];

		ch->fd = fds[i];
		ch->open = true;
		ch->donate_fd = -1;
		ch->in = xmalloc(GOFER_MAX_MSG);
		ch->out = xmalloc(GOFER_MAX_MSG);
		req_init(ch, 0);
	}
	s->scratch = xmalloc(GOFER_SCRATCH);
	s->ring.ring_fd = -1;
	ret = ring_setup(s, 2 * n + 64, err);
	if (ret < 0) {
		gofer_server_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int gofer_server_run(struct gofer_server *s)
{
	for (unsigned i = 0; i < s->nchan; i++)
		chan_recv(s, &s->chans[i]);
	while (s->nopen > 0) {
		struct io_uring_cqe *cqe;
		int ret = io_uring_submit_and_wait(&s->ring, 1);

		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			log_error("gofer: io_uring_enter: %s", strerrorname_np(-ret));
			return -1;
		}
		while (io_uring_peek_cqe(&s->ring, &cqe) == 0) {
			struct gofer_chan *ch = io_uring_cqe_get_data(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&s->ring, cqe);
			complete(s, ch, res);
		}
	}
	return 0;
}

void gofer_server_free(struct gofer_server *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nchan; i++) {
		struct gofer_chan *ch = &s->chans[i];

		req_release(ch);
		if (ch->open)
			close(ch->fd);
		if (ch->donate_fd >= 0)
			close(ch->donate_fd);
		free(ch->in);
		free(ch->out);
	}
	gofer_table_clear(&s->handles);
	gofer_table_clear(&s->files);
	if (s->ring.ring_fd >= 0)
		io_uring_queue_exit(&s->ring);
	if (s->procfd >= 0)
		close(s->procfd);
	for (unsigned i = 0; i < s->nroots; i++)
		if (s->roots[i] >= 0)
			close(s->roots[i]);
	free(s->roots);
	free(s->scratch);
	free(s->chans);
	free(s);
}
