/*
 * The last steps before a level-1 container's process runs: its terminal,
 * oom_score_adj, rlimits, seccomp, groups and ids, capabilities (libcap-ng),
 * no_new_privs, cwd, and finding and exec'ing the program.
 *
 * Order: a new session keyring; rlimits; the bounding set (which needs
 * CAP_SETPCAP) and libcap-ng's state; then, as runc, the seccomp filter
 * while we are still privileged unless noNewPrivileges is set (loading it
 * needs CAP_SYS_ADMIN or no_new_privs), so the profile must allow the few
 * calls that follow (setgroups, setresgid, setresuid, prctl, capset, chdir,
 * stat, write, read, execve; Docker's does); with noNewPrivileges it comes
 * last. The ids change with PR_SET_KEEPCAPS, then the sets are applied.
 */
#include "config.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/container.h"
#include "runsc-compat/spec.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* /dev/console as the container's terminal (as runc); a /dev that cannot
 * have it (none, or read-only) goes without. */
static int bind_console(int slave, struct rung_error *err)
{
	char src[64];
	int fd = open("/dev/console", O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);

	if (fd < 0)
		return 0;
	close(fd);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", slave);
	if (mount(src, "/dev/console", NULL, MS_BIND, NULL) < 0)
		return rung_error_make(err, errno, "bind the pty on /dev/console");
	return 0;
}

int level1_console(int console_fd, const struct oci_process *p, bool dev_console,
		   struct rung_error *err)
{
	int slave = console_send_pty(console_fd, p->console_width, p->console_height);

	if (slave < 0)
		return rung_error_make(err, -slave, "send the console's pty master");
	if (setsid() < 0 && errno != EPERM)
		return rung_error_make(err, errno, "setsid");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return rung_error_make(err, errno, "make the pty our controlling terminal");
	if (fchown(slave, p->uid, (gid_t)-1) < 0)
		return rung_error_make(err, errno, "chown the pty");
	if (dev_console && bind_console(slave, err) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (dup2(slave, fd) < 0)
			return rung_error_make(err, errno, "the pty as stdio");
	if (slave > 2)
		close(slave);
	return 0;
}

int level1_oom_score(const struct oci_process *p, struct rung_error *err)
{
	char buf[16];
	int fd, n;

	if (!p->has_oom_score_adj)
		return 0;
	n = snprintf(buf, sizeof(buf), "%d", p->oom_score_adj);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, (size_t)n) != n) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return rung_error_make(err, e, "set oom_score_adj to %d", p->oom_score_adj);
	}
	close(fd);
	return 0;
}

static int set_rlimits(const struct oci_process *p, struct rung_error *err)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
		if (setrlimit(p->rlimits[i].resource, &rl) < 0)
			return rung_error_make(err, errno, "setrlimit %d (soft %llu, hard %llu)",
					       p->rlimits[i].resource,
					       (unsigned long long)rl.rlim_cur,
					       (unsigned long long)rl.rlim_max);
	}
	return 0;
}

/* Every capability of mask into set. */
static void add_caps(capng_type_t set, uint64_t mask)
{
	for (int c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		if (mask & (1ull << c))
			capng_update(CAPNG_ADD, set, (unsigned)c);
}

/* The capability masks of p, without CAP_MKNOD when asked. */
static uint64_t caps_of(const struct oci_process *p, uint64_t set, bool drop_mknod)
{
	return p->has_caps ? set & (drop_mknod ? ~(1ull << CAP_MKNOD) : ~0ull) : 0;
}

/* The bounding set, and libcap-ng's picture of the other sets made ready:
 * both before a seccomp filter (libcap-ng asks for our tid on first use). */
static int prepare_caps(const struct oci_process *p, bool drop_mknod, struct rung_error *err)
{
	uint64_t bounding = caps_of(p, p->cap_bounding, drop_mknod);

	capng_clear(CAPNG_SELECT_BOUNDS);
	add_caps(CAPNG_BOUNDING_SET, bounding);
	if (capng_apply(CAPNG_SELECT_BOUNDS) != 0)
		return rung_error_make(err, errno ? errno : EPERM,
				       "set the capability bounding set");
	/* Trust, but verify: nothing outside the set may be left. */
	for (int c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		if (!(bounding & (1ull << c)) && prctl(PR_CAPBSET_READ, c, 0, 0, 0) > 0)
			return rung_error_make(err, EPERM,
					       "the capability bounding set still has %d", c);
	capng_clear(CAPNG_SELECT_ALL);
	add_caps(CAPNG_EFFECTIVE, caps_of(p, p->cap_effective, drop_mknod));
	add_caps(CAPNG_PERMITTED, caps_of(p, p->cap_permitted, drop_mknod));
	add_caps(CAPNG_INHERITABLE, caps_of(p, p->cap_inheritable, drop_mknod));
	add_caps(CAPNG_AMBIENT, caps_of(p, p->cap_ambient, drop_mknod));
	return 0;
}

/* Groups, gid and uid (keeping the permitted set), then the prepared sets. */
static int set_credentials(const struct oci_process *p, struct rung_error *err)
{
	gid_t *groups = xzalloc((p->n_additional_gids + 1) * sizeof(gid_t));
	int ret = 0;

	for (size_t i = 0; i < p->n_additional_gids; i++)
		groups[i] = p->additional_gids[i];
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		ret = rung_error_make(err, errno, "PR_SET_KEEPCAPS");
	else if (setgroups(p->n_additional_gids, groups) < 0)
		ret = rung_error_make(err, errno, "setgroups");
	else if (setresgid(p->gid, p->gid, p->gid) < 0)
		ret = rung_error_make(err, errno, "setgid %u", p->gid);
	else if (setresuid(p->uid, p->uid, p->uid) < 0)
		ret = rung_error_make(err, errno, "setuid %u", p->uid);
	else if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		ret = rung_error_make(err, errno, "PR_SET_KEEPCAPS");
	free(groups);
	if (ret < 0)
		return ret;
	if (capng_apply(CAPNG_SELECT_CAPS) != 0)
		return rung_error_make(err, errno ? errno : EPERM, "set the capabilities");
	if (capng_apply(CAPNG_SELECT_AMBIENT) != 0)
		return rung_error_make(err, errno ? errno : EPERM, "set the ambient capabilities");
	return 0;
}

int level1_finalize(const struct oci_process *p, void *filter, bool drop_mknod,
		    struct rung_error *err)
{
	int ret;

	/* A session keyring of its own, not the caller's (as runc); a kernel
	 * without keys has nothing to share. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
		return rung_error_make(err, errno, "join a new session keyring");
	ret = set_rlimits(p, err);
	if (ret == 0)
		ret = prepare_caps(p, drop_mknod, err);
	if (ret == 0 && filter && !p->no_new_privileges)
		ret = level1_seccomp_load(filter, err);
	if (ret == 0)
		ret = set_credentials(p, err);
	if (ret == 0 && p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		ret = rung_error_make(err, errno, "PR_SET_NO_NEW_PRIVS");
	if (ret == 0 && filter && p->no_new_privileges)
		ret = level1_seccomp_load(filter, err);
	/* process.user.umask, else runc's 022. */
	umask(p->umask >= 0 ? (mode_t)p->umask : 022);
	if (ret == 0 && chdir(p->cwd) < 0)
		ret = rung_error_make(err, errno, "chdir to cwd (\"%s\") set in config.json failed",
				      p->cwd);
	return ret;
}

/* Can we run path: a regular file with execute permission? (-errno) */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) < 0 ? -errno : 0;
}

int level1_find_program(const struct oci_process *p, char **path, struct rung_error *err)
{
	const char *name = p->args[0], *search = DEFAULT_PATH;
	char *dirs, *save = NULL;
	int ret;

	if (strchr(name, '/')) {
		ret = runnable(name);
		if (ret == -ENOENT)
			return rung_error_make(err, 0,
					       "exec: \"%s\": stat %s: no such file or directory",
					       name, name);
		if (ret < 0)
			return rung_error_make(err, 0, "exec: \"%s\": permission denied", name);
		*path = xstrdup(name);
		return 0;
	}
	for (char **e = p->env; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			search = *e + 5;
	dirs = xstrdup(search);
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", *d ? d : ".", name);
		if (runnable(cand) == 0) {
			free(dirs);
			*path = cand;
			return 0;
		}
		free(cand);
	}
	free(dirs);
	return rung_error_make(err, 0, "exec: \"%s\": executable file not found in $PATH", name);
}

void level1_reset_signals(void)
{
	struct sigaction sa = {.sa_handler = SIG_DFL};
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void level1_execve(const char *path, const struct oci_process *p)
{
	int e;
	char msg[512];

	execve(path, p->args, p->env);
	e = errno;
	snprintf(msg, sizeof(msg), "rung: exec: \"%s\": %s\n", p->args[0], strerror(e));
	if (write(STDERR_FILENO, msg, strlen(msg)) < 0)
		(void)0;
	_exit(e == ENOENT ? 127 : 126);
}
