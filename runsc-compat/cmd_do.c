/*
 * rung do: run one program in a fresh sandbox with the caller's stdio and
 * environment, and exit with its status (128 + signal when a signal ends it).
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "sentry/kernel/kernel.h"
#include "platform/platform.h"
#include "gofer/gofer.h"
#include "gofer/client.h"
#include "sentry/fs/hosttty.h"
#include "sentry/kernel/confine.h"
#include "sentry/mm/memfile.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void do_usage(FILE *out)
{
	fprintf(out,
		"Usage: rung do [options] [--] PROGRAM [ARGS...]\n\n"
		"Options:\n"
		"  --platform NAME      ptrace (default)\n"
		"  --strace             log every guest system call\n"
		"  --debug              log debug messages\n"
		"  --memory-limit SIZE  guest memory limit (e.g. 512M; default: host RAM)\n"
		"  --rootfs DIR         the guest's root, served by the gofer (default: /)\n"
		"  --file-access MODE   direct (default: the gofer donates files) or gofer\n"
		"  --overlay MODE       memory (default: writes stay in the sandbox's memory)\n"
		"                       or none (writes go to the rootfs)\n"
		"  --host-exec          no rootfs: run a static PROGRAM from a host path\n"
		"  --unconfined         do not confine the sandbox process (debugging only)\n");
}

/* PROGRAM as the shell would find it: a path, or a name on $PATH. */
static char *resolve_program(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	if (strchr(prog, '/') || !path)
		return xstrdup(prog);
	dirs = xstrdup(path);
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", *dir ? dir : ".", prog);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
			free(dirs);
			return cand;
		}
		free(cand);
	}
	free(dirs);
	return xstrdup(prog);
}

/*
 * Host signals meant for the program. On a terminal, the keyboard's
 * (SIGINT, SIGQUIT, SIGTSTP) go to the foreground process group of the
 * guest's session, as the terminal would send them to a native job, and
 * SIGWINCH follows the terminal's size; SIGCONT continues a guest init
 * that stopped rung with it (sentry/fs/hosttty.h). Otherwise, and always
 * for SIGTERM and SIGHUP, the signal ends the sandbox the way it would end
 * the program; SIGTSTP stops rung.
 */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH, SIGCONT};

static void *signal_thread(void *arg)
{
	struct kernel *k = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	for (;;) {
		sig = sigwaitinfo(&set, NULL);
		switch (sig) {
		case SIGINT:
		case SIGQUIT:
		case SIGTSTP:
			if (hosttty_forward_signal(sig)) {
				log_debug("host signal %d: to the guest's foreground job", sig);
				break;
			}
			if (sig == SIGTSTP) {
				host_stop_self(SIGTSTP);
				break;
			}
			log_debug("host signal %d: ending the sandbox", sig);
			kernel_kill(k, sig);
			break;
		case SIGWINCH:
			hosttty_resized();
			break;
		case SIGCONT:
			hosttty_continued(k);
			break;
		case -1:
			break;
		default:
			log_debug("host signal %d: ending the sandbox", sig);
			kernel_kill(k, sig);
			break;
		}
	}
	return NULL;
}

/* Nothing needs the gofer once the sandbox is over (it would exit by itself
 * when its channels close). */
static void stop_gofer(pid_t gofer)
{
	if (gofer > 0) {
		kill(gofer, SIGKILL);
		waitpid(gofer, NULL, 0);
	}
}

enum {
	OPT_PLATFORM = 256,
	OPT_STRACE,
	OPT_DEBUG,
	OPT_MEMORY,
	OPT_ROOTFS,
	OPT_FILE_ACCESS,
	OPT_OVERLAY,
	OPT_HOST_EXEC,
	OPT_UNCONFINED,
	OPT_HELP
};

/* Channels between the sentry and the gofer: requests from this many
 * sentry threads can be in flight at once. */
#define GOFER_CHANNELS 4

static const struct option do_options[] = {
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"strace", no_argument, NULL, OPT_STRACE},
	{"debug", no_argument, NULL, OPT_DEBUG},
	{"memory-limit", required_argument, NULL, OPT_MEMORY},
	{"rootfs", required_argument, NULL, OPT_ROOTFS},
	{"file-access", required_argument, NULL, OPT_FILE_ACCESS},
	{"overlay", required_argument, NULL, OPT_OVERLAY},
	{"host-exec", no_argument, NULL, OPT_HOST_EXEC},
	{"unconfined", no_argument, NULL, OPT_UNCONFINED},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

int cmd_do(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct kernel_config cfg = {0};
	struct gofer_config gcfg = {.rootfs = "/", .read_only = true};
	struct gofer_client *client = NULL;
	struct kernel *k = NULL;
	cleanup_free char *prog = NULL;
	cleanup_free char *cwd = NULL;
	int fds[GOFER_CHANNELS];
	bool donate = true, host_exec = false, confine = true;
	pid_t gofer = -1;
	struct sysinfo si;
	pthread_t sigthr;
	sigset_t set;
	int opt, ret, status, tty = -1;
	bool job_control = false;

	cfg.strace = g->strace;
	memcpy(cfg.stdio, rung_stdio_open, sizeof(cfg.stdio));
	if (sysinfo(&si) == 0)
		cfg.memory_limit = (uint64_t)si.totalram * si.mem_unit;
	else
		cfg.memory_limit = 1ull << 32;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+", do_options, NULL)) != -1) {
		switch (opt) {
		case OPT_PLATFORM:
			g->platform = optarg;
			break;
		case OPT_STRACE:
			cfg.strace = true;
			break;
		case OPT_DEBUG:
			g->debug = true;
			rung_log_set_level(LOG_LEVEL_DEBUG);
			break;
		case OPT_MEMORY:
			if (parse_size(optarg, &cfg.memory_limit) < 0 ||
			    cfg.memory_limit < (1u << 20))
				return rung_error_make(err, 0, "bad --memory-limit `%s`", optarg);
			break;
		case OPT_ROOTFS:
			gcfg.rootfs = optarg;
			break;
		case OPT_FILE_ACCESS:
			if (strcmp(optarg, "direct") == 0)
				donate = true;
			else if (strcmp(optarg, "gofer") == 0)
				donate = false;
			else
				return rung_error_make(
					err, 0, "--file-access: `direct` or `gofer`, not `%s`",
					optarg);
			break;
		case OPT_OVERLAY:
			if (strcmp(optarg, "memory") == 0)
				gcfg.read_only = true;
			else if (strcmp(optarg, "none") == 0)
				gcfg.read_only = false;
			else
				return rung_error_make(
					err, 0, "--overlay: `memory` or `none`, not `%s`", optarg);
			break;
		case OPT_HOST_EXEC:
			host_exec = true;
			break;
		case OPT_UNCONFINED:
			confine = false;
			break;
		case OPT_HELP:
			do_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rung: do: unknown option `%s`\n", argv[optind - 1]);
			do_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		do_usage(stderr);
		return rung_error_make(err, 0, "do: no program given");
	}
	cfg.platform = platform_lookup(g->platform);
	if (!cfg.platform)
		return rung_error_make(err, 0, "unknown platform `%s`", g->platform);
	if (cfg.strace && !rung_log_enabled(LOG_LEVEL_INFO))
		rung_log_set_level(LOG_LEVEL_INFO);
	cfg.host_init_fd = -1;
	if (host_exec) {
		prog = resolve_program(argv[optind]);
		/* Opened now: once confined, the sandbox has no host files to open. */
		cfg.host_init_fd = open(prog, O_RDONLY | O_CLOEXEC);
		if (cfg.host_init_fd < 0)
			cfg.host_init_fd = -errno;
		else if (access(prog, X_OK) < 0) {
			close(cfg.host_init_fd);
			cfg.host_init_fd = -EACCES;
		}
	} else {
		/* The guest resolves the name in its own PATH; the guest's cwd is ours
		 * when the rootfs has it. */
		prog = xstrdup(argv[optind]);
		cwd = getcwd(NULL, 0);
		cfg.cwd = cwd;
	}

	/* Signals: a writer to a closed pipe gets EPIPE (the guest gets SIGPIPE
	 * from the sentry); the signals that end programs are handled by one thread. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	/* Every stub stop sends the sentry SIGCHLD; nobody wants it (tracers use
	 * waitpid), and a thread that did not block it would be woken for nothing
	 * on every guest system call. */
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/* The caller's terminal is the guest's (sentry/fs/hosttty.h). */
	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO)) {
		tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		job_control = tty >= 0 && hosttty_job_control(tty);
		if (job_control)
			cfg.init_job_stop = hosttty_init_job;
	}

	if (!host_exec) {
		ret = gofer_spawn(&gcfg, GOFER_CHANNELS, &gofer, fds, err);
		if (ret < 0)
			return ret;
		ret = gofer_client_new(fds, GOFER_CHANNELS, &client);
		if (ret < 0)
			return rung_error_make(err, -ret, "gofer client");
	}
	ret = kernel_create(&cfg, &k, err);
	if (ret == 0)
		ret = host_exec ? kernel_boot_empty_root(k, err)
				: kernel_boot_gofer_root(k, client, donate, gcfg.read_only, err);
	if (ret < 0) {
		kernel_destroy(k);
		stop_gofer(gofer);
		return ret;
	}
	if (tty >= 0 && hosttty_setup(k, tty, job_control) < 0)
		close(tty);
	if (confine) {
		struct confine_opts co = {.empty_root = true, .seccomp = true, .memfd = k->mf->fd};
		ret = sentry_confine(&co, err);
		if (ret < 0) {
			kernel_destroy(k);
			stop_gofer(gofer);
			return rung_error_wrap(err, "confine the sandbox (rung do needs root)");
		}
	}
	ret = pthread_create(&sigthr, NULL, signal_thread, k);
	if (ret != 0) {
		kernel_destroy(k);
		return rung_error_make(err, ret, "start the signal thread");
	}
	pthread_detach(sigthr);
	ret = kernel_start_init(k, prog, argv + optind, environ, err);
	if (ret < 0) {
		kernel_destroy(k);
		stop_gofer(gofer);
		return ret;
	}
	status = kernel_wait(k);
	kernel_destroy(k);
	stop_gofer(gofer);
	return status;
}
