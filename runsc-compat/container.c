/* The sandbox process of an OCI container (see container.h). */
#include "config.h"
#include "runsc-compat/container.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/control.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/netns.h"
#include "runsc-compat/sandbox.h"
#include "runsc-compat/seccomp_profile.h"
#include "runsc-compat/spec.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/spawn.h"
#include "sentry/kernel/task.h"
#include "platform/platform.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

struct container {
	struct sandbox *sb;
	const struct oci_spec *spec;
	int stdio[3]; /* the init's host stdio (closed once it has its own) */
	int *extra;   /* --preserve-fds: host fds for the init's 3, 4, ... */
	int nextra;
	bool terminal; /* the init's stdio is the console's pty */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started;
	int kill_sig;			/* a kill before start: the sandbox ends with 128 + this */
	struct seccomp_filter *seccomp; /* linux.seccomp compiled, or NULL */
};

void container_process(const struct oci_process *op, struct kernel_process *kp)
{
	memset(kp, 0, sizeof(*kp));
	kp->argv = op->args;
	kp->envp = op->env;
	kp->cwd = op->cwd;
	kp->cwd_create = true;
	kp->uid = op->uid;
	kp->gid = op->gid;
	kp->groups = op->additional_gids;
	kp->ngroups = op->n_additional_gids;
	/* No capabilities key (Docker's --cap-drop ALL): none at all. */
	kp->has_caps = true;
	kp->cap_bounding = op->has_caps ? op->cap_bounding : 0;
	kp->cap_effective = op->has_caps ? op->cap_effective : 0;
	kp->cap_permitted = op->has_caps ? op->cap_permitted : 0;
	kp->cap_inheritable = op->has_caps ? op->cap_inheritable : 0;
	kp->cap_ambient = op->has_caps ? op->cap_ambient : 0;
	kp->rlimits = (const struct kernel_rlimit *)op->rlimits;
	kp->nrlimits = op->n_rlimits;
	kp->no_new_privs = op->no_new_privileges;
	kp->has_umask = op->umask >= 0;
	kp->umask = op->umask;
	kp->stdio[0] = kp->stdio[1] = kp->stdio[2] = -1;
	/* runc makes every process of a container, the init and each exec'd
	 * one, lead a session of its own (nsexec's setsid). */
	kp->new_session = true;
}

_Static_assert(sizeof(struct kernel_rlimit) == sizeof(struct oci_rlimit) &&
		       offsetof(struct kernel_rlimit, soft) == offsetof(struct oci_rlimit, soft),
	       "rlimit layouts");

/* --- the console ----------------------------------------------------------------- */

int console_send_pty(int console_fd, unsigned width, unsigned height)
{
	static const char name[] = "pty-master";
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cmsg;
	struct iovec iov = {(void *)name, sizeof(name) - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cmsg.buf,
			     .msg_controllen = sizeof(cmsg.buf)};
	struct winsize ws = {.ws_row = (unsigned short)height, .ws_col = (unsigned short)width};
	struct cmsghdr *c;
	int master, slave, ret;

	if (openpty(&master, &slave, NULL, NULL, (width || height) ? &ws : NULL) < 0)
		return -errno;
	fcntl(master, F_SETFD, FD_CLOEXEC);
	fcntl(slave, F_SETFD, FD_CLOEXEC);
	memset(&cmsg, 0, sizeof(cmsg));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &master, sizeof(int));
	ret = sendmsg(console_fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
	close(master);
	if (ret < 0) {
		close(slave);
		return ret;
	}
	return slave;
}

/* --- the control server ------------------------------------------------------------ */

struct exec_wait {
	int pipe[2]; /* the exit status arrives here (written under the kernel lock) */
};

static void exec_exited(void *arg, int status)
{
	struct exec_wait *w = arg;

	/* A pipe write of 4 bytes neither blocks nor splits. */
	if (write(w->pipe[1], &status, sizeof(status)) < 0)
		log_warning("exec: lost an exit status");
}

/* The wait status of a guest process as a shell reports it. */
static int exit_code(int status)
{
	return (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff;
}

/*
 * A terminal's new size for the guest: SIGWINCH to the process group of
 * pid (the leader of the terminal's session: the init, or an exec -t
 * process), which the host terminal's foreground group stands for.
 */
static void winch_guest(struct kernel *k, int pid)
{
	struct thread_group *tg;
	siginfo_t info;
	int pgid = -1;

	siginfo_kernel(&info, SIGWINCH);
	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, pid, false);
	if (tg)
		pgid = tg->pgid;
	pthread_mutex_unlock(&k->lock);
	if (pgid >= 0)
		signal_send_pgrp(k, pgid, &info);
}

/* Signal a guest process group from outside the sandbox (si_pid 0). */
static int signal_guest(struct kernel *k, int pid, int sig, bool all)
{
	struct thread_group *tg;
	siginfo_t info;
	int ret = all ? 0 : -ESRCH;

	siginfo_user(&info, sig, NULL);
	pthread_mutex_lock(&k->lock);
	if (all) {
		list_for_each_entry(tg, &k->groups, knode)
			signal_send_tg_locked(tg, &info);
	} else {
		tg = kernel_find_tg_locked(k, pid, false);
		if (tg)
			ret = signal_send_tg_locked(tg, &info);
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* One exec: start it, tell the client its pid, relay signals until it dies. */
static void serve_exec(struct container *c, int conn, struct ctl_msg *m)
{
	struct rung_error err = {0};
	struct oci_process op;
	struct kernel_process kp;
	struct exec_wait w;
	int pid, status;
	bool tty = m->h.a != 0;

	if (m->nfds != 3 || !m->data) {
		ctl_send(conn, CTL_ERROR, EINVAL, 0, "exec: stdio missing", 19, NULL, 0);
		return;
	}
	if (spec_parse_process(m->data, &op, &err) < 0) {
		ctl_send(conn, CTL_ERROR, err.status, 0, err.msg, strlen(err.msg), NULL, 0);
		rung_error_release(&err);
		return;
	}
	if (pipe2(w.pipe, O_CLOEXEC) < 0) {
		spec_process_release(&op);
		ctl_send(conn, CTL_ERROR, errno, 0, "exec: no pipe", 13, NULL, 0);
		return;
	}
	container_process(&op, &kp);
	kp.seccomp = c->seccomp;
	for (int i = 0; i < 3; i++)
		kp.stdio[i] = m->fds[i];
	kp.on_exit = exec_exited;
	kp.exit_arg = &w;
	if (kernel_spawn(c->sb->k, &kp, &pid, &err) < 0) {
		ctl_send(conn, CTL_ERROR, err.status, 0, err.msg, strlen(err.msg), NULL, 0);
		rung_error_release(&err);
		goto out;
	}
	ctl_send(conn, CTL_OK, pid, 0, NULL, 0, NULL, 0);
	for (;;) {
		struct pollfd p[2] = {{w.pipe[0], POLLIN, 0}, {conn, POLLIN, 0}};
		struct ctl_msg s;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN) {
			if (read(w.pipe[0], &status, sizeof(status)) == sizeof(status))
				ctl_send(conn, CTL_EXIT, exit_code(status), 0, NULL, 0, NULL, 0);
			break;
		}
		if (p[1].revents & (POLLIN | POLLHUP)) {
			if (ctl_recv(conn, &s) < 0)
				p[1].fd = -1; /* the client went away: wait for the exit only */
			else if (s.h.type == CTL_SIGNAL && s.h.a == SIGWINCH && tty)
				winch_guest(c->sb->k, pid);
			else if (s.h.type == CTL_SIGNAL)
				signal_guest(c->sb->k, pid, s.h.a, false);
			ctl_msg_release(&s);
			if (p[1].fd < 0) {
				/* Keep waiting for the exit, without the connection. */
				while (read(w.pipe[0], &status, sizeof(status)) < 0 &&
				       errno == EINTR)
					;
				break;
			}
		}
	}
out:
	/* The process may still run: its exit callback must find the pipe. */
	spec_process_release(&op);
	close(w.pipe[0]);
	/* (w.pipe[1] stays open: the exit hook of a still-running process may
	 * write it; a dead reader makes that write fail quietly.) */
}

static void serve_start(struct container *c, int conn)
{
	struct rung_error err = {0};
	struct kernel_process kp;

	pthread_mutex_lock(&c->lock);
	if (c->started || c->kill_sig) {
		pthread_mutex_unlock(&c->lock);
		ctl_send(conn, CTL_ERROR, EINVAL, 0, "container already started", 25, NULL, 0);
		return;
	}
	container_process(&c->spec->process, &kp);
	kp.seccomp = c->seccomp;
	memcpy(kp.stdio, c->stdio, sizeof(kp.stdio));
	kp.extra_fds = c->extra;
	kp.nextra = (size_t)c->nextra;
	if (kernel_start_init(c->sb->k, &kp, &err) < 0) {
		pthread_mutex_unlock(&c->lock);
		ctl_send(conn, CTL_ERROR, err.status, 0, err.msg, strlen(err.msg), NULL, 0);
		rung_error_release(&err);
		return;
	}
	/* The init has its own copies: the sandbox keeps none, so that the
	 * caller's pipes reach EOF when the guest (not we) closes them. */
	for (int i = 0; i < 3; i++) {
		if (c->stdio[i] >= 0)
			close(c->stdio[i]);
		c->stdio[i] = -1;
	}
	for (int i = 0; i < c->nextra; i++)
		close(c->extra[i]);
	c->nextra = 0;
	c->started = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	ctl_send(conn, CTL_OK, 0, 0, NULL, 0, NULL, 0);
}

/* Signals whose default is to be ignored leave a parked init alone. */
static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

static void serve_kill(struct container *c, int conn, int sig, bool all)
{
	int ret = 0;

	if (sig < 1 || sig > 64) {
		ctl_send(conn, CTL_ERROR, EINVAL, 0, "invalid signal", 14, NULL, 0);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (!c->started) {
		/* The parked init takes the signal's default action. */
		if (!default_ignored(sig) && !c->kill_sig) {
			c->kill_sig = sig;
			pthread_cond_broadcast(&c->cond);
		}
		pthread_mutex_unlock(&c->lock);
	} else {
		pthread_mutex_unlock(&c->lock);
		ret = signal_guest(c->sb->k, 1, sig, all);
	}
	if (ret < 0)
		ctl_send(conn, CTL_ERROR, ESRCH, 0, "container not running", 21, NULL, 0);
	else
		ctl_send(conn, CTL_OK, 0, 0, NULL, 0, NULL, 0);
}

struct conn_args {
	struct container *c;
	int fd;
};

static void *serve_conn(void *arg)
{
	struct conn_args *ca = arg;
	struct container *c = ca->c;
	int conn = ca->fd;
	struct ctl_msg m;

	free(ca);
	while (ctl_recv(conn, &m) == 0) {
		switch (m.h.type) {
		case CTL_START:
			serve_start(c, conn);
			break;
		case CTL_KILL:
			serve_kill(c, conn, m.h.a, m.h.b != 0);
			break;
		case CTL_TASK_LIMIT:
			kernel_set_task_limit(c->sb->k, m.h.a > 0 ? (unsigned)m.h.a : 0);
			ctl_send(conn, CTL_OK, 0, 0, NULL, 0, NULL, 0);
			break;
		case CTL_MEMORY_LIMIT:
			kernel_set_memory_limit(
				c->sb->k,
				m.h.a > 0 ? sandbox_guest_memory((uint64_t)m.h.a << 10) : 0);
			ctl_send(conn, CTL_OK, 0, 0, NULL, 0, NULL, 0);
			break;
		case CTL_EXEC:
			serve_exec(c, conn, &m);
			ctl_msg_release(&m);
			close(conn);
			return NULL;
		default:
			ctl_send(conn, CTL_ERROR, EINVAL, 0, "unknown request", 15, NULL, 0);
			break;
		}
		ctl_msg_release(&m);
	}
	close(conn);
	return NULL;
}

struct server_args {
	struct container *c;
	int listen_fd;
};

static void *serve(void *arg)
{
	struct server_args *sa = arg;

	for (;;) {
		int conn = accept4(sa->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		struct conn_args *ca;
		pthread_t thr;
		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			log_warning("control socket: %s", strerror(errno));
			return NULL;
		}
		ca = xmalloc(sizeof(*ca));
		ca->c = sa->c;
		ca->fd = conn;
		if (pthread_create(&thr, NULL, serve_conn, ca) != 0) {
			close(conn);
			free(ca);
			continue;
		}
		pthread_detach(thr);
	}
	return NULL;
}

/* --- host signals ------------------------------------------------------------------- */

/* Signals sent to the sandbox process on the host go to the guest's init, as
 * they would to a container's init (which ignores those it does not handle). */
static const int relayed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

bool container_relays_signal(int sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		if (relayed[i] == sig && sig != SIGWINCH)
			return true;
	return false;
}

static void *relay_signals(void *arg)
{
	struct container *c = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaddset(&set, relayed[i]);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		pthread_mutex_lock(&c->lock);
		if (!c->started) {
			if (!default_ignored(sig) && !c->kill_sig) {
				c->kill_sig = sig;
				pthread_cond_broadcast(&c->cond);
			}
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		pthread_mutex_unlock(&c->lock);
		if (sig == SIGWINCH && c->terminal)
			winch_guest(c->sb->k, 1);
		else
			signal_guest(c->sb->k, 1, sig, false);
	}
	return NULL;
}

/* --- the sandbox process -------------------------------------------------------------- */

/* Tell the create command how setup went ("ok" or the error), once. */
static void report(int fd, const char *msg)
{
	if (fd >= 0 && write(fd, msg, strlen(msg)) < 0)
		log_warning("create: the caller is gone");
	if (fd >= 0)
		close(fd);
}

/*
 * The sandbox's network namespace, for a sandbox in network mode `mode`:
 *  - the one the spec names: joined; in `sandbox` mode it must be the
 *    sandbox's own (netns.h), since the stack takes its interfaces over;
 *  - a new one the spec asks for (no path), with its lo up as runc brings
 *    it up, which Docker's prestart hook configures: *fresh is set then;
 *  - none in the spec (Docker's and Kubernetes' host network): the
 *    caller's in `host` mode only (host sockets take nothing over); in
 *    `sandbox` and `none` mode a new, empty one, as runsc does, never the
 *    caller's, whose interfaces the stack would take.
 */
int container_enter_netns(const struct oci_spec *spec, enum net_mode mode, bool *fresh,
			  struct rung_error *err)
{
	static const char choices[] =
		"Give the container a network namespace of its own (a new one, or one that only "
		"a bind mount holds, as `ip netns add` and CNI make), or share this one through "
		"host sockets with --network host (or the annotation " NET_MODE_ANNOTATION
		"=host); rung containers cannot share one namespace yet";
	const struct oci_namespace *ns = spec_namespace(spec, "network");

	*fresh = false;
	if (!ns && mode == NET_MODE_HOST) {
		log_info("network: host: the spec names no network namespace, the sandbox uses "
			 "the caller's");
		return 0;
	}
	if (!ns) {
		log_info("network: %s: the spec names no network namespace, the sandbox runs in "
			 "a new, empty one (only --network host uses the caller's)",
			 net_mode_name(mode));
		return unshare(CLONE_NEWNET) < 0
			       ? rung_error_make(err, errno, "create a network namespace")
			       : 0;
	}
	if (!ns->path) {
		if (unshare(CLONE_NEWNET) < 0)
			return rung_error_make(err, errno, "create a network namespace");
		*fresh = true;
		return level1_lo_up(err);
	}
	if (sandbox_join_netns(ns->path, "linux.namespaces", err) < 0)
		return -1;
	return mode == NET_MODE_SANDBOX
		       ? netns_check_own(ns->path, "linux.namespaces", choices, err)
		       : 0;
}

/* The network mode: the dev.rung.network annotation, else --network; and
 * the egress policy: dev.rung.egress, else --egress (*egress: the caller
 * frees; NULL: the built-in policy). */
static int network_config(const struct container_args *a, enum net_mode *mode, char **egress,
			  struct rung_error *err)
{
	cleanup_free char *ann = spec_annotation(a->spec, NET_MODE_ANNOTATION);
	const char *name = ann ? ann : a->g->network;

	*egress = spec_annotation(a->spec, NET_EGRESS_ANNOTATION);
	if (!*egress && a->g->egress)
		*egress = xstrdup(a->g->egress);
	if (net_mode_parse(name, mode) < 0)
		return rung_error_make(err, EINVAL, "%s `%s`: not sandbox, host or none",
				       ann ? "annotation " NET_MODE_ANNOTATION : "--network", name);
	if (ann)
		log_info("network: %s (annotation %s)", name, NET_MODE_ANNOTATION);
	return 0;
}

/*
 * --network=host in the container's own network namespace: the host
 * sockets live there, so the spec's network sysctls apply to it as runc
 * applies them (Docker's ping_group_range lets ping sockets in, its
 * ip_unprivileged_port_start 0 lets any port be bound). The guest kernel
 * keeps its own copies for its own checks (sandbox.c).
 */
static int host_net_sysctls(const struct oci_spec *spec, struct rung_error *err)
{
	static const char *const keys[] = {"net.ipv4.ping_group_range",
					   "net.ipv4.ip_unprivileged_port_start"};

	if (!spec_namespace(spec, "network"))
		return 0;
	for (size_t i = 0; i < spec->n_sysctl; i++) {
		cleanup_free char *key = xstrdup(spec->sysctl_keys[i]);
		cleanup_free char *path = NULL;
		int fd;

		for (char *p = key; *p; p++)
			if (*p == '/')
				*p = '.';
		if (strcmp(key, keys[0]) != 0 && strcmp(key, keys[1]) != 0)
			continue;
		path = xasprintf("/proc/sys/%s", key);
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 ||
		    write(fd, spec->sysctl_values[i], strlen(spec->sysctl_values[i])) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return rung_error_make(err, e,
					       "config: `linux.sysctl`: set `%s` in the "
					       "network namespace",
					       key);
		}
		close(fd);
	}
	return 0;
}

/* A new network namespace: the caller runs the hooks that configure it
 * (prestart, createRuntime) before the sandbox reads it. */
static int await_hooks(const struct container_args *a, bool fresh, struct rung_error *err)
{
	char buf;

	if (!fresh) {
		close(a->hooks_fd);
		return 0;
	}
	if (write(a->hooks_fd, "h", 1) != 1 || read(a->go_fd, &buf, 1) != 1) {
		close(a->hooks_fd);
		return rung_error_make(err, EPIPE, "the create command is gone");
	}
	close(a->hooks_fd);
	return 0;
}

/*
 * The guest init's stdio: our fds 0-2, or a new pty's slave; our own 0-2
 * then become /dev/null so that no copy of the caller's pipes lingers.
 * The --preserve-fds descriptors (3, 4, ...) are kept for the init, out of
 * the way of everything the sandbox opens (and of the gofer's exec).
 */
static int take_stdio(const struct container_args *a, struct container *c, int *tty,
		      struct rung_error *err)
{
	const struct oci_process *p = &a->spec->process;
	int null, slave;

	*tty = -1;
	c->extra = xzalloc((size_t)(a->preserve_fds + 1) * sizeof(int));
	for (int i = 0; i < a->preserve_fds; i++) {
		c->extra[i] = fcntl(3 + i, F_DUPFD_CLOEXEC, 3 + a->preserve_fds);
		if (c->extra[i] < 0)
			return rung_error_make(err, errno, "--preserve-fds: descriptor %d", 3 + i);
		close(3 + i);
		c->nextra++;
	}
	if (p->terminal) {
		slave = console_send_pty(a->console_fd, p->console_width, p->console_height);
		if (slave < 0)
			return rung_error_make(err, -slave, "send the console's pty master");
		/* The sandbox (a session leader) has the terminal as its controlling
		 * one, as runc's init does: a resize of the master is a host SIGWINCH
		 * here, which goes on to the guest. */
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			log_warning("console: TIOCSCTTY: %s", strerror(errno));
		c->terminal = true;
		for (int i = 0; i < 3; i++)
			c->stdio[i] = fcntl(slave, F_DUPFD_CLOEXEC, 3);
		*tty = slave;
	} else {
		for (int i = 0; i < 3; i++)
			c->stdio[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3 && null >= 0; i++)
		dup2(null, i);
	if (null > 2)
		close(null);
	return 0;
}

int container_main(const struct container_args *a)
{
	const struct oci_spec *spec = a->spec;
	struct rung_error err = {0};
	/* A read-only root: the rootfs is served read-only, under an in-memory
	 * layer that takes only the mountpoints the sandbox makes, and the
	 * guest's / refuses every write (EROFS). */
	struct sandbox_config cfg = {.overlay = spec->root_readonly,
				     .root_readonly = spec->root_readonly,
				     .donate = a->donate,
				     .host_init_fd = -1,
				     .init_unkillable = true,
				     .hostname = spec->hostname,
				     .mounts = spec->mounts,
				     .nmounts = spec->n_mounts,
				     .masked_paths = spec->masked_paths,
				     .readonly_paths = spec->readonly_paths,
				     .sysctl_keys = spec->sysctl_keys,
				     .sysctl_values = spec->sysctl_values,
				     .n_sysctl = spec->n_sysctl,
				     .compat_fd = a->compat_fd,
				     .confine = true};
	/* pids.limit counts guest tasks here; the host cgroup gets room for
	 * the sandbox's own processes (cgroup.c). */
	if (spec->resources.pids_limit > 0)
		cfg.task_limit = spec->resources.pids_limit > UINT_MAX
					 ? UINT_MAX
					 : (unsigned)spec->resources.pids_limit;
	/* memory.limit is the cgroup's, the guest's is below it. */
	if (spec->resources.memory_limit > 0)
		cfg.memory_limit = sandbox_guest_memory((uint64_t)spec->resources.memory_limit);
	struct container c = {
		.spec = spec, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	struct server_args sa = {.c = &c};
	struct kernel_process kp;
	char *path, buf;
	cleanup_free char *egress = NULL;
	char **keeper_cgroups = NULL;
	bool fresh_netns = false;
	pthread_t thr;
	int ret, tty, status;

	/* The caller's descriptors 3... for the init (--preserve-fds) must not
	 * reach the gofer either: close-on-exec at once. */
	for (int i = 0; i < a->preserve_fds; i++)
		fcntl(3 + i, F_SETFD, FD_CLOEXEC);
	if (read(a->go_fd, &buf, 1) != 1)
		return 1;
	setsid();
	/* The keeper of the namespace's addresses goes back here (keeper.h). */
	keeper_cgroups = cgroup_self_procs();
	cfg.keeper_cgroups = keeper_cgroups;
	/* Before anything forks, so the gofer and stubs are in it too. */
	if (cgroup_join(a->cgroup, 0, &err) < 0)
		goto fail;
	cfg.platform = platform_lookup(a->g->platform);
	cfg.strace = a->g->strace;
	cfg.rootfs = spec->root_path;
	if (!cfg.platform) {
		rung_error_make(&err, EINVAL, "unknown platform `%s`", a->g->platform);
		goto fail;
	}
	if (network_config(a, &cfg.network, &egress, &err) < 0 ||
	    container_enter_netns(spec, cfg.network, &fresh_netns, &err) < 0 ||
	    await_hooks(a, fresh_netns, &err) < 0 ||
	    (cfg.network == NET_MODE_HOST && host_net_sysctls(spec, &err) < 0) ||
	    take_stdio(a, &c, &tty, &err) < 0)
		goto fail;
	close(a->go_fd);
	cfg.egress = egress;
	cfg.tty = tty;
	path = ctl_path(a->root, a->id);
	sa.listen_fd = ctl_listen(path);
	free(path);
	if (sa.listen_fd < 0) {
		rung_error_make(&err, -sa.listen_fd, "listen on the control socket");
		goto fail;
	}
	sandbox_block_signals();
	{
		sigset_t set;
		sigemptyset(&set);
		for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
			sigaddset(&set, relayed[i]);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	/* Before the sandbox confines itself: libseccomp needs a memfd. */
	if (seccomp_profile_load(spec->seccomp, &c.seccomp, &err) < 0)
		goto fail;
	ret = sandbox_setup(&cfg, &c.sb, &err);
	strv_free(keeper_cgroups);
	keeper_cgroups = NULL;
	cfg.keeper_cgroups = NULL;
	if (ret < 0)
		goto fail;
	/* The cwd is made as root before the guest runs (on a read-only root
	 * too), as runc makes it; a failure shows when the init starts. */
	(void)kernel_make_dir(c.sb->k, spec->process.cwd);
	/* The program must be there now: runc reports a missing one at create. */
	container_process(&spec->process, &kp);
	if (kernel_check_program(c.sb->k, &kp, &err) < 0) {
		sandbox_destroy(c.sb);
		goto fail;
	}
	if (pthread_create(&thr, NULL, serve, &sa) != 0 ||
	    pthread_create(&thr, NULL, relay_signals, &c) != 0) {
		sandbox_destroy(c.sb);
		rung_error_make(&err, EAGAIN, "start the sandbox's threads");
		goto fail;
	}
	report(a->ready_fd, "ok");

	pthread_mutex_lock(&c.lock);
	while (!c.started && !c.kill_sig)
		pthread_cond_wait(&c.cond, &c.lock);
	pthread_mutex_unlock(&c.lock);
	if (!c.started) {
		/* Killed while parked: as the init would have died of the signal. */
		status = 128 + c.kill_sig;
		sandbox_destroy(c.sb);
		return status;
	}
	return sandbox_wait(c.sb);
fail:
	strv_free(keeper_cgroups);
	report(a->ready_fd, err.msg ? err.msg : "sandbox setup failed");
	rung_error_release(&err);
	return 1;
}
