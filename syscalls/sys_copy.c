/* Copies between files inside the sentry: sendfile, copy_file_range. */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/fsize.h"
#include "sentry/vfs/fsnotify.h"
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
		n = file_read_at(in, buf, want, in_off);
		if (n <= 0) {
			ret = n;
			break;
		}
		while (wrote < n) {
			w = file_write_at(out, buf + wrote, (size_t)(n - wrote), out_off);
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
	if (done) {
		fsnotify_access(in);
		fsnotify_modify(out);
	}
	return done ? (long)done : ret;
}

SYSCALL(sendfile)
{
	struct file *out = fd_get(t->files, (int)a->a[0]), *in = fd_get(t->files, (int)a->a[1]);
	size_t want = MIN(a->a[3], (uint64_t)0x7ffff000), count = want;
	int64_t off = 0;
	long ret;

	/* do_sendfile's order: the input, its offset and the count
	 * (rw_verify_area), then the output; a file without read (a
	 * directory) or write has no splice op: EINVAL. */
	if (!in || !flags_readable(file_getfl(in))) {
		ret = -EBADF;
		goto done;
	}
	if (a->a[2]) {
		if (mm_copy_in(t->mm, &off, a->a[2], sizeof(off)) < 0) {
			ret = -EFAULT;
			goto done;
		}
		if (!(in->fmode & FMODE_PREAD)) {
			ret = -ESPIPE;
			goto done;
		}
	}
	if ((int64_t)a->a[3] < 0 || off < 0 || (int64_t)((uint64_t)off + count) < 0) {
		ret = -EINVAL;
		goto done;
	}
	if (!out || !flags_writable(file_getfl(out))) {
		ret = -EBADF;
		goto done;
	}
	if (!in->ops->read || !out->ops->write || (file_getfl(out) & O_APPEND)) {
		ret = -EINVAL;
		goto done;
	}
	ret = fsize_write_check(t, out, -1, &count);
	if (ret == 0)
		ret = copy_between(in, a->a[2] ? &off : NULL, out, NULL, count);
	/* Cut at RLIMIT_FSIZE: Linux's splice loop tries the rest too, which
	 * earns SIGXFSZ (the bytes written are still the result). */
	if (ret > 0 && (size_t)ret == count && count < want) {
		size_t rest = want - count;
		fsize_write_check(t, out, -1, &rest);
	}
	if (ret >= 0 && a->a[2] && mm_copy_out(t->mm, a->a[2], &off, sizeof(off)) < 0)
		ret = -EFAULT;
done:
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return ret;
}

/* The filesystem a file is on as the guest sees it (an overlay's, not its layer's). */
static struct super_block *file_sb(struct file *f)
{
	return f->path.dentry ? f->path.dentry->sb : f->inode->sb;
}

/* Set the position of a file that has one (after a copy that used it). */
static void set_pos(struct file *f, int64_t pos)
{
	pthread_mutex_lock(&f->pos_lock);
	f->pos = pos;
	pthread_mutex_unlock(&f->pos_lock);
}

/* Linux's generic_copy_file_checks: the file types, modes, filesystems and
 * offsets; *count is shortened to the end of in. */
static long copy_checks(struct file *in, int64_t ioff, struct file *out, int64_t ooff,
			uint64_t *count)
{
	struct inode *ii = in->inode, *oi = out->inode;
	struct kstat st;
	long ret;

	if (!ii || !oi)
		return -EINVAL;
	if (S_ISDIR(ii->mode) || S_ISDIR(oi->mode))
		return -EISDIR;
	if (!S_ISREG(ii->mode) || !S_ISREG(oi->mode))
		return -EINVAL;
	if (!flags_readable(file_getfl(in)) || !flags_writable(file_getfl(out)) ||
	    (file_getfl(out) & O_APPEND))
		return -EBADF;
	if (!in->ops->read || !out->ops->write)
		return -EINVAL;
	if (file_sb(in) != file_sb(out))
		return -EXDEV;
	if (ioff < 0 || ooff < 0)
		return -EINVAL;
	if ((uint64_t)ioff + *count < (uint64_t)ioff || (uint64_t)ooff + *count < (uint64_t)ooff ||
	    (uint64_t)ioff + *count > INT64_MAX || (uint64_t)ooff + *count > INT64_MAX)
		return -EOVERFLOW;
	ret = file_stat(in, &st);
	if (ret)
		return ret;
	*count = (uint64_t)ioff >= st.size ? 0 : MIN(*count, st.size - (uint64_t)ioff);
	/* No copying between overlapping ranges of one file. */
	if (ii == oi && (uint64_t)ooff + *count > (uint64_t)ioff &&
	    (uint64_t)ooff < (uint64_t)ioff + *count)
		return -EINVAL;
	return 0;
}

SYSCALL(copy_file_range)
{
	struct file *in = fd_get(t->files, (int)a->a[0]), *out = fd_get(t->files, (int)a->a[2]);
	uint64_t count = MIN(a->a[4], (uint64_t)0x7ffff000);
	int64_t ioff, ooff;
	long ret;

	if (!out || !in) {
		ret = -EBADF;
		goto done;
	}
	ioff = in->pos;
	ooff = out->pos;
	if ((a->a[1] && mm_copy_in(t->mm, &ioff, a->a[1], sizeof(ioff)) < 0) ||
	    (a->a[3] && mm_copy_in(t->mm, &ooff, a->a[3], sizeof(ooff)) < 0)) {
		ret = -EFAULT;
		goto done;
	}
	ret = a->a[5] ? -EINVAL : copy_checks(in, ioff, out, ooff, &count);
	if (ret == 0)
		ret = fsize_write_check(t, out, ooff, &count);
	if (ret || count == 0)
		goto done;
	ret = copy_between(in, &ioff, out, &ooff, count);
	if (ret > 0) {
		if (!a->a[1])
			set_pos(in, ioff);
		else if (mm_copy_out(t->mm, a->a[1], &ioff, sizeof(ioff)) < 0)
			ret = -EFAULT;
		if (!a->a[3])
			set_pos(out, ooff);
		else if (mm_copy_out(t->mm, a->a[3], &ooff, sizeof(ooff)) < 0)
			ret = -EFAULT;
	}
done:
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return ret;
}
