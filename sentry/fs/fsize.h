/*
 * RLIMIT_FSIZE, applied to regular files as Linux applies it
 * (generic_write_check_limits, inode_newsize_ok): a write is cut at the
 * limit, and one that would start at or past it, or a truncate or
 * fallocate that would grow a file past it, fails with EFBIG after the
 * caller is sent SIGXFSZ.
 */
#ifndef RUNG_FSIZE_H
#define RUNG_FSIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct file;
struct inode;
struct task;

/* A write by t of *len bytes to f at pos (-1: f's position, or its end
 * for O_APPEND): 0 with *len cut to what the limit allows, or -EFBIG. */
long fsize_write_check(struct task *t, struct file *f, int64_t pos, size_t *len);
/* The same for a gather write: iov[0..*cnt) is cut to what the limit allows. */
long fsize_writev_check(struct task *t, struct file *f, int64_t pos, struct iovec *iov,
			uint64_t *cnt);
/* May t make inode (a regular file) size bytes long? 0 or -EFBIG. */
long fsize_grow_check(struct task *t, struct inode *inode, uint64_t size);

#endif
