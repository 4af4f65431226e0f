/*
 * A level-1 container's init and life cycle (level1.h): create clones the
 * init in its namespaces; the init sets the container up and parks on the
 * state directory's exec.fifo (held open read-write, so that its read
 * blocks until start writes a byte); start, kill, ps and delete then act on
 * it and on its cgroup from outside.
 */
#include "config.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define INIT_STACK_SIZE (8u << 20)

/* --- the init ------------------------------------------------------------------------ */

/* A signal that would end a process by default ends a parked init with
 * 128 + it (as pid 1 of its namespace it would otherwise ignore it). */
static void parked_signal(int sig)
{
	_exit(128 + sig);
}

static void park_signals(void)
{
	struct sigaction sa = {.sa_handler = parked_signal};
	static const int ignored[] = {SIGKILL,	SIGSTOP, SIGCHLD, SIGCONT, SIGURG,
				      SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU};

	for (int sig = 1; sig < NSIG; sig++) {
		bool skip = false;
		for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
			skip |= ignored[i] == sig;
		if (!skip)
			sigaction(sig, &sa, NULL);
	}
}

static void report(int *fd, const char *msg)
{
	if (*fd >= 0 && write(*fd, msg, strlen(msg)) < 0)
		log_warning("the caller went away");
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int level1_init(void *arg)
{
	struct level1_init_args *a = arg;
	const struct oci_spec *spec = a->spec;
	const struct oci_process *p = &spec->process;
	struct rung_error err = {0};
	int keep[] = {a->ready_fd, a->go_fd, a->console_fd, a->fifo_fd, rung_log_fd()};
	cleanup_free char *prog = NULL;
	void *filter = NULL;
	struct pollfd ready = {.fd = a->ready_fd, .events = POLLOUT};
	bool dev_rules = false;
	char *msg, buf;
	ssize_t n;

	fds_close_from(3 + a->preserve_fds, keep, ARRAY_SIZE(keep));
	for (int fd = 3; fd < 3 + a->preserve_fds; fd++)
		fcntl(fd, F_SETFD, 0); /* the workload's (--preserve-fds) */
	if (!a->do_mode)
		level1_reset_signals();
	/* Until set-up is over, we die with create (rung do: for good). */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (a->go_fd >= 0) {
		while ((n = read(a->go_fd, &buf, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(1); /* create gave up on us */
		close(a->go_fd);
	}
	/* A create that died before PDEATHSIG was set left no reader. */
	if (poll(&ready, 1, 0) == 1 && (ready.revents & POLLERR))
		_exit(1);
	/* Before anything else: so that all we do is accounted there. */
	if (a->cgroup && cgroup_join(a->cgroup, 0, &err) < 0)
		goto fail;
	if (level1_join_late(spec, &err) < 0 || (a->lo_up && level1_lo_up(&err) < 0) ||
	    level1_oom_score(p, &err) < 0 || level1_rootfs_setup(a, &dev_rules, &err) < 0 ||
	    level1_rootfs_finish(spec, &err) < 0 || level1_hostname(spec, &err) < 0)
		goto fail;
	if (p->terminal && level1_console(a->console_fd, p, true, &err) < 0)
		goto fail;
	if (a->console_fd >= 0)
		close(a->console_fd);
	if (!dev_rules && p->has_caps && (p->cap_bounding & (1ull << CAP_MKNOD)))
		log_warning("no device cgroup confines the container: CAP_MKNOD is dropped");
	if (spec->seccomp && level1_seccomp_compile(spec->seccomp, &filter, &err) < 0)
		goto fail;
	if (a->fifo_fd >= 0)
		park_signals();
	/* Every descriptor of ours goes at execve; 0-2 (and --preserve-fds)
	 * are the workload's. */
	close_range(3 + (unsigned)a->preserve_fds, ~0u, CLOSE_RANGE_CLOEXEC);
	/* A container outlives create (not rung do's: it dies with rung). */
	if (!a->do_mode)
		prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
	if (level1_finalize(p, filter, !dev_rules, &err) < 0)
		goto fail;
	if (!a->do_mode && level1_find_program(p, &prog, &err) < 0)
		goto fail;
	report(&a->ready_fd, "ok");
	if (a->fifo_fd >= 0) {
		while ((n = read(a->fifo_fd, &buf, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(1);
		close(a->fifo_fd);
	}
	if (a->do_mode) {
		for (int fd = 0; fd < 3; fd++)
			if (a->close_stdio[fd])
				close(fd);
		if (level1_find_program(p, &prog, &err) < 0) {
			msg = rung_error_string(&err);
			dprintf(STDERR_FILENO, "rung: %s\n", msg);
			_exit(strstr(msg, "permission denied") ? 126 : 127);
		}
	}
	level1_execve(prog, p);
fail:
	msg = rung_error_string(&err);
	report(&a->ready_fd, msg ? msg : "container setup failed");
	_exit(1);
}

/* --- create ----------------------------------------------------------------------------- */

int level1_clone(struct level1_init_args *a, pid_t *pid, struct rung_error *err)
{
	void *stack;
	int flags, ret = level1_clone_flags(a->spec, &flags, err);

	if (ret < 0)
		return ret;
	/* The child runs on a copy of this stack (no CLONE_VM), then execs. */
	stack = mmap(NULL, INIT_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return rung_error_make(err, errno, "the init's stack");
	*pid = clone(level1_init, (char *)stack + INIT_STACK_SIZE, flags | SIGCHLD, a);
	if (*pid < 0)
		ret = rung_error_make(err, errno, "clone the container's init");
	munmap(stack, INIT_STACK_SIZE);
	return ret;
}

/* pids.max exactly (cgroup.c sizes it for a sentry's own threads, which
 * a level-1 container does not have): limit > 0, or -1 for none. */
static int exact_pids_max(const char *cgroup, int64_t limit, struct rung_error *err)
{
	cleanup_free char *path = cgroup_file(cgroup, "pids", "pids.max");
	char buf[32];
	int fd, n, ret = 0;

	n = limit > 0 ? snprintf(buf, sizeof(buf), "%lld", (long long)limit)
		      : snprintf(buf, sizeof(buf), "max");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		ret = rung_error_make(err, errno, "set pids.max of `%s`", cgroup);
	if (fd >= 0)
		close(fd);
	return ret;
}

int level1_update(const struct container_state *st, const char *resources_json,
		  struct rung_error *err)
{
	struct json_object *o = json_tokener_parse(resources_json), *pids, *limit;
	int64_t v = 0;

	if (o && json_object_object_get_ex(o, "pids", &pids) &&
	    json_object_object_get_ex(pids, "limit", &limit) &&
	    json_object_is_type(limit, json_type_int))
		v = json_object_get_int64(limit);
	if (o)
		json_object_put(o);
	return v && st->cgroup ? exact_pids_max(st->cgroup, v, err) : 0;
}

int level1_spawn(const struct level1_create *c, pid_t *pid, struct rung_error *err)
{
	struct level1_init_args a = {.spec = c->spec,
				     .bundle = c->bundle,
				     .cgroup = c->cgroup,
				     .preserve_fds = c->preserve_fds,
				     .ready_fd = c->ready_fd,
				     .go_fd = c->go_fd,
				     .console_fd = c->console_fd};
	cleanup_free char *fifo = state_path(c->root, c->id, "exec.fifo");
	int ret;

	if (c->cgroup && c->spec->resources.pids_limit > 0 &&
	    (ret = exact_pids_max(c->cgroup, c->spec->resources.pids_limit, err)) < 0)
		return ret;
	if (mkfifo(fifo, 0600) < 0)
		return rung_error_make(err, errno, "make `%s`", fifo);
	a.fifo_fd = open(fifo, O_RDWR | O_CLOEXEC);
	if (a.fifo_fd < 0)
		return rung_error_make(err, errno, "open `%s`", fifo);
	ret = level1_clone(&a, pid, err);
	close(a.fifo_fd);
	return ret;
}

int level1_start(const char *root, const struct container_state *st, struct rung_error *err)
{
	cleanup_free char *fifo = state_path(root, st->id, "exec.fifo");
	int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC), ret = 0;

	/* No reader: the init is not parked (any more). */
	if (fd < 0)
		return rung_error_make(err, 0, "container not running");
	if (write(fd, "s", 1) != 1)
		ret = rung_error_make(err, errno, "release the container's init");
	close(fd);
	unlink(fifo);
	return ret;
}

/* --- from outside ---------------------------------------------------------------------- */

/* A pidfd for st's init if it is still the process state names, else -1. */
static int init_pidfd(const struct container_state *st)
{
	int fd = pidfd_open(st->pid, 0);

	if (fd >= 0 && state_pid_start(st->pid) != st->pid_start) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int level1_kill(const struct container_state *st, int sig, bool all, struct rung_error *err)
{
	int fd, ret = 0;

	/* A frozen process dies of SIGKILL only once thawed. */
	if (st->paused && st->cgroup && sig == SIGKILL)
		cgroup_freeze(st->cgroup, false, NULL);
	if (all && st->cgroup) {
		pid_t *pids;
		size_t n;
		if (cgroup_pids(st->cgroup, &pids, &n) < 0)
			return rung_error_make(err, errno, "the processes of the container");
		for (size_t i = 0; i < n; i++)
			kill(pids[i], sig);
		free(pids);
		return 0;
	}
	fd = init_pidfd(st);
	if (fd < 0 || pidfd_send_signal(fd, sig, NULL, 0) < 0)
		ret = rung_error_make(err, 0, "container not running");
	if (fd >= 0)
		close(fd);
	return ret;
}

void level1_destroy(const struct container_state *st)
{
	pid_t *pids;
	size_t n;

	if (!st->cgroup)
		return;
	for (int i = 0; i < 200; i++) {
		if (cgroup_pids(st->cgroup, &pids, &n) < 0 || n == 0) {
			free(pids);
			return;
		}
		if (st->paused)
			cgroup_freeze(st->cgroup, false, NULL);
		for (size_t j = 0; j < n; j++)
			kill(pids[j], SIGKILL);
		free(pids);
		usleep(10000);
	}
}

int level1_pids(const struct container_state *st, pid_t **pids, size_t *n)
{
	*pids = NULL;
	*n = 0;
	if (!st->cgroup)
		return 0;
	return cgroup_pids(st->cgroup, pids, n);
}
