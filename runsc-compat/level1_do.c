/*
 * rung do --isolation=container: one program in a throwaway level-1
 * container, with the caller's stdio, environment, ids and cwd (when the
 * root has it), Docker's default capabilities and masked paths, new mount,
 * pid, ipc, uts and (unless --network=host) network namespaces. The root is
 * --rootfs (default /); writes go to an in-memory overlay unless --overlay
 * none; --read-only, -v and --tmpfs as for the sentry. There is no cgroup
 * and no seccomp profile here.
 *
 * Host SIGINT, SIGTERM, SIGHUP and SIGQUIT go to the program when it
 * handles them; otherwise (as pid 1 of its namespace it would ignore them)
 * they end it, and rung do exits with 128 + the signal, as with the sentry.
 */
#include "config.h"
#include "runsc-compat/level1.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/spec.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *proc_opts[] = {"nosuid", "noexec", "nodev", NULL};
static char *dev_opts[] = {"nosuid", "strictatime", "mode=755", "size=65536k", NULL};
static char *pts_opts[] = {"nosuid",	"noexec", "newinstance", "ptmxmode=0666",
			   "mode=0620", "gid=5",  NULL};
static char *shm_opts[] = {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL};
static char *mqueue_opts[] = {"nosuid", "noexec", "nodev", NULL};
static char *sys_opts[] = {"nosuid", "noexec", "nodev", "ro", NULL};

static struct oci_mount mounts[] = {
	{"/proc", "proc", "proc", proc_opts},
	{"/dev", "tmpfs", "tmpfs", dev_opts},
	{"/dev/pts", "devpts", "devpts", pts_opts},
	{"/dev/shm", "tmpfs", "shm", shm_opts},
	{"/dev/mqueue", "mqueue", "mqueue", mqueue_opts},
	{"/sys", "sysfs", "sysfs", sys_opts},
};

static char *masked[] = {"/proc/asound",
			 "/proc/acpi",
			 "/proc/kcore",
			 "/proc/keys",
			 "/proc/latency_stats",
			 "/proc/timer_list",
			 "/proc/timer_stats",
			 "/proc/sched_debug",
			 "/proc/scsi",
			 "/sys/firmware",
			 NULL};
static char *readonly[] = {"/proc/bus",		  "/proc/fs", "/proc/irq", "/proc/sys",
			   "/proc/sysrq-trigger", NULL};

/* Docker's default capability set, without CAP_MKNOD: no device cgroup
 * says which devices a node may be made for. */
static const int default_caps[] = {
	CAP_CHOWN,	CAP_DAC_OVERRIDE, CAP_FSETID,	   CAP_FOWNER,	CAP_NET_RAW,
	CAP_SETGID,	CAP_SETUID,	  CAP_SETFCAP,	   CAP_SETPCAP, CAP_NET_BIND_SERVICE,
	CAP_SYS_CHROOT, CAP_KILL,	  CAP_AUDIT_WRITE,
};

/* Does process pid catch signal sig (/proc/pid/status SigCgt)? */
static bool catches(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return (mask >> (sig - 1)) & 1;
}

static int wait_child(pid_t child)
{
	static const int ending[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	sigset_t set;
	int status, ended_by = 0;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(ending); i++)
		sigaddset(&set, ending[i]);
	sigaddset(&set, SIGCHLD);
	/* The signals are blocked before this loop: a child gone before it is
	 * seen by waitpid, one gone after leaves SIGCHLD pending. */
	while (waitpid(child, &status, WNOHANG) != child) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		if (sig < 0 || sig == SIGCHLD)
			continue;
		if (catches(child, sig)) {
			kill(child, sig);
		} else {
			ended_by = ended_by ? ended_by : sig;
			kill(child, SIGKILL);
		}
	}
	if (ended_by && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return 128 + ended_by;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int level1_do(const struct level1_do_opts *o, char **argv, struct rung_error *err)
{
	struct oci_namespace ns[] = {
		{"mount", NULL}, {"pid", NULL}, {"ipc", NULL}, {"uts", NULL}, {"network", NULL}};
	struct oci_spec spec = {.hostname = "rung",
				.root_readonly = o->read_only,
				.namespaces = ns,
				.n_namespaces = ARRAY_SIZE(ns) - (o->host_network ? 1 : 0),
				.masked_paths = masked,
				.readonly_paths = readonly};
	struct level1_init_args a = {.spec = &spec,
				     .bundle = "/",
				     .go_fd = -1,
				     .console_fd = -1,
				     .fifo_fd = -1,
				     .do_mode = true,
				     .overlay = o->overlay,
				     .lo_up = !o->host_network};
	cleanup_free char *root = realpath(o->rootfs, NULL);
	cleanup_free char *cwd = getcwd(NULL, 0);
	cleanup_free char *in_root = NULL;
	cleanup_free gid_t *groups = NULL;
	cleanup_free uint32_t *gids = NULL;
	cleanup_free struct oci_mount *all = NULL;
	struct oci_process *p = &spec.process;
	int ready[2], ngroups = getgroups(0, NULL), ret;
	char msg[4096];
	ssize_t n, len = 0;
	struct stat st;
	sigset_t set;
	pid_t child;

	if (!root)
		return rung_error_make(err, errno, "--rootfs `%s`", o->rootfs);
	spec.root_path = root;
	/* rung do's own mounts, then -v and --tmpfs (which may cover them). */
	all = xzalloc((ARRAY_SIZE(mounts) + o->n_mounts) * sizeof(*all));
	memcpy(all, mounts, sizeof(mounts));
	if (o->n_mounts)
		memcpy(all + ARRAY_SIZE(mounts), o->mounts, o->n_mounts * sizeof(*all));
	spec.mounts = all;
	spec.n_mounts = ARRAY_SIZE(mounts) + o->n_mounts;
	in_root = cwd ? xasprintf("%s%s", strcmp(root, "/") == 0 ? "" : root, cwd) : NULL;
	p->args = argv;
	p->env = environ;
	p->cwd = in_root && stat(in_root, &st) == 0 && S_ISDIR(st.st_mode) ? cwd : "/";
	p->umask = (int)umask(022); /* the caller's */
	umask((mode_t)p->umask);
	p->uid = getuid();
	p->gid = getgid();
	groups = xzalloc((size_t)(ngroups > 0 ? ngroups : 1) * sizeof(gid_t));
	gids = xzalloc((size_t)(ngroups > 0 ? ngroups : 1) * sizeof(uint32_t));
	ngroups = getgroups(ngroups, groups);
	for (int i = 0; i < ngroups; i++)
		gids[i] = groups[i];
	p->additional_gids = gids;
	p->n_additional_gids = ngroups > 0 ? (size_t)ngroups : 0;
	p->has_caps = true;
	for (size_t i = 0; i < ARRAY_SIZE(default_caps); i++)
		p->cap_bounding |= 1ull << default_caps[i];
	p->cap_effective = p->cap_permitted = p->cap_bounding;
	for (int fd = 0; fd < 3; fd++)
		a.close_stdio[fd] = !rung_stdio_open[fd];

	if (pipe2(ready, O_CLOEXEC) < 0)
		return rung_error_make(err, errno, "pipe");
	a.ready_fd = ready[1];
	ret = level1_clone(&a, &child, err);
	close(ready[1]);
	if (ret < 0) {
		close(ready[0]);
		return ret;
	}
	/* Blocked now (the child keeps its own dispositions and mask). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	while ((n = read(ready[0], msg + len, sizeof(msg) - 1 - (size_t)len)) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? n : 0;
	close(ready[0]);
	msg[len] = '\0';
	if (strcmp(msg, "ok") != 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return rung_error_make(err, 0, "%s", len ? msg : "the container did not start");
	}
	return wait_child(child);
}
