/* Pipes and fifos: a bounded byte buffer between readers and writers. */
#ifndef RUNG_PIPE_H
#define RUNG_PIPE_H

#include "sentry/vfs/vfs.h"

struct file;
struct task;

/* Linux's defaults: 16 pages of buffer, writes up to PIPE_BUF are atomic. */
#define PIPE_DEFAULT_SIZE 65536
#define PIPE_BUF_ATOMIC	  4096

/* pipe2(): a new anonymous pipe's two ends (flags: O_NONBLOCK, O_DIRECT). */
int pipe_create(int flags, struct file **rd, struct file **wr);
/* open() of a fifo inode, with Linux's blocking rules. */
int fifo_open(struct inode *inode, int flags, struct file **out);
void pipe_inode_release(struct inode *inode);

/* --- splice(2), tee(2), vmsplice(2) and fcntl(F_{GET,SET}PIPE_SZ) ---------- */

/* Linux's /proc/sys/fs/pipe-max-size: the largest F_SETPIPE_SZ of an
 * unprivileged task. */
#define PIPE_MAX_SIZE 1048576
/* The most one splice moves between a pipe and another file at once. */
#define PIPE_SPLICE_CHUNK 1048576

/* Is f an end of a pipe or fifo (Linux's get_pipe_info)? */
bool file_is_pipe(struct file *f);

/* Moves up to len bytes between buf and another file or guest memory:
 * the count moved, or -errno. */
typedef long (*pipe_xfer_fn)(void *arg, void *buf, size_t len);

/*
 * Into the pipe of f from fill, which is called once, without the pipe's
 * lock, for up to the pipe's room: waits for a page of room (-EAGAIN if
 * nonblock), -EPIPE without a reader (the caller raises SIGPIPE). Returns
 * what fill returned.
 */
long pipe_splice_in(struct file *f, size_t len, bool nonblock, pipe_xfer_fn fill, void *arg);
/*
 * Out of the pipe of f into drain, up to len bytes: waits for data (0 at
 * end of file, -EAGAIN if nonblock), then hands drain what is there; the
 * bytes drain did not take stay in the pipe. The count, or -errno.
 */
long pipe_splice_out(struct file *f, size_t len, bool nonblock, pipe_xfer_fn drain, void *arg);
/* From the pipe of in to that of out (different pipes), up to len bytes;
 * keep: copy without consuming (tee). The count, 0 at end of file, -errno. */
long pipe_splice_pipe(struct file *in, struct file *out, size_t len, bool nonblock, bool keep);

/* F_GETPIPE_SZ; F_SETPIPE_SZ (privileged: CAP_SYS_RESOURCE): the new size
 * or -EINVAL, -EPERM, -EBUSY (more data than fits), -ENOMEM. */
long pipe_get_size(struct file *f);
long pipe_set_size(struct file *f, uint64_t size, bool privileged);

#endif
