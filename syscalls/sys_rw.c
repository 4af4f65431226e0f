/*
 * read, write and friends. Data moves through a per-thread bounce buffer:
 * the host call may block, and guest memory is never borrowed across a
 * blocking call (that would hold the address space's lock).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/signal.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fsize.h"
#include "sentry/vfs/fsnotify.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BOUNCE_SIZE 65536

static __thread char bounce[BOUNCE_SIZE];

/* A write that hit a closed pipe earns the writer SIGPIPE, as on Linux. */
long write_result(struct task *t, long n)
{
	if (n == -EPIPE) {
		siginfo_t info;
		siginfo_kernel(&info, SIGPIPE);
		info.si_code = SI_USER; /* Linux's send_sig: from the kernel, as kill() */
		info.si_pid = 0;
		signal_send(t, &info, false);
	}
	return n;
}

/*
 * One read or write on f: at the file position (off < 0, for files that
 * have one, under the position lock), at off (pread/pwrite), or on a stream.
 */
static long file_io(struct file *f, void *buf, size_t len, int64_t off, bool write)
{
	long n;

	if (off >= 0) {
		int64_t pos = off;
		return write ? f->ops->write(f, buf, len, &pos) : f->ops->read(f, buf, len, &pos);
	}
	if (!(f->fmode & FMODE_ATPOS))
		return write ? f->ops->write(f, buf, len, NULL) : f->ops->read(f, buf, len, NULL);
	pthread_mutex_lock(&f->pos_lock);
	n = write ? f->ops->write(f, buf, len, &f->pos) : f->ops->read(f, buf, len, &f->pos);
	pthread_mutex_unlock(&f->pos_lock);
	return n;
}

/* I/O straight between a host descriptor and pinned guest memory. */
static long file_io_direct(struct task *t, struct file *f, uint64_t buf, size_t len, int64_t off,
			   bool write)
{
	struct mm_pin pin;
	int64_t pos = off, *at = off >= 0 ? &pos : NULL;
	long n;

	mm_pin(t->mm, buf, len, !write, &pin);
	if (!at && (f->fmode & FMODE_ATPOS)) {
		pthread_mutex_lock(&f->pos_lock);
		at = &f->pos;
	}
	n = write ? f->ops->write_iov(f, pin.iov, pin.n, at)
		  : f->ops->read_iov(f, pin.iov, pin.n, at);
	if (at == &f->pos)
		pthread_mutex_unlock(&f->pos_lock);
	mm_unpin(&pin);
	return n;
}

/* Directories read as EISDIR (Linux's generic_read_dir); other files
 * without a read op as EINVAL. */
static bool is_dir(struct file *f)
{
	return f->inode && S_ISDIR(f->inode->mode);
}

/* Does a read of f fill the whole buffer on Linux, without ever blocking
 * (regular files, and the memory devices /dev/zero, /dev/urandom, ...)?
 * Then a read larger than the bounce buffer goes on past it. */
static bool reads_fill(struct file *f)
{
	return f->inode && (S_ISREG(f->inode->mode) ||
			    (S_ISCHR(f->inode->mode) && (f->inode->rdev >> 8) == 1 /* mem */));
}

static long do_read_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	int flags = file_getfl(f);
	size_t chunk, copied, total = 0;
	long n;

	if (flags < 0)
		return flags;
	if (!flags_readable(flags))
		return -EBADF;
	if (!f->ops->read && !is_dir(f))
		return -EINVAL;
	if (!mm_range_ok(buf, count))
		return -EFAULT;
	if (!f->ops->read)
		return -EISDIR;
	if (count == 0)
		return 0;
	if (f->ops->read_guest && off < 0) {
		struct iovec v = {(void *)(uintptr_t)buf, MIN(count, (size_t)MAX_RW_COUNT)};
		return f->ops->read_guest(f, t, &v, 1);
	}
	if (f->ops->read_iov)
		return file_io_direct(t, f, buf, MIN(count, (size_t)MAX_RW_COUNT), off, false);
	count = MIN(count, (size_t)MAX_RW_COUNT);
	do {
		chunk = MIN(count - total, (size_t)BOUNCE_SIZE);
		/* Like Linux, the buffer is only touched when there is data to
		 * copy (a read at end of file into a bad pointer returns 0). */
		n = file_io(f, bounce, chunk, off < 0 ? off : off + (int64_t)total, false);
		if (n <= 0)
			return total ? (long)total : n;
		copied = mm_copy_out_partial(t->mm, buf + total, bounce, (size_t)n);
		total += copied;
		if (copied < (size_t)n)
			return total ? (long)total : -EFAULT;
	} while ((size_t)n == chunk && total < count && reads_fill(f) && !task_signal_pending(t));
	return (long)total;
}

static long do_write_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	int flags = file_getfl(f);
	size_t total = 0;
	long ret;

	if (flags < 0)
		return flags;
	if (!flags_writable(flags))
		return -EBADF;
	if (!f->ops->write)
		return -EINVAL;
	if (!mm_range_ok(buf, count))
		return -EFAULT;
	count = MIN(count, (size_t)MAX_RW_COUNT);
	ret = fsize_write_check(t, f, off, &count);
	if (ret)
		return ret;
	if (f->ops->write_guest && off < 0) {
		struct iovec v = {(void *)(uintptr_t)buf, count};
		return f->ops->write_guest(f, t, &v, 1);
	}
	if (f->ops->write_iov && count) {
		long n = file_io_direct(t, f, buf, count, off, true);
		return n < 0 ? write_result(t, n) : n;
	}
	while (total < count) {
		size_t chunk = MIN(count - total, (size_t)BOUNCE_SIZE);
		size_t got = mm_copy_in_partial(t->mm, bounce, buf + total, chunk);
		long n;
		if (got == 0)
			return total ? (long)total : -EFAULT;
		n = file_io(f, bounce, got, off < 0 ? -1 : off + (int64_t)total, true);
		if (n < 0) {
			/* Cut short by a pipe's last reader: SIGPIPE all the same. */
			write_result(t, n);
			return total ? (long)total : n;
		}
		total += (size_t)n;
		if ((size_t)n < got || got < chunk)
			break;
	}
	return (long)total;
}

/* read and write, counted in the caller's I/O accounting (/proc/<pid>/io). */
static long do_read(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	long ret = do_read_file(t, f, buf, count, off);

	task_io_read(t, ret);
	return ret;
}

static long do_write(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	long ret = do_write_file(t, f, buf, count, off);

	task_io_write(t, ret);
	return ret;
}

SYSCALL(read)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = do_read(t, f, a->a[1], a->a[2], -1);
	if (ret > 0) {
		fsnotify_access(f);
		file_accessed(f);
	}
	file_put(f);
	return ret;
}

SYSCALL(write)
{
	struct file *f = fd_get(t->files, (int)a->a[0]);
	long ret;

	if (!f)
		return -EBADF;
	ret = do_write(t, f, a->a[1], a->a[2], -1);
	if (ret > 0)
		fsnotify_modify(f);
	file_put(f);
	return ret;
}

/* pread64 and pwrite64: fd, buf, count, pos. */
static long do_prw(struct task *t, const struct syscall_args *a, bool write)
{
	struct file *f;
	long ret;

	if ((int64_t)a->a[3] < 0)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	if (!(f->fmode & FMODE_PREAD))
		ret = -ESPIPE;
	else if (write)
		ret = do_write(t, f, a->a[1], a->a[2], (int64_t)a->a[3]);
	else
		ret = do_read(t, f, a->a[1], a->a[2], (int64_t)a->a[3]);
	if (ret > 0 && write) {
		fsnotify_modify(f);
	} else if (ret > 0) {
		fsnotify_access(f);
		file_accessed(f);
	}
	file_put(f);
	return ret;
}

SYSCALL(pread64)
{
	return do_prw(t, a, false);
}

SYSCALL(pwrite64)
{
	return do_prw(t, a, true);
}

/* Copy in and check an iovec array; returns the total length (clipped) or -errno. */
long iov_import(struct task *t, uint64_t uiov, uint64_t cnt, struct iovec *iov)
{
	size_t total = 0;

	if (cnt > GUEST_IOV_MAX)
		return -EINVAL;
	if (cnt && mm_copy_in(t->mm, iov, uiov, cnt * sizeof(*iov)) < 0)
		return -EFAULT;
	for (size_t i = 0; i < cnt; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		if (!mm_range_ok((uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len))
			return -EFAULT;
		if (iov[i].iov_len > MAX_RW_COUNT - total)
			iov[i].iov_len = MAX_RW_COUNT - total;
		total += iov[i].iov_len;
	}
	return (long)total;
}

/*
 * readv/writev on a host descriptor: pin every guest iovec and hand the host
 * one vector; it stops at the first bad segment as Linux would.
 */
static long iov_direct(struct task *t, struct file *f, const struct iovec *iov, size_t cnt,
		       int64_t off, bool write)
{
	struct mm_pin *pins = xmalloc(cnt * sizeof(*pins));
	struct iovec *host = xmalloc(cnt * MM_PIN_SEGS * sizeof(*host));
	int64_t pos = off;
	size_t npins = 0;
	int nhost = 0;
	long n;

	for (size_t i = 0; i < cnt; i++) {
		struct mm_pin *p = &pins[npins];
		size_t got = 0;
		if (!iov[i].iov_len)
			continue;
		mm_pin(t->mm, (uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len, !write, p);
		npins++;
		for (int k = 0; k < p->n; k++) {
			host[nhost++] = p->iov[k];
			got += p->iov[k].iov_len;
		}
		/* A segment that ends short (or is the unreachable placeholder) ends the vector. */
		if (!p->objs[0] || got < iov[i].iov_len)
			break;
	}
	if (nhost == 0) {
		n = 0;
	} else {
		int64_t *at = off >= 0 ? &pos : NULL;
		if (!at && (f->fmode & FMODE_ATPOS)) {
			pthread_mutex_lock(&f->pos_lock);
			at = &f->pos;
		}
		n = write ? f->ops->write_iov(f, host, nhost, at)
			  : f->ops->read_iov(f, host, nhost, at);
		if (at == &f->pos)
			pthread_mutex_unlock(&f->pos_lock);
	}
	for (size_t i = 0; i < npins; i++)
		mm_unpin(&pins[i]);
	free(pins);
	free(host);
	return n;
}

/* preadv2/pwritev2 flags (linux/fs.h): Linux's RWF_SUPPORTED. */
#define RWF_HIPRI_     0x01
#define RWF_DSYNC_     0x02
#define RWF_SYNC_      0x04
#define RWF_NOWAIT_    0x08
#define RWF_APPEND_    0x10
#define RWF_SUPPORTED_ 0x1f

/*
 * What the RWF_* flags ask before the I/O: RWF_NOWAIT is for regular files
 * only (whose I/O here never waits for more than the host file), and
 * RWF_APPEND writes at the end of the file (*off then names it; with no
 * offset the position moves there, as after an O_APPEND write).
 */
static long rwf_prepare(struct file *f, unsigned rwf, int64_t *off)
{
	struct kstat st;
	long ret;

	if ((rwf & RWF_NOWAIT_) && !(f->inode && S_ISREG(f->inode->mode)))
		return -EOPNOTSUPP;
	if (!(rwf & RWF_APPEND_) || !f->inode || !S_ISREG(f->inode->mode))
		return 0;
	ret = file_stat(f, &st);
	if (ret)
		return ret;
	if (*off >= 0 || !(f->fmode & FMODE_ATPOS)) {
		*off = (int64_t)st.size;
	} else {
		pthread_mutex_lock(&f->pos_lock);
		f->pos = (int64_t)st.size;
		pthread_mutex_unlock(&f->pos_lock);
	}
	return 0;
}

/* readv/preadv: one read into the bounce buffer, scattered to the iovecs.
 * Takes the reference on f. */
static long readv_file(struct task *t, struct file *f, const struct iovec *iov, size_t cnt,
		       long total, int64_t off, unsigned rwf)
{
	size_t want, done = 0, i;
	long n;
	int flags;

	/* do_preadv: a file without positions is ESPIPE before anything else */
	if (off >= 0 && !(f->fmode & FMODE_PREAD)) {
		file_put(f);
		return -ESPIPE;
	}
	flags = file_getfl(f);
	if (flags < 0 || !flags_readable(flags)) {
		file_put(f);
		return flags < 0 ? flags : -EBADF;
	}
	if (!f->ops->read) {
		file_put(f);
		return !is_dir(f) ? -EINVAL : total ? -EISDIR : 0;
	}
	if ((rwf & RWF_NOWAIT_) && !(f->inode && S_ISREG(f->inode->mode))) {
		file_put(f);
		return -EOPNOTSUPP;
	}
	if (f->ops->read_guest) {
		n = total ? f->ops->read_guest(f, t, iov, (int)cnt) : 0;
		file_put(f);
		return n;
	}
	if (f->ops->read_iov) {
		n = iov_direct(t, f, iov, cnt, off, false);
		if (n > 0) {
			fsnotify_access(f);
			file_accessed(f);
		}
		file_put(f);
		return n;
	}
	want = MIN((size_t)total, (size_t)BOUNCE_SIZE);
	n = want ? file_io(f, bounce, want, off, false) : 0;
	if (n > 0) {
		fsnotify_access(f);
		file_accessed(f);
	}
	file_put(f);
	if (n <= 0)
		return n;
	for (i = 0; i < cnt && done < (size_t)n; i++) {
		size_t part = MIN(iov[i].iov_len, (size_t)n - done);
		size_t c = mm_copy_out_partial(t->mm, (uint64_t)(uintptr_t)iov[i].iov_base,
					       bounce + done, part);
		done += c;
		if (c < part)
			break;
	}
	return done ? (long)done : -EFAULT;
}

static long do_readv(struct task *t, int fd, uint64_t uiov, uint64_t cnt, int64_t off, unsigned rwf)
{
	struct iovec iov[GUEST_IOV_MAX];
	struct file *f;
	long total;

	total = iov_import(t, uiov, cnt, iov);
	if (total < 0)
		return total;
	f = fd_get(t->files, fd);
	if (!f)
		return -EBADF;
	total = readv_file(t, f, iov, (size_t)cnt, total, off, rwf);
	task_io_read(t, total);
	return total;
}

long rw_readv_file(struct task *t, struct file *f, const struct iovec *iov, size_t cnt, long total,
		   int64_t off, unsigned rwf)
{
	return readv_file(t, file_get(f), iov, cnt, total, off, rwf);
}

/* Gather the iovecs into the bounce buffer and write in as few calls as
 * possible, so that small writev()s stay atomic. */
static long gather_write(struct task *t, struct file *f, const struct iovec *iov, size_t cnt,
			 int64_t off)
{
	size_t i, filled = 0, written = 0, at = 0;
	bool fault = false;
	long n;

	for (i = 0; i < cnt && !fault;) {
		size_t part = MIN(iov[i].iov_len - at, (size_t)BOUNCE_SIZE - filled);
		size_t c = mm_copy_in_partial(t->mm, bounce + filled,
					      (uint64_t)(uintptr_t)iov[i].iov_base + at, part);
		filled += c;
		at += c;
		if (c < part)
			fault = true;
		if (at == iov[i].iov_len) {
			i++;
			at = 0;
		}
		if (filled == BOUNCE_SIZE || fault || i == cnt) {
			if (!filled)
				break;
			n = file_io(f, bounce, filled, off < 0 ? -1 : off + (int64_t)written, true);
			if (n < 0 && written)
				write_result(t, n); /* SIGPIPE after a partial write too */
			if (n < 0)
				return written ? (long)written : n;
			written += (size_t)n;
			if ((size_t)n < filled)
				break;
			filled = 0;
		}
	}
	if (fault && !written)
		return -EFAULT;
	return (long)written;
}

/* writev/pwritev/pwritev2 (rwf: its RWF_* flags) on f, whose reference it takes. */
static long writev_file(struct task *t, struct file *f, struct iovec *iov, size_t cnt, int64_t off,
			unsigned rwf)
{
	long n;
	int flags;

	flags = file_getfl(f);
	if (off >= 0 && !(f->fmode & FMODE_PREAD))
		n = -ESPIPE;
	else if (flags < 0 || !flags_writable(flags))
		n = flags < 0 ? flags : -EBADF;
	else if (!f->ops->write)
		n = -EINVAL;
	else
		n = rwf_prepare(f, rwf, &off);
	if (n == 0)
		n = fsize_writev_check(t, f, off, iov, &cnt);
	if (n == 0 && f->ops->write_guest) {
		/* sockets: SIGPIPE and blocking are the file's business */
		n = f->ops->write_guest(f, t, iov, (int)cnt);
	} else if (n == 0) {
		n = f->ops->write_iov ? iov_direct(t, f, iov, cnt, off, true)
				      : gather_write(t, f, iov, cnt, off);
		/* RWF_DSYNC and RWF_SYNC: as if the file were O_DSYNC or O_SYNC. */
		if (n > 0 && (rwf & (RWF_DSYNC_ | RWF_SYNC_)) && f->ops->fsync) {
			int err = f->ops->fsync(f, !(rwf & RWF_SYNC_));
			if (err)
				n = err;
		}
		n = n < 0 ? write_result(t, n) : n;
	}
	if (n > 0)
		fsnotify_modify(f);
	file_put(f);
	return n;
}

static long do_writev(struct task *t, int fd, uint64_t uiov, uint64_t cnt, int64_t off,
		      unsigned rwf)
{
	struct iovec iov[GUEST_IOV_MAX];
	struct file *f;
	long total;

	total = iov_import(t, uiov, cnt, iov);
	if (total < 0)
		return total;
	f = fd_get(t->files, fd);
	if (!f)
		return -EBADF;
	total = writev_file(t, f, iov, (size_t)cnt, off, rwf);
	task_io_write(t, total);
	return total;
}

long rw_writev_file(struct task *t, struct file *f, const struct iovec *iov, size_t cnt,
		    int64_t off, unsigned rwf)
{
	struct iovec copy[GUEST_IOV_MAX];

	memcpy(copy, iov, cnt * sizeof(*iov));
	return writev_file(t, file_get(f), copy, cnt, off, rwf);
}

long rw_read_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	long ret = do_read(t, f, buf, count, off);

	if (ret > 0) {
		fsnotify_access(f);
		file_accessed(f);
	}
	return ret;
}

long rw_write_file(struct task *t, struct file *f, uint64_t buf, size_t count, int64_t off)
{
	long ret = do_write(t, f, buf, count, off);

	if (ret > 0)
		fsnotify_modify(f);
	return ret;
}

SYSCALL(readv)
{
	return do_readv(t, (int)a->a[0], a->a[1], a->a[2], -1, 0);
}

SYSCALL(writev)
{
	return do_writev(t, (int)a->a[0], a->a[1], a->a[2], -1, 0);
}

/* preadv/pwritev pass the offset as (low, high); on 64-bit the low half is all of it. */
SYSCALL(preadv)
{
	int64_t off = (int64_t)a->a[3];

	return off < 0 ? -EINVAL : do_readv(t, (int)a->a[0], a->a[1], a->a[2], off, 0);
}

SYSCALL(pwritev)
{
	int64_t off = (int64_t)a->a[3];

	return off < 0 ? -EINVAL : do_writev(t, (int)a->a[0], a->a[1], a->a[2], off, 0);
}

/* preadv2/pwritev2: an offset of -1 is the file position. RWF_HIPRI is a
 * hint; RWF_APPEND means nothing to a read (Linux accepts it there too). */
SYSCALL(preadv2)
{
	int64_t off = (int64_t)a->a[3];
	uint64_t flags = a->a[5];

	if (flags & ~(uint64_t)RWF_SUPPORTED_)
		return -EOPNOTSUPP;
	if (off < -1)
		return -EINVAL;
	return do_readv(t, (int)a->a[0], a->a[1], a->a[2], off, (unsigned)flags);
}

SYSCALL(pwritev2)
{
	int64_t off = (int64_t)a->a[3];
	uint64_t flags = a->a[5];

	if (flags & ~(uint64_t)RWF_SUPPORTED_)
		return -EOPNOTSUPP;
	if (off < -1)
		return -EINVAL;
	return do_writev(t, (int)a->a[0], a->a[1], a->a[2], off, (unsigned)flags);
}

SYSCALL(lseek)
{
	int whence = (int)a->a[2];
	struct file *f;
	int64_t ret;

	if (a->a[2] > SEEK_HOLE)
		return -EINVAL;
	f = fd_get(t->files, (int)a->a[0]);
	if (!f)
		return -EBADF;
	if (!(f->fmode & (FMODE_PREAD | FMODE_LSEEK))) {
		ret = -ESPIPE;
	} else if (!(f->fmode & FMODE_ATPOS)) {
		/* The position lives on the host. */
		ret = f->ops->llseek ? f->ops->llseek(f, (int64_t)a->a[1], whence) : -ESPIPE;
	} else {
		pthread_mutex_lock(&f->pos_lock);
		if (f->ops->llseek)
			ret = f->ops->llseek(f, (int64_t)a->a[1], whence);
		else
			ret = generic_llseek(f, (int64_t)a->a[1], whence,
					     f->inode ? (int64_t)f->inode->size : 0);
		if (ret >= 0)
			f->pos = ret;
		pthread_mutex_unlock(&f->pos_lock);
	}
	file_put(f);
	return ret;
}
