/*
 * rung gofer --rootfs DIR [--read-only] [--bind[-ro]|--rbind[-ro] SRC]... --fds N,N,...
 *
 * The gofer process: confine itself, bubblewrap-style (each step short,
 * in order, and fatal when it fails), then serve the channels until the
 * sentry has closed every one of them.
 *
 *  1. die with the sentry (PR_SET_PDEATHSIG), umask 0, no SIGPIPE
 *  2. a private mount namespace
 *  3. /proc/self/fd as an O_PATH fd (reopening handles needs it later)
 *  4. a clone of each bind mount's source (recursive for --rbind), nodev/nosuid
 *     (and read-only); a recursive clone of the rootfs, the same, as root
 *  5. close every fd but stdio, the channels, /proc/self/fd and the roots
 *  6. keep the file capabilities only; empty bounding set; no_new_privs
 *  7. the io_uring (restricted), then the seccomp allowlist
 */
#include "config.h"
#include "gofer/gofer.h"
#include "gofer/serve.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct gofer_bind_arg {
	const char *source;
	bool read_only, recursive;
};

struct gofer_args {
	const char *rootfs;
	bool read_only;
	struct gofer_bind_arg binds[GOFER_MAX_ROOTS - 1];
	unsigned nbinds;
	int fds[GOFER_MAX_CHANNELS];
	unsigned nfds;
};

/* "3,4,5": distinct fds >= 3, each a SOCK_SEQPACKET socket. */
static int parse_fds(const char *s, struct gofer_args *a, struct rung_error *err)
{
	const char *p = s;

	while (*p) {
		char *end;
		long fd;
		int type;
		socklen_t len = sizeof(type);
		struct stat st;

		errno = 0;
		fd = strtol(p, &end, 10);
		if (errno || end == p || fd < 3 || fd > INT32_MAX || (*end && *end != ','))
			return rung_error_make(err, EINVAL, "--fds: bad list `%s`", s);
		if (a->nfds == GOFER_MAX_CHANNELS)
			return rung_error_make(err, EINVAL, "--fds: more than %d channels",
					       GOFER_MAX_CHANNELS);
		for (unsigned i = 0; i < a->nfds; i++)
			if (a->fds[i] == fd)
				return rung_error_make(err, EINVAL, "--fds: %ld twice", fd);
		if (fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
		    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
		    type != SOCK_SEQPACKET)
			return rung_error_make(err, EBADF,
					       "--fds: %ld is not a SOCK_SEQPACKET socket", fd);
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		a->fds[a->nfds++] = (int)fd;
		p = *end ? end + 1 : end;
	}
	if (a->nfds == 0)
		return rung_error_make(err, EINVAL, "--fds: no channels");
	return 0;
}

static int parse_args(int argc, char **argv, struct gofer_args *a, struct rung_error *err)
{
	enum {
		OPT_ROOTFS = 256,
		OPT_READ_ONLY,
		OPT_FDS,
		OPT_BIND,
		OPT_BIND_RO,
		OPT_RBIND,
		OPT_RBIND_RO
	};
	static const struct option options[] = {
		{"rootfs", required_argument, NULL, OPT_ROOTFS},
		{"read-only", no_argument, NULL, OPT_READ_ONLY},
		{"fds", required_argument, NULL, OPT_FDS},
		{"bind", required_argument, NULL, OPT_BIND},
		{"bind-ro", required_argument, NULL, OPT_BIND_RO},
		{"rbind", required_argument, NULL, OPT_RBIND},
		{"rbind-ro", required_argument, NULL, OPT_RBIND_RO},
		{NULL, 0, NULL, 0},
	};
	const char *fds = NULL;
	int opt;

	optind = 0; /* main() already ran getopt: start afresh */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case OPT_ROOTFS:
			a->rootfs = optarg;
			break;
		case OPT_READ_ONLY:
			a->read_only = true;
			break;
		case OPT_FDS:
			fds = optarg;
			break;
		case OPT_BIND:
		case OPT_BIND_RO:
		case OPT_RBIND:
		case OPT_RBIND_RO:
			if (a->nbinds == ARRAY_SIZE(a->binds))
				return rung_error_make(err, EINVAL, "more than %zu bind mounts",
						       ARRAY_SIZE(a->binds));
			if (optarg[0] != '/')
				return rung_error_make(err, EINVAL,
						       "bind mount source `%s` is not absolute",
						       optarg);
			a->binds[a->nbinds++] = (struct gofer_bind_arg){
				.source = optarg,
				.read_only = opt == OPT_BIND_RO || opt == OPT_RBIND_RO,
				.recursive = opt == OPT_RBIND || opt == OPT_RBIND_RO,
			};
			break;
		default:
			return rung_error_make(err, 0, "unknown option `%s`", argv[optind - 1]);
		}
	}
	if (optind != argc || !a->rootfs || !fds)
		return rung_error_make(err, 0,
				       "usage: rung gofer --rootfs DIR [--read-only] "
				       "[--bind[-ro]|--rbind[-ro] SRC]... --fds N,N,...");
	return parse_fds(fds, a, err);
}

/* stdin and stdout on /dev/null: a stray write to fd 1 must never reach a host file. */
static int stdio_to_null(struct rung_error *err)
{
	cleanup_close int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return rung_error_make(err, errno, "open /dev/null");
	if (dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
		return rung_error_make(err, errno, "dup2 /dev/null");
	return 0;
}

/* A private clone of the mount tree at path (recursive: with the mounts
 * under it), nodev and nosuid (and read-only), as an O_PATH-like fd on its
 * root. The clone is a detached mount tree of our own: its flags change
 * nothing on the host, and the host's files stay shared (live). */
static int clone_tree(const char *path, bool recursive, bool read_only, int *out,
		      struct rung_error *err)
{
	struct mount_attr attr = {
		.attr_set =
			MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID | (read_only ? MOUNT_ATTR_RDONLY : 0),
	};
	cleanup_close int tree = -1;

	tree = open_tree(AT_FDCWD, path,
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0));
	if (tree < 0)
		return rung_error_make(err, errno, "clone the mount tree of `%s`", path);
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return rung_error_make(err, errno, "set nodev,nosuid%s on `%s`",
				       read_only ? ",ro" : "", path);
	*out = steal_fd(&tree);
	return 0;
}

/*
 * A private mount namespace; a clone of each bind mount's source (their
 * roots go to binds[], opened while the host's paths are still reachable);
 * then a recursive clone of the rootfs made our root.
 */
static int enter_rootfs(const struct gofer_args *a, int *rootfd, int *binds, struct rung_error *err)
{
	cleanup_close int tree = -1;
	int ret;

	if (unshare(CLONE_NEWNS) < 0)
		return rung_error_make(err, errno, "unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return rung_error_make(err, errno, "make / rprivate");
	for (unsigned i = 0; i < a->nbinds; i++) {
		ret = clone_tree(a->binds[i].source, a->binds[i].recursive, a->binds[i].read_only,
				 &binds[i], err);
		if (ret < 0)
			return ret;
	}
	ret = clone_tree(a->rootfs, true, a->read_only, &tree, err);
	if (ret < 0)
		return ret;
	if (fchdir(tree) < 0 || chroot(".") < 0 || chdir("/") < 0)
		return rung_error_make(err, errno, "chroot into `%s`", a->rootfs);
	*rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*rootfd < 0)
		return rung_error_make(err, errno, "open the new root");
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every fd not in keep[0..n) (which this sorts). */
static int close_others(int *keep, unsigned n, struct rung_error *err)
{
	unsigned from = 0;

	qsort(keep, n, sizeof(*keep), cmp_int);
	for (unsigned i = 0; i < n; i++) {
		if ((unsigned)keep[i] > from && close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			return rung_error_make(err, errno, "close_range");
		from = (unsigned)keep[i] + 1;
	}
	if (close_range(from, ~0u, 0) < 0)
		return rung_error_make(err, errno, "close_range");
	return 0;
}

/* What the gofer needs as root: owners, any file regardless of modes, set-id bits. */
static int drop_capabilities(struct rung_error *err)
{
	int ret;

	capng_clear(CAPNG_SELECT_BOTH);
	ret = capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_CHOWN,
			    CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_FSETID, -1);
	if (ret < 0)
		return rung_error_make(err, EINVAL, "capng_updatev");
	/* Both: the capability sets, and the bounding set emptied. */
	ret = capng_apply(CAPNG_SELECT_BOTH);
	if (ret < 0)
		return rung_error_make(err, EPERM, "drop capabilities (capng_apply: %d)", ret);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return rung_error_make(err, errno, "clear the ambient capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return rung_error_make(err, errno, "PR_SET_NO_NEW_PRIVS");
	return 0;
}

static int confine_and_serve(struct gofer_args *a, struct rung_error *err)
{
	struct gofer_server *srv = NULL;
	int keep[GOFER_MAX_CHANNELS + GOFER_MAX_ROOTS + 4];
	int roots[GOFER_MAX_ROOTS];
	cleanup_close int procfd = -1;
	struct rlimit rl;
	unsigned nkeep = 0, nroots = 1 + a->nbinds;
	bool all_ro = a->read_only;
	int proc, ret;

	for (unsigned i = 0; i < GOFER_MAX_ROOTS; i++)
		roots[i] = -1;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return rung_error_make(err, errno, "PR_SET_PDEATHSIG");
	if (!rung_log_to_stderr())
		return rung_error_make(err, EINVAL, "the gofer logs to stderr only (no --log)");
	umask(0); /* modes arrive with the guest's umask applied */
	signal(SIGPIPE, SIG_IGN);
	/* Handles are fds: allow as many as the hard limit does. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((ret = stdio_to_null(err)) < 0)
		return ret;
	procfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return rung_error_make(err, errno, "open /proc/self/fd");
	if ((ret = enter_rootfs(a, &roots[0], &roots[1], err)) < 0)
		goto fail;

	keep[nkeep++] = STDIN_FILENO;
	keep[nkeep++] = STDOUT_FILENO;
	keep[nkeep++] = STDERR_FILENO;
	keep[nkeep++] = procfd;
	for (unsigned i = 0; i < nroots; i++)
		keep[nkeep++] = roots[i];
	for (unsigned i = 0; i < a->nfds; i++)
		keep[nkeep++] = a->fds[i];
	if ((ret = close_others(keep, nkeep, err)) < 0)
		goto fail;
	if ((ret = drop_capabilities(err)) < 0)
		goto fail;

	/* The server owns the channels, procfd and the roots from here on. */
	for (unsigned i = 0; i < a->nbinds; i++)
		all_ro &= a->binds[i].read_only;
	proc = procfd;
	ret = gofer_server_new(a->fds, a->nfds, steal_fd(&procfd), roots, nroots, all_ro, &srv,
			       err);
	if (ret < 0)
		return ret;
	if ((ret = gofer_seccomp_install(proc, err)) < 0)
		goto out;
	log_debug("gofer: serving `%s`%s and %u bind mounts on %u channels", a->rootfs,
		  a->read_only ? " read-only" : "", a->nbinds, a->nfds);
	if (gofer_server_run(srv) < 0)
		ret = rung_error_make(err, EIO, "the serving loop failed");
out:
	gofer_server_free(srv);
	return ret;
fail:
	for (unsigned i = 0; i < nroots; i++)
		if (roots[i] >= 0)
			close(roots[i]);
	return ret;
}

int gofer_main(int argc, char **argv)
{
	struct gofer_args a = {0};
	struct rung_error err = {0};

	if (parse_args(argc, argv, &a, &err) < 0) {
		rung_error_print(&err, "gofer");
		return 2;
	}
	if (confine_and_serve(&a, &err) < 0) {
		rung_error_print(&err, "gofer");
		return 1;
	}
	return 0;
}
