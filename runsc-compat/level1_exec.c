/*
 * exec into a level-1 container: the new process joins the init's
 * namespaces (setns on a pidfd of the init: all at once, and never a
 * recycled pid's) and its cgroup, takes the process's credentials and the
 * container's seccomp filter, and execs. We join the pid namespace for our
 * children only, so the process is our child: without --detach we wait for
 * it and pass signals on; with it, the pid file names it and we leave.
 */
#include "config.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The signals we pass on to the process we wait for. */
static const int relayed[] = {SIGHUP,  SIGINT,	SIGQUIT, SIGUSR1, SIGUSR2,
			      SIGALRM, SIGTERM, SIGCONT, SIGTSTP, SIGWINCH};

struct exec_child {
	const struct oci_process *p;
	void *filter;
	int pidfd, go_fd, report_fd, console_fd;
	bool drop_mknod;
};

/* In the child: join, set up, exec; failures go to report_fd. */
static __attribute__((noreturn)) void exec_child(struct exec_child *c)
{
	int keep[] = {c->pidfd, c->go_fd, c->report_fd, c->console_fd, rung_log_fd()};
	struct rung_error err = {0};
	cleanup_free char *prog = NULL;
	char buf, *msg;

	fds_close_from(3, keep, ARRAY_SIZE(keep));
	level1_reset_signals();
	if (read(c->go_fd, &buf, 1) != 1)
		_exit(1);
	close(c->go_fd);
	if (level1_oom_score(c->p, &err) < 0)
		goto fail;
	if (setns(c->pidfd,
		  CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP) < 0) {
		rung_error_make(&err, errno, "join the container's namespaces");
		goto fail;
	}
	close(c->pidfd);
	if (c->p->terminal && level1_console(c->console_fd, c->p, false, &err) < 0)
		goto fail;
	if (c->console_fd >= 0)
		close(c->console_fd);
	close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
	if (level1_finalize(c->p, c->filter, c->drop_mknod, &err) < 0 ||
	    level1_find_program(c->p, &prog, &err) < 0)
		goto fail;
	execve(prog, c->p->args, c->p->env);
	rung_error_make(&err, errno, "exec: \"%s\"", c->p->args[0]);
fail:
	msg = rung_error_string(&err);
	if (msg && write(c->report_fd, msg, strlen(msg)) < 0)
		(void)0;
	_exit(127);
}

/* Does the container have a device cgroup (else CAP_MKNOD is dropped, as for its init)? */
static bool has_device_cgroup(const struct container_state *st)
{
	cleanup_free char *dir =
		st->cgroup ? xasprintf("/sys/fs/cgroup/devices%s", st->cgroup) : NULL;

	return dir && access(dir, F_OK) == 0;
}

/* Wait for child, passing the signals of set on; its exit status. */
static int wait_relaying(pid_t child, const sigset_t *set)
{
	int status;

	while (waitpid(child, &status, WNOHANG) != child) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);
		if (sig > 0 && sig != SIGCHLD)
			kill(child, sig);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int level1_exec(const struct container_state *st, const char *process_json, int console_fd,
		bool detach, const char *pid_file, struct rung_error *err)
{
	struct oci_process p;
	struct oci_spec *spec = NULL;
	struct exec_child c = {.p = &p, .pidfd = -1, .console_fd = console_fd};
	int go[2] = {-1, -1}, rep[2] = {-1, -1}, ret;
	sigset_t set, old;
	char msg[4096];
	ssize_t n, len = 0;
	pid_t child = -1;

	if ((ret = spec_parse_process(process_json, &p, err)) < 0)
		return ret;
	ret = spec_load(st->bundle, &spec, err);
	if (ret == 0 && spec->seccomp)
		ret = level1_seccomp_compile(spec->seccomp, &c.filter, err);
	if (ret < 0)
		goto out;
	c.drop_mknod = !has_device_cgroup(st);
	c.pidfd = pidfd_open(st->pid, 0);
	if (c.pidfd < 0 || state_pid_start(st->pid) != st->pid_start) {
		ret = rung_error_make(err, 0, "container not running");
		goto out;
	}
	/* Our children are born in the container's pid namespace. */
	if (setns(c.pidfd, CLONE_NEWPID) < 0) {
		ret = rung_error_make(err, errno, "join the container's pid namespace");
		goto out;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		ret = rung_error_make(err, errno, "pipe");
		goto out;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaddset(&set, relayed[i]);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	child = fork();
	if (child < 0) {
		ret = rung_error_make(err, errno, "fork the process (is the container running?)");
		goto out_mask;
	}
	if (child == 0) {
		c.go_fd = go[0];
		c.report_fd = rep[1];
		exec_child(&c);
	}
	close(go[0]);
	close(rep[1]);
	go[0] = rep[1] = -1;
	if (st->cgroup && (ret = cgroup_join(st->cgroup, child, err)) < 0)
		goto out_kill;
	if (write(go[1], "g", 1) != 1) {
		ret = rung_error_make(err, errno, "start the process");
		goto out_kill;
	}
	/* EOF with nothing said: it exec'd. */
	while ((n = read(rep[0], msg + len, sizeof(msg) - 1 - (size_t)len)) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? n : 0;
	msg[len] = '\0';
	if (len > 0) {
		waitpid(child, NULL, 0);
		child = -1;
		ret = rung_error_make(err, 0, "%s", msg);
		goto out_mask;
	}
	if (pid_file && (ret = write_pid_file(pid_file, child, err)) < 0)
		goto out_kill;
	ret = detach ? 0 : wait_relaying(child, &set);
	goto out_mask;
out_kill:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	if (c.pidfd >= 0)
		close(c.pidfd);
	level1_seccomp_release(c.filter);
	spec_free(spec);
	spec_process_release(&p);
	return ret;
}
