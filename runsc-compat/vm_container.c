/*
 * The sandbox process of a container at a VM level: what `create` forks.
 * It boots the VM and parks the init at create (so that a missing program
 * is reported there, as runc does), then serves the same control socket as
 * the sentry's sandbox (start, kill, exec) and exits with the init's status.
 * QEMU is its child and dies with it.
 */
#include "config.h"
#include "runsc-compat/vm_run.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/container.h"
#include "runsc-compat/control.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "platform/microvm/detect.h"
#include "platform/microvm/vm.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#define VM_FS_ANNOTATION "dev.rung.vm.fs"

struct vmc {
	struct vm *vm;
	const struct oci_spec *spec;
	bool started;
	int kill_sig;	/* killed before start: the container ends with 128 + this */
	int tty;	/* the init's terminal (our controlling one), or -1 */
	bool net_later; /* the guest's network is decided at start */
};

/* One exec's connection: the exit status goes back on it. */
struct exec_conn {
	struct vmc *c;
	int fd;
	uint32_t id;
	bool exited;
	int tty; /* its terminal's host slave, or -1 */
};

#define VM_QEMU_OVERHEAD (96ull << 20)
#define VM_MIN_MEMORY	 (128ull << 20)

static const int relayed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

static void make_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
}

/* The size of host terminal tty, for process id's terminal in the guest. */
static void pass_winsize(struct vm *vm, uint32_t id, int tty)
{
	struct winsize ws;

	if (tty >= 0 && ioctl(tty, TIOCGWINSZ, &ws) == 0)
		vm_resize(vm, id, ws.ws_col, ws.ws_row);
}

static void exec_free(struct exec_conn *x)
{
	if (x->tty >= 0)
		close(x->tty);
	free(x);
}

/* The root share: the dev.rung.vm.fs annotation, else --vm-fs, else 9p. */
static int choose_fs(const struct global_args *g, const struct oci_spec *spec, bool *virtiofs,
		     struct rung_error *err)
{
	struct json_object *o = spec->annotations ? json_tokener_parse(spec->annotations) : NULL,
			   *v;
	const char *fs = g->vm_fs ? g->vm_fs : "9p";
	int ret = 0;

	if (o && json_object_object_get_ex(o, VM_FS_ANNOTATION, &v))
		fs = json_object_get_string(v);
	if (!fs || (strcmp(fs, "9p") != 0 && strcmp(fs, "virtiofs") != 0))
		ret = rung_error_make(err, EINVAL,
				      "config: annotation `%s`: 9p or virtiofs, not `%s`",
				      VM_FS_ANNOTATION, fs ? fs : "null");
	else
		*virtiofs = strcmp(fs, "virtiofs") == 0;
	if (o)
		json_object_put(o);
	return ret;
}

static void reply_error(int fd, int status, const char *msg)
{
	ctl_send(fd, CTL_ERROR, status, 0, msg, strlen(msg), NULL, 0);
}

static void kill_parked(struct vmc *c, int sig)
{
	if (!default_ignored(sig) && !c->kill_sig)
		c->kill_sig = sig;
}

static void exec_exited(void *arg, int code)
{
	struct exec_conn *x = arg;

	x->exited = true;
	if (x->fd >= 0) {
		ctl_send(x->fd, CTL_EXIT, code, 0, NULL, 0, NULL, 0);
		return; /* the connection's callback closes it when the client does */
	}
	exec_free(x);
}

/* Traffic on an exec's connection after its start: signals for it. */
static void on_exec_conn(struct vm *vm, int fd, short revents, void *arg)
{
	struct exec_conn *x = arg;
	struct ctl_msg m;

	if (ctl_recv(fd, &m) < 0) {
		vm_unwatch(vm, fd);
		close(fd);
		x->fd = -1;
		if (x->exited)
			exec_free(x);
		return;
	}
	/* The exec proxy's terminal was resized (it leads a session with the
	 * host pty as its controlling terminal): the guest's pty takes the size. */
	if (m.h.type == CTL_SIGNAL && m.h.a == SIGWINCH && x->tty >= 0 && !x->exited)
		pass_winsize(vm, x->id, x->tty);
	else if (m.h.type == CTL_SIGNAL && !x->exited)
		vm_signal(vm, x->id, m.h.a, false);
	ctl_msg_release(&m);
}

static void serve_exec(struct vmc *c, int fd, struct ctl_msg *m)
{
	struct rung_error err = {0};
	struct oci_process op;
	struct exec_conn *x;
	int io[3], pid;

	if (m->nfds != 3 || !m->data) {
		reply_error(fd, EINVAL, "exec: stdio missing");
		return;
	}
	if (spec_parse_process(m->data, &op, &err) < 0) {
		reply_error(fd, err.status, err.msg);
		rung_error_release(&err);
		return;
	}
	/* A terminal: the three fds are the host pty's slave (exec made it);
	 * the guest's own pty does the line discipline, so this one is raw. */
	if (op.terminal)
		make_raw(m->fds[0]);
	for (int i = 0; i < 3; i++) {
		io[i] = m->fds[i];
		m->fds[i] = -1;
	}
	m->nfds = 0;
	x = xzalloc(sizeof(*x));
	x->c = c;
	x->fd = fd;
	x->tty = op.terminal ? fcntl(io[0], F_DUPFD_CLOEXEC, 3) : -1;
	if (vm_spawn(c->vm, &op, true, io, false, exec_exited, x, &x->id, &pid, &err) < 0) {
		reply_error(fd, err.status, err.msg);
		rung_error_release(&err);
		spec_process_release(&op);
		exec_free(x);
		return;
	}
	spec_process_release(&op);
	pass_winsize(c->vm, x->id, x->tty); /* a resize before we watched */
	ctl_send(fd, CTL_OK, pid, 0, NULL, 0, NULL, 0);
	vm_unwatch(c->vm, fd);
	vm_watch(c->vm, fd, POLLIN, on_exec_conn, x);
}

static void on_conn(struct vm *vm, int fd, short revents, void *arg)
{
	struct vmc *c = arg;
	struct rung_error err = {0};
	struct ctl_msg m;

	if (ctl_recv(fd, &m) < 0) {
		vm_unwatch(vm, fd);
		close(fd);
		return;
	}
	switch (m.h.type) {
	case CTL_START:
		if (c->started || c->kill_sig) {
			reply_error(fd, EINVAL, "container already started");
			break;
		}
		/* The hooks have run: the init finds eth0 up, or no NIC at all. */
		if (c->net_later) {
			bool up = vm_netns_has_uplink();
			log_debug("microvm: the namespace's network at start: %s",
				  up ? "eth0 up" : "none (no interface up but loopback)");
			vm_net_start(vm, up);
		}
		if (vm_release_init(vm, &err) < 0) {
			reply_error(fd, err.status, err.msg);
			rung_error_release(&err);
		} else {
			c->started = true;
			ctl_send(fd, CTL_OK, 0, 0, NULL, 0, NULL, 0);
		}
		break;
	case CTL_KILL:
		if (m.h.a < 1 || m.h.a > 64) {
			reply_error(fd, EINVAL, "invalid signal");
			break;
		}
		if (!c->started)
			kill_parked(c, m.h.a);
		else
			vm_signal(vm, 1, m.h.a, m.h.b != 0);
		ctl_send(fd, CTL_OK, 0, 0, NULL, 0, NULL, 0);
		break;
	case CTL_EXEC:
		serve_exec(c, fd, &m);
		break;
	default:
		reply_error(fd, EINVAL, "unknown request");
		break;
	}
	ctl_msg_release(&m);
}

static void on_listen(struct vm *vm, int fd, short revents, void *arg)
{
	int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (conn >= 0)
		vm_watch(vm, conn, POLLIN, on_conn, arg);
}

/* Host signals sent to the sandbox process go to the guest's init. */
static void on_signal(struct vm *vm, int fd, short revents, void *arg)
{
	struct vmc *c = arg;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGWINCH && c->tty >= 0) {
		/* Our controlling terminal, the console's pty, was resized (the
		 * shim's TIOCSWINSZ on the master): the guest's pty takes the size
		 * and its foreground group gets the SIGWINCH. */
		pass_winsize(vm, 1, c->tty);
		return;
	}
	if (!c->started)
		kill_parked(c, (int)si.ssi_signo);
	else
		vm_signal(vm, 1, (int)si.ssi_signo, false);
}

static void report(int fd, const char *msg)
{
	if (fd >= 0 && write(fd, msg, strlen(msg)) < 0)
		log_warning("create: the caller is gone");
	if (fd >= 0)
		close(fd);
}

int vm_container_main(const struct container_args *a, bool q35)
{
	const struct oci_spec *spec = a->spec;
	const struct oci_resources *r = &spec->resources;
	struct rung_error err = {0};
	struct vmc c = {.spec = spec, .tty = -1};
	struct vm_options vo = {.q35 = q35,
				.allow_emulation = a->g->allow_emulation,
				.debug = a->g->debug,
				.kernel = a->g->vm_kernel,
				.rootfs = spec->root_path,
				.readonly = spec->root_readonly,
				.hostname = spec->hostname,
				.pidns = true,
				.mounts = spec->mounts,
				.nmounts = spec->n_mounts,
				.net = strcmp(a->g->network, "none") != 0};
	char *path, *rundir, buf;
	bool fresh_netns; /* the hooks configure it after the boot (below) */
	int io[3], listen_fd, sfd, null, pid, status;
	uint32_t id;
	sigset_t set;

	if (read(a->go_fd, &buf, 1) != 1)
		return 1;
	close(a->go_fd);
	setsid();
	/* QEMU, our child, is in the container's network namespace: the VM's
	 * traffic leaves through the container's interfaces. Its slirp makes
	 * host sockets there and takes no interface over: as host mode. */
	if (container_enter_netns(spec, NET_MODE_HOST, &fresh_netns, &err) < 0 ||
	    choose_fs(a->g, spec, &vo.virtiofs, &err) < 0)
		goto fail;
	/* A new namespace (none named) is configured by the spec's hooks (as
	 * Docker's libnetwork-setkey does), which run after create's boot: its
	 * interfaces are looked at when the container starts. */
	{
		const struct oci_namespace *ns = spec_namespace(spec, "network");
		c.net_later = vo.net_later = vo.net && ns && !ns->path;
	}
	if (spec->process.terminal) {
		/* The console socket gets a host pty's master; its slave (raw: the
		 * guest's pty does the line discipline) is the init's stdio. */
		int slave = console_send_pty(a->console_fd, spec->process.console_width,
					     spec->process.console_height);
		if (slave < 0) {
			rung_error_make(&err, -slave, "send the console's pty master");
			goto fail;
		}
		make_raw(slave);
		/* Our controlling terminal, as runc's init has it: a resize of the
		 * master is a SIGWINCH here, a hang-up a SIGHUP (both relayed). */
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			log_warning("console: TIOCSCTTY: %s", strerror(errno));
		c.tty = fcntl(slave, F_DUPFD_CLOEXEC, 3);
		io[0] = slave;
		io[1] = fcntl(slave, F_DUPFD_CLOEXEC, 3);
		io[2] = -1;
	} else {
		for (int i = 0; i < 3; i++)
			io[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
	}
	/* QEMU is in the container's cgroup: the guest's memory is the limit
	 * less QEMU's own (so that a guest using all of its memory does not get
	 * the whole VM killed), and at least what the guest kernel needs. */
	if (r->memory_limit > 0)
		vo.mem_bytes = MAX((uint64_t)r->memory_limit, VM_QEMU_OVERHEAD + VM_MIN_MEMORY) -
			       VM_QEMU_OVERHEAD;
	if (r->cpu_quota > 0 && r->cpu_period > 0)
		vo.cpus = (unsigned)MIN((r->cpu_quota + (int64_t)r->cpu_period - 1) /
						(int64_t)r->cpu_period,
					sysconf(_SC_NPROCESSORS_ONLN));
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3 && null >= 0; i++)
		dup2(null, i);
	if (null > 2)
		close(null);
	path = ctl_path(a->root, a->id);
	listen_fd = ctl_listen(path);
	free(path);
	if (listen_fd < 0) {
		rung_error_make(&err, -listen_fd, "listen on the control socket");
		goto fail;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaddset(&set, relayed[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	rundir = state_path(a->root, a->id, "vm");
	vo.rundir = rundir;
	if (vm_boot(&vo, &c.vm, &err) < 0) {
		free(rundir);
		goto fail;
	}
	free(rundir);
	if (vm_spawn(c.vm, &spec->process, true, io, true, NULL, NULL, &id, &pid, &err) < 0) {
		vm_destroy(c.vm);
		goto fail;
	}
	vm_watch(c.vm, listen_fd, POLLIN, on_listen, &c);
	vm_watch(c.vm, sfd, POLLIN, on_signal, &c);
	pass_winsize(c.vm, id, c.tty); /* a resize before the signal was blocked */
	report(a->ready_fd, "ok");
	while (!vm_finished(c.vm) && !c.kill_sig)
		vm_step(c.vm, -1);
	status = c.kill_sig ? 128 + c.kill_sig : vm_status(c.vm);
	vm_destroy(c.vm);
	return status;
fail:
	report(a->ready_fd, err.msg ? err.msg : "VM setup failed");
	rung_error_release(&err);
	return 1;
}
