/* rung-agent: the child side of a process start, from fork to exec. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void die(struct spawn_req *req, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void die(struct spawn_req *req, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 1)
		n = sizeof(msg) - 1;
	if (req->report >= 0 && write(req->report, msg, (size_t)n) < 0)
		(void)0;
	/* A released init that fails still tells its stderr, as runc does. */
	if (req->report < 0 && write(2, msg, (size_t)n) >= 0 && write(2, "\n", 1) < 0)
		(void)0;
	_exit(127);
}

/* The program as execvp would find it, in the container's PATH. */
static char *resolve(const char *prog, const char *path)
{
	static char buf[4096];
	const char *p;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? (char *)prog : NULL;
	for (p = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? p : ".", prog);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return buf;
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* The bounding set first (that needs CAP_SETPCAP, so before the user
 * changes), the other sets after. */
static void drop_bounding(struct spawn_req *req, uint64_t keep)
{
	for (int cap = 0; cap < 64; cap++)
		if (!(keep & (1ull << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
		    errno != EINVAL)
			die(req, "drop capability %d: %s", cap, strerror(errno));
}

static void drop_caps(struct spawn_req *req, uint64_t keep)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		die(req, "capget: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));
		d[i].effective &= k;
		d[i].permitted &= k;
		d[i].inheritable &= k;
	}
	if (syscall(SYS_capset, &h, d) < 0)
		die(req, "capset: %s", strerror(errno));
}

/* A pty of the container's /dev/pts: the slave becomes our stdio, the
 * master goes to the agent (SCM_RIGHTS on the report socket). */
static void open_terminal(struct spawn_req *req, const char *winsize)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = {(void *)"T", 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf)};
	struct cmsghdr *h;
	char name[64];
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;

	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		die(req, "open a terminal (/dev/ptmx): %s", strerror(errno));
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		die(req, "open `%s`: %s", name, strerror(errno));
	if (winsize) {
		unsigned cols = 0, rows = 0;
		if (sscanf(winsize, "%u %u", &cols, &rows) == 2 && cols && rows) {
			struct winsize ws = {.ws_row = (unsigned short)rows,
					     .ws_col = (unsigned short)cols};
			ioctl(master, TIOCSWINSZ, &ws);
		}
	}
	memset(&c, 0, sizeof(c));
	h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &master, sizeof(int));
	if (sendmsg(req->report, &msg, 0) != 1)
		die(req, "send the terminal: %s", strerror(errno));
	close(master);
	req->stdio[0] = req->stdio[1] = req->stdio[2] = slave;
}

void agent_spawn_child(struct spawn_req *req)
{
	const struct records *r = &req->rec;
	size_t nargs = 0, nenv = 0, ngroups = 0;
	char **args, **env, msg[1024];
	gid_t groups[64];
	const char *v, *prog, *cwd;
	uid_t uid = 0;
	gid_t gid = 0;
	char *path;

	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < r->n; i++) {
		nargs += strcmp(r->keys[i], "arg") == 0;
		nenv += strcmp(r->keys[i], "env") == 0;
	}
	args = calloc(nargs + 1, sizeof(char *));
	env = calloc(nenv + 1, sizeof(char *));
	if (!args || !env)
		die(req, "out of memory");
	nargs = nenv = 0;
	for (size_t i = 0; i < r->n; i++) {
		const char *k = r->keys[i];
		v = r->vals[i];
		if (strcmp(k, "arg") == 0)
			args[nargs++] = (char *)v;
		else if (strcmp(k, "env") == 0)
			env[nenv++] = (char *)v;
		else if (strcmp(k, "group") == 0 && ngroups < 64)
			groups[ngroups++] = (gid_t)strtoul(v, NULL, 10);
		else if (strcmp(k, "rlimit") == 0) {
			int res;
			unsigned long long soft, hard;
			struct rlimit rl;
			if (sscanf(v, "%d %llu %llu", &res, &soft, &hard) != 3)
				die(req, "bad rlimit `%s`", v);
			rl.rlim_cur = soft;
			rl.rlim_max = hard;
			if (setrlimit(res, &rl) < 0)
				die(req, "setrlimit %d: %s", res, strerror(errno));
		}
	}
	if ((v = records_get(r, "uid")))
		uid = (uid_t)strtoul(v, NULL, 10);
	if ((v = records_get(r, "gid")))
		gid = (gid_t)strtoul(v, NULL, 10);

	/* Into the container: its mounts and root, or (an exec) the init's. */
	if (req->init) {
		if (unshare(CLONE_NEWNS) < 0)
			die(req, "unshare(CLONE_NEWNS): %s", strerror(errno));
		if (agent_enter_root(msg, sizeof(msg)) < 0)
			die(req, "%s", msg);
	} else {
		if (setns(req->join_mnt, CLONE_NEWNS) < 0 || fchdir(req->join_root) < 0 ||
		    chroot(".") < 0)
			die(req, "enter the container: %s", strerror(errno));
	}
	cwd = records_get(r, "cwd");
	if (!cwd || !*cwd)
		cwd = "/";
	if (chdir(cwd) < 0) {
		/* runc makes a missing cwd. */
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s", cwd);
		for (char *p = buf + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(buf, 0755);
				*p = '/';
			}
		mkdir(buf, 0755);
		if (chdir(cwd) < 0)
			die(req, "chdir to cwd (\"%s\") set in config.json failed: %s", cwd,
			    strerror(errno));
	}
	environ = env;
	prog = args[0];
	path = resolve(prog, getenv("PATH"));
	if (!path)
		die(req, "exec: \"%s\": executable file not found in $PATH", prog);
	if (setsid() < 0)
		die(req, "setsid: %s", strerror(errno));
	if (req->tty)
		open_terminal(req, records_get(r, "winsize"));
	for (int fd = 0; fd < 3; fd++)
		if (dup2(req->stdio[fd], fd) < 0)
			die(req, "stdio: %s", strerror(errno));
	if (req->tty && ioctl(0, TIOCSCTTY, 0) < 0)
		die(req, "set the controlling terminal: %s", strerror(errno));
	if ((v = records_get(r, "umask")))
		umask((mode_t)strtoul(v, NULL, 8));
	if ((v = records_get(r, "capbnd")))
		drop_bounding(req, strtoull(v, NULL, 16));
	if (setgroups(ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		die(req, "set the user %u:%u: %s", uid, gid, strerror(errno));
	if ((v = records_get(r, "capbnd")))
		drop_caps(req, strtoull(v, NULL, 16));
	if (records_get(r, "nonewprivs") && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(req, "no_new_privs: %s", strerror(errno));
	if (req->go >= 0) {
		char c;
		/* Parked: tell the agent, wait for start. */
		if (write(req->report, "P", 1) < 0)
			_exit(127);
		close(req->report);
		req->report = -1;
		if (read(req->go, &c, 1) != 1)
			_exit(127);
		close(req->go);
	}
	execv(path, args);
	die(req, "exec %s: %s", prog, strerror(errno));
}
