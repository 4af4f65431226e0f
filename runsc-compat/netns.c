/*
 * Is the joined network namespace the sandbox's own (netns.h)? Every
 * thread of every process in /proc is compared with it (the device and
 * inode of /proc/PID/task/TID/ns/net), as `ip netns identify` does. The
 * host's initial namespace always counts as used: pid 1's, or where pid 1
 * cannot be looked at, the kernel threads' (kthreadd, pid 2).
 *
 * What this cannot see, and so does not refuse: a process whose
 * namespaces root may not read (some hosts hide their own supervisor so;
 * counted in the debug log), a process in another PID namespace than
 * rung's, a socket or a descriptor of the namespace held by a process
 * that lives elsewhere, and a process that enters it after the scan
 * (nothing locks a namespace against setns; one that the sandbox has
 * taken over is then shared with a sandbox that is not aware of it).
 */
#include "config.h"
#include "runsc-compat/netns.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/procstat.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct users {
	unsigned n;	     /* processes with a thread in the namespace */
	pid_t first;	     /* one of them, for the message */
	unsigned unreadable; /* processes whose namespaces could not be read */
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Is pid the rung command that started this process (`rung create` or
 * `rung run`: the same executable as ours)? */
static bool our_starter(pid_t pid)
{
	char path[64];
	struct stat self, other;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat("/proc/self/exe", &self) == 0 && stat(path, &other) == 0 &&
	       same_file(&self, &other);
}

/* Does a thread of pid live in the namespace ns? -1: cannot tell. */
static int uses(pid_t pid, const struct stat *ns)
{
	char path[sizeof("/proc//task//ns/net") + 2 * 256];
	cleanup_dir DIR *tasks = NULL;
	struct dirent *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (!tasks)
		return errno == EACCES || errno == EPERM ? -1 : 0; /* else gone */
	while (ret == 0 && (d = readdir(tasks))) {
		struct stat st;

		if (!numeric(d->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/ns/net", (int)pid, d->d_name);
		if (stat(path, &st) == 0)
			ret = same_file(&st, ns);
		else if (errno == EACCES || errno == EPERM)
			ret = -1;
	}
	return ret;
}

/* This process and its parent as /proc numbers them: rung do's sandbox
 * process is pid 1 of a PID namespace of its own, where getpid() and
 * getppid() do not say the pids /proc shows. */
static void proc_ids(pid_t *self, pid_t *parent)
{
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	struct proc_stat st;

	*self = getpid();
	*parent = getppid();
	if (proc_stat_read(fd, &st)) {
		*self = st.pid;
		*parent = st.ppid;
	}
	if (fd >= 0)
		close(fd);
}

static int scan(const struct stat *ns, struct users *u, struct rung_error *err)
{
	cleanup_dir DIR *proc = opendir("/proc");
	pid_t self, parent;
	bool skip_parent;
	struct dirent *d;

	proc_ids(&self, &parent);
	skip_parent = our_starter(parent);

	if (!proc)
		return rung_error_make(err, errno, "look at /proc");
	while ((d = readdir(proc))) {
		pid_t pid;
		int r;

		if (!numeric(d->d_name))
			continue;
		pid = (pid_t)atoi(d->d_name);
		if (pid == self || (pid == parent && skip_parent))
			continue;
		r = uses(pid, ns);
		if (r < 0)
			u->unreadable++;
		else if (r > 0 && !u->n++)
			u->first = pid;
	}
	if (u->unreadable)
		log_debug("network: %u processes whose network namespace rung may not read",
			  u->unreadable);
	return 0;
}

/* "sleep" for pid, from /proc/PID/comm; "?" when it is gone. */
static void comm_of(pid_t pid, char *buf, size_t size)
{
	char path[64];
	cleanup_file FILE *f = NULL;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f && fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
}

/* The host's initial network namespace: pid 1's, else kthreadd's. */
static int initial_ns(struct stat *st)
{
	char line[64];
	cleanup_file FILE *f = NULL;

	if (stat("/proc/1/ns/net", st) == 0)
		return 0;
	f = fopen("/proc/2/stat", "re");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "2 (kthreadd) S 0 ", 17) != 0)
		return -1;
	return stat("/proc/2/ns/net", st);
}

int netns_check_own(const char *path, const char *what, const char *choices, struct rung_error *err)
{
	struct stat ns, init;
	struct users u = {0};
	char comm[32], who[128];

	if (stat("/proc/self/ns/net", &ns) < 0)
		return rung_error_make(err, errno, "%s: the network namespace `%s`", what, path);
	if (initial_ns(&init) == 0 && same_file(&ns, &init)) {
		snprintf(who, sizeof(who), "the host's initial one");
	} else {
		if (scan(&ns, &u, err) < 0)
			return -1;
		if (!u.n)
			return 0;
		comm_of(u.first, comm, sizeof(comm));
		if (u.n == 1)
			snprintf(who, sizeof(who), "also used by process %d (%s)", (int)u.first,
				 comm);
		else
			snprintf(who, sizeof(who), "also used by %u processes, %d (%s) among them",
				 u.n, (int)u.first, comm);
	}
	return rung_error_make(err, 0,
			       "%s: the network namespace `%s` is %s: the user-space stack "
			       "(--network sandbox) would take its interfaces and their addresses "
			       "away from it. %s",
			       what, path, who, choices);
}
