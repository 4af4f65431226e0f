/*
 * nsfs: the files /proc/PID/ns/NAME lead to. Each is a namespace held by a
 * reference (struct ns_ref), with the namespace's id as its inode number
 * on one internal filesystem, so that two links name the same namespace
 * exactly when stat gives the same st_dev and st_ino. An open one is what
 * setns(2) takes.
 */
#ifndef RUNG_NSFS_H
#define RUNG_NSFS_H

struct task;
struct path;
struct file;
struct ns_ref;

/* The nsfs path of t's namespace NAME (a new reference): 0 or -ENOENT. */
int nsfs_path(struct task *t, const char *name, struct path *out);
/* The namespace an open nsfs file holds, or NULL for any other file. */
const struct ns_ref *nsfs_file_ns(struct file *f);

#endif
