/*
 * Open file descriptions and descriptor tables.
 *
 * struct file is what a guest fd refers to: reference counted, shared by
 * dup() and fork(), with an ops table per kind (host-backed, pipe, ...).
 * Ops return a result or -errno and never touch guest memory: the syscall
 * layer copies in and out.
 */
#ifndef RUNG_FILE_H
#define RUNG_FILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct task;
struct file;

struct file_ops {
	/* off < 0: read at (and advance) the file position; else pread at off. */
	long (*read)(struct file *f, void *buf, size_t len, int64_t off);
	long (*write)(struct file *f, const void *buf, size_t len, int64_t off);
	int64_t (*llseek)(struct file *f, int64_t off, int whence);
	int (*fstat)(struct file *f, struct stat *st);
	/* ioctl with the argument already copied in/out by the caller when it
	 * is a known fixed-size structure: arg points to a sentry buffer. */
	long (*ioctl)(struct file *f, unsigned long cmd, void *arg);
	/* The file status flags (O_APPEND, O_NONBLOCK, access mode ...). */
	int (*getfl)(struct file *f);
	int (*setfl)(struct file *f, int flags);
	void (*release)(struct file *f);
};

struct file {
	int refs;
	const struct file_ops *ops;
	int flags; /* O_ACCMODE | status flags, for files that keep their own */
	void *priv;
};

struct file *file_alloc(const struct file_ops *ops, int flags, void *priv);
struct file *file_get(struct file *f);
void file_put(struct file *f);

/* The file's status flags, from the host for host-backed files. */
int file_getfl(struct file *f);

/* Access modes of status flags (O_RDONLY 0, O_WRONLY 1, O_RDWR 2; 3 is neither). */
static inline bool flags_readable(int flags)
{
	return (flags & 3) == 0 || (flags & 3) == 2;
}

static inline bool flags_writable(int flags)
{
	return (flags & 3) == 1 || (flags & 3) == 2;
}

/* A guest file over a host descriptor (the inherited stdio). Takes hostfd. */
struct file *hostfile_new(int hostfd);

/* --- descriptor tables ----------------------------------------------------- */

struct fd_entry {
	struct file *file;
	bool cloexec;
};

struct fdtable {
	int refs;
	pthread_mutex_t lock;
	unsigned size; /* slots in fds */
	struct fd_entry *fds;
};

struct fdtable *fdtable_new(void);
void fdtable_put(struct fdtable *t);

/* Install f at the lowest free fd >= minfd below limit; takes a reference.
 * Returns the fd or -EMFILE. */
int fd_install(struct fdtable *t, struct file *f, int minfd, bool cloexec, unsigned limit);
/* Put f at exactly fd (closing what was there). Returns fd or -errno. */
int fd_install_at(struct fdtable *t, struct file *f, int fd, bool cloexec, unsigned limit);
/* The file at fd with a new reference, or NULL. */
struct file *fd_get(struct fdtable *t, int fd);
int fd_close(struct fdtable *t, int fd);
int fd_get_cloexec(struct fdtable *t, int fd);
int fd_set_cloexec(struct fdtable *t, int fd, bool cloexec);

#endif
