/*
 * A level-1 container's root file system, built in its new mount namespace:
 * every mount made private to it (slave of the host), the rootfs bound onto
 * itself (or an in-memory overlay over it, for rung do), the spec's mounts
 * in order, devices, then pivot_root; after it, sysctl, readonlyPaths,
 * maskedPaths and a read-only root. Mount targets inside the rootfs are
 * resolved with openat2(RESOLVE_IN_ROOT), so a symlink in the image cannot
 * send a mount outside it, and mounted on through /proc/self/fd.
 */
#include "config.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/spec.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FD_PATH_MAX 32

static int openat2_in_root(int rootfd, const char *path, int flags)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	long fd = syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

int level1_open_in_root(int rootfd, const char *path, mode_t create, struct rung_error *err)
{
	const char *rel = path + strspn(path, "/");
	cleanup_free char *copy = NULL;
	int fd = openat2_in_root(rootfd, rel, O_PATH), parent;
	char *p;

	if (fd >= 0)
		return fd;
	if (fd != -ENOENT || !create)
		return rung_error_make(err, -fd, "open `%s` in the container", path);
	/* Make what is missing, one component at a time, each resolved again
	 * from the root (a component may be a symlink). */
	copy = xstrdup(rel);
	parent = openat2_in_root(rootfd, "", O_PATH | O_DIRECTORY);
	for (p = copy; parent >= 0 && *p;) {
		char *end = p + strcspn(p, "/"), saved = *end;
		bool last = end[strspn(end, "/")] == '\0';
		int next;
		*end = '\0';
		next = openat2_in_root(rootfd, copy, O_PATH);
		if (next == -ENOENT) {
			int r;
			if (!last || S_ISDIR(create)) {
				r = mkdirat(parent, p, 0755);
			} else {
				r = openat(parent, p,
					   O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW,
					   0644);
				if (r >= 0)
					close(r);
			}
			next = (r < 0 && errno != EEXIST) ? -errno
							  : openat2_in_root(rootfd, copy, O_PATH);
		}
		close(parent);
		parent = next;
		*end = saved;
		p = end + strspn(end, "/");
	}
	if (parent < 0)
		return rung_error_make(err, -parent, "create `%s` in the container", path);
	return parent;
}

/* --- mount options --------------------------------------------------------------- */

struct mopts {
	unsigned long flags;	     /* MS_* for mount(2) */
	uint64_t attr_set, attr_clr; /* MOUNT_ATTR_* for a bind mount's mount_setattr */
	uint64_t propagation;	     /* MS_PRIVATE, ... (MS_REC: recursive) */
	bool recursive_ro;	     /* rro */
	char *data;		     /* the rest, for the file system (malloc'd) */
};

static const struct {
	const char *name;
	bool clear;
	unsigned long flag;
	uint64_t attr;
} flag_names[] = {
	{"defaults", false, 0, 0},
	{"ro", false, MS_RDONLY, MOUNT_ATTR_RDONLY},
	{"rw", true, MS_RDONLY, MOUNT_ATTR_RDONLY},
	{"nosuid", false, MS_NOSUID, MOUNT_ATTR_NOSUID},
	{"suid", true, MS_NOSUID, MOUNT_ATTR_NOSUID},
	{"nodev", false, MS_NODEV, MOUNT_ATTR_NODEV},
	{"dev", true, MS_NODEV, MOUNT_ATTR_NODEV},
	{"noexec", false, MS_NOEXEC, MOUNT_ATTR_NOEXEC},
	{"exec", true, MS_NOEXEC, MOUNT_ATTR_NOEXEC},
	{"sync", false, MS_SYNCHRONOUS, 0},
	{"async", true, MS_SYNCHRONOUS, 0},
	{"dirsync", false, MS_DIRSYNC, 0},
	{"mand", false, MS_MANDLOCK, 0},
	{"nomand", true, MS_MANDLOCK, 0},
	{"atime", true, MS_NOATIME, MOUNT_ATTR_NOATIME},
	{"noatime", false, MS_NOATIME, MOUNT_ATTR_NOATIME},
	{"diratime", true, MS_NODIRATIME, MOUNT_ATTR_NODIRATIME},
	{"nodiratime", false, MS_NODIRATIME, MOUNT_ATTR_NODIRATIME},
	{"relatime", false, MS_RELATIME, MOUNT_ATTR_RELATIME},
	{"norelatime", true, MS_RELATIME, MOUNT_ATTR_RELATIME},
	{"strictatime", false, MS_STRICTATIME, MOUNT_ATTR_STRICTATIME},
	{"nostrictatime", true, MS_STRICTATIME, MOUNT_ATTR_STRICTATIME},
	{"nosymfollow", false, MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW},
	{"bind", false, MS_BIND, 0},
	{"rbind", false, MS_BIND | MS_REC, 0},
};

static const struct {
	const char *name;
	uint64_t propagation;
} propagation_names[] = {
	{"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC},
	{"shared", MS_SHARED},	       {"rshared", MS_SHARED | MS_REC},
	{"slave", MS_SLAVE},	       {"rslave", MS_SLAVE | MS_REC},
	{"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC},
};

static void add_data(struct mopts *o, const char *opt)
{
	char *d = o->data ? xasprintf("%s,%s", o->data, opt) : xstrdup(opt);

	free(o->data);
	o->data = d;
}

static int parse_options(const struct oci_mount *m, struct mopts *o, struct rung_error *err)
{
	memset(o, 0, sizeof(*o));
	for (char **opt = m->options; opt && *opt; opt++) {
		bool known = false;
		for (size_t i = 0; i < ARRAY_SIZE(flag_names) && !known; i++) {
			if (strcmp(*opt, flag_names[i].name) != 0)
				continue;
			known = true;
			if (flag_names[i].clear) {
				o->flags &= ~flag_names[i].flag;
				o->attr_set &= ~flag_names[i].attr;
				o->attr_clr |= flag_names[i].attr;
			} else {
				o->flags |= flag_names[i].flag;
				o->attr_set |= flag_names[i].attr;
				o->attr_clr &= ~flag_names[i].attr;
			}
		}
		for (size_t i = 0; i < ARRAY_SIZE(propagation_names) && !known; i++)
			if (strcmp(*opt, propagation_names[i].name) == 0) {
				known = true;
				o->propagation = propagation_names[i].propagation;
			}
		if (known)
			continue;
		if (strcmp(*opt, "rro") == 0) {
			o->recursive_ro = true;
		} else if (strcmp(*opt, "tmpcopyup") == 0) {
			/* runc's extension, not honoured: the tmpfs starts empty. */
		} else if (strcmp(*opt, "idmap") == 0 || strcmp(*opt, "ridmap") == 0 ||
			   strcmp(*opt, "remount") == 0) {
			free(o->data);
			return rung_error_make(err, EINVAL,
					       "config: `mounts` (%s): the option `%s` is not "
					       "supported with --isolation=container",
					       m->destination, *opt);
		} else {
			add_data(o, *opt);
		}
	}
	/* An atime mode replaces the previous one. */
	if (o->attr_set & MOUNT_ATTR__ATIME)
		o->attr_clr |= MOUNT_ATTR__ATIME;
	return 0;
}

/* mount_setattr on the mount at fd (its root). */
static int set_attr(int fd, uint64_t set, uint64_t clr, uint64_t propagation, bool recursive)
{
	struct mount_attr attr = {
		.attr_set = set, .attr_clr = clr, .propagation = propagation & ~(uint64_t)MS_REC};

	if (!set && !clr && !attr.propagation)
		return 0;
	return mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
			     sizeof(attr));
}

/* Flags and propagation of the mount now at dest (reopened: its root). */
static int finish_mount(int rootfd, const char *dest, const struct mopts *o, bool bind,
			struct rung_error *err)
{
	int fd, ret = 0;

	if (!(bind && (o->attr_set || o->attr_clr)) && !o->propagation && !o->recursive_ro)
		return 0;
	fd = level1_open_in_root(rootfd, dest, 0, err);
	if (fd < 0)
		return fd;
	if (bind && set_attr(fd, o->attr_set, o->attr_clr, 0, false) < 0)
		ret = rung_error_make(err, errno, "set the options of the bind mount on `%s`",
				      dest);
	if (ret == 0 && o->recursive_ro && set_attr(fd, MOUNT_ATTR_RDONLY, 0, 0, true) < 0)
		ret = rung_error_make(err, errno, "make `%s` recursively read-only", dest);
	if (ret == 0 && o->propagation &&
	    set_attr(fd, 0, 0, o->propagation, (o->propagation & MS_REC) != 0) < 0)
		ret = rung_error_make(err, errno, "set the propagation of `%s`", dest);
	close(fd);
	return ret;
}

/* --- cgroup: the container's own cgroups, read-only ------------------------------ */

struct hierarchy {
	char *mountpoint, *root, *fstype, *super;
};

/* The host's cgroup file systems under /sys/fs/cgroup. */
static size_t read_hierarchies(struct hierarchy *h, size_t max)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t len = 0, n = 0;

	while (f && n < max && getline(&line, &len, f) > 0) {
		char root[4096], mnt[4096], type[64], super[4096], *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*d %*d %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %4095s", type, super) != 2)
			continue;
		if (strcmp(type, "cgroup") != 0 && strcmp(type, "cgroup2") != 0)
			continue;
		if (strncmp(mnt, "/sys/fs/cgroup", 14) != 0 || (mnt[14] && mnt[14] != '/'))
			continue;
		h[n].mountpoint = xstrdup(mnt);
		h[n].root = xstrdup(root);
		h[n].fstype = xstrdup(type);
		h[n].super = xasprintf(",%s,", super);
		n++;
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* Our cgroup in hierarchy h (from /proc/self/cgroup), as a host path. */
static char *own_cgroup(const struct hierarchy *h)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL, *out = NULL;
	size_t len = 0;
	bool v2 = strcmp(h->fstype, "cgroup2") == 0;

	while (f && !out && getline(&line, &len, f) > 0) {
		char *ctrls = strchr(line, ':'), *path = ctrls ? strchr(ctrls + 1, ':') : NULL;
		bool match = true;
		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		ctrls++;
		if (v2 != (*ctrls == '\0'))
			continue;
		for (char *c = ctrls, *save = NULL; !v2 && (c = strtok_r(c, ",", &save));
		     c = NULL) {
			char *needle = xasprintf(",%s,", c);
			match &= strstr(h->super, needle) != NULL;
			free(needle);
		}
		if (!match)
			continue;
		if (strcmp(h->root, "/") == 0)
			out = xasprintf("%s%s", h->mountpoint, path);
		else if (strncmp(path, h->root, strlen(h->root)) == 0)
			out = xasprintf("%s%s", h->mountpoint, path + strlen(h->root));
	}
	free(line);
	if (f)
		fclose(f);
	return out;
}

/* Bind host (a directory) onto dest in the rootfs, with attributes. */
static int bind_dir(int rootfd, const char *host, const char *dest, uint64_t attrs,
		    struct rung_error *err)
{
	char target[FD_PATH_MAX];
	int fd = level1_open_in_root(rootfd, dest, S_IFDIR, err), ret = 0;

	if (fd < 0)
		return fd;
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (mount(host, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		ret = rung_error_make(err, errno, "bind `%s` on `%s`", host, dest);
	close(fd);
	if (ret == 0) {
		fd = level1_open_in_root(rootfd, dest, 0, err);
		if (fd < 0)
			return fd;
		if (set_attr(fd, attrs, 0, 0, true) < 0)
			ret = rung_error_make(err, errno, "set the options of `%s`", dest);
		close(fd);
	}
	return ret;
}

/* A "cgroup" mount: the container's cgroup of each hierarchy, bound
 * read-only (runc's way without a cgroup namespace). */
static int mount_cgroup(int rootfd, const struct oci_mount *m, const struct mopts *o,
			struct rung_error *err)
{
	struct hierarchy h[32];
	size_t n = read_hierarchies(h, ARRAY_SIZE(h));
	uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
			 ((o->flags & MS_RDONLY) ? MOUNT_ATTR_RDONLY : 0);
	char target[FD_PATH_MAX];
	int fd, ret = 0;

	/* cgroup v2 alone: the container's cgroup is the whole mount. */
	for (size_t i = 0; i < n && ret == 0; i++) {
		if (strcmp(h[i].mountpoint, "/sys/fs/cgroup") == 0 &&
		    strcmp(h[i].fstype, "cgroup2") == 0) {
			char *own = own_cgroup(&h[i]);
			ret = own ? bind_dir(rootfd, own, m->destination, attrs, err)
				  : rung_error_make(err, ENOENT, "no cgroup v2 of our own");
			free(own);
			goto out;
		}
	}
	fd = level1_open_in_root(rootfd, m->destination, S_IFDIR, err);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") < 0)
		ret = rung_error_make(err, errno, "mount a tmpfs on `%s`", m->destination);
	close(fd);
	for (size_t i = 0; i < n && ret == 0; i++) {
		const char *name = strrchr(h[i].mountpoint, '/') + 1;
		char *own = own_cgroup(&h[i]), *dest;
		if (!own)
			continue;
		dest = xasprintf("%s/%s", m->destination, name);
		ret = bind_dir(rootfd, own, dest, attrs, err);
		free(dest);
		free(own);
	}
	if (ret == 0 && (o->flags & MS_RDONLY)) {
		fd = level1_open_in_root(rootfd, m->destination, 0, err);
		if (fd < 0) {
			ret = fd;
		} else {
			if (set_attr(fd, MOUNT_ATTR_RDONLY, 0, 0, false) < 0)
				ret = rung_error_make(err, errno, "make `%s` read-only",
						      m->destination);
			close(fd);
		}
	}
out:
	for (size_t i = 0; i < n; i++) {
		free(h[i].mountpoint);
		free(h[i].root);
		free(h[i].fstype);
		free(h[i].super);
	}
	return ret;
}

/* --- one mount of the spec ----------------------------------------------------------- */

static bool is_bind(const struct oci_mount *m)
{
	if (m->type && strcmp(m->type, "bind") == 0)
		return true;
	for (char **o = m->options; o && *o; o++)
		if (strcmp(*o, "bind") == 0 || strcmp(*o, "rbind") == 0)
			return true;
	return false;
}

/* The bind mounts' sources, opened (O_PATH) before anything is mounted:
 * rung do covers /tmp, and what a path names must not change under us. */
static int open_sources(const struct oci_spec *spec, const char *bundle, int *fds,
			struct rung_error *err)
{
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct oci_mount *m = &spec->mounts[i];
		cleanup_free char *path = NULL;
		fds[i] = -1;
		if (!is_bind(m))
			continue;
		if (!m->source)
			return rung_error_make(err, EINVAL,
					       "config: `mounts` (%s): a bind mount needs a source",
					       m->destination);
		path = m->source[0] == '/' ? xstrdup(m->source)
					   : xasprintf("%s/%s", bundle, m->source);
		fds[i] = open(path, O_PATH | O_CLOEXEC);
		if (fds[i] < 0)
			return rung_error_make(err, errno, "bind mount source `%s`", path);
	}
	return 0;
}

/* Mount m; srcfd is its source when it is a bind mount. */
static int do_mount(int rootfd, const struct oci_mount *m, int srcfd, struct rung_error *err)
{
	char source[FD_PATH_MAX];
	struct mopts o;
	char target[FD_PATH_MAX];
	bool bind;
	mode_t create = S_IFDIR;
	struct stat st;
	int fd, ret = parse_options(m, &o, err);

	if (ret < 0)
		return ret;
	bind = srcfd >= 0;
	if (bind) {
		snprintf(source, sizeof(source), "/proc/self/fd/%d", srcfd);
		if (fstat(srcfd, &st) < 0) {
			ret = rung_error_make(err, errno, "bind mount source `%s`", m->source);
			goto out;
		}
		create = S_ISDIR(st.st_mode) ? S_IFDIR : S_IFREG;
	} else if (m->type && strcmp(m->type, "cgroup") == 0) {
		ret = mount_cgroup(rootfd, m, &o, err);
		goto out;
	} else if (!m->type) {
		ret = rung_error_make(err, EINVAL, "config: `mounts` (%s): the type is missing",
				      m->destination);
		goto out;
	}
	fd = level1_open_in_root(rootfd, m->destination, create, err);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (bind)
		ret = mount(source, target, NULL, MS_BIND | (o.flags & MS_REC), NULL);
	else
		ret = mount(m->source ? m->source : m->type, target, m->type,
			    o.flags & ~(MS_BIND | MS_REC), o.data);
	if (ret < 0)
		ret = rung_error_make(err, errno, "mount %s on `%s`", bind ? m->source : m->type,
				      m->destination);
	close(fd);
	if (ret == 0)
		ret = finish_mount(rootfd, m->destination, &o, bind, err);
out:
	free(o.data);
	return ret;
}

/* --- the root and pivot_root --------------------------------------------------------- */

/* rung do's root: the rootfs (which may be the host's /, and pivot_root
 * cannot pivot onto a mount stacked on the current root) bound, or with
 * overlay the lower layer of an overlay whose writes go to memory, at
 * /tmp/root of a tmpfs mounted over /tmp of this namespace (the host does
 * not see it). Submounts of the rootfs are not part of it. */
static int make_do_root(const char *rootfs, bool overlay, char **root, struct rung_error *err)
{
	cleanup_close int lowerfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cleanup_free char *data = NULL, *lower = NULL;

	if (lowerfd < 0)
		return rung_error_make(err, errno, "the root `%s`", rootfs);
	lower = xasprintf("/proc/self/fd/%d", lowerfd);
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=700") < 0)
		return rung_error_make(err, errno, "mount a tmpfs for the root");
	if (mkdir("/tmp/root", 0755) < 0)
		return rung_error_make(err, errno, "make /tmp/root");
	if (!overlay) {
		if (mount(lower, "/tmp/root", NULL, MS_BIND, NULL) < 0)
			return rung_error_make(err, errno, "bind the root `%s`", rootfs);
	} else {
		if (mkdir("/tmp/upper", 0755) < 0 || mkdir("/tmp/work", 0700) < 0)
			return rung_error_make(err, errno, "make the overlay's directories");
		data = xasprintf("lowerdir=%s,upperdir=/tmp/upper,workdir=/tmp/work", lower);
		if (mount("overlay", "/tmp/root", "overlay", 0, data) < 0)
			return rung_error_make(err, errno,
					       "mount an overlay over `%s` (--overlay none does "
					       "without)",
					       rootfs);
	}
	*root = xstrdup("/tmp/root");
	return 0;
}

static int pivot(int rootfd, struct rung_error *err)
{
	cleanup_close int oldroot = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);

	if (oldroot < 0 || fchdir(rootfd) < 0)
		return rung_error_make(err, errno, "pivot_root: enter the root");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return rung_error_make(err, errno, "pivot_root");
	/* The old root is stacked on the new one: detach it, without the
	 * unmount reaching the host. */
	if (fchdir(oldroot) < 0 || mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return rung_error_make(err, errno, "pivot_root: detach the old root");
	return 0;
}

int level1_rootfs_setup(const struct level1_init_args *a, bool *dev_rules, struct rung_error *err)
{
	const struct oci_spec *spec = a->spec;
	cleanup_free char *root = NULL;
	cleanup_free int *srcfds = xzalloc((spec->n_mounts + 1) * sizeof(int));
	cleanup_close int rootfd = -1;
	int ret;

	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return rung_error_make(err, errno, "make the mounts private to the container");
	ret = open_sources(spec, a->bundle, srcfds, err);
	if (ret < 0)
		return ret;
	if (a->do_mode) {
		ret = make_do_root(spec->root_path, a->overlay, &root, err);
		if (ret < 0)
			return ret;
	} else {
		root = xstrdup(spec->root_path);
		if (mount(root, root, NULL, MS_BIND | MS_REC, NULL) < 0)
			return rung_error_make(err, errno, "bind the root `%s`", root);
	}
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return rung_error_make(err, errno, "the root `%s`", root);
	for (size_t i = 0; i < spec->n_mounts; i++) {
		ret = do_mount(rootfd, &spec->mounts[i], srcfds[i], err);
		if (srcfds[i] >= 0)
			close(srcfds[i]);
		if (ret < 0)
			return ret;
	}
	ret = level1_dev_populate(rootfd, spec, err);
	*dev_rules = false;
	if (ret == 0 && !a->do_mode)
		ret = level1_dev_cgroup(spec, dev_rules, err);
	if (ret == 0)
		ret = pivot(rootfd, err);
	return ret;
}

/* --- after pivot_root ----------------------------------------------------------------- */

/* Is sysctl key in a namespace the container has of its own (runc's rule)? */
static bool sysctl_namespaced(const struct oci_spec *spec, const char *key)
{
	static const char *const ipc[] = {"kernel.msgmax", "kernel.msgmnb",	    "kernel.msgmni",
					  "kernel.sem",	   "kernel.shmall",	    "kernel.shmmax",
					  "kernel.shmmni", "kernel.shm_rmid_forced"};

	if (strncmp(key, "fs.mqueue.", 10) == 0)
		return spec_namespace(spec, "ipc") != NULL;
	for (size_t i = 0; i < ARRAY_SIZE(ipc); i++)
		if (strcmp(key, ipc[i]) == 0)
			return spec_namespace(spec, "ipc") != NULL;
	if (strncmp(key, "net.", 4) == 0)
		return spec_namespace(spec, "network") != NULL;
	if (strcmp(key, "kernel.hostname") == 0 || strcmp(key, "kernel.domainname") == 0)
		return spec_namespace(spec, "uts") != NULL;
	return false;
}

static int write_sysctls(const struct oci_spec *spec, struct rung_error *err)
{
	for (size_t i = 0; i < spec->n_sysctl; i++) {
		const char *key = spec->sysctl_keys[i], *val = spec->sysctl_values[i];
		cleanup_free char *path = NULL;
		int fd;
		ssize_t n;
		if (!sysctl_namespaced(spec, key) || strstr(key, ".."))
			return rung_error_make(err, EINVAL,
					       "config: `linux.sysctl`: `%s` is not in a separate "
					       "kernel namespace",
					       key);
		path = xasprintf("/proc/sys/%s", key);
		for (char *c = path + 10; *c; c++)
			if (*c == '.')
				*c = '/';
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		n = fd < 0 ? -1 : write(fd, val, strlen(val));
		if (n < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return rung_error_make(err, e, "set the sysctl `%s` to `%s`", key, val);
		}
		close(fd);
	}
	return 0;
}

/* A readonlyPaths entry: bound onto itself, then read-only (absent: nothing). */
static int readonly_path(const char *path, struct rung_error *err)
{
	cleanup_close int fd = -1;

	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return errno == ENOENT ? 0
				       : rung_error_make(err, errno, "readonly path `%s`", path);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 ||
	    set_attr(fd,
		     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		     0, 0, true) < 0)
		return rung_error_make(err, errno, "make `%s` read-only", path);
	return 0;
}

/* A maskedPaths entry: /dev/null over a file, an empty read-only tmpfs over a
 * directory (absent: nothing). */
static int mask_path(const char *path, struct rung_error *err)
{
	struct stat st;
	int ret;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : rung_error_make(err, errno, "masked path `%s`", path);
	if (S_ISDIR(st.st_mode))
		ret = mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			    NULL);
	else
		ret = mount("/dev/null", path, NULL, MS_BIND, NULL);
	return ret < 0 ? rung_error_make(err, errno, "mask `%s`", path) : 0;
}

/* mkdir -p for the process's cwd (as runc, which makes a missing one). */
static void make_cwd(const char *cwd)
{
	char *copy = xstrdup(cwd);

	for (char *p = copy + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		mkdir(copy, 0755);
		*p = c;
		if (!c)
			break;
	}
	free(copy);
}

int level1_rootfs_finish(const struct oci_spec *spec, struct rung_error *err)
{
	cleanup_close int root = -1;
	int ret = write_sysctls(spec, err);

	for (char **p = spec->readonly_paths; ret == 0 && p && *p; p++)
		ret = readonly_path(*p, err);
	for (char **p = spec->masked_paths; ret == 0 && p && *p; p++)
		ret = mask_path(*p, err);
	if (ret < 0)
		return ret;
	make_cwd(spec->process.cwd);
	if (spec->root_readonly) {
		root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0 || set_attr(root, MOUNT_ATTR_RDONLY, 0, 0, false) < 0)
			return rung_error_make(err, errno, "make the root read-only");
	}
	return 0;
}
