/*
 * mount -t overlay: "lowerdir=L,upperdir=U,workdir=W", directories already
 * in the caller's tree, merged by sentry/fs/overlay.c. U is on a tmpfs
 * (whose dentries the tree then no longer caches), W on U's filesystem,
 * L on a tmpfs, an overlay or the gofer's files. One lower layer; an
 * overlay without an upper one, the other overlayfs options and ':' lists
 * of lower layers are -EINVAL.
 */
#include "config.h"
#include "syscalls/sys_mount.h"
#include "sentry/fs/overlay.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ovl_opts {
	const char *lower, *upper, *work;
};

static int parse(char *data, struct ovl_opts *o)
{
	char *opt, *save = NULL;

	for (opt = strtok_r(data, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *v = strchr(opt, '=');
		if (!v || !v[1])
			return -EINVAL;
		*v++ = '\0';
		if (strcmp(opt, "lowerdir") == 0 && !strchr(v, ':'))
			o->lower = v;
		else if (strcmp(opt, "upperdir") == 0)
			o->upper = v;
		else if (strcmp(opt, "workdir") == 0)
			o->work = v;
		else
			return -EINVAL;
	}
	return o->lower && o->upper && o->work ? 0 : -EINVAL;
}

/* The filesystems a lower layer may be on: their inodes work without a
 * dentry or a task (procfs's do not). */
static bool lower_ok(const struct super_block *sb)
{
	return strcmp(sb->fstype, "tmpfs") == 0 || strcmp(sb->fstype, "overlay") == 0 ||
	       strcmp(sb->fstype, "9p") == 0;
}

/* Is one of a and b in the other's subtree (overlayfs's overlapping layers)? */
static bool overlap(struct dentry *a, struct dentry *b)
{
	return a->sb == b->sb && (dentry_is_under(a, b) || dentry_is_under(b, a));
}

static int dir_at(struct task *t, const char *path, struct path *out)
{
	return vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, out);
}

long mount_overlay_new(struct task *t, char *data, struct super_block **sb, char **opts)
{
	struct ovl_opts o = {0};
	struct path lower, upper, work;
	size_t len;
	long ret;

	if (!data || parse(data, &o))
		return -EINVAL;
	ret = dir_at(t, o.lower, &lower);
	if (ret)
		return ret;
	ret = dir_at(t, o.upper, &upper);
	if (ret)
		goto put_lower;
	ret = dir_at(t, o.work, &work);
	if (ret)
		goto put_upper;
	/* The upper layer is written as a tmpfs is (whiteouts, opaque marks). */
	if (strcmp(upper.dentry->sb->fstype, "tmpfs") != 0 || work.dentry->sb != upper.dentry->sb ||
	    !lower_ok(lower.dentry->sb))
		ret = -EINVAL;
	else if (overlap(work.dentry, upper.dentry))
		ret = -EINVAL; /* separate subtrees, as overlayfs asks */
	else if (overlap(lower.dentry, upper.dentry) || overlap(lower.dentry, work.dentry))
		ret = -ELOOP;
	else if (upper.mnt->flags & MNT_RDONLY)
		ret = -EROFS;
	if (ret == 0) {
		/* The overlay changes the upper tmpfs through its inodes, behind
		 * the dentry cache: the names there are looked up afresh from
		 * now on (as procfs's), and none cached before stays. */
		upper.dentry->sb->cached = false;
		dcache_shrink();
		*sb = overlay_new_at(upper.dentry->inode, lower.dentry->inode);
		len = strlen(o.lower) + strlen(o.upper) + strlen(o.work) + 32;
		*opts = xmalloc(len);
		snprintf(*opts, len, ",lowerdir=%s,upperdir=%s,workdir=%s", o.lower, o.upper,
			 o.work);
	}
	path_put(&work);
put_upper:
	path_put(&upper);
put_lower:
	path_put(&lower);
	return ret;
}
