/*
 * rung do --isolation=microvm|vm: the program runs in a VM with the
 * caller's stdio, environment and (when the rootfs has it) working
 * directory; rung exits with its status.
 */
#include "config.h"
#include "runsc-compat/vm_run.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/spec.h"
#include "platform/microvm/vm.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH};

struct do_state {
	int sig;     /* the signal that ended us, or 0 */
	bool tty;    /* the program has a terminal: ours */
	uint32_t id; /* its process in the VM */
};

/*
 * A signal rung gets ends the VM, with 128 + its number (as the sentry's
 * do), except SIGWINCH: our terminal's new size goes to the guest's pty.
 */
static void on_signal(struct vm *vm, int fd, short revents, void *arg)
{
	struct signalfd_siginfo si;
	struct do_state *st = arg;
	struct winsize ws;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo != SIGWINCH)
		st->sig = (int)si.ssi_signo;
	else if (st->tty && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		vm_resize(vm, st->id, ws.ws_col, ws.ws_row);
}

int vm_do(struct global_args *g, const struct vm_do_opts *o, char **argv, struct rung_error *err)
{
	struct vm_options vo = {.q35 = o->q35,
				.allow_emulation = g->allow_emulation,
				.debug = g->debug,
				.kernel = o->kernel ? o->kernel : g->vm_kernel,
				.mem_bytes = o->memory,
				.rootfs = o->rootfs,
				.overlay = o->overlay,
				.readonly = o->readonly,
				.mounts = o->mounts,
				.nmounts = o->nmounts,
				.defaults = true,
				.net = strcmp(g->network, "none") != 0,
				.virtiofs = g->vm_fs && strcmp(g->vm_fs, "virtiofs") == 0,
				.hostname = "rung"};
	struct oci_process p = {0};
	cleanup_free char *cwd = getcwd(NULL, 0);
	cleanup_free char *incwd = NULL;
	cleanup_free char *rundir = NULL;
	const char *tmp = getenv("TMPDIR");
	struct vm *vm = NULL;
	struct do_state ds = {0};
	struct termios saved;
	struct winsize ws;
	int io[3], pid, sfd, ret;
	uint64_t t0 = monotonic_ns();
	sigset_t set;
	struct stat st;

	rundir = xasprintf("%s/rung-vm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(rundir))
		return rung_error_make(err, errno, "create `%s`", rundir);
	/* The working directory when the rootfs has it, as the sentry does. */
	if (cwd) {
		incwd = xasprintf("%s%s", strcmp(o->rootfs, "/") ? o->rootfs : "", cwd);
		if (stat(incwd, &st) < 0 || !S_ISDIR(st.st_mode))
			cwd[0] = '\0';
	}
	p.args = argv;
	p.env = environ;
	p.cwd = cwd && *cwd ? cwd : (char *)"/";
	p.uid = getuid();
	p.gid = getgid();
	/* On a terminal (stdin and stdout both), the program gets a pty of the
	 * guest's, sized as ours; ours is raw meanwhile, so that the guest's
	 * line discipline alone echoes, edits and turns ^C into SIGINT. */
	ds.tty = rung_stdio_open[0] && rung_stdio_open[1] && isatty(STDIN_FILENO) &&
		 isatty(STDOUT_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
	if (ds.tty) {
		p.terminal = true;
		if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
			p.console_width = ws.ws_col;
			p.console_height = ws.ws_row;
		}
	}
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(handled); i++)
		sigaddset(&set, handled[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	vo.rundir = rundir;
	ret = vm_boot(&vo, &vm, err);
	if (ret < 0) {
		rmdir(rundir);
		close(sfd);
		return ret;
	}
	for (int fd = 0; fd < 3; fd++)
		io[fd] = rung_stdio_open[fd] && !(ds.tty && fd == 2) ? fcntl(fd, F_DUPFD_CLOEXEC, 3)
								     : -1;
	if (ds.tty) {
		struct termios raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
	}
	ret = vm_spawn(vm, &p, false, io, false, NULL, NULL, &ds.id, &pid, err);
	if (ret < 0) {
		if (ds.tty)
			tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
		/* The VM is fine, the program is not: the shell's status for that. */
		rung_error_print(err, NULL);
		vm_destroy(vm);
		close(sfd);
		return 127;
	}
	log_debug("microvm: process started %.2f s after rung did", (monotonic_ns() - t0) / 1e9);
	vm_watch(vm, sfd, POLLIN, on_signal, &ds);
	while (!vm_finished(vm) && !ds.sig)
		vm_step(vm, -1);
	ret = ds.sig ? 128 + ds.sig : vm_status(vm);
	vm_destroy(vm);
	if (ds.tty)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	close(sfd);
	log_debug("microvm: done %.2f s after rung started", (monotonic_ns() - t0) / 1e9);
	return ret;
}
