/* Copies between files inside the sentry: sendfile, copy_file_range. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#define COPY_CHUNK 65536

/*
 * Move up to len bytes from in (at *in_off, or its position when NULL) to out
 * (at *out_off or its position). Returns the bytes moved or -errno.
 */
static long copy_between(struct file *in, int64_t *in_off, struct file *out, int64_t *out_off,
			 size_t len)
{
	char *buf = xmalloc(COPY_CHUNK);
	size_t done = 0;
	long ret = 0;

	while (done < len) {
		size_t want = MIN(len - done, (size_t)COPY_CHUNK);
		long n, w, wrote = 0;
		if (in_off)
			n = in->ops->read(in, buf, want, in_off);
		else if (in->fmode & FMODE_ATPOS) {
			pthread_mutex_lock(&in->pos_lock);
			n = in->ops->read(in, buf, want, &in->pos);
			pthread_mutex_unlock(&in->pos_lock);
		} else
			n = in->ops->read(in, buf, want, NULL);
		if (n <= 0) {
			ret = n;
			break;
		}
		while (wrote < n) {
			if (out_off)
				w = out->ops->write(out, buf + wrote, (size_t)(n - wrote), out_off);
			else if (out->fmode & FMODE_ATPOS) {
				pthread_mutex_lock(&out->pos_lock);
				w = out->ops->write(out, buf + wrote, (size_t)(n - wrote),
						    &out->pos);
				pthread_mutex_unlock(&out->pos_lock);
			} else
				w = out->ops->write(out, buf + wrote, (size_t)(n - wrote), NULL);
			if (w <= 0) {
				ret = w;
				break;
			}
			wrote += w;
		}
		done += (size_t)wrote;
		if (wrote < n || (size_t)n < want)
			break;
	}
	free(buf);
	return done ? (long)done : ret;
}

SYSCALL(sendfile)
{
	struct file *out = fd_get(t->files, (int)a->a[0]), *in = fd_get(t->files, (int)a->a[1]);
	int64_t off = 0;
	long ret;

	if (!out || !in) {
		ret = -EBADF;
		goto done;
	}
	if (!flags_readable(file_getfl(in)) || !flags_writable(file_getfl(out)) || !in->ops->read ||
	    !out->ops->write) {
		ret = -EBADF;
		goto done;
	}
	if (file_getfl(out) & O_APPEND) {
		ret = -EINVAL;
		goto done;
	}
	if (a->a[2]) {
		if (mm_copy_in(t->mm, &off, a->a[2], sizeof(off)) < 0) {
			ret = -EFAULT;
			goto done;
		}
		if (off < 0 || !(in->fmode & FMODE_PREAD)) {
			ret = off < 0 ? -EINVAL : -ESPIPE;
			goto done;
		}
	}
	ret = copy_between(in, a->a[2] ? &off : NULL, out, NULL,
			   MIN(a->a[3], (uint64_t)0x7ffff000));
	if (ret >= 0 && a->a[2] && mm_copy_out(t->mm, a->a[2], &off, sizeof(off)) < 0)
		ret = -EFAULT;
done:
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return ret;
}

SYSCALL(copy_file_range)
{
	struct file *in = fd_get(t->files, (int)a->a[0]), *out = fd_get(t->files, (int)a->a[2]);
	int64_t ioff = 0, ooff = 0;
	long ret;

	if (a->a[5]) {
		ret = -EINVAL;
		goto done;
	}
	if (!out || !in) {
		ret = -EBADF;
		goto done;
	}
	if (!flags_readable(file_getfl(in)) || !flags_writable(file_getfl(out)) ||
	    (file_getfl(out) & O_APPEND)) {
		ret = -EBADF;
		goto done;
	}
	if (!in->inode || !out->inode || !S_ISREG(in->inode->mode) || !S_ISREG(out->inode->mode)) {
		ret = (in->inode && S_ISDIR(in->inode->mode)) ||
				      (out->inode && S_ISDIR(out->inode->mode))
			      ? -EISDIR
			      : -EINVAL;
		goto done;
	}
	if ((a->a[1] && mm_copy_in(t->mm, &ioff, a->a[1], sizeof(ioff)) < 0) ||
	    (a->a[3] && mm_copy_in(t->mm, &ooff, a->a[3], sizeof(ooff)) < 0)) {
		ret = -EFAULT;
		goto done;
	}
	if (ioff < 0 || ooff < 0) {
		ret = -EINVAL;
		goto done;
	}
	ret = copy_between(in, a->a[1] ? &ioff : NULL, out, a->a[3] ? &ooff : NULL,
			   MIN(a->a[4], (uint64_t)0x7ffff000));
	if (ret >= 0 && ((a->a[1] && mm_copy_out(t->mm, a->a[1], &ioff, sizeof(ioff)) < 0) ||
			 (a->a[3] && mm_copy_out(t->mm, a->a[3], &ooff, sizeof(ooff)) < 0)))
		ret = -EFAULT;
done:
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return ret;
}
