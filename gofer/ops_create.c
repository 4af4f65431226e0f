/*
 * Ops that add or remove names: CREATE, MKDIR, MKNOD, SYMLINK, LINK, UNLINK,
 * RENAME. A new node is made by name in its directory, given the requested
 * owner, looked up again without following anything, and entered as a
 * handle; when a step after the creation fails, the name is removed again.
 */
#include "config.h"
#include "gofer/server.h"
#include "lib/cleanup.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int get_dir(struct gofer_server *s, struct gofer_chan *ch, unsigned slot, uint64_t id)
{
	ch->req.obj[slot] = gofer_table_get(&s->handles, id);
	return ch->req.obj[slot] ? 0 : EBADF;
}

/*
 * Give the new node fd its owner. chown clears the set-id bits of
 * non-directories, which the creation asked for: put them back.
 */
static int set_owner(struct gofer_server *s, struct gofer_chan *ch, int fd, bool is_dir)
{
	struct gofer_req *r = &ch->req;

	if (fchownat(fd, "", r->uid, r->gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	if (!is_dir && (r->mode & (S_ISUID | S_ISGID)) &&
	    fchmodat(s->procfd, gofer_fdname(ch, fd), r->mode & 07777, 0) < 0)
		return errno;
	return 0;
}

/* MKDIR, MKNOD, SYMLINK, LINK: after the name exists. */
static void created_opened(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	int err;

	if (res < 0) {
		gofer_fail(s, ch, -res);
		return;
	}
	r->fd[0] = res;
	if (r->chown && (err = set_owner(s, ch, res, r->op == GOFER_OP_MKDIR))) {
		gofer_fail(s, ch, err);
		return;
	}
	gofer_node_finish(s, ch, steal_fd(&r->fd[0]), gofer_body(ch), gofer_reply_node);
}

static void created(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	struct io_uring_sqe *sqe;

	if (res < 0) {
		gofer_reply(s, ch, -res, 0);
		return;
	}
	r->undo = true;
	r->undo_flags = r->op == GOFER_OP_MKDIR ? AT_REMOVEDIR : 0;
	r->how = (struct open_how){
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = GOFER_RESOLVE,
	};
	sqe = gofer_sqe(s, ch, created_opened);
	io_uring_prep_openat2(sqe, r->obj[0]->fd, r->name, &r->how);
}

/* The fixed part of MKDIR, MKNOD and SYMLINK, then the name. */
static int mknod_parse(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w,
		       struct gofer_mknod_req *req)
{
	struct gofer_req *r = &ch->req;
	int err;

	if ((err = wire_take(w, req, sizeof(*req))) || (err = wire_name(w, &r->name)))
		return err;
	if (req->pad)
		return EINVAL;
	r->mode = req->mode;
	r->uid = req->uid;
	r->gid = req->gid;
	r->chown = true;
	return 0;
}

int gofer_op_mkdir(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_mknod_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = mknod_parse(s, ch, w, &req)) || (err = wire_end(w)))
		return err;
	if (req.rdev || ((req.mode & S_IFMT) && (req.mode & S_IFMT) != S_IFDIR))
		return EINVAL;
	ch->req.mode &= 07777;
	if ((err = get_dir(s, ch, 0, req.dir)))
		return err;
	sqe = gofer_sqe(s, ch, created);
	io_uring_prep_mkdirat(sqe, ch->req.obj[0]->fd, ch->req.name, ch->req.mode);
	return 0;
}

int gofer_op_mknod(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_mknod_req req;
	uint32_t type;
	int err;

	if ((err = mknod_parse(s, ch, w, &req)) || (err = wire_end(w)))
		return err;
	type = req.mode & S_IFMT;
	if (type == 0)
		type = S_IFREG;
	switch (type) {
	case S_IFREG:
	case S_IFIFO:
	/* A socket node is a placeholder: the sentry keeps the guest socket
	 * bound to it (by its device and number); no host socket listens on
	 * it, so a host process that connects is refused (ECONNREFUSED). */
	case S_IFSOCK:
		break;
	case S_IFCHR:
	case S_IFBLK:
		return EPERM; /* no device nodes */
	default:
		return EINVAL;
	}
	if ((err = get_dir(s, ch, 0, req.dir)))
		return err;
	/* Not an io_uring op: done here, then the common continuation. */
	if (mknodat(ch->req.obj[0]->fd, ch->req.name, type | (req.mode & 07777), 0) < 0)
		return errno;
	created(s, ch, 0);
	return 0;
}

int gofer_op_symlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_mknod_req req;
	struct io_uring_sqe *sqe;
	const char *target;
	int err;

	if ((err = mknod_parse(s, ch, w, &req)) || (err = wire_string(w, PATH_MAX, &target)) ||
	    (err = wire_end(w)))
		return err;
	if (req.rdev || req.mode)
		return EINVAL;
	if ((err = get_dir(s, ch, 0, req.dir)))
		return err;
	sqe = gofer_sqe(s, ch, created);
	io_uring_prep_symlinkat(sqe, target, ch->req.obj[0]->fd, ch->req.name);
	return 0;
}

int gofer_op_link(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_link_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_name(w, &ch->req.name)) ||
	    (err = wire_end(w)))
		return err;
	if ((err = get_dir(s, ch, 0, req.dir)) || (err = get_dir(s, ch, 1, req.target)))
		return err;
	if (ch->req.obj[1]->type == S_IFDIR)
		return EPERM;
	sqe = gofer_sqe(s, ch, created);
	/* The inode the handle holds, whatever its name is now. */
	io_uring_prep_linkat(sqe, ch->req.obj[1]->fd, "", ch->req.obj[0]->fd, ch->req.name,
			     AT_EMPTY_PATH);
	return 0;
}

/* CREATE: open O_CREAT|O_EXCL, set the owner, take an O_PATH handle on the
 * very inode opened (through /proc/self/fd), stat it, hand out node and fid. */
static void create_done(struct gofer_server *s, struct gofer_chan *ch)
{
	struct gofer_req *r = &ch->req;
	struct gofer_create_reply rep;

	memcpy(&rep.node, gofer_body(ch), sizeof(rep.node));
	rep.fid = 0;
	if (r->open_mode & GOFER_OPEN_DONATE)
		ch->donate_fd = steal_fd(&r->fd[1]);
	else
		rep.fid = gofer_add(s, ch, true, steal_fd(&r->fd[1]), S_IFREG)->id;
	r->undo = false;
	memcpy(gofer_body(ch), &rep, sizeof(rep));
	gofer_reply(s, ch, 0, sizeof(rep));
}

static void create_reopened(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	if (res < 0) {
		gofer_fail(s, ch, -res);
		return;
	}
	gofer_node_finish(s, ch, res, gofer_body(ch), create_done);
}

static void create_opened(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	struct io_uring_sqe *sqe;
	int err;

	if (res < 0) {
		gofer_reply(s, ch, -res, 0);
		return;
	}
	r->fd[1] = res;
	r->undo = true;
	r->undo_flags = 0;
	if ((err = set_owner(s, ch, res, false))) {
		gofer_fail(s, ch, err);
		return;
	}
	sqe = gofer_sqe(s, ch, create_reopened);
	io_uring_prep_openat(sqe, s->procfd, gofer_fdname(ch, res), O_PATH | O_CLOEXEC, 0);
}

int gofer_op_create(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_req *r = &ch->req;
	struct gofer_create_req req;
	struct io_uring_sqe *sqe;
	uint32_t flags;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_name(w, &r->name)) ||
	    (err = wire_end(w)))
		return err;
	flags = req.flags & ~(uint32_t)(O_CREAT | O_EXCL);
	if ((err = gofer_open_flags_ok(flags, req.open_mode)))
		return err;
	if (req.pad || (req.mode & ~07777u) || (flags & O_DIRECTORY))
		return EINVAL;
	if ((err = get_dir(s, ch, 0, req.dir)))
		return err;
	r->mode = req.mode;
	r->uid = req.uid;
	r->gid = req.gid;
	r->open_mode = req.open_mode;
	r->how = (struct open_how){
		.flags = flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		.mode = req.mode,
		.resolve = GOFER_RESOLVE,
	};
	sqe = gofer_sqe(s, ch, create_opened);
	io_uring_prep_openat2(sqe, r->obj[0]->fd, r->name, &r->how);
	return 0;
}

/* UNLINK, RENAME: one ring op each. */
static void done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	gofer_reply(s, ch, res < 0 ? -res : 0, 0);
}

int gofer_op_unlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_unlink_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_name(w, &ch->req.name)) ||
	    (err = wire_end(w)))
		return err;
	if (req.pad || (req.flags & ~(uint32_t)AT_REMOVEDIR))
		return EINVAL;
	if ((err = get_dir(s, ch, 0, req.dir)))
		return err;
	sqe = gofer_sqe(s, ch, done);
	io_uring_prep_unlinkat(sqe, ch->req.obj[0]->fd, ch->req.name, (int)req.flags);
	return 0;
}

int gofer_op_rename(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_rename_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_name(w, &ch->req.name)) ||
	    (err = wire_name(w, &ch->req.name2)) || (err = wire_end(w)))
		return err;
	if (req.pad ||
	    (req.flags != 0 && req.flags != RENAME_NOREPLACE && req.flags != RENAME_EXCHANGE))
		return EINVAL;
	if ((err = get_dir(s, ch, 0, req.olddir)) || (err = get_dir(s, ch, 1, req.newdir)))
		return err;
	sqe = gofer_sqe(s, ch, done);
	io_uring_prep_renameat(sqe, ch->req.obj[0]->fd, ch->req.name, ch->req.obj[1]->fd,
			       ch->req.name2, req.flags);
	return 0;
}
