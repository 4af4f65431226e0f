/*
 * Open file descriptions and descriptor tables.
 *
 * struct file is what a guest fd refers to: reference counted, shared by
 * dup() and fork(), with an ops table per kind (host-backed, tmpfs, gofer,
 * proc, device ...). Ops return a result or -errno and never touch guest
 * memory: the syscall layer copies in and out.
 */
#ifndef RUNG_FILE_H
#define RUNG_FILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "sentry/vfs/vfs.h"

struct task;
struct creds;
struct file;
struct epitems_head;
struct fown;
struct kstat;
struct pagestore;
struct strbuf;
struct waitq;

/*
 * What poll, select and epoll hand a file's poll op: the op calls
 * poll_wait() for every wait queue whose wake-ups may change the file's
 * readiness, then returns the readiness now.
 */
struct poll_table {
	void (*queue)(struct poll_table *pt, struct waitq *wq);
	/* The events the caller waits for (POLL*; 0: any). A poll op may use
	 * it to limit what it asks of others (a host descriptor's poller). */
	unsigned key;
};

static inline void poll_wait(struct poll_table *pt, struct waitq *wq)
{
	if (pt && pt->queue)
		pt->queue(pt, wq);
}

/* What getdents hands each entry to; returns false when the buffer is full. */
struct dir_emitter {
	bool (*emit)(struct dir_emitter *e, const char *name, size_t namelen, uint64_t ino,
		     unsigned type, int64_t next);
};

struct file_ops {
	/*
	 * Read or write at *pos and advance it; pos is NULL for files without a
	 * position (pipes, terminals, inherited host streams).
	 */
	long (*read)(struct file *f, void *buf, size_t len, int64_t *pos);
	long (*write)(struct file *f, const void *buf, size_t len, int64_t *pos);
	/* The same on host-visible memory (guest pages pinned by mm_pin), for
	 * files a host descriptor backs: no copy through the sentry. Optional. */
	long (*read_iov)(struct file *f, const struct iovec *iov, int n, int64_t *pos);
	long (*write_iov)(struct file *f, const struct iovec *iov, int n, int64_t *pos);
	/* read/write/readv/writev straight on guest memory (iov: guest
	 * addresses the caller range-checked), for files that must see a whole
	 * request at once (a datagram is one message however long). Used
	 * instead of read/write when set; raises SIGPIPE itself. Optional. */
	long (*read_guest)(struct file *f, struct task *t, const struct iovec *iov, int n);
	long (*write_guest)(struct file *f, struct task *t, const struct iovec *iov, int n);
	/* The new position (the caller stores it) or -errno. NULL: default rules. */
	int64_t (*llseek)(struct file *f, int64_t off, int whence);
	int (*fstat)(struct file *f, struct kstat *st);
	/* Directory entries from f->pos on; updates f->pos. 0 at the end, or -errno. */
	int (*getdents)(struct file *f, struct dir_emitter *e);
	/* ioctl with a fixed-size argument already copied to the sentry buffer arg. */
	long (*ioctl)(struct file *f, unsigned long cmd, void *arg);
	/* The file status flags (O_APPEND, O_NONBLOCK, access mode ...). */
	int (*getfl)(struct file *f);
	int (*setfl)(struct file *f, int flags);
	int (*fsync)(struct file *f, bool datasync);
	/* MAP_SHARED: the page store that holds the bytes [off, off+len) (tmpfs
	 * data, a host file's page cache), filled, and the lock that guards it.
	 * writable: the mapping may store to them. NULL: shared mappings are not
	 * supported (private ones copy through read). */
	int (*pages)(struct file *f, uint64_t off, uint64_t len, bool writable,
		     struct pagestore **ps, pthread_mutex_t **lock);
	/* Write shared-mapped pages of [off, off+len) back to the file (msync,
	 * munmap). NULL: the store is the file (tmpfs). */
	int (*writeback)(struct file *f, uint64_t off, uint64_t len);
	int (*fallocate)(struct file *f, int mode, int64_t off, int64_t len);
	/* Readiness now (POLLIN, POLLOUT, POLLHUP, ...); with pt, also queue on
	 * what may change it. NULL: always ready for reading and writing
	 * (regular files). Wakers use waitq_wake_events() with the new events. */
	unsigned (*poll)(struct file *f, struct poll_table *pt);
	/* The lines /proc/<pid>/fdinfo/<n> adds for this kind of file
	 * (Linux's show_fdinfo). Optional. */
	void (*show_fdinfo)(struct file *f, struct strbuf *o);
	void (*release)(struct file *f);
};

/* f->fmode */
#define FMODE_ATPOS 0x1 /* reads and writes without an offset use f->pos */
#define FMODE_PREAD 0x2 /* pread/pwrite/lseek are allowed */
#define FMODE_LSEEK 0x4 /* lseek alone is allowed (noop_llseek: epoll, eventfd, timerfd) */
#define FMODE_PATH  0x8 /* O_PATH: a position in the tree and nothing else */
/* Opened by path: reports access, change and close (sentry/vfs/fsnotify.h). */
#define FMODE_NOTIFY	   0x10
#define FMODE_NOTIFY_WRITE 0x20 /* its close is IN_CLOSE_WRITE */

struct file {
	int refs;
	const struct file_ops *ops;
	int flags;	/* O_ACCMODE | status flags, for files that keep their own */
	unsigned fmode; /* FMODE_* */
	void *priv;
	struct path path;    /* where it was opened from (both NULL for anonymous files) */
	struct inode *inode; /* referenced when set */
	pthread_mutex_t pos_lock;
	int64_t pos;
	/* Linux's f_version: a pipe reader keeps the count of writer opens it
	 * saw, to know when to report POLLHUP. */
	unsigned version;
	struct epitems_head *f_ep; /* the epoll entries that watch this file */
	struct fown *fown;	   /* F_SETOWN, F_SETSIG, O_ASYNC (fasync.h), or NULL */
};

struct file *file_alloc(const struct file_ops *ops, int flags, void *priv);
struct file *file_get(struct file *f);
void file_put(struct file *f);
/* Attach the path (and its inode) a file was opened from; takes references. */
void file_set_path(struct file *f, const struct path *p);

/* A device number as Linux keeps it inside the kernel (MAJOR << 20 |
 * MINOR), the sdev that fdinfo lines print. */
static inline unsigned kdev_of(uint64_t dev)
{
	unsigned major = (unsigned)(((dev >> 32) & ~0xfffull) | ((dev >> 8) & 0xfff));
	unsigned minor = (unsigned)(((dev >> 12) & ~0xffull) | (dev & 0xff));

	return major << 20 | minor;
}

/* The file's status flags, from the host for host-backed files. */
int file_getfl(struct file *f);

/* Linux's O_LARGEFILE: glibc defines O_LARGEFILE as 0 on x86-64, where the
 * kernel still keeps this bit in the status flags of files open() made. */
#define KO_LARGEFILE 0100000

/* Access modes of status flags (O_RDONLY 0, O_WRONLY 1, O_RDWR 2; 3 is neither). */
static inline bool flags_readable(int flags)
{
	return (flags & 3) == 0 || (flags & 3) == 2;
}

static inline bool flags_writable(int flags)
{
	return (flags & 3) == 1 || (flags & 3) == 2;
}

/* One read or write of f at *off (advanced), or with off NULL at its
 * position (FMODE_ATPOS, under its lock) or on its stream. */
long file_read_at(struct file *f, void *buf, size_t len, int64_t *off);
long file_write_at(struct file *f, const void *buf, size_t len, int64_t *off);

/* f's poll op, or the default readiness of files that have none. */
unsigned file_poll(struct file *f, struct poll_table *pt);
/* Can f be watched by epoll (it has a poll op)? */
static inline bool file_can_poll(struct file *f)
{
	return f->ops->poll != NULL;
}

/* A read through f returned data: its atime moves as the mount's atime
 * mode says (Linux's file_accessed; O_NOATIME: never). */
void file_accessed(struct file *f);

/* Default lseek for files with a size: SEEK_SET/CUR/END, DATA/HOLE as one extent. */
int64_t generic_llseek(struct file *f, int64_t off, int whence, int64_t size);

/* A guest file over a host descriptor (the inherited stdio). Takes hostfd. */
struct file *hostfile_new(int hostfd);
/* Is f a file over a host stream (for /proc/self/fd links)? Returns the host fd or -1. */
int hostfile_fd(struct file *f);
/* A path that opens the host stream of f again (a duplicate of its host
 * descriptor, see hostfile.c), for the task with credentials c. */
int hostfile_reopen_path(struct file *f, const struct creds *c, struct path *out);

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
struct fdtable *fdtable_get(struct fdtable *t);
void fdtable_put(struct fdtable *t);
/* A copy for fork (every open fd, same files). */
struct fdtable *fdtable_dup(struct fdtable *t);

/* Install f at the lowest free fd >= minfd below limit; takes a reference.
 * Returns the fd or -EMFILE. */
int fd_install(struct fdtable *t, struct file *f, int minfd, bool cloexec, unsigned limit);
/* Put f at exactly fd (closing what was there). Returns fd or -errno. */
int fd_install_at(struct fdtable *t, struct file *f, int fd, bool cloexec, unsigned limit);
/*
 * The file at fd with a new reference, or NULL. As Linux's fdget, fd_get
 * does not see O_PATH descriptors (the caller answers EBADF); fd_get_raw
 * (Linux's fdget_raw) does, for the calls that work on them: dup*, fcntl's
 * descriptor commands, fstat, fstatfs, fchdir, and the *at() starting points.
 */
struct file *fd_get(struct fdtable *t, int fd);
struct file *fd_get_raw(struct fdtable *t, int fd);
int fd_close(struct fdtable *t, int fd);
/* close_range(2): close (or mark close-on-exec) every fd in [lo, hi]. */
void fd_close_range(struct fdtable *t, unsigned lo, unsigned hi, bool cloexec_only);
/* Close every close-on-exec fd (execve). */
void fd_close_on_exec(struct fdtable *t);
int fd_get_cloexec(struct fdtable *t, int fd);
int fd_set_cloexec(struct fdtable *t, int fd, bool cloexec);
/* Call fn for each open fd (for /proc/pid/fd) under the table lock. */
void fd_for_each(struct fdtable *t, void (*fn)(int fd, struct file *f, void *arg), void *arg);

#endif
