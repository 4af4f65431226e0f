/* One VM and the relay of its processes' stdio (see vm.h). */
#include "config.h"
#include "platform/microvm/vm.h"
#include "platform/microvm/assets.h"
#include "platform/microvm/detect.h"
#include "platform/microvm/proto.h"
#include "platform/microvm/qemu.h"
#include "platform/microvm/qmp.h"
#include "platform/microvm/virtiofsd.h"
#include "runsc-compat/spec.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS   16
#define MAX_WATCHES 64
#define CONLOG	    4096

struct hproc {
	bool used;
	uint32_t id;
	int port[3]; /* our socket ends: [0] we write stdin, [1] [2] we read */
	int io[3];   /* the host side: [0] we read, [1] [2] we write; -1 none */
	char buf[65536];
	size_t len, off;
	uint64_t got[3];
	int64_t want[3]; /* bytes the agent says it sent; -1 until its EOF */
	bool exited, hotplug;
	bool starting; /* its SPAWN is not answered yet: it cannot end before */
	int code;
	vm_exit_fn fn;
	void *arg;
};

struct watch {
	int fd;
	short events;
	void (*cb)(struct vm *vm, int fd, short revents, void *arg);
	void *arg;
};

struct vm {
	pid_t qemu;
	int pidfd, ctl, console;
	struct qmp qmp;
	bool kvm, q35, debug, gone, hello, init_spawned, init_done;
	int init_code;
	char conlog[CONLOG]; /* the console's last bytes, for errors */
	size_t conlen;
	char ctlbuf[sizeof(struct vmp_header) + 4096];
	size_t ctlhave;
	/* The reply a synchronous request waits for. */
	bool replied;
	struct vmp_header reply;
	char replymsg[1024];
	struct hproc procs[MAX_PROCS];
	uint32_t next_id;
	struct watch watches[MAX_WATCHES];
	size_t nwatches;
	char **stale; /* chardevs of unplugged ports, to remove */
	size_t nstale;
	char *rundir;
	struct qemu_share *shares;
	size_t nshares;
	pid_t virtiofsd; /* serving shares[0], or 0 */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* --- the console ------------------------------------------------------------------ */

static void read_console(struct vm *vm)
{
	char buf[4096];
	ssize_t n = read(vm->console, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			close_fd(&vm->console);
		return;
	}
	if (vm->debug && write(2, buf, (size_t)n) < 0)
		(void)0;
	if ((size_t)n >= CONLOG) {
		memcpy(vm->conlog, buf + n - CONLOG, CONLOG);
		vm->conlen = CONLOG;
		return;
	}
	if (vm->conlen + (size_t)n > CONLOG) {
		size_t drop = vm->conlen + (size_t)n - CONLOG;
		memmove(vm->conlog, vm->conlog + drop, vm->conlen - drop);
		vm->conlen -= drop;
	}
	memcpy(vm->conlog + vm->conlen, buf, (size_t)n);
	vm->conlen += (size_t)n;
}

/* The console's last lines, printable, for an error message (static buffer). */
static const char *console_tail(struct vm *vm)
{
	static char out[CONLOG + 1];
	size_t j = 0;

	while (vm->console >= 0) {
		struct pollfd p = {vm->console, POLLIN, 0};
		if (poll(&p, 1, 0) <= 0)
			break;
		read_console(vm);
	}
	for (size_t i = 0; i < vm->conlen; i++) {
		char c = vm->conlog[i];
		if (c == '\r')
			continue;
		out[j++] = (c == '\n' || (c >= 32 && c < 127)) ? c : '?';
	}
	out[j] = '\0';
	/* The last 12 lines are enough. */
	{
		int lines = 0;
		for (size_t i = j; i > 0; i--)
			if (out[i - 1] == '\n' && ++lines > 12)
				return out + i;
	}
	return out;
}

/* --- the control port -------------------------------------------------------------- */

static int send_msg(struct vm *vm, uint32_t type, uint32_t id, int64_t a, int64_t b,
		    const void *data, size_t len)
{
	struct vmp_header h = {.type = type, .id = id, .a = a, .b = b, .len = (uint32_t)len};

	if (vm->ctl < 0)
		return -EPIPE;
	if (write_all(vm->ctl, &h, sizeof(h)) != sizeof(h) ||
	    (len && write_all(vm->ctl, data, len) != (ssize_t)len))
		return -errno;
	return 0;
}

static struct hproc *proc_find(struct vm *vm, uint32_t id)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (vm->procs[i].used && vm->procs[i].id == id)
			return &vm->procs[i];
	return NULL;
}

static int exit_code(int64_t status)
{
	int s = (int)status;

	return (s & 0x7f) ? 128 + (s & 0x7f) : (s >> 8) & 0xff;
}

/* The guest is hostile: a malformed message ends the VM. */
static void protocol_error(struct vm *vm, const char *what)
{
	log_warning("microvm: the guest broke the protocol (%s): stopping the VM", what);
	close_fd(&vm->ctl);
	if (vm->qemu > 0)
		kill(vm->qemu, SIGKILL);
}

static void handle(struct vm *vm, const struct vmp_header *h, const char *payload)
{
	struct hproc *p = proc_find(vm, h->id);

	switch (h->type) {
	case VMP_HELLO:
		if (h->a != VMP_VERSION)
			return protocol_error(vm, "agent version");
		vm->hello = true;
		return;
	case VMP_OK:
	case VMP_ERROR:
	case VMP_STARTED:
		vm->replied = true;
		vm->reply = *h;
		snprintf(vm->replymsg, sizeof(vm->replymsg), "%.*s", (int)h->len, payload);
		return;
	case VMP_EOF:
		if (!p || (h->a != 1 && h->a != 2) || h->b < 0)
			return protocol_error(vm, "EOF");
		p->want[h->a] = h->b;
		return;
	case VMP_EXIT:
		if (!p)
			return protocol_error(vm, "EXIT");
		p->exited = true;
		p->code = exit_code(h->a);
		return;
	default:
		return protocol_error(vm, "message type");
	}
}

static void read_ctl(struct vm *vm)
{
	ssize_t n = read(vm->ctl, vm->ctlbuf + vm->ctlhave, sizeof(vm->ctlbuf) - vm->ctlhave);

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			close_fd(&vm->ctl);
		return;
	}
	vm->ctlhave += (size_t)n;
	while (vm->ctl >= 0 && vm->ctlhave >= sizeof(struct vmp_header)) {
		struct vmp_header h;
		memcpy(&h, vm->ctlbuf, sizeof(h));
		if (h.len > sizeof(vm->ctlbuf) - sizeof(h))
			return protocol_error(vm, "message length");
		if (vm->ctlhave < sizeof(h) + h.len)
			return;
		handle(vm, &h, vm->ctlbuf + sizeof(h));
		vm->ctlhave -= sizeof(h) + h.len;
		memmove(vm->ctlbuf, vm->ctlbuf + sizeof(h) + h.len, vm->ctlhave);
	}
}

/* --- processes --------------------------------------------------------------------- */

/* Remove the chardevs of unplugged ports whose devices are gone by now (a
 * chardev is busy until its device is deleted, which the guest acknowledges
 * later): QEMU's ends of their sockets close with them. */
static void qmp_reap_chardevs(struct vm *vm)
{
	struct rung_error err = {0};

	for (size_t i = 0; i < vm->nstale && !vm->gone;) {
		char *cmd =
			xasprintf("{\"execute\":\"chardev-remove\",\"arguments\":{\"id\":\"%s\"}}",
				  vm->stale[i]);
		int ret = qmp_call(&vm->qmp, cmd, -1, 5000, &err);
		free(cmd);
		if (ret < 0) {
			log_debug("microvm: %s", err.msg);
			i++;
			continue;
		}
		free(vm->stale[i]);
		vm->stale[i] = vm->stale[--vm->nstale];
	}
	rung_error_release(&err);
}

static void qmp_unplug(struct vm *vm, uint32_t id)
{
	static const char *const s[] = {"in", "out", "err"};
	struct rung_error err = {0};

	for (int i = 0; i < 3 && !vm->gone; i++) {
		char *cmd = xasprintf(
			"{\"execute\":\"device_del\",\"arguments\":{\"id\":\"d%u%s\"}}", id, s[i]);
		if (qmp_call(&vm->qmp, cmd, -1, 5000, &err) < 0)
			log_debug("microvm: %s", err.msg);
		free(cmd);
		vm->stale = xrealloc(vm->stale, (vm->nstale + 1) * sizeof(char *));
		vm->stale[vm->nstale++] = xasprintf("c%u%s", id, s[i]);
	}
	rung_error_release(&err);
	qmp_reap_chardevs(vm);
}

/* End process p with code: close everything of it, tell its owner. */
static void proc_end(struct vm *vm, struct hproc *p, int code)
{
	vm_exit_fn fn = p->fn;
	void *arg = p->arg;
	uint32_t id = p->id;
	bool hotplug = p->hotplug;

	for (int i = 0; i < 3; i++) {
		close_fd(&p->port[i]);
		close_fd(&p->io[i]);
	}
	p->used = false;
	if (id == VMP_INIT_ID) {
		vm->init_done = true;
		vm->init_code = code;
	}
	if (hotplug)
		qmp_unplug(vm, id);
	if (fn)
		fn(arg, code);
}

static void proc_maybe_done(struct vm *vm, struct hproc *p)
{
	if (p->starting)
		return;
	for (int s = 1; s < 3; s++)
		if (p->port[s] >= 0 && (p->want[s] < 0 || p->got[s] < (uint64_t)p->want[s]))
			return;
	if (p->exited)
		proc_end(vm, p, p->code);
}

static void relay_out(struct vm *vm, struct hproc *p, int s)
{
	char buf[65536];
	ssize_t n = read(p->port[s], buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close_fd(&p->port[s]);
	} else {
		p->got[s] += (uint64_t)n;
		if (p->io[s] >= 0 && write_all(p->io[s], buf, (size_t)n) != n)
			close_fd(&p->io[s]); /* the reader went away: discard the rest */
	}
	if (p->want[s] >= 0 && p->got[s] >= (uint64_t)p->want[s])
		close_fd(&p->io[s]); /* the stream's end reaches our reader now */
}

static void relay_in(struct hproc *p, short revents)
{
	if (p->len == 0 && p->io[0] >= 0) {
		ssize_t n = read(p->io[0], p->buf, sizeof(p->buf));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* EOF: the guest reads it once QEMU has passed on all that
			 * came before. A close would be a hangup, which QEMU acts on
			 * at once, dropping what it has not read yet. */
			close_fd(&p->io[0]);
			shutdown(p->port[0], SHUT_WR);
			return;
		}
		p->len = (size_t)n;
		p->off = 0;
	}
	if (p->len > 0 && p->port[0] >= 0) {
		ssize_t w = send(p->port[0], p->buf + p->off, p->len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p->off += (size_t)w;
			p->len -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			p->len = 0;
			close_fd(&p->io[0]);
			shutdown(p->port[0], SHUT_WR);
		}
	}
}

/* --- the loop ------------------------------------------------------------------------ */

void vm_watch(struct vm *vm, int fd, short events,
	      void (*cb)(struct vm *vm, int fd, short revents, void *arg), void *arg)
{
	if (vm->nwatches < MAX_WATCHES)
		vm->watches[vm->nwatches++] = (struct watch){fd, events, cb, arg};
}

void vm_unwatch(struct vm *vm, int fd)
{
	for (size_t i = 0; i < vm->nwatches; i++)
		if (vm->watches[i].fd == fd) {
			vm->watches[i] = vm->watches[--vm->nwatches];
			return;
		}
}

static void qemu_gone(struct vm *vm)
{
	int status;

	if (vm->gone)
		return;
	vm->gone = true;
	while (waitpid(vm->qemu, &status, 0) < 0 && errno == EINTR)
		;
	vm->qemu = 0;
	close_fd(&vm->pidfd);
	/* What the guest sent before it went is still in the sockets. */
	for (int i = 0; i < MAX_PROCS; i++) {
		struct hproc *p = &vm->procs[i];
		if (!p->used)
			continue;
		for (int s = 1; s < 3; s++)
			while (p->port[s] >= 0) {
				fcntl(p->port[s], F_SETFL, O_NONBLOCK);
				relay_out(vm, p, s);
				if (p->port[s] >= 0 &&
				    recv(p->port[s], &(char){0}, 1, MSG_PEEK | MSG_DONTWAIT) < 0)
					close_fd(&p->port[s]);
			}
	}
	while (vm->ctl >= 0) {
		fcntl(vm->ctl, F_SETFL, O_NONBLOCK);
		read_ctl(vm);
		if (vm->ctl >= 0 && recv(vm->ctl, &(char){0}, 1, MSG_PEEK | MSG_DONTWAIT) < 0)
			close_fd(&vm->ctl);
	}
	for (int i = 0; i < MAX_PROCS; i++) {
		struct hproc *p = &vm->procs[i];
		if (!p->used)
			continue;
		if (!p->exited && p->id == VMP_INIT_ID)
			log_error("microvm: the VM stopped before its process exited:\n%s",
				  console_tail(vm));
		proc_end(vm, p, p->exited ? p->code : 255);
	}
	if (!vm->init_done) {
		vm->init_done = true;
		vm->init_code = 255;
	}
}

void vm_step(struct vm *vm, int timeout_ms)
{
	struct pollfd pfd[3 + MAX_PROCS * 4 + MAX_WATCHES];
	struct hproc *who[3 + MAX_PROCS * 4 + MAX_WATCHES];
	int what[3 + MAX_PROCS * 4 + MAX_WATCHES];
	struct watch ws[MAX_WATCHES];
	size_t nws = vm->nwatches;
	nfds_t n = 0;

	if (vm->gone)
		return;
	/* A process that ended while its start was being answered ends now. */
	for (int i = 0; i < MAX_PROCS; i++)
		if (vm->procs[i].used)
			proc_maybe_done(vm, &vm->procs[i]);
	if (vm->init_done)
		return;
	pfd[n++] = (struct pollfd){vm->pidfd, POLLIN, 0};
	pfd[n++] = (struct pollfd){vm->ctl, POLLIN, 0};
	pfd[n++] = (struct pollfd){vm->console, POLLIN, 0};
	for (int i = 0; i < MAX_PROCS; i++) {
		struct hproc *p = &vm->procs[i];
		if (!p->used)
			continue;
		if (p->len == 0 && p->io[0] >= 0 && p->port[0] >= 0) {
			pfd[n] = (struct pollfd){p->io[0], POLLIN, 0};
			who[n] = p, what[n++] = 0;
		}
		if (p->len > 0 && p->port[0] >= 0) {
			pfd[n] = (struct pollfd){p->port[0], POLLOUT, 0};
			who[n] = p, what[n++] = 0;
		}
		for (int s = 1; s < 3; s++)
			if (p->port[s] >= 0) {
				pfd[n] = (struct pollfd){p->port[s], POLLIN, 0};
				who[n] = p, what[n++] = s;
			}
	}
	memcpy(ws, vm->watches, nws * sizeof(ws[0]));
	for (size_t i = 0; i < nws; i++) {
		pfd[n] = (struct pollfd){ws[i].fd, ws[i].events, 0};
		who[n] = NULL, what[n++] = (int)i;
	}
	if (poll(pfd, n, timeout_ms) <= 0)
		return;
	if (pfd[2].revents)
		read_console(vm);
	if (pfd[1].revents)
		read_ctl(vm);
	for (nfds_t i = 3; i < n; i++) {
		struct hproc *p = who[i];
		if (!pfd[i].revents)
			continue;
		if (!p) {
			struct watch *w = &ws[what[i]];
			/* Still watched? (an earlier callback may have dropped it) */
			for (size_t j = 0; j < vm->nwatches; j++)
				if (vm->watches[j].fd == w->fd && vm->watches[j].cb == w->cb) {
					w->cb(vm, w->fd, pfd[i].revents, w->arg);
					break;
				}
			continue;
		}
		if (!p->used)
			continue;
		if (what[i] == 0 && (pfd[i].fd == p->io[0] || pfd[i].fd == p->port[0]))
			relay_in(p, pfd[i].revents);
		else if (what[i] > 0 && pfd[i].fd == p->port[what[i]])
			relay_out(vm, p, what[i]);
	}
	for (int i = 0; i < MAX_PROCS; i++)
		if (vm->procs[i].used)
			proc_maybe_done(vm, &vm->procs[i]);
	if (pfd[0].revents)
		qemu_gone(vm);
}

bool vm_finished(const struct vm *vm)
{
	return vm->init_done || vm->gone;
}

int vm_status(const struct vm *vm)
{
	return vm->init_done ? vm->init_code : 255;
}

bool vm_emulated(const struct vm *vm)
{
	return !vm->kvm;
}

/* Wait for the agent's reply to a request (or its HELLO). */
static int wait_reply(struct vm *vm, bool hello, int timeout_ms, const char *what,
		      struct rung_error *err)
{
	uint64_t deadline = monotonic_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (!(hello ? vm->hello : vm->replied)) {
		uint64_t now = monotonic_ns();
		if (vm->gone || vm->ctl < 0)
			return rung_error_make(err, 0, "%s: the VM stopped:\n%s", what,
					       console_tail(vm));
		if (now >= deadline)
			return rung_error_make(err, ETIMEDOUT, "%s: no answer from the VM:\n%s",
					       what, console_tail(vm));
		vm_step(vm, (int)((deadline - now) / 1000000ull) + 1);
	}
	if (hello)
		return 0;
	vm->replied = false;
	if (vm->reply.type == VMP_ERROR)
		return rung_error_make(err, 0, "%s", vm->replymsg);
	return 0;
}

/* --- boot ------------------------------------------------------------------------------- */

static bool is_bind(const struct oci_mount *m)
{
	if (m->type && strcmp(m->type, "bind") == 0)
		return true;
	for (char **o = m->options; o && *o; o++)
		if (strcmp(*o, "bind") == 0 || strcmp(*o, "rbind") == 0)
			return true;
	return false;
}

static void rec(struct strbuf *b, const char *key, const char *val)
{
	strbuf_printf(b, "%s=%s", key, val);
	strbuf_append(b, "", 1);
}

static char *config_payload(struct vm *vm, const struct vm_options *o, size_t *len)
{
	struct strbuf b = {0};

	rec(&b, "root", "rootfs");
	rec(&b, "rootfs", o->virtiofs ? "virtiofs" : "9p");
	if (o->readonly)
		rec(&b, "readonly", "1");
	if (o->overlay)
		rec(&b, "overlay", "1");
	if (o->pidns)
		rec(&b, "pidns", "1");
	if (o->defaults)
		rec(&b, "defaults", "1");
	if (o->net && o->net_later)
		rec(&b, "netlater", "1");
	if (o->hostname)
		rec(&b, "hostname", o->hostname);
	for (size_t i = 0, share = 1; i < o->nmounts; i++) {
		const struct oci_mount *m = &o->mounts[i];
		rec(&b, "mount", m->destination);
		if (m->type)
			rec(&b, "mtype", m->type);
		for (char **opt = m->options; opt && *opt; opt++)
			rec(&b, "mopt", *opt);
		if (is_bind(m)) {
			const char *base =
				strrchr(m->source, '/') ? strrchr(m->source, '/') + 1 : m->source;
			struct stat st;
			cleanup_free char *tag = xasprintf("m%zu", share++);
			rec(&b, "mtag", tag);
			rec(&b, "msource",
			    stat(m->source, &st) == 0 && !S_ISDIR(st.st_mode) ? base : "");
		} else if (m->source) {
			rec(&b, "msource", m->source);
		}
	}
	(void)vm;
	*len = b.len;
	return b.buf ? b.buf : xstrdup("");
}

static int make_pair(int *ours, int *theirs, struct rung_error *err)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return rung_error_make(err, errno, "socketpair");
	*ours = sv[0];
	*theirs = sv[1];
	return 0;
}

int vm_boot(const struct vm_options *o, struct vm **out, struct rung_error *err)
{
	struct vm *vm = xzalloc(sizeof(*vm));
	struct vm_assets assets = {0};
	struct qemu_config qc = {0};
	struct qemu_port ports[4];
	struct rung_error kerr = {0};
	cleanup_free char *qemu = vm_qemu_binary();
	cleanup_free char *payload = NULL;
	int theirs[6] = {-1, -1, -1, -1, -1, -1}, ret = -1, boot_ms;
	size_t len;
	uint64_t t0 = monotonic_ns();

	vm->pidfd = vm->ctl = vm->console = -1;
	vm->q35 = o->q35;
	vm->debug = o->debug;
	vm->next_id = VMP_INIT_ID + 1;
	for (int i = 0; i < MAX_PROCS; i++)
		vm->procs[i].port[0] = vm->procs[i].port[1] = vm->procs[i].port[2] = -1;
	if (!qemu) {
		rung_error_make(
			err, 0,
			"the VM tiers need QEMU: install qemu-system-x86 (or set RUNG_QEMU)");
		goto fail;
	}
	vm->kvm = vm_kvm_usable(&kerr) == 0;
	if (!vm->kvm) {
		char *why = rung_error_string(&kerr);
		if (!o->allow_emulation) {
			rung_error_make(err, 0,
					"no usable KVM (%s): the VM tiers need hardware "
					"virtualization, or --allow-emulation to run under QEMU's "
					"TCG emulation (slow, and not a hardware boundary)",
					why);
			free(why);
			goto fail;
		}
		log_warning("microvm: no usable KVM (%s): running under TCG emulation (slow, "
			    "and not a hardware isolation boundary)",
			    why);
		free(why);
	}
	rung_error_release(&kerr);
	if (vm_assets_get(o->kernel, true, &assets, err) < 0)
		goto fail;
	vm->rundir = xstrdup(o->rundir);
	if (mkdir(vm->rundir, 0700) < 0 && errno != EEXIST) {
		rung_error_make(err, errno, "create `%s`", vm->rundir);
		goto fail;
	}
	/* The shares: the root, then each bind mount's source. */
	vm->shares = xzalloc((o->nmounts + 1) * sizeof(*vm->shares));
	vm->shares[0] = (struct qemu_share){xstrdup("rootfs"), xstrdup(o->rootfs),
					    o->readonly || o->overlay};
	vm->nshares = 1;
	for (size_t i = 0; i < o->nmounts; i++)
		if (is_bind(&o->mounts[i])) {
			bool ro = false;
			for (char **opt = o->mounts[i].options; opt && *opt; opt++)
				ro |= strcmp(*opt, "ro") == 0;
			vm->shares[vm->nshares] = (struct qemu_share){
				xasprintf("m%zu", vm->nshares), xstrdup(o->mounts[i].source), ro};
			vm->nshares++;
		}

	if (make_pair(&vm->qmp.fd, &theirs[0], err) < 0 ||
	    make_pair(&vm->console, &theirs[1], err) < 0 ||
	    make_pair(&vm->ctl, &theirs[2], err) < 0)
		goto fail;
	vm->procs[0].used = false;
	for (int i = 0; i < 3; i++)
		if (make_pair(&vm->procs[0].port[i], &theirs[3 + i], err) < 0)
			goto fail;
	ports[0] = (struct qemu_port){(char *)VMP_CTL_PORT, theirs[2]};
	ports[1] = (struct qemu_port){(char *)"rung.1.in", theirs[3]};
	ports[2] = (struct qemu_port){(char *)"rung.1.out", theirs[4]};
	ports[3] = (struct qemu_port){(char *)"rung.1.err", theirs[5]};
	qc.binary = qemu;
	qc.kernel = assets.kernel;
	qc.initrd = assets.initrd;
	qc.q35 = o->q35;
	qc.kvm = vm->kvm;
	qc.debug = o->debug;
	qc.tsc_khz = vm_host_tsc_khz();
	qc.mem_mb = o->mem_bytes ? (o->mem_bytes + (1 << 20) - 1) >> 20 : 512;
	qc.cpus = o->cpus;
	qc.rundir = vm->rundir;
	qc.shares = vm->shares;
	qc.nshares = vm->nshares;
	if (o->virtiofs) {
		/* The root is virtiofsd's; the bind mounts' shares stay 9p. */
		if (qemu_make_share_dirs(vm->rundir, vm->shares, 1, err) < 0 ||
		    virtiofsd_spawn(vm->rundir, &vm->shares[0], o->debug, &vm->virtiofsd, err) < 0)
			goto fail;
		qc.shares++;
		qc.nshares--;
		qc.vfs_socket = VIRTIOFSD_SOCKET;
	}
	qc.ports = ports;
	qc.nports = 4;
	qc.net = o->net;
	qc.net_later = o->net && o->net_later;
	qc.qmp_fd = theirs[0];
	qc.console_fd = theirs[1];
	if (qemu_spawn(&qc, &vm->qemu, err) < 0)
		goto fail;
	for (int i = 0; i < 6; i++)
		close_fd(&theirs[i]);
	vm->pidfd = (int)syscall(SYS_pidfd_open, vm->qemu, 0);
	if (vm->pidfd < 0) {
		rung_error_make(err, errno, "pidfd_open");
		goto fail;
	}
	fcntl(vm->console, F_SETFL, O_NONBLOCK);
	boot_ms = vm->kvm ? 20000 : 180000;
	if (qmp_open(&vm->qmp, vm->qmp.fd, boot_ms, err) < 0) {
		char *why = xstrdup(err->msg ? err->msg : "");
		rung_error_make(err, 0, "QEMU did not start (%s):\n%s", why, console_tail(vm));
		free(why);
		goto fail;
	}
	if (wait_reply(vm, true, boot_ms, "boot", err) < 0)
		goto fail;
	log_debug("microvm: agent up after %.2f s (%s)", (double)(monotonic_ns() - t0) / 1e9,
		  vm->kvm ? "KVM" : "TCG");
	payload = config_payload(vm, o, &len);
	if (send_msg(vm, VMP_CONFIG, 0, 0, 0, payload, len) < 0 ||
	    wait_reply(vm, false, 60000, "configure the guest", err) < 0)
		goto fail;
	vm_assets_release(&assets);
	*out = vm;
	return 0;
fail:
	for (int i = 0; i < 6; i++)
		close_fd(&theirs[i]);
	vm_assets_release(&assets);
	rung_error_release(&kerr);
	vm_destroy(vm);
	return ret;
}

/* --- processes ---------------------------------------------------------------------------- */

static char *process_payload(const struct oci_process *p, bool caps, size_t *len)
{
	struct strbuf b = {0};
	char num[64];

	for (char **a = p->args; a && *a; a++)
		rec(&b, "arg", *a);
	for (char **e = p->env; e && *e; e++)
		rec(&b, "env", *e);
	rec(&b, "cwd", p->cwd && *p->cwd ? p->cwd : "/");
	snprintf(num, sizeof(num), "%u", p->uid);
	rec(&b, "uid", num);
	snprintf(num, sizeof(num), "%u", p->gid);
	rec(&b, "gid", num);
	for (size_t i = 0; i < p->n_additional_gids; i++) {
		snprintf(num, sizeof(num), "%u", p->additional_gids[i]);
		rec(&b, "group", num);
	}
	for (size_t i = 0; i < p->n_rlimits; i++) {
		snprintf(num, sizeof(num), "%d %llu %llu", p->rlimits[i].resource,
			 (unsigned long long)p->rlimits[i].soft,
			 (unsigned long long)p->rlimits[i].hard);
		rec(&b, "rlimit", num);
	}
	if (caps) {
		snprintf(num, sizeof(num), "%llx",
			 (unsigned long long)(p->has_caps ? p->cap_bounding : 0));
		rec(&b, "capbnd", num);
	}
	if (p->no_new_privileges)
		rec(&b, "nonewprivs", "1");
	if (p->terminal) {
		rec(&b, "tty", "1");
		snprintf(num, sizeof(num), "%u %u", p->console_width, p->console_height);
		rec(&b, "winsize", num);
	}
	*len = b.len;
	return b.buf;
}

/* Three new ports for process id, added to the running VM over QMP. */
static int hotplug_ports(struct vm *vm, uint32_t id, int ours[3], struct rung_error *err)
{
	static const char *const s[] = {"in", "out", "err"};

	qmp_reap_chardevs(vm);
	for (int i = 0; i < 3; i++) {
		cleanup_close int theirs = -1;
		cleanup_free char *getfd = NULL;
		cleanup_free char *chardev = NULL;
		cleanup_free char *device = NULL;
		if (make_pair(&ours[i], &theirs, err) < 0)
			return -1;
		getfd = xasprintf("{\"execute\":\"getfd\",\"arguments\":{\"fdname\":\"f%u%s\"}}",
				  id, s[i]);
		chardev = xasprintf("{\"execute\":\"chardev-add\",\"arguments\":{\"id\":\"c%u%s\","
				    "\"backend\":{\"type\":\"socket\",\"data\":{\"addr\":{\"type\":"
				    "\"fd\",\"data\":{\"str\":\"f%u%s\"}},\"server\":false}}}}",
				    id, s[i], id, s[i]);
		device = xasprintf("{\"execute\":\"device_add\",\"arguments\":{\"driver\":"
				   "\"virtserialport\",\"bus\":\"vser.0\",\"chardev\":\"c%u%s\","
				   "\"name\":\"rung.%u.%s\",\"id\":\"d%u%s\"}}",
				   id, s[i], id, s[i], id, s[i]);
		if (qmp_call(&vm->qmp, getfd, theirs, 10000, err) < 0 ||
		    qmp_call(&vm->qmp, chardev, -1, 10000, err) < 0 ||
		    qmp_call(&vm->qmp, device, -1, 10000, err) < 0)
			return rung_error_wrap(err, "add the stdio ports of an exec");
	}
	return 0;
}

int vm_spawn(struct vm *vm, const struct oci_process *p, bool caps, int io[3], bool park,
	     vm_exit_fn fn, void *arg, uint32_t *idp, int *pidp, struct rung_error *err)
{
	struct hproc *hp = NULL;
	cleanup_free char *payload = NULL;
	uint32_t id;
	size_t len;
	int ret;

	if (vm->gone || vm->init_done) {
		ret = rung_error_make(err, 0, "container not running");
		goto fail;
	}
	id = vm->init_spawned ? vm->next_id++ : VMP_INIT_ID;
	if (id == VMP_INIT_ID) {
		hp = &vm->procs[0]; /* its ports were made at boot */
		vm->init_spawned = true;
	} else {
		for (int i = 1; i < MAX_PROCS && !hp; i++)
			if (!vm->procs[i].used)
				hp = &vm->procs[i];
		if (!hp) {
			ret = rung_error_make(err, EAGAIN, "too many processes in the VM");
			goto fail;
		}
		hp->port[0] = hp->port[1] = hp->port[2] = -1;
		if (hotplug_ports(vm, id, hp->port, err) < 0) {
			for (int i = 0; i < 3; i++)
				close_fd(&hp->port[i]);
			ret = -1;
			goto fail;
		}
		hp->hotplug = true;
	}
	hp->used = true;
	hp->id = id;
	hp->len = hp->off = 0;
	hp->exited = false;
	for (int i = 0; i < 3; i++) {
		hp->io[i] = io[i];
		io[i] = -1;
		hp->got[i] = 0;
		hp->want[i] = -1;
		fcntl(hp->port[i], F_SETFL, O_NONBLOCK);
	}
	hp->fn = fn;
	hp->arg = arg;
	hp->starting = true;
	if (hp->io[0] < 0)
		shutdown(hp->port[0], SHUT_WR); /* no stdin: EOF at once */
	payload = process_payload(p, caps, &len);
	if (send_msg(vm, VMP_SPAWN, id, park ? 1 : 0, 0, payload, len) < 0 ||
	    wait_reply(vm, false, 60000, "start the process", err) < 0) {
		hp->fn = NULL; /* it never started: the caller hears of it from err */
		hp->starting = false;
		if (hp->used)
			proc_end(vm, hp, 255);
		return -1;
	}
	/* It may be over already: the next vm_step ends it, once our caller
	 * has its pid. */
	hp->starting = false;
	*idp = id;
	*pidp = (int)vm->reply.a;
	return 0;
fail:
	for (int i = 0; i < 3; i++)
		close_fd(&io[i]);
	return ret;
}

int vm_release_init(struct vm *vm, struct rung_error *err)
{
	if (send_msg(vm, VMP_SIGNAL, VMP_INIT_ID, 0, 0, NULL, 0) < 0)
		return rung_error_make(err, 0, "container not running");
	return 0;
}

void vm_signal(struct vm *vm, uint32_t id, int sig, bool all)
{
	if (sig > 0)
		send_msg(vm, VMP_SIGNAL, id, sig, all, NULL, 0);
}

void vm_net_start(struct vm *vm, bool up)
{
	send_msg(vm, VMP_NET, 0, up ? 1 : 0, 0, NULL, 0);
}

void vm_resize(struct vm *vm, uint32_t id, unsigned cols, unsigned rows)
{
	if (cols && rows && proc_find(vm, id))
		send_msg(vm, VMP_WINSIZE, id, cols, rows, NULL, 0);
}

/* --- the end ----------------------------------------------------------------------------- */

void vm_destroy(struct vm *vm)
{
	struct rung_error err = {0};

	if (!vm)
		return;
	if (vm->qemu > 0 && !vm->gone) {
		struct pollfd p = {vm->pidfd, POLLIN, 0};
		if (vm->qmp.fd >= 0)
			qmp_call(&vm->qmp, "{\"execute\":\"quit\"}", -1, 2000, &err);
		rung_error_release(&err);
		if (vm->pidfd < 0 || poll(&p, 1, 3000) <= 0)
			kill(vm->qemu, SIGKILL);
		while (waitpid(vm->qemu, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < MAX_PROCS; i++)
		if (vm->procs[i].used) {
			vm->procs[i].hotplug = false;
			vm->gone = true;
			proc_end(vm, &vm->procs[i], 137);
		} else {
			for (int s = 0; s < 3; s++)
				close_fd(&vm->procs[i].port[s]);
		}
	close_fd(&vm->pidfd);
	close_fd(&vm->ctl);
	close_fd(&vm->console);
	if (vm->qmp.fd > 0)
		close(vm->qmp.fd);
	virtiofsd_stop(vm->virtiofsd);
	if (vm->rundir) {
		char *sock = xasprintf("%s/%s", vm->rundir, VIRTIOFSD_SOCKET);
		unlink(sock);
		free(sock);
	}
	for (size_t i = 0; i < vm->nshares; i++) {
		char *dir = xasprintf("%s/share-%s", vm->rundir, vm->shares[i].tag);
		const char *base = strrchr(vm->shares[i].path, '/');
		char *file = xasprintf("%s/%s", dir, base ? base + 1 : vm->shares[i].path);
		unlink(file);
		rmdir(dir);
		free(file);
		free(dir);
		free(vm->shares[i].tag);
		free(vm->shares[i].path);
	}
	free(vm->shares);
	for (size_t i = 0; i < vm->nstale; i++)
		free(vm->stale[i]);
	free(vm->stale);
	if (vm->rundir)
		rmdir(vm->rundir);
	free(vm->rundir);
	free(vm);
}
