/* rung do's supervisor (do_supervisor.h). */
#include "config.h"
#include "runsc-compat/do_supervisor.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/do_outside.h"
#include "lib/error.h"
#include "lib/fds.h"
#include "lib/log.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where rung do's cgroups live (one per sandbox: do-PID, PID the
 * supervisor's), beside the OCI runtime's default /rung/ID. */
#define DO_CGROUP_PARENT CGROUP_DEFAULT_PARENT
/* The controllers it limits (v1: only their hierarchies get a level). */
#define DO_CGROUP_CONTROLLERS "memory,pids"

/* The signals the supervisor takes (blocked, read from a signalfd). */
static const int handled[] = {SIGCHLD, SIGINT, SIGQUIT, SIGTSTP,
			      SIGTERM, SIGHUP, SIGCONT, SIGWINCH};

uint64_t do_cgroup_memory(uint64_t guest)
{
	uint64_t room = MAX(guest / 8, 64ull << 20);

	return guest > UINT64_MAX - room ? UINT64_MAX : guest + room;
}

/* --- the cgroup ---------------------------------------------------------------------- */

/* do-PID cgroups whose supervisor is gone (killed before it could remove
 * them): removed when empty. */
static void remove_stale(void)
{
	char *dir = cgroup_file(DO_CGROUP_PARENT, "pids", "");
	DIR *d = opendir(dir);
	struct dirent *e;

	free(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;
		int pid;
		if (sscanf(e->d_name, "do-%d", &pid) != 1 || pid <= 0 ||
		    (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		path = xasprintf(DO_CGROUP_PARENT "/%s", e->d_name);
		if (cgroup_try_remove(path))
			log_debug("removed the cgroup %s of a rung do that is gone", path);
		free(path);
	}
	closedir(d);
}

/* cgroup v2: does the root hand the memory and pids controllers down? A
 * cgroup of rung do's own is not worth changing the host's root for. (v1:
 * every mounted controller's hierarchy has them.) */
static bool controllers_enabled(void)
{
	char buf[512] = "";
	FILE *f;
	bool mem, pids;

	if (!cgroup_v2())
		return true;
	f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	mem = strstr(buf, "memory") != NULL;
	pids = strstr(buf, "pids") != NULL;
	return mem && pids;
}

/* The sandbox's cgroup with its limits, or NULL where rung cannot make one
 * (not root, no cgroup file system it may write): the sentry's own limits
 * hold then, without the backstop. */
static char *cgroup_make(const struct do_limits *l)
{
	char *path = xasprintf(DO_CGROUP_PARENT "/do-%d", getpid());
	char *json = xasprintf("{\"memory\":{\"limit\":%llu},\"pids\":{\"limit\":%u}}",
			       (unsigned long long)do_cgroup_memory(l->memory), l->tasks);
	struct rung_error err = {0};

	remove_stale();
	if (!controllers_enabled()) {
		log_debug("no cgroup of its own for the sandbox: the root cgroup does not hand "
			  "memory and pids down (rung do does not change that)");
		free(json);
		free(path);
		return NULL;
	}
	if (cgroup_create_in(path, DO_CGROUP_CONTROLLERS, &err) < 0 ||
	    cgroup_update(path, json, &err) < 0) {
		log_debug("no cgroup of its own for the sandbox (%s): only the sandbox's own "
			  "limits hold",
			  err.msg ? err.msg : "?");
		rung_error_release(&err);
		cgroup_remove(path);
		free(path);
		path = NULL;
	}
	free(json);
	return path;
}

static void cgroup_done(char *path)
{
	if (!path)
		return;
	cgroup_remove(path);
	free(path);
}

/*
 * Who removes the cgroup when this process is killed outright (SIGKILL:
 * the sandbox dies with it, of its parent-death signal)? A small process
 * of its own session, outside the cgroup, that waits for this one to go:
 * end of file on a pipe only this process writes to. After a normal end
 * this process removes the cgroup itself and ends the cleaner first.
 */
static pid_t start_cleaner(const char *cg, int *wr)
{
	int p[2], null;
	pid_t pid;

	if (!cg || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char b;
		setsid();
		signal(SIGHUP, SIG_IGN);
		prctl(PR_SET_NAME, "rung-cgclean", 0, 0, 0);
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		/* Only the pipe: the sandbox's sockets and pipes must close when
		 * their owners go. */
		if (dup2(p[0], 3) < 0)
			_exit(1);
		fds_close_from(4, NULL, 0);
		while (read(3, &b, 1) < 0 && errno == EINTR)
			;
		/* The sandbox's processes die of their parent-death signal a
		 * moment later, or longer on a loaded host: a minute at most. */
		for (int i = 0; i < 30 && !cgroup_try_remove(cg); i++)
			cgroup_remove(cg);
		_exit(0);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	*wr = p[1];
	return pid;
}

static void stop_cleaner(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/* --- the supervisor's loop ------------------------------------------------------------- */

/* Did the host's OOM killer end something in the cgroup? */
static bool cgroup_oom_killed(const char *cg)
{
	char *f = cgroup_file(cg, "memory", cgroup_v2() ? "memory.events" : "memory.oom_control");
	FILE *fp = fopen(f, "re");
	char line[128];
	unsigned long n = 0;

	free(f);
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "oom_kill %lu", &n) == 1)
			break;
	if (fp)
		fclose(fp);
	return n > 0;
}

static int finish(int status, char *cg, pid_t cleaner, struct do_outside *o)
{
	bool oom_killed = cg && WIFSIGNALED(status) && cgroup_oom_killed(cg);

	/* The keeper gives the namespace's addresses back first. */
	do_outside_wait(o);
	cgroup_done(cg);
	stop_cleaner(cleaner);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		log_warning("the sandbox process died of signal %d (%s)%s", WTERMSIG(status),
			    strsignal(WTERMSIG(status)),
			    oom_killed ? ": its cgroup ran out of memory" : "");
		return 128 + WTERMSIG(status);
	}
	return 1;
}

/* A signal for the program. Those the terminal sent rung's whole process
 * group (si_code SI_KERNEL) reached the sandbox process too. */
static void relay_signal(pid_t child, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;

	switch (sig) {
	case SIGINT:
	case SIGQUIT:
	case SIGTSTP:
	case SIGWINCH:
		if (si->ssi_code == SI_KERNEL)
			return;
		/* fall through */
	default:
		kill(child, sig);
	}
}

static int supervise(pid_t child, int sfd, int sock, char *cg, pid_t cleaner)
{
	struct do_outside o = {.fd = sock, .sandbox = child};
	int status;

	while (sfd >= 0) {
		struct pollfd pf[2] = {{sfd, POLLIN, 0}, {o.fd, POLLIN, 0}};
		struct signalfd_siginfo si;

		if (poll(pf, o.fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			break;
		if (o.fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP)) &&
		    do_outside_serve(&o, &status) < 0)
			return finish(status, cg, cleaner, &o);
		if (!(pf[0].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD) {
			relay_signal(child, &si);
			continue;
		}
		do_outside_reap(&o);
		if (waitpid(child, &status, WNOHANG) == child)
			return finish(status, cg, cleaner, &o);
	}
	/* Nothing to poll: wait for the end. */
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return finish(status, cg, cleaner, &o);
}

int do_supervise(const struct do_limits *l, int *sock, struct rung_error *err)
{
	sigset_t set, old;
	int sv[2], go[2], sfd, ownpid, cleaner_fd = -1;
	pid_t cleaner;
	char *cg = NULL;
	pid_t child;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(handled); i++)
		sigaddset(&set, handled[i]);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return rung_error_make(err, errno, "socketpair");
	if (pipe2(go, O_CLOEXEC) < 0) {
		close(sv[0]);
		close(sv[1]);
		return rung_error_make(err, errno, "pipe");
	}
	if (geteuid() == 0)
		cg = cgroup_make(l);
	cleaner = start_cleaner(cg, &cleaner_fd);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	/* The next child is the init of a new PID namespace; the ones after it
	 * (the keeper) are in this process's own again. */
	ownpid = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ownpid < 0 || unshare(CLONE_NEWPID) < 0 || (child = fork()) < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ownpid >= 0)
			close(ownpid);
		stop_cleaner(cleaner);
		if (cleaner_fd >= 0)
			close(cleaner_fd);
		cgroup_done(cg);
		close(sv[0]);
		close(sv[1]);
		close(go[0]);
		close(go[1]);
		return rung_error_make(err, e,
				       "start the sandbox in a PID namespace of its own "
				       "(rung needs root)");
	}
	if (child == 0) {
		char b;
		close(sv[0]);
		close(go[1]);
		if (cleaner_fd >= 0)
			close(cleaner_fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Go once the supervisor is ready; end if it died before. */
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		close(go[0]);
		close(ownpid);
		/* It moves itself, single-threaded, through v1's tasks file:
		 * cheap, where moving another process waits for an RCU grace
		 * period (cgroup.c). Before it forks anything. */
		if (cg && cgroup_join_in(cg, 0, DO_CGROUP_CONTROLLERS, err) < 0) {
			log_warning("the sandbox runs without its cgroup: %s", err->msg);
			rung_error_release(err);
		}
		free(cg);
		/* The signals stay blocked: the kernel drops a signal its init has
		 * no handler for (SIG_DFL) unless it is blocked, and the sandbox's
		 * signal thread takes these (sandbox_block_signals) once it runs. */
		*sock = sv[1] > 2 ? sv[1] : fcntl(sv[1], F_DUPFD_CLOEXEC, 3);
		return 0;
	}
	close(sv[1]);
	close(go[0]);
	if (setns(ownpid, CLONE_NEWPID) < 0)
		log_warning("supervisor: a keeper would die with the sandbox (setns: %s)",
			    strerror(errno));
	close(ownpid);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (write(go[1], "x", 1) != 1)
		log_debug("supervisor: the sandbox process is gone already");
	close(go[1]);
	exit(supervise(child, sfd, sv[0], cg, cleaner));
}
