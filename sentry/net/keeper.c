/*
 * Starting and releasing the keeper of a namespace's addresses
 * (keeper.h), from the sentry before it is confined.
 */
#include "config.h"
#include "sentry/net/keeper.h"
#include "sentry/net/iface.h"
#include "sentry/kernel/outside.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEEPER_FD 3

struct net_keeper {
	pid_t pid;
	int fd; /* the sentry's end: its closing is the keeper's cue */
};

struct child_args {
	const char *exe;
	char **argv;
	int sock; /* the keeper's end */
	int null;
	int log;
};

/* In the child, between fork and exec: async-signal-safe calls only. Not
 * in the sentry's session (a terminal's signals and a kill of the
 * sandbox's process group must not reach it) and without a parent-death
 * signal: it has to outlive the sentry. For the same reason the sentry
 * must start it in the PID namespace rung was started in, never in one of
 * the sandbox's own: a PID namespace's processes die with its init. */
static void __attribute__((noreturn)) child(const struct child_args *c)
{
	char *envp[] = {NULL};
	sigset_t none;
	int sock, log;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	/* Out of the way of the dup2s below first. */
	sock = fcntl(c->sock, F_DUPFD_CLOEXEC, KEEPER_FD + 1);
	log = fcntl(c->log, F_DUPFD_CLOEXEC, KEEPER_FD + 1);
	if (sock < 0 || log < 0 || dup2(c->null, STDIN_FILENO) < 0 ||
	    dup2(c->null, STDOUT_FILENO) < 0 || dup2(log, STDERR_FILENO) < 0 ||
	    dup2(sock, KEEPER_FD) < 0)
		_exit(127);
	/* Everything else goes with the exec. */
	if (close_range(KEEPER_FD + 1, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		_exit(127);
	execve(c->exe, c->argv, envp);
	_exit(127);
}

/* argv of `rung netkeep` for the interfaces in ifs (malloc'd strings). */
static char **keeper_argv(const char *exe, char *const *cgroups, const int *ifs, size_t nifs)
{
	size_t ncg = 0, n = 0;
	char **argv;

	while (cgroups && cgroups[ncg])
		ncg++;
	argv = xzalloc((8 + 2 * ncg + nifs) * sizeof(*argv));
	argv[n++] = xstrdup(exe);
	argv[n++] = xstrdup("--log-format");
	argv[n++] = xstrdup(rung_log_get_format() == LOG_FORMAT_JSON ? "json" : "text");
	argv[n++] = xstrdup("netkeep");
	argv[n++] = xstrdup("--level");
	argv[n++] = xasprintf("%d", (int)rung_log_get_level());
	for (size_t i = 0; i < ncg; i++) {
		argv[n++] = xstrdup("--cgroup");
		argv[n++] = xstrdup(cgroups[i]);
	}
	for (size_t i = 0; i < nifs; i++)
		argv[n++] = xasprintf("%d", ifs[i]);
	return argv;
}

/* The keeper's first words: "r" once it holds its copy, else why not (pid:
 * the keeper, a child to reap then; 0: not ours). */
static int await_ready(int fd, pid_t pid, struct rung_error *err)
{
	char buf[256];
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && buf[0] == 'r')
		return 0;
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return rung_error_make(err, n < 0 ? errno : 0,
				       "the keeper of the namespace's addresses did not start");
	buf[n] = '\0';
	return rung_error_make(err, 0, "the keeper of the namespace's addresses: %s", buf);
}

pid_t net_keeper_spawn(const int *ifs, size_t nifs, char *const *cgroups, int sock, int netns,
		       int log)
{
	struct child_args c = {.sock = sock, .log = log};
	char exe[PATH_MAX];
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	c.null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (c.null < 0)
		return -errno;
	c.exe = exe;
	c.argv = keeper_argv(exe, cgroups, ifs, nifs);
	/* The caller has a single thread here (the sentry is not confined yet). */
	pid = fork();
	if (pid == 0) {
		if (netns >= 0 && setns(netns, CLONE_NEWNET) < 0)
			_exit(127);
		child(&c);
	}
	if (pid < 0)
		pid = -errno;
	strv_free(c.argv);
	close(c.null);
	return pid;
}

int net_keeper_start(const struct net_config *cfg, char *const *cgroups, struct net_keeper **out,
		     struct rung_error *err)
{
	cleanup_free int *ifs = xzalloc((cfg->nifs + 1) * sizeof(*ifs));
	bool outside = outside_present();
	int sp[2], ret;
	size_t nifs = 0;
	pid_t pid;

	*out = NULL;
	for (size_t i = 0; i < cfg->nifs; i++)
		if (net_iface_takeable(&cfg->ifs[i]) && cfg->ifs[i].naddrs > 0)
			ifs[nifs++] = cfg->ifs[i].index;
	if (!nifs)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return rung_error_make(err, errno, "socketpair");
	/* Inside rung do's PID namespace, whose processes die with the sentry,
	 * the supervisor outside starts it. */
	pid = outside ? outside_keeper(ifs, nifs, sp[1], rung_log_fd())
		      : net_keeper_spawn(ifs, nifs, cgroups, sp[1], -1, rung_log_fd());
	close(sp[1]);
	if (pid < 0) {
		close(sp[0]);
		return rung_error_make(err, -pid, "start the keeper of the namespace's addresses");
	}
	ret = await_ready(sp[0], outside ? 0 : pid, err);
	if (ret < 0) {
		close(sp[0]);
		return ret;
	}
	*out = xzalloc(sizeof(**out));
	(*out)->pid = outside ? 0 : pid;
	(*out)->fd = sp[0];
	log_debug("network: keeper %d holds the addresses of %zu interfaces", (int)pid, nifs);
	return 0;
}

void net_keeper_release(struct net_keeper *k)
{
	if (!k)
		return;
	if (k->pid > 0) {
		close(k->fd);
		while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else {
		/* The supervisor's child: the supervisor waits for it before
		 * rung do returns. */
		close(k->fd);
	}
	free(k);
}
