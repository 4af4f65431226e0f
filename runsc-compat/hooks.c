/*
 * OCI hooks: each runs on the host (as runc runs them), with the
 * container's state JSON on its stdin, its own args and env, and an
 * optional timeout after which it is killed.
 */
#include "config.h"
#include "runsc-compat/hooks.h"
#include "runsc-compat/spec.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int run_hook(const struct oci_hook *h, const char *state, const char *stage,
		    struct rung_error *err)
{
	char *const noargs[] = {h->path, NULL}, *const noenv[] = {NULL};
	uint64_t deadline = h->timeout ? monotonic_ns() + (uint64_t)h->timeout * 1000000000ull : 0;
	int in[2], status;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return rung_error_make(err, errno, "%s hook: pipe", stage);
	pid = fork();
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		return rung_error_make(err, errno, "%s hook: fork", stage);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		/* The caller's stdout may be a pipe the shim reads to EOF: keep the
		 * hook's output away from it. */
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		signal(SIGPIPE, SIG_DFL);
		execve(h->path, h->args ? h->args : noargs, h->env ? h->env : noenv);
		_exit(127);
	}
	close(in[0]);
	/* The state is small: it fits the pipe; a hook that does not read it is fine. */
	if (write(in[1], state, strlen(state)) < 0 && errno != EPIPE)
		(void)0;
	close(in[1]);
	for (;;) {
		pid_t r = waitpid(pid, &status, deadline ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return rung_error_make(err, errno, "%s hook `%s`", stage, h->path);
		if (deadline && monotonic_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return rung_error_make(err, 0, "%s hook `%s` timed out after %d s", stage,
					       h->path, h->timeout);
		}
		if (deadline)
			usleep(10000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return rung_error_make(err, 0, "%s hook `%s` failed (%s %d)", stage, h->path,
				       WIFEXITED(status) ? "exit status" : "signal",
				       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

int hooks_run(const struct oci_hook *hooks, size_t n, const char *state, const char *stage,
	      struct rung_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int ret = run_hook(&hooks[i], state, stage, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}
