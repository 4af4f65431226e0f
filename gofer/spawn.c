/*
 * gofer_spawn: start `rung gofer` (a re-exec of this binary) with one end
 * of each channel socketpair as fds 3, 4, ... and nothing else but stdio.
 */
#include "config.h"
#include "gofer/gofer.h"
#include "lib/cleanup.h"
#include "lib/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIRST_CHANNEL_FD 3

struct child_args {
	char **argv;
	int (*sp)[2];
	unsigned nchan;
	int null;
	int errfd;
	pid_t parent;
};

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) child(const struct child_args *c)
{
	char *envp[] = {NULL};
	unsigned high = FIRST_CHANNEL_FD + c->nchan;
	int hi[GOFER_MAX_CHANNELS];
	sigset_t none;
	int e, errfd = c->errfd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Die with the sentry; and if it is already gone, do not start. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != c->parent)
		goto fail;
	/* Out of the sentry's session: terminal signals are the guest's business. */
	setsid();
	if (dup2(c->null, STDIN_FILENO) < 0 || dup2(c->null, STDOUT_FILENO) < 0)
		goto fail;
	/* The error pipe and the channel ends above the target range first, so the dup2s cannot clobber one. */
	if ((errfd = fcntl(c->errfd, F_DUPFD_CLOEXEC, (int)high)) < 0) {
		errfd = c->errfd;
		goto fail;
	}
	for (unsigned i = 0; i < c->nchan; i++)
		if ((hi[i] = fcntl(c->sp[i][1], F_DUPFD_CLOEXEC, (int)high)) < 0)
			goto fail;
	for (unsigned i = 0; i < c->nchan; i++)
		if (dup2(hi[i], (int)(FIRST_CHANNEL_FD + i)) < 0)
			goto fail;
	/* Everything else is closed by the exec (errfd only then). */
	if (close_range(high, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		goto fail;
	execve(c->argv[0], c->argv, envp);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0) {
		/* the parent sees a short read */
	}
	_exit(127);
}

int gofer_spawn(const struct gofer_config *cfg, unsigned nchan, pid_t *pid, int *fds,
		struct rung_error *err)
{
	char exe[PATH_MAX], fdlist[GOFER_MAX_CHANNELS * 4];
	int sp[GOFER_MAX_CHANNELS][2];
	cleanup_close int null = -1, errr = -1, errw = -1;
	struct child_args c;
	struct stat st;
	size_t off = 0;
	pid_t child_pid;
	ssize_t n;
	int e, ret, argc = 0;
	char *argv[8 + 2 * GOFER_MAX_ROOTS];

	if (nchan == 0 || nchan > GOFER_MAX_CHANNELS)
		return rung_error_make(err, EINVAL, "gofer: %u channels (1 to %d)", nchan,
				       GOFER_MAX_CHANNELS);
	if (stat(cfg->rootfs, &st) < 0)
		return rung_error_make(err, errno, "gofer: rootfs `%s`", cfg->rootfs);
	if (!S_ISDIR(st.st_mode))
		return rung_error_make(err, ENOTDIR, "gofer: rootfs `%s`", cfg->rootfs);
	if (cfg->nbinds >= GOFER_MAX_ROOTS)
		return rung_error_make(err, EINVAL, "gofer: %u bind mounts (at most %d)",
				       cfg->nbinds, GOFER_MAX_ROOTS - 1);
	/* Before forking: the child only execs. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return rung_error_make(err, errno, "readlink /proc/self/exe");
	exe[n] = '\0';
	for (unsigned i = 0; i < nchan; i++)
		off += (size_t)snprintf(fdlist + off, sizeof(fdlist) - off, "%s%u", i ? "," : "",
					FIRST_CHANNEL_FD + i);
	argv[argc++] = exe;
	argv[argc++] = "gofer";
	argv[argc++] = "--rootfs";
	argv[argc++] = (char *)cfg->rootfs;
	argv[argc++] = "--fds";
	argv[argc++] = fdlist;
	if (cfg->read_only)
		argv[argc++] = "--read-only";
	for (unsigned i = 0; i < cfg->nbinds; i++) {
		const struct gofer_bind *b = &cfg->binds[i];

		argv[argc++] = b->recursive ? (b->read_only ? "--rbind-ro" : "--rbind")
					    : (b->read_only ? "--bind-ro" : "--bind");
		argv[argc++] = (char *)b->source;
	}
	argv[argc] = NULL;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return rung_error_make(err, errno, "open /dev/null");
	{
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return rung_error_make(err, errno, "pipe2");
		errr = p[0];
		errw = p[1];
	}
	for (unsigned i = 0; i < nchan; i++)
		sp[i][0] = sp[i][1] = -1;
	for (unsigned i = 0; i < nchan; i++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp[i]) < 0) {
			ret = rung_error_make(err, errno, "gofer: socketpair");
			goto fail;
		}

	c = (struct child_args){
		.argv = argv,
		.sp = sp,
		.nchan = nchan,
		.null = null,
		.errfd = errw,
		.parent = getpid(),
	};
	child_pid = fork();
	if (child_pid < 0) {
		ret = rung_error_make(err, errno, "gofer: fork");
		goto fail;
	}
	if (child_pid == 0)
		child(&c);

	close(steal_fd(&errw));
	for (unsigned i = 0; i < nchan; i++)
		close(steal_fd(&sp[i][1]));
	do
		n = read(errr, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != 0) {
		/* The exec did not happen. */
		while (waitpid(child_pid, NULL, 0) < 0 && errno == EINTR)
			;
		ret = rung_error_make(err, n == sizeof(e) ? e : EIO, "gofer: start `%s gofer`",
				      exe);
		goto fail;
	}
	for (unsigned i = 0; i < nchan; i++)
		fds[i] = sp[i][0];
	*pid = child_pid;
	return 0;
fail:
	for (unsigned i = 0; i < nchan; i++) {
		if (sp[i][0] >= 0)
			close(sp[i][0]);
		if (sp[i][1] >= 0)
			close(sp[i][1]);
	}
	return ret;
}
