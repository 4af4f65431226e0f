/*
 * rung do: run one program in a fresh sandbox with the caller's stdio and
 * environment, and exit with its status (128 + signal when a signal ends it).
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/netns.h"
#include "runsc-compat/sandbox.h"
#include "runsc-compat/compat.h"
#include "runsc-compat/do_supervisor.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/vm_run.h"
#include "runsc-compat/spec.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/spawn.h"
#include "platform/platform.h"
#include "gofer/gofer.h"
#include "gofer/client.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/hostinfo.h"
#include "sentry/kernel/confine.h"
#include "sentry/mm/memfile.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void do_usage(FILE *out)
{
	fprintf(out,
		"Usage: rung do [options] [--] PROGRAM [ARGS...]\n\n"
		"Options:\n"
		"  --platform NAME      systrap (default with 2+ CPUs) or ptrace\n"
		"  --strace             log every guest system call\n"
		"  --debug              log debug messages\n"
		"  --memory-limit SIZE  what the guest may hold of the host's memory (e.g.\n"
		"                       512M; default: half the host's RAM)\n"
		"  --pids-limit N       tasks (processes and threads) the guest may have at\n"
		"                       once (default: 1024)\n"
		"  --rootfs DIR         the guest's root, served by the gofer (default: /)\n"
		"  --file-access MODE   direct (default: the gofer donates files) or gofer\n"
		"  --overlay MODE       memory (default: writes stay in the sandbox's memory)\n"
		"                       or none (writes go to the rootfs)\n"
		"  --host-exec          no rootfs: run a static PROGRAM from a host path\n"
		"  -v, --volume HOST:GUEST[:ro]\n"
		"                       bind-mount the host file or directory HOST on GUEST\n"
		"                       (the guest sees host changes live; ro: read-only)\n"
		"  --tmpfs PATH[:OPTS]  a tmpfs on PATH (OPTS: size=, mode=, uid=, gid=, ro,\n"
		"                       exec...; nosuid,nodev,noexec by default)\n"
		"  --read-only          the guest's / refuses writes (EROFS)\n"
		"  --unconfined         do not confine the sandbox process (debugging only)\n"
		"  --isolation LEVEL    sentry (default), container (namespaces, no sentry),\n"
		"                       microvm, vm (a QEMU VM) or auto\n"
		"  --allow-emulation    the VM levels may use TCG where KVM is missing\n"
		"  --kernel PATH        the VM levels' guest kernel\n"
		"  --network MODE       sandbox (default: the user-space stack), host (host\n"
		"                       sockets in rung's network namespace) or none (loopback)\n"
		"  --netns PATH         sandbox/none: join this network namespace instead of\n"
		"                       a new one with only lo (sandbox: one no other\n"
		"                       process uses; its addresses come back at the end)\n"
		"  --egress POLICY      the egress policy (docs/network.md), e.g.\n"
		"                       allow=10.1.0.0/16,allow=example.com\n");
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
	OPT_PIDS,
	OPT_ROOTFS,
	OPT_FILE_ACCESS,
	OPT_OVERLAY,
	OPT_HOST_EXEC,
	OPT_UNCONFINED,
	OPT_ISOLATION,
	OPT_ALLOW_EMULATION,
	OPT_KERNEL,
	OPT_TMPFS,
	OPT_READ_ONLY,
	OPT_NETWORK,
	OPT_NETNS,
	OPT_EGRESS,
	OPT_HELP
};

static const struct option do_options[] = {
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"strace", no_argument, NULL, OPT_STRACE},
	{"debug", no_argument, NULL, OPT_DEBUG},
	{"memory-limit", required_argument, NULL, OPT_MEMORY},
	{"pids-limit", required_argument, NULL, OPT_PIDS},
	{"rootfs", required_argument, NULL, OPT_ROOTFS},
	{"file-access", required_argument, NULL, OPT_FILE_ACCESS},
	{"overlay", required_argument, NULL, OPT_OVERLAY},
	{"host-exec", no_argument, NULL, OPT_HOST_EXEC},
	{"unconfined", no_argument, NULL, OPT_UNCONFINED},
	{"isolation", required_argument, NULL, OPT_ISOLATION},
	{"allow-emulation", no_argument, NULL, OPT_ALLOW_EMULATION},
	{"kernel", required_argument, NULL, OPT_KERNEL},
	{"volume", required_argument, NULL, 'v'},
	{"tmpfs", required_argument, NULL, OPT_TMPFS},
	{"read-only", no_argument, NULL, OPT_READ_ONLY},
	{"network", required_argument, NULL, OPT_NETWORK},
	{"netns", required_argument, NULL, OPT_NETNS},
	{"egress", required_argument, NULL, OPT_EGRESS},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

/* The mounts of -v and --tmpfs, as a spec would have them. */
struct do_mounts {
	struct oci_mount *m;
	size_t n;
};

static void do_mounts_free(struct do_mounts *dm)
{
	for (size_t i = 0; i < dm->n; i++) {
		free(dm->m[i].destination);
		free(dm->m[i].type);
		free(dm->m[i].source);
		for (char **o = dm->m[i].options; o && *o; o++)
			free(*o);
		free(dm->m[i].options);
	}
	free(dm->m);
	dm->m = NULL;
	dm->n = 0;
}

static struct oci_mount *do_mount_add(struct do_mounts *dm)
{
	dm->m = xrealloc(dm->m, (dm->n + 1) * sizeof(*dm->m));
	memset(&dm->m[dm->n], 0, sizeof(*dm->m));
	return &dm->m[dm->n++];
}

/* Split "a,b,c" into a NULL-terminated vector after the given first ones. */
static char **options(const char *const *first, const char *list)
{
	size_t n = 0, cap = 8;
	char **v = xzalloc(cap * sizeof(*v)), *copy = xstrdup(list ? list : ""), *save = NULL;

	for (; first && *first; first++)
		v[n++] = xstrdup(*first);
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (n + 2 > cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = xstrdup(o);
	}
	v[n] = NULL;
	free(copy);
	return v;
}

/* -v HOST:GUEST[:ro|:rw] (HOST is made absolute; it must exist). */
static int add_volume(struct do_mounts *dm, const char *arg, struct rung_error *err)
{
	static const char *const base[] = {"rbind", NULL};
	char *copy = xstrdup(arg), *guest = strchr(copy, ':'), *mode = NULL, *host;
	struct oci_mount *m;
	int ret = 0;

	if (guest) {
		*guest++ = '\0';
		mode = strchr(guest, ':');
		if (mode)
			*mode++ = '\0';
	}
	if (!guest || !*copy || guest[0] != '/' ||
	    (mode && strcmp(mode, "ro") != 0 && strcmp(mode, "rw") != 0)) {
		ret = rung_error_make(err, EINVAL,
				      "-v `%s`: want HOST:GUEST[:ro|:rw] with GUEST absolute", arg);
		goto out;
	}
	host = realpath(copy, NULL);
	if (!host) {
		ret = rung_error_make(err, errno, "-v `%s`: host path `%s`", arg, copy);
		goto out;
	}
	m = do_mount_add(dm);
	m->type = xstrdup("bind");
	m->source = host;
	m->destination = xstrdup(guest);
	m->options = options(base, mode);
out:
	free(copy);
	return ret;
}

/* --tmpfs PATH[:OPTIONS], nosuid,nodev,noexec unless OPTIONS say otherwise. */
static int add_tmpfs(struct do_mounts *dm, const char *arg, struct rung_error *err)
{
	static const char *const base[] = {"nosuid", "nodev", "noexec", NULL};
	char *copy = xstrdup(arg), *opts = strchr(copy, ':');
	struct oci_mount *m;

	if (opts)
		*opts++ = '\0';
	if (copy[0] != '/') {
		free(copy);
		return rung_error_make(err, EINVAL, "--tmpfs `%s`: the path must be absolute", arg);
	}
	m = do_mount_add(dm);
	m->type = xstrdup("tmpfs");
	m->source = xstrdup("tmpfs");
	m->destination = copy;
	m->options = options(base, opts);
	return 0;
}

/*
 * The sandbox's network namespace: rung's own for `host`; for `sandbox`
 * and `none`, the one --netns names, else a new one (with only a lo, down:
 * the user-space stack has its own loopback). In `sandbox` mode the stack
 * takes a joined namespace's interfaces over, so it must be the
 * sandbox's own (netns.h). The gofer and the stubs started later are in
 * it too.
 */
static int do_netns(enum net_mode mode, const char *path, struct rung_error *err)
{
	static const char choices[] =
		"Give the sandbox a namespace of its own (no --netns: a new one; or one that only "
		"a bind mount holds, as `ip netns add` makes), or run rung do --network host in "
		"this one (ip netns exec NAME rung do --network host ...)";

	if (mode == NET_MODE_HOST)
		return 0;
	if (!path)
		return unshare(CLONE_NEWNET) < 0
			       ? rung_error_make(err, errno,
						 "create a network namespace (--network=%s)",
						 net_mode_name(mode))
			       : 0;
	if (sandbox_join_netns(path, "--netns", err) < 0)
		return -1;
	return mode == NET_MODE_SANDBOX ? netns_check_own(path, "--netns", choices, err) : 0;
}

/*
 * The limits (the defaults a laptop survives: do_supervisor.h), then the
 * sandbox process in a PID namespace and a cgroup of its own; this process
 * stays outside as its supervisor and exits there. Before anything opens
 * what the sandbox alone needs.
 */
static int do_limits(struct sandbox_config *cfg, struct rung_error *err)
{
	struct do_limits l;

	if (!cfg->memory_limit)
		cfg->memory_limit = host_ram_bytes() / DO_DEFAULT_MEMORY_SHARE;
	if (!cfg->task_limit)
		cfg->task_limit = DO_DEFAULT_TASK_LIMIT;
	l.memory = cfg->memory_limit;
	l.tasks = cfg->task_limit;
	return do_supervise(&l, &cfg->supervisor, err);
}

int cmd_do(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct sandbox_config cfg = {.rootfs = "/",
				     .overlay = true,
				     .donate = true,
				     .host_init_fd = -1,
				     .tty = -1,
				     .confine = true};
	struct kernel_process proc = {.caller_creds = true};
	__attribute__((cleanup(do_mounts_free))) struct do_mounts dm = {0};
	struct sandbox *sb;
	cleanup_free char *prog = NULL;
	cleanup_free char *cwd = NULL;
	bool host_exec = false, sentry_only = false;
	const char *netns = NULL;
	struct isolation_workload w = {0};
	enum isolation iso;
	bool record;
	int opt, ret;

	fds_close_inherited();
	cfg.strace = g->strace;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+v:", do_options, NULL)) != -1) {
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
		case OPT_PIDS: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > KERNEL_PID_MAX)
				return rung_error_make(err, 0, "bad --pids-limit `%s`", optarg);
			cfg.task_limit = (unsigned)v;
			sentry_only = true;
			break;
		}
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
			if (isolation_parse(optarg, &(enum isolation){0}) < 0)
				return rung_error_make(err, 0, "unknown --isolation `%s`", optarg);
			g->isolation = optarg;
			break;
		case OPT_ALLOW_EMULATION:
			g->allow_emulation = true;
			break;
		case OPT_KERNEL:
			g->vm_kernel = optarg;
			break;
		case 'v':
			if ((ret = add_volume(&dm, optarg, err)) < 0)
				return ret;
			break;
		case OPT_TMPFS:
			if ((ret = add_tmpfs(&dm, optarg, err)) < 0)
				return ret;
			break;
		case OPT_READ_ONLY:
			cfg.root_readonly = true;
			break;
		case OPT_NETWORK:
			g->network = optarg;
			break;
		case OPT_NETNS:
			netns = optarg;
			sentry_only = true;
			break;
		case OPT_EGRESS:
			cfg.egress = optarg;
			sentry_only = true;
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
	if (!cfg.egress)
		cfg.egress = g->egress;
	if (net_mode_parse(g->network, &cfg.network) < 0)
		return rung_error_make(err, 0, "--network: sandbox, host or none, not `%s`",
				       g->network);
	if (netns && cfg.network == NET_MODE_HOST)
		return rung_error_make(err, 0,
				       "--netns: not with --network=host (which runs in "
				       "rung's own network namespace)");
	w.rootfs = cfg.rootfs;
	w.argv = argv + optind;
	if (isolation_choose(g, &w, &iso, &record, err) < 0)
		return -1;
	if (iso == ISOLATION_CONTAINER) {
		struct level1_do_opts lo = {.rootfs = cfg.rootfs,
					    .overlay = cfg.overlay,
					    .read_only = cfg.root_readonly,
					    .host_network = strcmp(g->network, "host") == 0,
					    .mounts = dm.m,
					    .n_mounts = dm.n};
		if (sentry_only)
			return rung_error_make(
				err, 0,
				"do: --strace, --memory-limit, --pids-limit, --file-access, "
				"--host-exec, --unconfined, --netns and --egress need "
				"the sentry, not --isolation=container");
		return level1_do(&lo, argv + optind, err);
	}
	cfg.mounts = dm.m;
	cfg.nmounts = dm.n;
	/* A read-only root: the mountpoints the sandbox makes go to memory. */
	if (cfg.root_readonly)
		cfg.overlay = true;
	{
		struct vm_do_opts vo = {.rootfs = cfg.rootfs,
					.overlay = cfg.overlay && !cfg.root_readonly,
					.readonly = cfg.root_readonly,
					.mounts = cfg.mounts,
					.nmounts = cfg.nmounts,
					.q35 = iso == ISOLATION_VM,
					.memory = cfg.memory_limit};
		if (iso == ISOLATION_CONFIDENTIAL)
			return isolation_refuse_confidential(err);
		if (isolation_is_vm(iso))
			return vm_do(g, &vo, argv + optind, err);
	}
	cfg.platform = platform_lookup(g->platform);
	if (!cfg.platform)
		return rung_error_make(err, 0, "unknown platform `%s`", g->platform);
	ret = do_limits(&cfg, err);
	if (ret < 0)
		return ret;
	if (record)
		cfg.compat_fd = compat_open(oci_root(g), cfg.rootfs, argv + optind);
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
	/* The caller's terminal is the guest's (sentry/fs/hosttty.h). */
	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO))
		cfg.tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	ret = do_netns(cfg.network, netns, err);
	if (ret < 0)
		return ret;
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
