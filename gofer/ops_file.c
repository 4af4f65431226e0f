/*
 * Open files: OPEN (a reopen of the node's O_PATH fd through /proc/self/fd,
 * donated or kept as a fid), and what a kept fid serves: READ, WRITE, FSYNC,
 * FALLOCATE, GETDENTS.
 */
#include "config.h"
#include "gofer/server.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_FLAGS                                                                                 \
	(O_ACCMODE | O_TRUNC | O_APPEND | O_DIRECTORY | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | \
	 O_NOATIME)

int gofer_open_flags_ok(uint32_t flags, uint32_t open_mode)
{
	if ((flags & ~(uint32_t)OPEN_FLAGS) || (flags & O_ACCMODE) == O_ACCMODE ||
	    (open_mode & ~(uint32_t)GOFER_OPEN_DONATE))
		return EINVAL;
	return 0;
}

static bool open_writes(uint32_t flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

static void open_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_req *r = &ch->req;
	struct gofer_open_reply rep = {0};

	if (res < 0) {
		gofer_reply(s, ch, -res, 0);
		return;
	}
	if (r->open_mode & GOFER_OPEN_DONATE)
		ch->donate_fd = res;
	else
		rep.fid = gofer_add(s, ch, true, res, r->obj[0]->type)->id;
	memcpy(gofer_body(ch), &rep, sizeof(rep));
	gofer_reply(s, ch, 0, sizeof(rep));
}

int gofer_op_open(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_req *r = &ch->req;
	struct gofer_open_req req;
	struct io_uring_sqe *sqe;
	uint32_t type;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)) ||
	    (err = gofer_open_flags_ok(req.flags, req.mode)))
		return err;
	if (s->read_only && open_writes(req.flags))
		return EROFS;
	r->obj[0] = gofer_table_get(&s->handles, req.handle);
	if (!r->obj[0])
		return EBADF;
	type = r->obj[0]->type;
	switch (type) {
	case S_IFLNK:
		return ELOOP; /* the sentry resolves symlinks; never open one */
	case S_IFDIR:
		if (open_writes(req.flags))
			return EISDIR;
		break;
	case S_IFCHR:
	case S_IFBLK:
		return EACCES; /* the served tree is nodev */
	case S_IFSOCK:
		return ENXIO;
	}
	if ((req.flags & O_DIRECTORY) && type != S_IFDIR)
		return ENOTDIR;
	r->flags = req.flags;
	r->open_mode = req.mode;
	sqe = gofer_sqe(s, ch, open_done);
	/* The /proc magic link leads to exactly the node the handle holds. */
	io_uring_prep_openat(sqe, s->procfd, gofer_fdname(ch, r->obj[0]->fd),
			     (int)(req.flags | O_CLOEXEC | O_NOCTTY), 0);
	return 0;
}

/* Look fid up into ch->req.obj[0]; EBADF if unknown. */
static int get_file(struct gofer_server *s, struct gofer_chan *ch, uint64_t fid)
{
	ch->req.obj[0] = gofer_table_get(&s->files, fid);
	return ch->req.obj[0] ? 0 : EBADF;
}

static void read_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	if (res < 0)
		gofer_reply(s, ch, -res, 0);
	else
		gofer_reply(s, ch, 0, (size_t)res);
}

int gofer_op_read(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_io_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)))
		return err;
	/* An offset of -1 would mean "the file position" to the ring. */
	if (req.pad || req.count > GOFER_MAX_IO || req.offset > INT64_MAX)
		return EINVAL;
	if ((err = get_file(s, ch, req.fid)))
		return err;
	sqe = gofer_sqe(s, ch, read_done);
	io_uring_prep_read(sqe, ch->req.obj[0]->fd, gofer_body(ch), req.count, req.offset);
	return 0;
}

static void write_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	struct gofer_io_reply rep;

	if (res < 0) {
		gofer_reply(s, ch, -res, 0);
		return;
	}
	rep.count = (uint64_t)res;
	memcpy(gofer_body(ch), &rep, sizeof(rep));
	gofer_reply(s, ch, 0, sizeof(rep));
}

int gofer_op_write(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_io_req req;
	struct io_uring_sqe *sqe;
	const void *data;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))))
		return err;
	if (req.pad || req.count != w->left || req.count > GOFER_MAX_IO || req.offset > INT64_MAX)
		return EINVAL;
	if ((err = wire_bytes(w, req.count, &data)) || (err = get_file(s, ch, req.fid)))
		return err;
	sqe = gofer_sqe(s, ch, write_done);
	io_uring_prep_write(sqe, ch->req.obj[0]->fd, data, req.count, req.offset);
	return 0;
}

static void fsync_done(struct gofer_server *s, struct gofer_chan *ch, int res)
{
	gofer_reply(s, ch, res < 0 ? -res : 0, 0);
}

int gofer_op_fsync(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_fsync_req req;
	struct io_uring_sqe *sqe;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)))
		return err;
	if (req.pad || req.datasync > 1)
		return EINVAL;
	if ((err = get_file(s, ch, req.fid)))
		return err;
	sqe = gofer_sqe(s, ch, fsync_done);
	io_uring_prep_fsync(sqe, ch->req.obj[0]->fd, req.datasync ? IORING_FSYNC_DATASYNC : 0);
	return 0;
}

int gofer_op_fallocate(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_fallocate_req req;
	int err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)))
		return err;
	if (req.pad || req.offset > INT64_MAX || req.len > INT64_MAX)
		return EINVAL;
	if ((err = get_file(s, ch, req.fid)))
		return err;
	if (fallocate(ch->req.obj[0]->fd, (int)req.mode, (off_t)req.offset, (off_t)req.len) < 0)
		return errno;
	gofer_reply(s, ch, 0, 0);
	return 0;
}

/*
 * GETDENTS: host getdent64 records become gofer_dirents. Ours have a larger
 * header, so a batch may not all fit: we stop at the last entry that does,
 * and its cookie (the host d_off) lets the next request lseek back there.
 */
struct host_dirent {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

int gofer_op_getdents(struct gofer_server *s, struct gofer_chan *ch, struct gofer_wire *w)
{
	struct gofer_getdents_req req;
	uint8_t *out = gofer_body(ch);
	size_t used = 0, chunk;
	bool full = false;
	int fd, err;

	if ((err = wire_take(w, &req, sizeof(req))) || (err = wire_end(w)))
		return err;
	if (req.pad || req.count == 0 || req.count > GOFER_MAX_IO || req.cookie > INT64_MAX)
		return EINVAL;
	if ((err = get_file(s, ch, req.fid)))
		return err;
	if (ch->req.obj[0]->type != S_IFDIR)
		return ENOTDIR;
	fd = ch->req.obj[0]->fd;
	if (lseek(fd, (off_t)req.cookie, SEEK_SET) < 0)
		return errno;
	/* Room for at least one longest name, at most the scratch buffer. */
	chunk = MIN(GOFER_SCRATCH, MAX((size_t)req.count, 1024u));
	while (!full) {
		ssize_t n = getdents64(fd, s->scratch, chunk);

		if (n < 0) {
			if (used)
				break;
			return errno;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			struct host_dirent *d = (struct host_dirent *)(s->scratch + off);
			size_t namelen = strnlen(d->d_name, GOFER_NAME_MAX + 1);
			struct gofer_dirent g = {0};

			off += d->d_reclen;
			if (dot_or_dotdot(d->d_name) || namelen > GOFER_NAME_MAX)
				continue;
			g.ino = d->d_ino;
			g.next = (uint64_t)d->d_off;
			g.reclen = (uint16_t)ALIGN_UP(sizeof(g) + namelen + 1, 8);
			g.type = d->d_type;
			g.namelen = (uint8_t)namelen;
			if (used + g.reclen > req.count) {
				full = true;
				break;
			}
			memset(out + used, 0, g.reclen);
			memcpy(out + used, &g, sizeof(g));
			memcpy(out + used + sizeof(g), d->d_name, namelen);
			used += g.reclen;
		}
	}
	if (full && used == 0)
		return EINVAL; /* count cannot hold even the first entry */
	gofer_reply(s, ch, 0, used);
	return 0;
}
