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

#endif
