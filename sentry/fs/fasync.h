/*
 * Signal-driven I/O (fcntl F_SETOWN, F_SETSIG, O_ASYNC; Linux's fs/fcntl.c
 * fown and fasync): a pipe or socket with O_ASYNC and an owner sends the
 * owner SIGIO (or the F_SETSIG signal, with si_code POLL_IN/POLL_OUT,
 * si_band and si_fd) when it becomes readable or writable. dnotify
 * (inotify.c) sends through the same owners, with POLL_MSG.
 */
#ifndef RUNG_FASYNC_H
#define RUNG_FASYNC_H

#include <stdbool.h>

struct file;
struct fown;
struct task;

/* F_OWNER_* of <fcntl.h> */
#define FOWN_TID  0
#define FOWN_PID  1
#define FOWN_PGRP 2

/* F_SETOWN/F_SETOWN_EX: 0, -ESRCH (no such pid or group). pid 0 clears. */
long fasync_setown(struct task *t, struct file *f, int type, int pid);
void fasync_getown(struct file *f, int *type, int *pid);
/* F_SETSIG (0: plain SIGIO) and F_GETSIG. */
long fasync_setsig(struct file *f, int sig);
int fasync_getsig(struct file *f);
/* F_SETFL's O_ASYNC on (fd: the descriptor, for si_fd) or off. */
void fasync_set(struct file *f, int fd, bool on);
/* The last reference to f is going (file_put). */
void fasync_release(struct file *f);

/* f's owner record, held (made if f has none) for dnotify, which signals
 * it with fasync_owner_msg (a leaf: it takes only the owner's and the
 * worker's locks; the signal goes from the worker, with POLL_MSG and fd
 * as si_fd). */
struct fown *fasync_owner_hold(struct file *f);
void fasync_owner_put(struct fown *o);
void fasync_owner_msg(struct fown *o, int fd);

#endif
