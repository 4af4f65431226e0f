/* The OCI container life cycle shared by the subcommands: create, start, delete. */
#include "config.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/container.h"
#include "runsc-compat/control.h"
#include "runsc-compat/hooks.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/compat.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/vm_run.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/spec_check.h"
#include "runsc-compat/state.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/unixsock.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

const char *oci_root(const struct global_args *g)
{
	return g->root ? g->root : STATE_DEFAULT_ROOT;
}

int write_pid_file(const char *path, pid_t pid, struct rung_error *err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *tmp, buf[32];
	int fd, n = snprintf(buf, sizeof(buf), "%d", pid), ret = 0;

	if (slash)
		slash[1] = '\0';
	tmp = slash ? xasprintf("%s.%s.tmp", dir, slash ? path + (slash - dir) + 1 : path)
		    : xasprintf(".%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, (size_t)n) != n || rename(tmp, path) < 0)
		ret = rung_error_make(err, errno, "write the pid file `%s`", path);
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	free(dir);
	return ret;
}

int parse_signal(const char *s)
{
	char *end;
	long n;

	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		return (*end || n < 1 || n > 64) ? -1 : (int)n;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
		bool min = strncasecmp(s, "RTMIN", 5) == 0;
		n = 0;
		if (s[5]) {
			n = strtol(s + 5, &end, 10);
			if (*end || (min && n < 0) || (!min && n > 0))
				return -1;
		}
		n += min ? SIGRTMIN : SIGRTMAX;
		return (n < SIGRTMIN || n > SIGRTMAX) ? -1 : (int)n;
	}
	for (int sig = 1; sig < 32; sig++) {
		const char *name = sigabbrev_np(sig);
		if (name && strcasecmp(name, s) == 0)
			return sig;
	}
	return -1;
}

/* The state given to hooks: runc's state object with status and pid. */
static char *hook_state(const struct container_state *st, const char *status)
{
	struct json_object *o = json_object_new_object(), *ann;
	char *out;

	json_object_object_add(o, "ociVersion", json_object_new_string("1.0.2-dev"));
	json_object_object_add(o, "id", json_object_new_string(st->id));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "pid", json_object_new_int(st->pid));
	json_object_object_add(o, "bundle", json_object_new_string(st->bundle));
	ann = json_tokener_parse(st->annotations ? st->annotations : "{}");
	json_object_object_add(o, "annotations", ann ? ann : json_object_new_object());
	out = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

/* Connect to the console socket the shim listens on. */
static int connect_console(const char *path, struct rung_error *err)
{
	int fd = unix_connect(path, SOCK_STREAM);

	if (fd < 0)
		return rung_error_make(err, -fd, "connect to the console socket `%s`", path);
	return fd;
}

/* process.oomScoreAdj is the sandbox's on the host (its gofer and stubs,
 * forked later, inherit it): the host's OOM killer picks the whole sandbox. */
static int set_oom_score_adj(pid_t pid, int adj, struct rung_error *err)
{
	char path[64], buf[16];
	int fd, n = snprintf(buf, sizeof(buf), "%d", adj), ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		ret = rung_error_make(err, errno, "set process.oomScoreAdj (%d)", adj);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Read everything the child writes to fd (its "ok" or error), NUL-terminated. */
static char *read_report(int fd)
{
	size_t len = 0, cap = 256;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (len + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

int oci_create(struct global_args *g, const char *id, const struct create_opts *o, pid_t *pidp,
	       struct rung_error *err)
{
	const char *root = oci_root(g);
	struct container_state st = {0};
	struct oci_spec *spec = NULL;
	cleanup_free char *bundle = realpath(o->bundle ? o->bundle : ".", NULL);
	cleanup_free char *msg = NULL;
	cleanup_free char *cg = NULL;
	int ready[2] = {-1, -1}, go[2] = {-1, -1}, hooks[2] = {-1, -1}, lock = -1, console = -1,
	    compat = -1, ret;
	bool early_hooks = false;
	struct isolation_workload w = {0};
	enum isolation iso;
	bool record;
	pid_t pid = -1;

	if (!bundle)
		return rung_error_make(err, errno, "bundle `%s`", o->bundle ? o->bundle : ".");
	ret = spec_load(bundle, &spec, err);
	if (ret < 0)
		return ret;
	w.annotations = spec->annotations;
	w.rootfs = spec->root_path;
	w.argv = spec->process.args;
	ret = isolation_choose(g, &w, &iso, &record, err);
	if (ret < 0)
		goto out;
	if (iso == ISOLATION_CONFIDENTIAL) {
		ret = isolation_refuse_confidential(err);
		goto out;
	}
	if (spec->process.terminal && !o->console_socket) {
		ret = rung_error_make(err, 0,
				      "cannot allocate tty if runc will detach without "
				      "setting console socket");
		goto out;
	}
	if (!spec->process.terminal && o->console_socket) {
		ret = rung_error_make(err, 0,
				      "cannot use console socket if runc will not detach "
				      "or allocate tty");
		goto out;
	}
	ret = spec_check_supported(bundle, iso == ISOLATION_CONTAINER, err);
	if (ret < 0)
		goto out;
	if (o->preserve_fds < 0 || o->preserve_fds > 1024) {
		ret = rung_error_make(err, EINVAL, "--preserve-fds: `%d` is not a count",
				      o->preserve_fds);
		goto out;
	}
	for (int i = 0; i < o->preserve_fds; i++)
		if (fcntl(3 + i, F_GETFD) < 0) {
			ret = rung_error_make(err, EBADF,
					      "--preserve-fds: descriptor %d is not open", 3 + i);
			goto out;
		}
	ret = state_create(root, id, &lock, err);
	if (ret < 0)
		goto out;
	if (o->console_socket) {
		console = connect_console(o->console_socket, err);
		if (console < 0) {
			ret = console;
			goto fail;
		}
	}
	cg = cgroup_path(spec->cgroups_path, id, g->systemd_cgroup);
	ret = cgroup_create(cg, &spec->resources, err);
	if (ret < 0)
		goto fail;
	/* The hooks pipe only for the sentry, the one tier that reads its
	 * network namespace before it confines itself at create. */
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    (iso == ISOLATION_SENTRY && pipe2(hooks, O_CLOEXEC) < 0)) {
		ret = rung_error_make(err, errno, "pipe");
		goto fail;
	}
	if (record)
		compat = compat_open(root, spec->root_path, spec->process.args);
	if (iso == ISOLATION_CONTAINER) {
		/* The container's init itself, in its namespaces (level1.h). */
		struct level1_create lc = {.spec = spec,
					   .bundle = bundle,
					   .root = root,
					   .id = id,
					   .cgroup = cg,
					   .preserve_fds = o->preserve_fds,
					   .ready_fd = ready[1],
					   .go_fd = go[0],
					   .console_fd = console};
		ret = level1_spawn(&lc, &pid, err);
		if (ret < 0)
			goto fail;
	} else {
		pid = fork();
	}
	if (pid < 0) {
		ret = rung_error_make(err, errno, "fork the sandbox");
		goto fail;
	}
	if (pid == 0) {
		struct container_args a = {.g = g,
					   .spec = spec,
					   .root = root,
					   .id = id,
					   .cgroup = cg,
					   .ready_fd = ready[1],
					   .go_fd = go[0],
					   .hooks_fd = hooks[1],
					   .console_fd = console,
					   .preserve_fds = o->preserve_fds,
					   .compat_fd = compat,
					   .donate = g->file_access_direct};
		int keep[] = {ready[1], go[0],	       isolation_is_vm(iso) ? -1 : hooks[1],
			      console,	rung_log_fd(), compat};
		/* Nothing else of the caller's (the shim's sockets) lives on. */
		fds_close_from(3 + o->preserve_fds, keep, ARRAY_SIZE(keep));
		exit(isolation_is_vm(iso) ? vm_container_main(&a, iso == ISOLATION_VM)
					  : container_main(&a));
	}
	close(ready[1]);
	close(go[0]);
	if (hooks[1] >= 0)
		close(hooks[1]);
	ready[1] = go[0] = hooks[1] = -1;
	if (compat >= 0)
		close(compat);
	compat = -1;
	if (console >= 0)
		close(console);
	console = -1;
	if (spec->process.has_oom_score_adj)
		ret = set_oom_score_adj(pid, spec->process.oom_score_adj, err);
	if (ret < 0)
		goto fail;
	if (write(go[1], "g", 1) != 1) {
		ret = rung_error_make(err, errno, "start the sandbox");
		goto fail;
	}
	st.id = xstrdup(id);
	st.pid = pid;
	st.bundle = xstrdup(bundle);
	/* A new network namespace: its hooks (Docker's configure the network)
	 * run before the sandbox reads it and confines itself (sentry tier). */
	st.annotations = xstrdup(spec->annotations);
	if (hooks[0] >= 0 && read(hooks[0], &(char){0}, 1) == 1) {
		char *hs = hook_state(&st, "creating");
		early_hooks = true;
		ret = hooks_run(spec->hooks.prestart, spec->hooks.n_prestart, hs, "prestart", err);
		if (ret == 0)
			ret = hooks_run(spec->hooks.create_runtime, spec->hooks.n_create_runtime,
					hs, "createRuntime", err);
		free(hs);
		if (ret < 0)
			goto fail;
		if (write(go[1], "n", 1) != 1) {
			ret = rung_error_make(err, errno, "start the sandbox");
			goto fail;
		}
	}
	msg = read_report(ready[0]);
	if (strcmp(msg, "ok") != 0) {
		ret = rung_error_make(err, 0, "%s", *msg ? msg : "the sandbox did not start");
		goto fail;
	}

	st.pid_start = state_pid_start(pid);
	st.rootfs = xstrdup(spec->root_path);
	st.created = state_now_rfc3339();
	st.owner = xstrdup("");
	st.cgroup = xstrdup(cg);
	st.isolation = iso == ISOLATION_CONTAINER ? xstrdup(isolation_name(iso)) : NULL;
	ret = state_save(root, &st, err);
	if (ret == 0) {
		char *hs = hook_state(&st, "creating");
		if (!early_hooks)
			ret = hooks_run(spec->hooks.prestart, spec->hooks.n_prestart, hs,
					"prestart", err);
		if (ret == 0 && !early_hooks)
			ret = hooks_run(spec->hooks.create_runtime, spec->hooks.n_create_runtime,
					hs, "createRuntime", err);
		if (ret == 0)
			ret = hooks_run(spec->hooks.create_container,
					spec->hooks.n_create_container, hs, "createContainer", err);
		free(hs);
	}
	/* The pid file last: the shim takes its appearance as create's end. */
	if (ret == 0 && o->pid_file)
		ret = write_pid_file(o->pid_file, pid, err);
	if (ret < 0)
		goto fail;
	*pidp = pid;
	goto out;
fail:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (cg)
		cgroup_remove(cg);
	if (lock >= 0)
		state_remove(root, id);
out:
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (go[i] >= 0)
			close(go[i]);
		if (hooks[i] >= 0)
			close(hooks[i]);
	}
	if (console >= 0)
		close(console);
	if (compat >= 0)
		close(compat);
	if (lock >= 0)
		close(lock);
	state_release(&st);
	spec_free(spec);
	return ret;
}

/* The bundle's spec again (hooks for start and delete). */
static struct oci_spec *reload_spec(const struct container_state *st)
{
	struct rung_error err = {0};
	struct oci_spec *spec = NULL;

	if (spec_load(st->bundle, &spec, &err) < 0) {
		rung_error_release(&err);
		return NULL;
	}
	return spec;
}

int oci_start(struct global_args *g, const char *id, struct rung_error *err)
{
	const char *root = oci_root(g);
	struct container_state st;
	struct oci_spec *spec;
	char *path;
	int lock, fd, ret = state_lock(root, id, &lock, err);

	if (ret < 0)
		return ret;
	ret = state_load(root, id, &st, err);
	if (ret < 0)
		goto out_lock;
	switch (state_status(&st)) {
	case STATUS_CREATED:
		break;
	case STATUS_STOPPED:
		ret = rung_error_make(err, 0, "cannot start a container that has stopped");
		goto out;
	default:
		ret = rung_error_make(err, 0, "cannot start an already running container");
		goto out;
	}
	if (isolation_is_container(&st)) {
		ret = level1_start(root, &st, err);
	} else {
		path = ctl_path(root, id);
		ret = ctl_connect(path, &fd, err);
		free(path);
		if (ret == 0) {
			ret = ctl_call(fd, CTL_START, 0, 0, NULL, 0, NULL, 0, NULL, err);
			close(fd);
		}
	}
	if (ret < 0)
		goto out;
	st.started = true;
	ret = state_save(root, &st, err);
	spec = reload_spec(&st);
	if (spec) {
		struct rung_error herr = {0};
		char *hs = hook_state(&st, "running");
		/* poststart failures are logged, not fatal (the runtime spec). */
		if (hooks_run(spec->hooks.poststart, spec->hooks.n_poststart, hs, "poststart",
			      &herr) < 0)
			rung_error_print(&herr, NULL);
		free(hs);
		spec_free(spec);
	}
out:
	state_release(&st);
out_lock:
	close(lock);
	return ret;
}

/* Wait (at most about 5 s) until pid is gone or a zombie. */
static void wait_gone(const struct container_state *st)
{
	for (int i = 0; i < 500; i++) {
		if (state_pid_start(st->pid) != st->pid_start)
			return;
		usleep(10000);
	}
}

int oci_delete(struct global_args *g, const char *id, bool force, struct rung_error *err)
{
	const char *root = oci_root(g);
	struct container_state st;
	struct oci_spec *spec;
	int lock, ret = state_lock(root, id, &lock, err);

	if (ret < 0) {
		if (force) {
			rung_error_release(err);
			return 0; /* runc: --force on an unknown container succeeds */
		}
		return ret;
	}
	ret = state_load(root, id, &st, err);
	if (ret < 0) {
		state_remove(root, id);
		close(lock);
		return force ? 0 : ret;
	}
	if (state_status(&st) != STATUS_STOPPED) {
		if (!force) {
			ret = rung_error_make(err, 0,
					      "cannot delete container %s that is not stopped: %s",
					      id, state_status_name(state_status(&st)));
			goto out;
		}
		if (st.paused && st.cgroup)
			cgroup_freeze(st.cgroup, false, err);
		kill(st.pid, SIGKILL);
		wait_gone(&st);
	} else if (st.paused && st.cgroup) {
		/* Its init died while it was frozen: thaw what is left, so it ends. */
		cgroup_freeze(st.cgroup, false, err);
	}
	/* Level 1: what is left in the cgroup (a shared pid namespace's processes). */
	if (isolation_is_container(&st))
		level1_destroy(&st);
	spec = reload_spec(&st);
	if (spec) {
		struct rung_error herr = {0};
		char *hs = hook_state(&st, "stopped");
		if (hooks_run(spec->hooks.poststop, spec->hooks.n_poststop, hs, "poststop", &herr) <
		    0)
			rung_error_print(&herr, NULL);
		free(hs);
		spec_free(spec);
	}
	if (st.cgroup) {
		if (force)
			cgroup_kill(st.cgroup);
		cgroup_remove(st.cgroup);
	}
	state_remove(root, id);
	rung_error_release(err);
	ret = 0;
out:
	state_release(&st);
	close(lock);
	return ret;
}

int oci_host_pids(const struct container_state *st, pid_t **pids, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t cap = 16;

	if (isolation_is_container(st)) {
		if (d)
			closedir(d);
		return level1_pids(st, pids, n);
	}
	*n = 0;
	*pids = xmalloc(cap * sizeof(**pids));
	if (state_pid_start(st->pid) != st->pid_start || !d) {
		if (d)
			closedir(d);
		return 0;
	}
	(*pids)[(*n)++] = st->pid;
	/* Descendants: repeat until no process whose parent is listed is missing. */
	for (bool more = true; more;) {
		more = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			char path[64], buf[512], *p;
			int pid = atoi(e->d_name), ppid, fd;
			bool known = false, parent = false;
			ssize_t r;
			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			r = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (r <= 0)
				continue;
			buf[r] = '\0';
			p = strrchr(buf, ')');
			if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
				continue;
			for (size_t i = 0; i < *n; i++) {
				known |= (*pids)[i] == pid;
				parent |= (*pids)[i] == ppid;
			}
			if (!known && parent) {
				if (*n == cap)
					*pids = xrealloc(*pids, (cap *= 2) * sizeof(**pids));
				(*pids)[(*n)++] = pid;
				more = true;
			}
		}
	}
	closedir(d);
	return 0;
}
