/*
 * rung do: run one program in a fresh sandbox with the caller's stdio and
 * environment, and exit with its status (128 + signal when a signal ends it).
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/sandbox.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/spawn.h"
#include "platform/platform.h"
#include "gofer/gofer.h"
#include "gofer/client.h"
#include "sentry/fs/devices.h"
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
		"  --isolation LEVEL    sentry (default) or container (namespaces, no sentry)\n"
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
	OPT_ISOLATION,
	OPT_HELP
};

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
	{"isolation", required_argument, NULL, OPT_ISOLATION},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

int cmd_do(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct sandbox_config cfg = {.rootfs = "/",
				     .overlay = true,
				     .donate = true,
				     .host_init_fd = -1,
				     .tty = -1,
				     .confine = true};
	struct kernel_process proc = {.caller_creds = true};
	struct sandbox *sb;
	cleanup_free char *prog = NULL;
	cleanup_free char *cwd = NULL;
	bool host_exec = false, sentry_only = false;
	const char *isolation = g->isolation;
	enum isolation_level level;
	int opt, ret;

	cfg.strace = g->strace;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+", do_options, NULL)) != -1) {
		switch (opt) {
		case OPT_PLATFORM:
			g->platform = optarg;
			break;
		case OPT_STRACE:
			cfg.strace = sentry_only = true;
			break;
		case OPT_DEBUG:
			g->debug = true;
			rung_log_set_level(LOG_LEVEL_DEBUG);
			break;
		case OPT_MEMORY:
			if (parse_size(optarg, &cfg.memory_limit) < 0 ||
			    cfg.memory_limit < (1u << 20))
				return rung_error_make(err, 0, "bad --memory-limit `%s`", optarg);
			sentry_only = true;
			break;
		case OPT_ROOTFS:
			cfg.rootfs = optarg;
			break;
		case OPT_FILE_ACCESS:
			if (strcmp(optarg, "direct") == 0)
				cfg.donate = true;
			else if (strcmp(optarg, "gofer") == 0)
				cfg.donate = false;
			else
				return rung_error_make(
					err, 0, "--file-access: `direct` or `gofer`, not `%s`",
					optarg);
			sentry_only = true;
			break;
		case OPT_OVERLAY:
			if (strcmp(optarg, "memory") == 0)
				cfg.overlay = true;
			else if (strcmp(optarg, "none") == 0)
				cfg.overlay = false;
			else
				return rung_error_make(
					err, 0, "--overlay: `memory` or `none`, not `%s`", optarg);
			break;
		case OPT_HOST_EXEC:
			host_exec = sentry_only = true;
			break;
		case OPT_UNCONFINED:
			cfg.confine = false;
			sentry_only = true;
			break;
		case OPT_ISOLATION:
			isolation = optarg;
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
	if (isolation_select(isolation, NULL, &level, err) < 0)
		return -1;
	if (level == ISOLATION_CONTAINER) {
		struct level1_do_opts lo = {.rootfs = cfg.rootfs,
					    .overlay = cfg.overlay,
					    .host_network = strcmp(g->network, "host") == 0};
		if (sentry_only)
			return rung_error_make(err, 0,
					       "do: --strace, --memory-limit, --file-access, "
					       "--host-exec and --unconfined need the sentry, not "
					       "--isolation=container");
		return level1_do(&lo, argv + optind, err);
	}
	cfg.platform = platform_lookup(g->platform);
	if (!cfg.platform)
		return rung_error_make(err, 0, "unknown platform `%s`", g->platform);
	if (cfg.strace && !rung_log_enabled(LOG_LEVEL_INFO))
		rung_log_set_level(LOG_LEVEL_INFO);
	if (host_exec) {
		cfg.rootfs = NULL;
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
	}
	/* The caller's terminal, for the guest's /dev/tty. */
	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO))
		cfg.tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	sandbox_block_signals();
	ret = sandbox_setup(&cfg, &sb, err);
	if (ret < 0)
		return ret;
	ret = sandbox_forward_signals(sb, err);
	if (ret < 0) {
		sandbox_destroy(sb);
		return ret;
	}
	proc.path = prog;
	proc.argv = argv + optind;
	proc.envp = environ;
	proc.cwd = cwd;
	for (int fd = 0; fd < 3; fd++)
		proc.stdio[fd] = rung_stdio_open[fd] ? fd : -1;
	ret = kernel_start_init(sb->k, &proc, err);
	if (ret < 0) {
		sandbox_destroy(sb);
		return ret;
	}
	return sandbox_wait(sb);
}
