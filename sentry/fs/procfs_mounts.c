/*
 * /proc/<pid>/mounts and mountinfo: the mount namespace and root of the
 * process when the file was opened, listed again each time it is read
 * from the start (as Linux's seq_file). A poll reports POLLPRI | POLLERR
 * once for every change of the namespace since the last one (Linux's
 * mounts_poll).
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mounts_ctx {
	struct strbuf *o;
	struct path root;
	bool info;
};

/* A mount's own options after "rw"/"ro", as Linux's show_mnt_opts. */
static void mount_opts_text(const struct mount *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s%s", (m->flags & MNT_RDONLY) ? "ro" : "rw",
		 (m->flags & MNT_NOSUID) ? ",nosuid" : "", (m->flags & MNT_NODEV) ? ",nodev" : "",
		 (m->flags & MNT_NOEXEC) ? ",noexec" : "",
		 (m->flags & MNT_NOATIME) ? ",noatime" : "",
		 (m->flags & MNT_NODIRATIME) ? ",nodiratime" : "",
		 (m->flags & MNT_RELATIME) ? ",relatime" : "",
		 (m->flags & MNT_NOSYMFOLLOW) ? ",nosymfollow" : "");
}

static void one_mount(struct mount *m, void *arg)
{
	struct mounts_ctx *mc = arg;
	struct path p = {m, m->root};
	char *where, *root, opts[128], prop[96];
	const char *fsopts = m->opts ? m->opts : "";

	/* A mount outside the reader's root is not shown (Linux's seq_path_root). */
	if (!mount_path_under(&p, &mc->root))
		return;
	where = xmalloc(VFS_PATH_MAX);
	root = xmalloc(VFS_PATH_MAX);
	if (m->mountpoint) {
		p.mnt = m->parent;
		p.dentry = m->mountpoint;
	}
	if (path_to_string(&p, &mc->root, where, VFS_PATH_MAX) < 0)
		strcpy(where, "/");
	/* A bind mount of part of a filesystem: where in it its root is. */
	if (dentry_path(m->root, root, VFS_PATH_MAX) < 0)
		strcpy(root, "/");
	mount_opts_text(m, opts, sizeof(opts));
	if (mc->info) {
		/* A namespace's root shows a parent that is not listed, as a root
		 * mounted over Linux's hidden rootfs (the root is no rootfs here:
		 * pivot_root takes it). */
		mount_propagation_text(m, &mc->root, prop, sizeof(prop));
		strbuf_printf(mc->o, "%u %u 0:%llu %s %s %s%s - %s %s %s%s\n", m->id,
			      m->parent ? m->parent->id : 1u, (unsigned long long)m->sb->dev, root,
			      where, opts, prop, m->sb->fstype, m->source,
			      (m->flags & MNT_RDONLY) ? "ro" : "rw", fsopts);
	} else {
		strbuf_printf(mc->o, "%s %s %s %s%s 0 0\n", m->source, where, m->sb->fstype, opts,
			      fsopts);
	}
	free(where);
	free(root);
}

struct mounts_file {
	pthread_mutex_t lock;
	struct mnt_namespace *ns; /* NULL: a zombie's (empty) */
	struct path root;
	bool info;
	unsigned event; /* the namespace's event count at the last poll */
	char *text;	/* the last listing */
	size_t len;
};

static void list_mounts(struct mounts_file *mf)
{
	struct strbuf sb;
	struct mounts_ctx mc = {.o = &sb, .root = mf->root, .info = mf->info};

	strbuf_init(&sb);
	if (mf->ns)
		mntns_for_each(mf->ns, one_mount, &mc);
	free(mf->text);
	mf->text = strbuf_steal(&sb, &mf->len);
}

static long mounts_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct mounts_file *mf = f->priv;
	size_t n = 0;

	pthread_mutex_lock(&mf->lock);
	if (*pos == 0 || !mf->text)
		list_mounts(mf);
	if ((uint64_t)*pos < mf->len) {
		n = MIN(len, mf->len - (size_t)*pos);
		memcpy(buf, mf->text + *pos, n);
		*pos += (int64_t)n;
	}
	pthread_mutex_unlock(&mf->lock);
	return (long)n;
}

static int64_t mounts_llseek(struct file *f, int64_t off, int whence)
{
	struct mounts_file *mf = f->priv;
	int64_t ret;

	if (whence != SEEK_SET && whence != SEEK_CUR)
		return -EINVAL; /* seq_lseek */
	pthread_mutex_lock(&mf->lock);
	if (!mf->text)
		list_mounts(mf);
	ret = generic_llseek(f, off, whence, (int64_t)mf->len);
	pthread_mutex_unlock(&mf->lock);
	return ret;
}

static unsigned mounts_poll(struct file *f, struct poll_table *pt)
{
	struct mounts_file *mf = f->priv;
	unsigned ev = POLLIN | POLLRDNORM, now;

	poll_wait(pt, mntns_waitq());
	if (!mf->ns)
		return ev;
	now = mntns_event(mf->ns);
	pthread_mutex_lock(&mf->lock);
	if (now != mf->event) {
		mf->event = now;
		ev |= POLLERR | POLLPRI;
	}
	pthread_mutex_unlock(&mf->lock);
	return ev;
}

static int mounts_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	st->size = 0;
	return 0;
}

static void mounts_release(struct file *f)
{
	struct mounts_file *mf = f->priv;

	if (mf->ns) {
		mntns_put(mf->ns);
		path_put(&mf->root);
	}
	free(mf->text);
	pthread_mutex_destroy(&mf->lock);
	free(mf);
}

static const struct file_ops mounts_ops = {
	.read = mounts_read,
	.llseek = mounts_llseek,
	.poll = mounts_poll,
	.fstat = mounts_fstat,
	.release = mounts_release,
};

int proc_mounts_open(struct task *t, bool info, int flags, struct file **out)
{
	struct mounts_file *mf;
	struct file *f;

	if (flags_writable(flags))
		return -EACCES;
	mf = xzalloc(sizeof(*mf));
	pthread_mutex_init(&mf->lock, NULL);
	mf->info = info;
	if (t && t->fs) {
		struct nsproxy *n = task_ns_get(t);
		mf->ns = mntns_get(n->mnt);
		nsproxy_put(n);
		fs_get_root(t->fs, &mf->root);
		mf->event = mntns_event(mf->ns);
	}
	f = file_alloc(&mounts_ops, flags, mf);
	f->fmode = FMODE_PREAD | FMODE_ATPOS;
	*out = f;
	return 0;
}
