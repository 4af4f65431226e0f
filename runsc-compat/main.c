/*
 * rung: a sandbox runtime. main() parses the global options (accepted in
 * any order before the subcommand, as runc's callers pass them), then runs
 * one subcommand from the table. Errors are printed once, here.
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/isolation.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RUNG_COMMIT
#define RUNG_COMMIT "unknown"
#endif

static const struct command commands[] = {
	{"do", cmd_do, "run a program in a sandbox: rung do [options] -- PROGRAM [ARGS...]"},
	{"create", cmd_create, "create a container: create [--bundle B] [--pid-file F] ID"},
	{"start", cmd_start, "start a created container's process"},
	{"run", cmd_run, "create, start and wait for a container"},
	{"state", cmd_state, "a container's state as JSON"},
	{"list", cmd_list, "the containers (--format table|json)"},
	{"kill", cmd_kill, "signal a container: kill [--all] ID [SIGNAL]"},
	{"delete", cmd_delete, "remove a container: delete [--force] ID"},
	{"exec", cmd_exec, "run a process in a container"},
	{"ps", cmd_ps, "a container's host processes (--format table|json)"},
	{"pause", cmd_pause, "freeze a container"},
	{"resume", cmd_pause, "thaw a container"},
	{"update", cmd_update, "change a container's resources: update --resources FILE ID"},
	{"spec", cmd_spec, "write a default config.json"},
	{"features", cmd_features, "what this runtime supports, as JSON"},
	{"events", cmd_events, "resource usage: events [--stats] [--interval 5s] ID"},
	{"install", cmd_install, "add rung to Docker: install [--runtime NAME] [--config FILE]"},
	{"uninstall", cmd_install, "remove it: uninstall [--runtime NAME] [--config FILE]"},
	{"checkpoint", cmd_refused, NULL},
	{"restore", cmd_refused, NULL},
	{"check", cmd_check, "which isolation levels this host can run (--format table|json)"},
	{"compat", cmd_compat, "what --isolation=auto learned from sentry runs"},
	{"setup-vm", cmd_setup_vm, "build the VM levels' guest kernel and initramfs"},
	{"help", cmd_help, "help on a topic: rung help syscalls | platforms"},
	{"gofer", cmd_gofer, NULL},	/* internal: started by rung itself */
	{"netkeep", cmd_netkeep, NULL}, /* internal: started by the sentry */
	{NULL, NULL, NULL},
};

/* Commands that exist in runc's CLI but not (yet) here: a clear refusal. */
int cmd_refused(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	return rung_error_make(err, 0, "%s is not supported by rung yet (no checkpoint/restore)",
			       argv[0]);
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: rung [global options] COMMAND [options] [args]\n\n"
		     "rung runs untrusted programs in a user-space kernel sandbox.\n\n"
		     "Commands:\n");
	for (const struct command *c = commands; c->name; c++)
		if (c->summary)
			fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out,
		"\nGlobal options:\n"
		"  --root DIR            state directory\n"
		"  --log FILE            write log lines to FILE\n"
		"  --log-format FORMAT   text (default) or json\n"
		"  --debug               log debug messages\n"
		"  --platform NAME       how guest code is run (systrap, ptrace)\n"
		"  --strace              log every guest system call\n"
		"  --systemd-cgroup      cgroupsPath is slice:prefix:name\n"
		"  --file-access MODE    direct (default) or gofer\n"
		"  --network MODE        sandbox (default), host or none (docs/network.md)\n"
		"  --egress POLICY       the egress policy of containers without a\n"
		"                        dev.rung.egress annotation (docs/network.md)\n"
		"  --isolation LEVEL     sentry (default), container, microvm, vm, confidential\n"
		"                        or auto\n"
		"  --allow-emulation     the VM levels may use TCG where KVM is missing\n"
		"  --kernel PATH         the VM levels' guest kernel\n"
		"  --vm-fs FS            the VM levels' root share: 9p (default) or virtiofs\n"
		"  --version             print the version\n");
}

enum {
	OPT_ROOT = 256,
	OPT_LOG,
	OPT_LOG_FORMAT,
	OPT_DEBUG,
	OPT_PLATFORM,
	OPT_STRACE,
	OPT_VERSION,
	OPT_HELP,
	OPT_SYSTEMD_CGROUP,
	OPT_ROOTLESS,
	OPT_CRIU,
	OPT_FILE_ACCESS,
	OPT_NETWORK,
	OPT_EGRESS,
	OPT_ISOLATION,
	OPT_ALLOW_EMULATION,
	OPT_KERNEL,
	OPT_VM_FS,
};

static const struct option global_options[] = {
	{"root", required_argument, NULL, OPT_ROOT},
	{"log", required_argument, NULL, OPT_LOG},
	{"log-format", required_argument, NULL, OPT_LOG_FORMAT},
	{"debug", no_argument, NULL, OPT_DEBUG},
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"strace", no_argument, NULL, OPT_STRACE},
	{"version", no_argument, NULL, OPT_VERSION},
	{"help", no_argument, NULL, OPT_HELP},
	{"systemd-cgroup", no_argument, NULL, OPT_SYSTEMD_CGROUP},
	{"rootless", required_argument, NULL, OPT_ROOTLESS},
	{"criu", required_argument, NULL, OPT_CRIU},
	{"file-access", required_argument, NULL, OPT_FILE_ACCESS},
	{"network", required_argument, NULL, OPT_NETWORK},
	{"egress", required_argument, NULL, OPT_EGRESS},
	{"isolation", required_argument, NULL, OPT_ISOLATION},
	{"allow-emulation", no_argument, NULL, OPT_ALLOW_EMULATION},
	{"kernel", required_argument, NULL, OPT_KERNEL},
	{"vm-fs", required_argument, NULL, OPT_VM_FS},
	{NULL, 0, NULL, 0},
};

/*
 * Which of fds 0, 1, 2 the caller gave us. A closed one is filled with
 * /dev/null here, before anything else opens a file, so that no socket or
 * memory file lands on 0-2 and gets mistaken for the guest's stdio; the
 * guest still finds those descriptors closed.
 */
bool rung_stdio_open[3];

static void guard_stdio(void)
{
	for (int fd = 0; fd < 3; fd++) {
		rung_stdio_open[fd] = fcntl(fd, F_GETFD) >= 0;
		if (!rung_stdio_open[fd]) {
			int n = open("/dev/null", O_RDWR);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct global_args g = {.log_format = LOG_FORMAT_TEXT,
				.platform = NULL, /* the first usable */
				.file_access_direct = true,
				.network = "sandbox"};
	struct rung_error err = {0};
	const struct command *cmd;
	int opt, ret;

	guard_stdio();
	/* The tests' (and CI's) way to allow TCG without changing every command line. */
	g.allow_emulation =
		getenv("RUNG_ALLOW_EMULATION") && *getenv("RUNG_ALLOW_EMULATION") == '1';
	/* Load the time zone now: glibc reads /etc/localtime lazily, and a
	 * confined sandbox has no host files to read. */
	tzset();
	opterr = 0;
	/* '+': stop at the subcommand; its own options are parsed by it. */
	while ((opt = getopt_long(argc, argv, "+", global_options, NULL)) != -1) {
		switch (opt) {
		case OPT_ROOT:
			g.root = optarg;
			break;
		case OPT_LOG:
			g.log = optarg;
			break;
		case OPT_LOG_FORMAT:
			if (rung_log_parse_format(optarg, &g.log_format) < 0) {
				fprintf(stderr, "rung: unknown log format `%s`\n", optarg);
				return 2;
			}
			break;
		case OPT_DEBUG:
			g.debug = true;
			break;
		case OPT_PLATFORM:
			g.platform = optarg;
			break;
		case OPT_STRACE:
			g.strace = true;
			break;
		case OPT_VERSION:
			/* runc's three lines (go-runc parses the first). */
			printf("rung version %s\ncommit: %s\nspec: 1.0.2-dev\n", PACKAGE_VERSION,
			       RUNG_COMMIT);
			return 0;
		case OPT_SYSTEMD_CGROUP:
			g.systemd_cgroup = true;
			break;
		case OPT_ROOTLESS:
		case OPT_CRIU:
			break; /* accepted, as runc's callers pass them */
		case OPT_FILE_ACCESS:
			if (strcmp(optarg, "direct") != 0 && strcmp(optarg, "gofer") != 0) {
				fprintf(stderr, "rung: --file-access: direct or gofer\n");
				return 2;
			}
			g.file_access_direct = strcmp(optarg, "direct") == 0;
			break;
		case OPT_NETWORK:
			g.network = optarg;
			break;
		case OPT_EGRESS:
			g.egress = optarg;
			break;
		case OPT_ISOLATION: {
			enum isolation iso;
			if (isolation_parse(optarg, &iso) < 0) {
				fprintf(stderr, "rung: --isolation: unknown level `%s`\n", optarg);
				return 2;
			}
			g.isolation = optarg;
			break;
		}
		case OPT_ALLOW_EMULATION:
			g.allow_emulation = true;
			break;
		case OPT_KERNEL:
			g.vm_kernel = optarg;
			break;
		case OPT_VM_FS:
			if (strcmp(optarg, "9p") != 0 && strcmp(optarg, "virtiofs") != 0) {
				fprintf(stderr, "rung: --vm-fs: 9p or virtiofs, not `%s`\n",
					optarg);
				return 2;
			}
			g.vm_fs = optarg;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rung: unknown option `%s`\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (cmd = commands; cmd->name; cmd++)
		if (strcmp(cmd->name, argv[optind]) == 0)
			break;
	if (!cmd->name) {
		fprintf(stderr, "rung: unknown command `%s`\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	ret = rung_log_init(g.log, g.log_format, g.debug, &err);
	if (ret < 0) {
		rung_error_print(&err, NULL);
		return 1;
	}
	/* The subcommand sees its name as argv[0]. */
	ret = cmd->fn(&g, argc - optind, argv + optind, &err);
	if (ret < 0) {
		rung_error_print(&err, NULL);
		return 1;
	}
	return ret;
}
