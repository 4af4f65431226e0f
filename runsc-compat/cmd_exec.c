/*
 * rung exec [--process P.json | exec-options ID CMD...] [--console-socket S]
 *           [--detach] [--pid-file F] ID
 *
 * The process runs in the sandbox; on the host an exec proxy stands for it:
 * the process the pid file names, which lives as long as the guest process,
 * forwards the signals it gets to it and exits with its status (what the
 * shim expects of an exec). Without --detach this command is the proxy.
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/container.h"
#include "runsc-compat/control.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/unixsock.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

struct exec_opts {
	const char *process, *console_socket, *pid_file, *cwd, *user;
	bool detach, tty;
	char **env;
	size_t nenv;
};

enum { OPT_PROCESS = 256, OPT_CONSOLE, OPT_PID_FILE, OPT_CWD, OPT_IGNORED };

static const struct option exec_options[] = {
	{"process", required_argument, NULL, 'p'},
	{"console-socket", required_argument, NULL, OPT_CONSOLE},
	{"detach", no_argument, NULL, 'd'},
	{"pid-file", required_argument, NULL, OPT_PID_FILE},
	{"tty", no_argument, NULL, 't'},
	{"cwd", required_argument, NULL, OPT_CWD},
	{"env", required_argument, NULL, 'e'},
	{"user", required_argument, NULL, 'u'},
	{"no-new-privs", no_argument, NULL, OPT_IGNORED},
	{"process-label", required_argument, NULL, OPT_IGNORED},
	{"apparmor", required_argument, NULL, OPT_IGNORED},
	{NULL, 0, NULL, 0},
};

/* The whole file at path (for process.json, read before it is deleted). */
static char *slurp(const char *path, struct rung_error *err)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		rung_error_make(err, errno, "read the process file `%s`", path);
		return NULL;
	}
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = xstrdup("");
	}
	fclose(f);
	return buf;
}

/* A process object from `exec ID CMD...`: the container's env and cwd
 * unless the options say otherwise. */
static char *process_from_args(const struct exec_opts *o, const struct container_state *st,
			       char **args, struct rung_error *err)
{
	struct json_object *p = json_object_new_object(), *a = json_object_new_array(),
			   *env = json_object_new_array(), *user = json_object_new_object();
	struct oci_spec *spec = NULL;
	unsigned long uid = 0, gid = 0;
	char *out;

	if (spec_load(st->bundle, &spec, err) < 0) {
		json_object_put(p);
		json_object_put(a);
		json_object_put(env);
		json_object_put(user);
		return NULL;
	}
	for (char **s = args; *s; s++)
		json_object_array_add(a, json_object_new_string(*s));
	for (char **e = spec->process.env; e && *e; e++)
		json_object_array_add(env, json_object_new_string(*e));
	for (size_t i = 0; i < o->nenv; i++)
		json_object_array_add(env, json_object_new_string(o->env[i]));
	uid = spec->process.uid;
	gid = spec->process.gid;
	if (o->user) {
		char *end;
		uid = strtoul(o->user, &end, 10);
		gid = *end == ':' ? strtoul(end + 1, NULL, 10) : gid;
	}
	json_object_object_add(user, "uid", json_object_new_int64((int64_t)uid));
	json_object_object_add(user, "gid", json_object_new_int64((int64_t)gid));
	json_object_object_add(p, "args", a);
	json_object_object_add(p, "env", env);
	json_object_object_add(p, "cwd",
			       json_object_new_string(o->cwd ? o->cwd : spec->process.cwd));
	json_object_object_add(p, "user", user);
	json_object_object_add(p, "terminal", json_object_new_boolean(o->tty));
	spec_free(spec);
	out = xstrdup(json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN));
	json_object_put(p);
	return out;
}

/* The signals a proxy passes on to its guest process. */
static const int proxied[] = {SIGHUP,  SIGINT,	SIGQUIT, SIGUSR1, SIGUSR2,
			      SIGALRM, SIGTERM, SIGCONT, SIGTSTP, SIGWINCH};

/*
 * Be the proxy: start the process in the sandbox (its stdio ours, or a pty
 * slave), say how that went on report (-1: return an error instead), then
 * relay signals until it exits. Returns its exit status, or < 0 with err.
 */
static int proxy(const char *ctl, const char *json, bool tty, int console, int report,
		 struct rung_error *err)
{
	int fds[3] = {0, 1, 2}, slave = -1, conn, sfd, ret;
	struct oci_process op;
	int32_t pid;
	sigset_t set;

	if (spec_parse_process(json, &op, err) < 0)
		goto fail;
	if (tty) {
		slave = console_send_pty(console, op.console_width, op.console_height);
		if (slave < 0) {
			rung_error_make(err, -slave, "send the console's pty master");
			spec_process_release(&op);
			goto fail;
		}
		fds[0] = fds[1] = fds[2] = slave;
		/* The proxy leads a session with the terminal as its controlling
		 * one: a resize of the master (the shim's TIOCSWINSZ) is a SIGWINCH
		 * here, which goes on to the process, and a hang-up a SIGHUP. (A
		 * proxy that leads a process group already keeps its session.) */
		setsid();
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			log_debug("exec: TIOCSCTTY: %s", strerror(errno));
	}
	spec_process_release(&op);
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(proxied); i++)
		sigaddset(&set, proxied[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0 || ctl_connect(ctl, &conn, err) < 0)
		goto fail;
	ret = ctl_call(conn, CTL_EXEC, tty, 0, json, strlen(json), fds, 3, &pid, err);
	if (slave >= 0)
		close(slave);
	if (ret < 0)
		goto fail;
	if (report >= 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (write(report, "ok", 2) < 0)
			(void)0;
		close(report);
		/* The guest has its own copies of our stdio: drop ours, so that the
		 * shim sees EOF when the process (not we) closes them. */
		for (int i = 0; i < 3 && null >= 0; i++)
			dup2(null, i);
	}
	for (;;) {
		struct pollfd p[2] = {{conn, POLLIN, 0}, {sfd, POLLIN, 0}};
		struct signalfd_siginfo si;
		struct ctl_msg m;
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents & POLLIN && read(sfd, &si, sizeof(si)) == sizeof(si))
			ctl_send(conn, CTL_SIGNAL, (int32_t)si.ssi_signo, 0, NULL, 0, NULL, 0);
		if (p[0].revents & (POLLIN | POLLHUP)) {
			if (ctl_recv(conn, &m) < 0)
				return 255; /* the sandbox went away under us */
			if (m.h.type == CTL_EXIT) {
				ret = m.h.a;
				ctl_msg_release(&m);
				return ret;
			}
			ctl_msg_release(&m);
		}
	}
fail:
	if (report >= 0) {
		if (write(report, err->msg ? err->msg : "exec failed",
			  strlen(err->msg ? err->msg : "exec failed")) < 0)
			(void)0;
		close(report);
	}
	return -1;
}

int cmd_exec(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct exec_opts o = {0};
	struct container_state st;
	struct oci_process op;
	char *json = NULL, *ctl = NULL;
	int opt, console = -1, report[2] = {-1, -1}, ret = -1;
	enum container_status s;
	pid_t child;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+p:dte:u:", exec_options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			o.process = optarg;
			break;
		case OPT_CONSOLE:
			o.console_socket = optarg;
			break;
		case 'd':
			o.detach = true;
			break;
		case OPT_PID_FILE:
			o.pid_file = optarg;
			break;
		case 't':
			o.tty = true;
			break;
		case OPT_CWD:
			o.cwd = optarg;
			break;
		case 'e':
			o.env = xrealloc(o.env, (o.nenv + 1) * sizeof(char *));
			o.env[o.nenv++] = optarg;
			break;
		case 'u':
			o.user = optarg;
			break;
		case OPT_IGNORED:
			break;
		default:
			free(o.env);
			return rung_error_make(err, 0, "exec: unknown option `%s`",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc || (!o.process && optind + 1 >= argc)) {
		free(o.env);
		return rung_error_make(err, 0,
				       "exec: usage: exec [options] ID (--process FILE | CMD...)");
	}
	if (!state_valid_id(argv[optind]) || state_load(oci_root(g), argv[optind], &st, err) < 0) {
		free(o.env);
		return rung_error_make(err, 0, "container does not exist");
	}
	s = state_status(&st);
	if (s == STATUS_STOPPED) {
		rung_error_make(err, 0, "cannot exec a container that has stopped");
		goto out;
	}
	if (s == STATUS_PAUSED) {
		rung_error_make(err, 0, "cannot exec in a paused container");
		goto out;
	}
	json = o.process ? slurp(o.process, err)
			 : process_from_args(&o, &st, argv + optind + 1, err);
	if (!json || spec_parse_process(json, &op, err) < 0)
		goto out;
	o.tty = op.terminal;
	spec_process_release(&op);
	if (o.tty && !o.console_socket && o.detach) {
		rung_error_make(err, 0,
				"cannot allocate tty if runc will detach without setting "
				"console socket");
		goto out;
	}
	if (o.tty && !o.console_socket) {
		rung_error_make(err, 0, "exec -t without --console-socket is not supported yet");
		goto out;
	}
	if (!o.tty && o.console_socket) {
		rung_error_make(err, 0,
				"cannot use console socket if runc will not detach or "
				"allocate tty");
		goto out;
	}
	if (o.console_socket) {
		console = unix_connect(o.console_socket, SOCK_STREAM);
		if (console < 0) {
			rung_error_make(err, -console, "connect to the console socket `%s`",
					o.console_socket);
			goto out;
		}
	}
	if (isolation_is_container(&st)) {
		ret = level1_exec(&st, json, console, o.detach, o.pid_file, err);
		goto out;
	}
	ctl = ctl_path(oci_root(g), argv[optind]);
	if (!o.detach) {
		ret = proxy(ctl, json, o.tty, console, -1, err);
		goto out;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		rung_error_make(err, errno, "pipe");
		goto out;
	}
	child = fork();
	if (child < 0) {
		rung_error_make(err, errno, "fork the exec proxy");
		goto out;
	}
	if (child == 0) {
		struct rung_error perr = {0};
		close(report[0]);
		{
			/* Everything but stdio, the report pipe, the console and the log goes. */
			int keep[] = {report[1], console, rung_log_fd()};
			fds_close_from(3, keep, ARRAY_SIZE(keep));
		}
		ret = proxy(ctl, json, o.tty, console, report[1], &perr);
		exit(ret < 0 ? 1 : ret);
	}
	close(report[1]);
	report[1] = -1;
	{
		char msg[4096];
		ssize_t n, len = 0;
		while ((n = read(report[0], msg + len, sizeof(msg) - 1 - (size_t)len)) > 0)
			len += n;
		msg[len] = '\0';
		if (strcmp(msg, "ok") != 0) {
			waitpid(child, NULL, 0);
			rung_error_make(err, 0, "%s", *msg ? msg : "exec failed");
			goto out;
		}
	}
	ret = o.pid_file ? write_pid_file(o.pid_file, child, err) : 0;
out:
	for (int i = 0; i < 2; i++)
		if (report[i] >= 0)
			close(report[i]);
	if (console >= 0)
		close(console);
	free(ctl);
	free(json);
	free(o.env);
	state_release(&st);
	return ret;
}
