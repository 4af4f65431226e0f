/*
 * Anonymous files: epoll, eventfd, timerfd (and whatever else has no name
 * in any filesystem). As on Linux they share one inode (mode 0600, no file
 * type) on an internal "anon_inodefs", and /proc/pid/fd shows them as
 * "anon_inode:[name]".
 */
#ifndef RUNG_ANON_H
#define RUNG_ANON_H

#include <stdbool.h>

struct file;
struct file_ops;

/* A new file of kind name ("[eventfd]") with ops, status flags and priv. */
struct file *anon_file_new(const char *name, const struct file_ops *ops, int flags, void *priv);
/* The kind of an anonymous file ("[eventfd]"), or NULL for other files. */
const char *anon_file_name(struct file *f);

#endif
