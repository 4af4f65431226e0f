/*
 * Pseudo-terminal pairs (Linux's pty.c with the n_tty line discipline on
 * the slave): opened through devpts' ptmx, the slave through /dev/pts/N,
 * TIOCGPTPEER or /dev/tty.
 */
#ifndef RUNG_PTY_H
#define RUNG_PTY_H

#include "sentry/vfs/vfs.h"

struct devpts;
struct file;
struct pty;

/* A new pair in fs: *out is its master (open ptmx). */
int pty_open_master(struct devpts *fs, struct inode *ptmx, int flags, struct file **out);
/* Open the slave of pty (node: the file's inode). EIO while the pair is
 * locked, EBUSY when exclusive. */
int pty_open_slave(struct pty *pty, struct inode *node, int flags, struct file **out);
/* TIOCGPTPEER: open master's slave with flags. -EIO when master is not a
 * pty master (but a terminal), -ENOTTY when it is no terminal. */
int pty_open_peer(struct file *master, int flags, struct file **out);

struct pty *pty_get(struct pty *pty);
void pty_put(struct pty *pty);

#endif
