/* Advisory locks: POSIX record locks, OFD locks and flock(2). */
#ifndef RUNG_LOCKS_H
#define RUNG_LOCKS_H

#include <fcntl.h>
#include <stdbool.h>

struct file;
struct inode;

/* fcntl F_GETLK/F_SETLK/F_SETLKW and the F_OFD_* forms; fl is in/out.
 * posix_owner identifies the calling process, pid is reported by F_GETLK. */
int locks_fcntl(struct file *f, int cmd, struct flock *fl, const void *posix_owner, int pid);
int locks_flock(struct file *f, int op);
/* fcntl F_SETLEASE (type F_RDLCK, F_WRLCK, F_UNLCK; may_lease: the caller
 * owns the file or has CAP_LEASE) and F_GETLEASE, for the description f. */
int locks_setlease(struct file *f, long type, bool may_lease);
int locks_getlease(struct file *f);
/* A process closed a descriptor of f: its POSIX locks on the file go. */
void locks_remove_posix(struct file *f, const void *owner);
/* The description f is released: its OFD and flock locks go. */
void locks_remove_file(struct file *f);
void locks_inode_release(struct inode *inode);

#endif
