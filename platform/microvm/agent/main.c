/* rung-agent: boot, the control port, and the relay of every process's stdio. */
#include "agent.h"
#include "../proto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 16
#define INBUF	  65536

struct proc {
	bool used;
	uint32_t id;
	pid_t pid;
	int in_port, out_port[3]; /* out_port[1], [2]: stdout, stderr ports */
	int in_pipe, out_pipe[3]; /* our ends of the child's stdio */
	int go;			  /* a parked init's release pipe, or -1 */
	char inbuf[INBUF];
	size_t inlen, inoff;
	bool in_eof, exited;
	bool tty; /* in_pipe and out_pipe[1] are a pty's master */
	int status;
	uint64_t sent[3];
};

struct agent_config config;
static struct proc procs[MAX_PROCS];
static int ctl = -1;
static pid_t init_pid;
static bool init_done;

void agent_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "rung-agent: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(fd, buf, (size_t)n) < 0)
		(void)0;
	close(fd);
}

/* --- records ------------------------------------------------------------------ */

int records_parse(const char *buf, size_t len, struct records *r)
{
	size_t cap = 16;

	r->n = 0;
	r->keys = malloc(cap * sizeof(char *));
	r->vals = malloc(cap * sizeof(char *));
	if (!r->keys || !r->vals)
		return -1;
	for (size_t off = 0; off < len;) {
		const char *rec = buf + off, *end = memchr(rec, '\0', len - off), *eq;
		if (!end)
			return -1; /* the last record is not terminated */
		eq = memchr(rec, '=', (size_t)(end - rec));
		if (!eq)
			return -1;
		if (r->n == cap) {
			cap *= 2;
			r->keys = realloc(r->keys, cap * sizeof(char *));
			r->vals = realloc(r->vals, cap * sizeof(char *));
			if (!r->keys || !r->vals)
				return -1;
		}
		/* Keys are cut in place: the '=' becomes the key's NUL. */
		*(char *)eq = '\0';
		r->keys[r->n] = rec;
		r->vals[r->n++] = eq + 1;
		off = (size_t)(end - buf) + 1;
	}
	return 0;
}

void records_release(struct records *r)
{
	free(r->keys);
	free(r->vals);
	r->keys = r->vals = NULL;
	r->n = 0;
}

const char *records_get(const struct records *r, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->keys[i], key) == 0)
			return r->vals[i];
	return NULL;
}

/* --- the control port ------------------------------------------------------------ */

static void send_msg(uint32_t type, uint32_t id, int64_t a, int64_t b, const char *data)
{
	struct vmp_header h = {.type = type, .id = id, .a = a, .b = b};
	size_t len = data ? strlen(data) : 0;
	char buf[sizeof(h) + 1024];

	if (len > 1024)
		len = 1024;
	h.len = (uint32_t)len;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), data, len);
	/* One write: the port is ours alone, and a short write is retried. */
	for (size_t off = 0; off < sizeof(h) + len;) {
		ssize_t n = write(ctl, buf + off, sizeof(h) + len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

/* The device of the virtio-serial port named name (waiting up to ms for a
 * hot-plugged one), opened with flags; -1 if it never appears. */
static int open_port(const char *name, int flags, int ms)
{
	for (int waited = 0;; waited += 5) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char path[300], buf[128];
			ssize_t n;
			int fd;
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			if (strcmp(buf, name) != 0)
				continue;
			snprintf(path, sizeof(path), "/dev/%s", e->d_name);
			fd = open(path, flags | O_CLOEXEC);
			if (fd >= 0) {
				closedir(d);
				return fd;
			}
		}
		if (d)
			closedir(d);
		if (waited >= ms)
			return -1;
		usleep(5000);
	}
}

/* --- processes ------------------------------------------------------------------- */

static struct proc *proc_find(uint32_t id)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].used && procs[i].id == id)
			return &procs[i];
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void proc_free(struct proc *p)
{
	close_fd(&p->in_port);
	close_fd(&p->in_pipe);
	close_fd(&p->go);
	for (int s = 1; s < 3; s++) {
		close_fd(&p->out_port[s]);
		close_fd(&p->out_pipe[s]);
	}
	p->used = false;
}

/* Copy what the child wrote on stream s to its port; at EOF (or drain,
 * once the child is gone) say how many bytes the stream carried. */
static void relay_out(struct proc *p, int s, bool drain)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(p->out_pipe[s], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !drain)
			return;
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(p->out_port[s], buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				off = n; /* the host is gone: drop it */
				break;
			}
			off += w;
			p->sent[s] += (uint64_t)w;
		}
		if (!drain)
			return; /* one chunk per wakeup: be fair to the others */
	}
	close_fd(&p->out_pipe[s]);
	send_msg(VMP_EOF, p->id, s, (int64_t)p->sent[s], NULL);
}

static void proc_maybe_done(struct proc *p)
{
	if (!p->exited || p->out_pipe[1] >= 0 || p->out_pipe[2] >= 0)
		return;
	send_msg(VMP_EXIT, p->id, p->status, 0, NULL);
	proc_free(p);
}

static void on_exit_status(pid_t pid, int status)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		struct proc *p = &procs[i];
		if (!p->used || p->pid != pid)
			continue;
		p->exited = true;
		p->status = status;
		if (pid == init_pid) {
			/* The container is over: what is left of it goes, and what
			 * it wrote reaches the host's disk before we say so. */
			init_done = true;
			kill(-1, SIGKILL);
			sync();
		}
		/* Whatever the child left in its pipes is all there is; a
		 * background process holding them open does not delay its end. */
		for (int s = 1; s < 3; s++)
			if (p->out_pipe[s] >= 0)
				relay_out(p, s, true);
		proc_maybe_done(p);
	}
}

static void fail(uint32_t id, const char *msg)
{
	send_msg(VMP_ERROR, id, EINVAL, 0, msg);
}

/* One message of the child's report socket (its bytes in buf), and the
 * descriptor it carries (a terminal's master) in *fd, or -1. */
static ssize_t recv_report(int sock, char *buf, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = {buf, len};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf)};
	struct cmsghdr *h;
	ssize_t n;

	*fd = -1;
	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return n;
	h = CMSG_FIRSTHDR(&msg);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(h), sizeof(int));
	return n;
}

static void spawn(uint32_t id, char *payload, size_t len, bool park)
{
	struct spawn_req req = {.report = -1, .go = -1, .join_mnt = -1, .join_root = -1};
	int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1},
	    go[2] = {-1, -1};
	char name[64], msg[1024];
	struct proc *p = NULL;
	ssize_t n = 0;
	int tfd = -1;
	pid_t pid;

	if (proc_find(id) || id == 0) {
		fail(id, "process id in use");
		return;
	}
	if ((id == VMP_INIT_ID) != (init_pid == 0) || init_done) {
		fail(id, init_done ? "container not running" : "exec before the init");
		return;
	}
	for (int i = 0; i < MAX_PROCS && !p; i++)
		if (!procs[i].used)
			p = &procs[i];
	if (!p) {
		fail(id, "too many processes");
		return;
	}
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->in_port = p->in_pipe = p->go = -1;
	p->out_port[1] = p->out_port[2] = p->out_pipe[1] = p->out_pipe[2] = -1;
	if (records_parse(payload, len, &req.rec) < 0 || !records_get(&req.rec, "arg")) {
		records_release(&req.rec);
		fail(id, "malformed process");
		return;
	}
	snprintf(name, sizeof(name), "rung.%u.in", id);
	p->in_port = open_port(name, O_RDONLY | O_NONBLOCK, 10000);
	snprintf(name, sizeof(name), "rung.%u.out", id);
	p->out_port[1] = open_port(name, O_WRONLY, 10000);
	snprintf(name, sizeof(name), "rung.%u.err", id);
	p->out_port[2] = open_port(name, O_WRONLY, 10000);
	if (p->in_port < 0 || p->out_port[1] < 0 || p->out_port[2] < 0) {
		records_release(&req.rec);
		fail(id, "the process's stdio ports did not appear");
		return;
	}
	p->used = true;
	/* A terminal is opened by the child in the container's /dev/pts (so that
	 * ttyname works there); it sends us the master. */
	req.tty = records_get(&req.rec, "tty") != NULL;
	if (!req.tty &&
	    (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)) {
		snprintf(msg, sizeof(msg), "pipe: %s", strerror(errno));
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rep) < 0 ||
	    (park && pipe2(go, O_CLOEXEC) < 0)) {
		snprintf(msg, sizeof(msg), "pipe: %s", strerror(errno));
		goto fail;
	}
	req.stdio[0] = in[0];
	req.stdio[1] = out[1];
	req.stdio[2] = err[1];
	req.report = rep[1];
	req.go = go[0];
	req.init = id == VMP_INIT_ID;
	if (!req.init) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", init_pid);
		req.join_mnt = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%d/root", init_pid);
		req.join_root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (req.join_mnt < 0 || req.join_root < 0) {
			snprintf(msg, sizeof(msg), "container not running");
			goto fail;
		}
	} else if (records_get(&config.rec, "pidns") && unshare(CLONE_NEWPID) < 0) {
		/* Every later child is in the container's PID namespace. */
		snprintf(msg, sizeof(msg), "unshare(CLONE_NEWPID): %s", strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, sizeof(msg), "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		agent_spawn_child(&req);
	if (!req.tty) {
		close(in[0]);
		close(out[1]);
		close(err[1]);
	}
	close(rep[1]);
	if (go[0] >= 0)
		close(go[0]);
	in[0] = out[1] = err[1] = rep[1] = go[0] = -1;
	if (req.join_mnt >= 0)
		close(req.join_mnt);
	if (req.join_root >= 0)
		close(req.join_root);
	/* The child sends its terminal's master ("T") first if it has one,
	 * then "P" once parked, or an error; exec closes the socket. */
	n = recv_report(rep[0], msg, sizeof(msg) - 1, &tfd);
	if (req.tty && n == 1 && msg[0] == 'T' && tfd >= 0) {
		in[1] = tfd;
		out[0] = fcntl(tfd, F_DUPFD_CLOEXEC, 0);
		n = recv_report(rep[0], msg, sizeof(msg) - 1, &tfd);
	}
	if (tfd >= 0)
		close(tfd);
	close(rep[0]);
	rep[0] = -1;
	if (n > 0 && !(n == 1 && msg[0] == 'P')) {
		msg[n] = '\0';
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (req.init)
			init_done = true;
		goto fail;
	}
	p->pid = pid;
	p->tty = req.tty;
	p->in_pipe = in[1];
	p->out_pipe[1] = out[0];
	p->out_pipe[2] = err[0];
	p->go = go[1];
	fcntl(p->in_pipe, F_SETFL, O_NONBLOCK);
	fcntl(p->out_pipe[1], F_SETFL, O_NONBLOCK);
	fcntl(p->out_pipe[2], F_SETFL, O_NONBLOCK);
	if (req.init)
		init_pid = pid;
	records_release(&req.rec);
	send_msg(VMP_STARTED, id, pid, 0, NULL);
	if (p->out_pipe[2] < 0)
		send_msg(VMP_EOF, id, 2, 0, NULL); /* a terminal has no stderr of its own */
	return;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (rep[i] >= 0)
			close(rep[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	if (req.join_mnt >= 0)
		close(req.join_mnt);
	if (req.join_root >= 0)
		close(req.join_root);
	records_release(&req.rec);
	proc_free(p);
	fail(id, msg);
}

static void handle(const struct vmp_header *h, char *payload)
{
	struct proc *p;
	char msg[1024];

	switch (h->type) {
	case VMP_CONFIG:
		if (agent_configure(payload, h->len, msg, sizeof(msg)) < 0)
			fail(0, msg);
		else
			send_msg(VMP_OK, 0, 0, 0, NULL);
		return; /* the configuration keeps the payload */
	case VMP_SPAWN:
		/* a = 1: park the init until a SIGNAL 0 releases it (create, start). */
		spawn(h->id, payload, h->len, h->a == 1);
		break;
	case VMP_SIGNAL:
		p = proc_find(h->id);
		if (h->a == 0 && p && p->go >= 0) {
			if (write(p->go, "g", 1) < 0)
				(void)0;
			close_fd(&p->go);
		} else if (h->b) {
			kill(-1, (int)h->a);
		} else if (p && !p->exited && h->a > 0 && h->a < 65) {
			kill(p->pid, (int)h->a);
		}
		break;
	case VMP_NET:
		agent_net_start(h->a == 1);
		break;
	case VMP_WINSIZE:
		p = proc_find(h->id);
		if (p && p->tty && h->a > 0 && h->a < 65536 && h->b > 0 && h->b < 65536) {
			struct winsize ws = {.ws_row = (unsigned short)h->b,
					     .ws_col = (unsigned short)h->a};
			int fd = p->out_pipe[1] >= 0 ? p->out_pipe[1] : p->in_pipe;
			/* The pty sends SIGWINCH to its foreground process group. */
			if (fd >= 0 && ioctl(fd, TIOCSWINSZ, &ws) < 0)
				agent_log("TIOCSWINSZ: %s", strerror(errno));
		}
		break;
	default:
		fail(h->id, "unknown request");
		break;
	}
	free(payload);
}

/* Read whatever the control port has; handle every complete message. */
static void read_ctl(void)
{
	static char buf[sizeof(struct vmp_header) + VMP_MAX_PAYLOAD];
	static size_t have;
	ssize_t n = read(ctl, buf + have, sizeof(buf) - have);

	if (n <= 0)
		return;
	have += (size_t)n;
	for (;;) {
		struct vmp_header h;
		char *payload;
		if (have < sizeof(h))
			return;
		memcpy(&h, buf, sizeof(h));
		if (h.len > VMP_MAX_PAYLOAD) {
			agent_log("bad message length %u", h.len);
			have = 0;
			return;
		}
		if (have < sizeof(h) + h.len)
			return;
		payload = malloc(h.len + 1);
		if (!payload)
			return;
		memcpy(payload, buf + sizeof(h), h.len);
		payload[h.len] = '\0';
		memmove(buf, buf + sizeof(h) + h.len, have - sizeof(h) - h.len);
		have -= sizeof(h) + h.len;
		handle(&h, payload);
	}
}

static void relay_in(struct proc *p)
{
	if (p->inlen == 0 && !p->in_eof) {
		ssize_t n = read(p->in_port, p->inbuf, sizeof(p->inbuf));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			p->in_eof = true;
			close_fd(&p->in_port);
		} else if (n > 0) {
			p->inlen = (size_t)n;
			p->inoff = 0;
		}
	}
	if (p->inlen > 0 && p->in_pipe >= 0) {
		ssize_t w = write(p->in_pipe, p->inbuf + p->inoff, p->inlen);
		if (w > 0) {
			p->inoff += (size_t)w;
			p->inlen -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			p->inlen = 0; /* the child closed its stdin: discard */
			close_fd(&p->in_pipe);
		}
	}
	if (p->inlen == 0 && p->in_eof)
		close_fd(&p->in_pipe);
}

static void boot(void)
{
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	agent_load_modules();
}

int main(void)
{
	struct pollfd pfd[2 + MAX_PROCS * 4];
	struct proc *who[2 + MAX_PROCS * 4];
	int what[2 + MAX_PROCS * 4];
	sigset_t set;
	int sfd;

	if (getpid() != 1) {
		fprintf(stderr, "rung-agent: runs as PID 1 of a rung VM\n");
		return 2;
	}
	boot();
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	ctl = open_port(VMP_CTL_PORT, O_RDWR, 20000);
	if (ctl < 0) {
		agent_log("no control port `%s`", VMP_CTL_PORT);
		reboot(RB_POWER_OFF);
		return 1;
	}
	send_msg(VMP_HELLO, 0, VMP_VERSION, 0, NULL);
	for (;;) {
		nfds_t n = 0;
		pfd[n] = (struct pollfd){ctl, POLLIN, 0};
		who[n++] = NULL;
		pfd[n] = (struct pollfd){sfd, POLLIN, 0};
		who[n++] = NULL;
		for (int i = 0; i < MAX_PROCS; i++) {
			struct proc *p = &procs[i];
			if (!p->used)
				continue;
			if (p->inlen == 0 && p->in_port >= 0 && p->go < 0) {
				pfd[n] = (struct pollfd){p->in_port, POLLIN, 0};
				who[n] = p, what[n++] = 0;
			}
			if (p->inlen > 0 && p->in_pipe >= 0) {
				pfd[n] = (struct pollfd){p->in_pipe, POLLOUT, 0};
				who[n] = p, what[n++] = 0;
			}
			for (int s = 1; s < 3; s++)
				if (p->out_pipe[s] >= 0) {
					pfd[n] = (struct pollfd){p->out_pipe[s], POLLIN, 0};
					who[n] = p, what[n++] = s;
				}
		}
		if (poll(pfd, n, -1) < 0)
			continue;
		if (pfd[0].revents & (POLLIN | POLLHUP))
			read_ctl();
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			pid_t pid;
			int status;
			while (read(sfd, &si, sizeof(si)) > 0)
				;
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
				on_exit_status(pid, status);
		}
		for (nfds_t i = 2; i < n; i++) {
			struct proc *p = who[i];
			if (!pfd[i].revents || !p->used)
				continue;
			if (what[i] == 0)
				relay_in(p);
			else if (p->out_pipe[what[i]] == pfd[i].fd)
				relay_out(p, what[i], false);
		}
	}
}
