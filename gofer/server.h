/*
 * Inside the serving loop: channels, the request each one is serving, and
 * the helpers op handlers use to run steps through the ring and reply.
 *
 * A channel serves one request at a time: RECVMSG -> the op's steps ->
 * SENDMSG -> RECVMSG again. An op handler parses the request and either
 * answers at once (synchronous ops) or submits a step with gofer_sqe(); the
 * step's completion calls the continuation given there with the result
 * (fd, byte count or -errno), which submits the next step or replies.
 */
#ifndef RUNG_GOFER_SERVER_H
#define RUNG_GOFER_SERVER_H

#include "gofer/handles.h"
#include "gofer/protocol.h"
#include "gofer/wire.h"

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct gofer_server;
struct gofer_chan;

typedef void (*gofer_step_fn)(struct gofer_server *s, struct gofer_chan *ch, int res);
typedef void (*gofer_then_fn)(struct gofer_server *s, struct gofer_chan *ch);

/* A handle or fid this request created: forgotten again if the reply is lost. */
struct gofer_created {
	uint64_t id;
	bool file;
};

struct gofer_req {
	uint16_t op;
	gofer_step_fn next;	  /* continuation of the submitted step(s) */
	unsigned pending;	  /* submitted steps not completed yet */
	struct gofer_obj *obj[2]; /* references held: the directory / node, a second one */
	struct gofer_obj *cur;	  /* WALK: the node the next name is looked up in */
	int fd[2];		  /* fds owned by the request until handed over (or -1) */
	const char *name;	  /* single components, inside the request buffer */
	const char *name2;
	const char *names[GOFER_MAX_WALK];
	unsigned nnames, idx;
	uint32_t flags, mode, uid, gid, open_mode;
	bool chown; /* give new nodes the requested owner */
	bool undo;  /* on failure, unlink `name` in obj[0] (undo_flags) */
	int undo_flags;
	int err;		     /* the error being reported after an undo */
	struct gofer_node *node_dst; /* where gofer_node_finish() writes the node */
	uint64_t new_id;	     /* and the handle it entered */
	gofer_then_fn then;
	int *close_fds; /* CLOSE: fds still to close, in batches */
	unsigned nclose, closed;
	struct gofer_created created[GOFER_MAX_WALK + 1];
	unsigned ncreated;
	struct statx stx;
	struct open_how how;
	char num[16]; /* "<fd>" for reopening through /proc/self/fd */
};

struct gofer_chan {
	int fd;
	bool open;
	uint8_t *in;  /* the request, GOFER_MAX_MSG bytes */
	uint8_t *out; /* the reply being built */
	struct msghdr msg;
	struct iovec iov;
	int donate_fd; /* sent with the reply as SCM_RIGHTS, then closed */
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} cmsg;
	struct gofer_req req;
};

struct gofer_server {
	struct io_uring ring;
	int procfd; /* /proc/self/fd, to reopen O_PATH fds */
	int *roots; /* the served trees' roots (O_PATH): rootfs, then bind mounts */
	unsigned nroots;
	bool read_only; /* every tree is read-only: refuse changes before trying */
	struct gofer_chan *chans;
	unsigned nchan, nopen;
	struct gofer_table handles, files;
	uint64_t next_id;
	uint8_t *scratch; /* GOFER_SCRATCH bytes for synchronous ops */
};

#define GOFER_SCRATCH (64u * 1024u)

/* The reply body (after the header). */
static inline void *gofer_body(struct gofer_chan *ch)
{
	return ch->out + sizeof(struct gofer_hdr);
}

/* An SQE for a step of ch's request whose completion runs next. */
struct io_uring_sqe *gofer_sqe(struct gofer_server *s, struct gofer_chan *ch, gofer_step_fn next);
/* Send the reply: err (positive errno, no body) or len bytes of body. */
void gofer_reply(struct gofer_server *s, struct gofer_chan *ch, int err, size_t len);
/* Reply err, first undoing a creation when the request asked for that. */
void gofer_fail(struct gofer_server *s, struct gofer_chan *ch, int err);

/* "<fd>" in ch->req.num, the name of fd under procfd. */
const char *gofer_fdname(struct gofer_chan *ch, int fd);
uint64_t gofer_new_id(struct gofer_server *s);
/* Enter fd into the handle or file table as a new id this request created. */
struct gofer_obj *gofer_add(struct gofer_server *s, struct gofer_chan *ch, bool file, int fd,
			    uint32_t type);
void gofer_stat_from_statx(struct gofer_stat *st, const struct statx *stx);

/* Stat fd (owned by the request from now on), enter it as a new handle,
 * write the node to *dst and continue with then. */
void gofer_node_finish(struct gofer_server *s, struct gofer_chan *ch, int fd,
		       struct gofer_node *dst, gofer_then_fn then);
/* Reply with the gofer_node at the start of the body. */
void gofer_reply_node(struct gofer_server *s, struct gofer_chan *ch);

/* OPEN/CREATE flags the protocol allows (0), else EINVAL. */
int gofer_open_flags_ok(uint32_t flags, uint32_t open_mode);

/* The resolve flags of every lookup: never leave the directory, never follow. */
#define GOFER_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)

/* Op handlers: 0 when they took charge of the reply, else a positive errno. */
typedef int (*gofer_op_fn)(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);

int gofer_op_attach(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_walk(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_stat(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_readlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_statfs(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_setattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_close(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_open(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_read(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_write(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_fsync(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_fallocate(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_getdents(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_create(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_mkdir(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_mknod(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_symlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_link(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_unlink(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_rename(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_getxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_setxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_listxattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);
int gofer_op_removexattr(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w);

#endif
