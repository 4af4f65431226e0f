/* Process file descriptors (pidfd_open, CLONE_PIDFD): a file that names a
 * process, readable (POLLIN) once it has exited (Linux 6.1's pidfd_poll). */
#ifndef RUNG_PIDFD_H
#define RUNG_PIDFD_H

struct fdtable;
struct file;
struct thread_group;

/* A new pidfd for tg (a reference taken); flags: O_NONBLOCK. tg NULL: a
 * pidfd for a child clone is making (CLONE_PIDFD: the descriptor is
 * installed first, so that a full table fails the clone), named by
 * pidfd_set_process once it exists. */
struct file *pidfd_file_new(struct thread_group *tg, int flags);
void pidfd_set_process(struct file *f, struct thread_group *tg);
/* The process f names (no reference taken), or NULL when f is not a
 * pidfd, or not yet one of a process. */
struct thread_group *pidfd_tg(struct file *f);
/* The pidfd at descriptor fd of files (a reference; its process, kept by
 * it, in *tg), or NULL when fd is no pidfd (the syscalls' EBADF). */
struct file *pidfd_fget(struct fdtable *files, int fd, struct thread_group **tg);

#endif
