/*
 * Ops on nodes by handle: ATTACH, WALK, STAT, READLINK, STATFS, SETATTR and
 * CLOSE. A walk is a chain of single-component lookups, each an OPENAT2 that
 * never follows a symlink and never leaves its directory, then a STATX.
 */
#include "config.h"
#include "gofer/server.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Look handle up into ch->req.obj[slot]; EBADF if unknown. */
static int get_handle(struct gofer_server *s, struct gofer_chan *ch, unsigned slot, uint64_t handle)
{
	ch->req.obj[slot] = gofer_table_get(&s->handles, handle);
	return ch->req.obj[slot] ? 0 : EBADF;
}

static int handle_req(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_handle_req r;
	int err;

	if ((err = wire_take(w, &r, sizeof(r))) || (err = wire_end(w)))
		return err;
	return get_handle(s, ch, 0, r.handle);
}

/* ATTACH: a new handle on the root of one tree. */
static void attach_opened(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	if (res < 0) {
		gofer_fail(s, ch, -res);
		return;
	}
	gofer_node_finish(s, ch, res, gofer_body(ch), gofer_reply_node);
}

int gofer_op_attach(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_attach_req req = {0};
	struct io_uring_sqe *sqe;
	int err;

	/* No body: the rootfs (the protocol's first form). */
	if (w->left && (err = wire_take(w, &req, sizeof(req))))
		return err;
	if ((err = wire_end(w)))
		return err;
	if (req.pad || req.root >= s->nroots)
		return EINVAL;
	sqe = gofer_sqe(s, ch, attach_opened);
	/* The /proc magic link leads to exactly the root the gofer opened
	 * (a directory or, for a bind mount of one file, that file). */
	io_uring_prep_openat(sqe, s->procfd, gofer_fdname(ch, s->roots[req.root]),
			     O_PATH | O_CLOEXEC, 0);
	return 0;
}

/* WALK */
static void walk_step(struct gofer_server *s, struct gofer_chan *ch);

static void walk_reply(struct gofer_server *s, struct gofer_chan *ch, int status)
{
	struct gofer_walk_reply rep = {.nwalked = ch->req.idx, .status = status};

	memcpy(gofer_body(ch), &rep, sizeof(rep));
	gofer_reply(s, ch, 0, sizeof(rep) + rep.nwalked * sizeof(struct gofer_node));
}

static void walk_walked(struct gofer_server *s, struct gofer_chan *ch)
{
	struct gofer_req *r = &ch->req;
	uint32_t type = r->stx.stx_mode & S_IFMT;

	r->idx++;
	gofer_obj_put(r->cur);
	r->cur = gofer_table_get(&s->handles, r->new_id);
	/* Stop after a symlink (the sentry resolves it), or at the end. */
	if (type == S_IFLNK || r->idx == r->nnames) {
		walk_reply(s, ch, 0);
		return;
	}
	if (type != S_IFDIR) {
		walk_reply(s, ch, ENOTDIR);
		return;
	}
	walk_step(s, ch);
}

static void walk_opened(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	uint8_t *nodes = (uint8_t *)gofer_body(ch) + sizeof(struct gofer_walk_reply);

	/* Any failure ends the walk with what was walked so far. */
	if (res < 0) {
		walk_reply(s, ch, -res);
		return;
	}
	gofer_node_finish(s, ch, res,
			  (struct gofer_node *)(nodes + r->idx * sizeof(struct gofer_node)),
			  walk_walked);
}

static void walk_step(struct gofer_server *s, struct gofer_chan *ch)
{
	struct gofer_req *r = &ch->req;
	struct io_uring_sqe *sqe;

	r->how = (struct open_how){
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = GOFER_RESOLVE,
	};
	sqe = gofer_sqe(s, ch, walk_opened);
	io_uring_prep_openat2(sqe, r->cur->fd, r->names[r->idx], &r->how);
}

int gofer_op_walk(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_req *r = &ch->req;
	struct gofer_walk_req req;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))))
		return err;
	if (req.pad || req.nnames == 0 || req.nnames > GOFER_MAX_WALK)
		return EINVAL;
	for (unsigned i = 0; i < req.nnames; i++)
		if ((err = wire_name(w, &r->names[i])))
			return err;
	if ((err = wire_end(w)) || (err = get_handle(s, ch, 0, req.dir)))
		return err;
	r->nnames = req.nnames;
	r->cur = gofer_table_get(&s->handles, req.dir);
	walk_step(s, ch);
	return 0;
}

/* STAT (also the tail of SETATTR) */
static void stat_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_stat st;

	if (res < 0) {
		gofer_reply(s, ch, -res, 0);
		return;
	}
	gofer_stat_from_statx(&st, &ch->req.stx);
	memcpy(gofer_body(ch), &st, sizeof(st));
	gofer_reply(s, ch, 0, sizeof(st));
}

static void stat_submit(struct gofer_server *s, struct gofer_chan *ch)
{
	struct io_uring_sqe *sqe = gofer_sqe(s, ch, stat_done);

	io_uring_prep_statx(sqe, ch->req.obj[0]->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
			    STATX_BASIC_STATS, &ch->req.stx);
}

int gofer_op_stat(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	int err = handle_req(s, ch, w);

	if (err)
		return err;
	stat_submit(s, ch);
	return 0;
}

int gofer_op_readlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	char *body = gofer_body(ch);
	ssize_t n;
	int err = handle_req(s, ch, w);

	if (err)
		return err;
	if (ch->req.obj[0]->type != S_IFLNK)
		return EINVAL;
	n = readlinkat(ch->req.obj[0]->fd, "", body, PATH_MAX);
	if (n < 0)
		return errno;
	if (n >= PATH_MAX)
		return ENAMETOOLONG;
	body[n] = '\0';
	gofer_reply(s, ch, 0, (size_t)n + 1);
	return 0;
}

int gofer_op_statfs(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_statfs out;
	struct statfs st;
	int err = handle_req(s, ch, w);

	if (err)
		return err;
	if (fstatfs(ch->req.obj[0]->fd, &st) < 0)
		return errno;
	out = (struct gofer_statfs){
		.type = (uint64_t)st.f_type,
		.bsize = (uint64_t)st.f_bsize,
		.blocks = st.f_blocks,
		.bfree = st.f_bfree,
		.bavail = st.f_bavail,
		.files = st.f_files,
		.ffree = st.f_ffree,
		.namelen = (uint64_t)st.f_namelen,
		.frsize = (uint64_t)st.f_frsize,
		.flags = (uint64_t)st.f_flags,
	};
	memcpy(gofer_body(ch), &out, sizeof(out));
	gofer_reply(s, ch, 0, sizeof(out));
	return 0;
}

/* SETATTR */
#define SETATTR_ALL                                                                        \
	(GOFER_SETATTR_MODE | GOFER_SETATTR_UID | GOFER_SETATTR_GID | GOFER_SETATTR_SIZE | \
	 GOFER_SETATTR_ATIME | GOFER_SETATTR_MTIME | GOFER_SETATTR_ATIME_NOW |             \
	 GOFER_SETATTR_MTIME_NOW)

static int setattr_time(uint32_t mask, uint32_t set, uint32_t now, int64_t sec, uint32_t nsec,
			struct timespec *ts)
{
	if (mask & now) {
		ts->tv_nsec = UTIME_NOW;
	} else if (mask & set) {
		if (nsec >= 1000000000u)
			return EINVAL;
		ts->tv_sec = sec;
		ts->tv_nsec = nsec;
	} else {
		ts->tv_nsec = UTIME_OMIT;
	}
	return 0;
}

/* Truncate through a writable reopen: O_PATH fds cannot be truncated. */
static int setattr_size(struct gofer_server *s, struct gofer_chan *ch, uint64_t size)
{
	int fd = openat(s->procfd, gofer_fdname(ch, ch->req.obj[0]->fd),
			O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int err = 0;

	if (fd < 0)
		return errno;
	if (ftruncate(fd, (off_t)size) < 0)
		err = errno;
	close(fd);
	return err;
}

int gofer_op_setattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_setattr_req r;
	struct timespec ts[2];
	struct gofer_obj *o;
	int err;

	if ((err = wire_take(w, &r, sizeof(r))) || (err = wire_end(w)))
		return err;
	if ((r.mask & ~SETATTR_ALL) || (r.mode & ~07777u) || r.size > INT64_MAX)
		return EINVAL;
	if ((err = setattr_time(r.mask, GOFER_SETATTR_ATIME, GOFER_SETATTR_ATIME_NOW, r.atime_sec,
				r.atime_nsec, &ts[0])) ||
	    (err = setattr_time(r.mask, GOFER_SETATTR_MTIME, GOFER_SETATTR_MTIME_NOW, r.mtime_sec,
				r.mtime_nsec, &ts[1])))
		return err;
	if ((err = get_handle(s, ch, 0, r.handle)))
		return err;
	o = ch->req.obj[0];
	if ((r.mask & GOFER_SETATTR_MODE) && o->type == S_IFLNK)
		return EOPNOTSUPP;
	if ((r.mask & GOFER_SETATTR_SIZE) && o->type != S_IFREG)
		return o->type == S_IFDIR ? EISDIR : EINVAL;

	/* Owner first: chown clears set-id bits, which a mode in the same request sets. */
	if (r.mask & (GOFER_SETATTR_UID | GOFER_SETATTR_GID)) {
		uid_t uid = (r.mask & GOFER_SETATTR_UID) ? r.uid : (uid_t)-1;
		gid_t gid = (r.mask & GOFER_SETATTR_GID) ? r.gid : (gid_t)-1;

		if (fchownat(o->fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return errno;
	}
	/* Not a symlink (checked), so following the /proc magic link reaches the node. */
	if ((r.mask & GOFER_SETATTR_MODE) &&
	    fchmodat(s->procfd, gofer_fdname(ch, o->fd), r.mode, 0) < 0)
		return errno;
	if ((r.mask & GOFER_SETATTR_SIZE) && (err = setattr_size(s, ch, r.size)))
		return err;
	if ((r.mask & (GOFER_SETATTR_ATIME | GOFER_SETATTR_MTIME | GOFER_SETATTR_ATIME_NOW |
		       GOFER_SETATTR_MTIME_NOW)) &&
	    utimensat(o->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	stat_submit(s, ch);
	return 0;
}

/* CLOSE: forget the ids now, close the fds through the ring in batches. */
#define CLOSE_BATCH 32

static void close_batch(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	unsigned n = 0;

	while (r->closed < r->nclose && n < CLOSE_BATCH) {
		struct io_uring_sqe *sqe = gofer_sqe(s, ch, close_batch);

		io_uring_prep_close(sqe, r->close_fds[r->closed++]);
		n++;
	}
	if (n == 0)
		gofer_reply(s, ch, 0, 0);
}

int gofer_op_close(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_req *r = &ch->req;
	struct gofer_close_req req;
	const uint8_t *ids;
	uint64_t total;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))))
		return err;
	total = (uint64_t)req.nhandles + req.nfids;
	if (total * sizeof(uint64_t) != w->left)
		return EINVAL;
	if ((err = wire_bytes(w, w->left, (const void **)&ids)))
		return err;
	r->close_fds = xmalloc((total ? total : 1) * sizeof(int));
	for (uint64_t i = 0; i < total; i++) {
		struct gofer_table *t = i < req.nhandles ? &s->handles : &s->files;
		struct gofer_obj *o;
		uint64_t id;
		int fd;

		memcpy(&id, ids + i * sizeof(id), sizeof(id));
		o = gofer_table_take(t, id);
		/* A request still using it closes the fd when it lets go. */
		if (o && (fd = gofer_obj_put_fd(o)) >= 0)
			r->close_fds[r->nclose++] = fd;
	}
	close_batch(s, ch, 0);
	return 0;
}
