/* The QEMU command line and its start (see qemu.h). */
#include "config.h"
#include "platform/microvm/qemu.h"
#include "platform/microvm/detect.h"
#include "platform/microvm/qemu_privs.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FD_BASE 3 /* QEMU's fds: qmp, console, then one per port */

struct argv {
	char **v;
	size_t n, cap;
};

static void add(struct argv *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xrealloc(a->v, a->cap * sizeof(char *));
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

#define ADD(a, ...) add(a, xasprintf(__VA_ARGS__))

/* Where share s is bound in QEMU's mount namespace (a directory). */
static char *share_dir(const char *rundir, const struct qemu_share *s)
{
	return xasprintf("%s/share-%s", rundir, s->tag);
}

/* The network's arguments, last on the line (the child may replace them). */
static size_t add_net(const struct qemu_config *c, struct argv *a)
{
	size_t at = a->n;

	if (!c->net) {
		ADD(a, "-nic"), ADD(a, "none");
		return at;
	}
	/* slirp's defaults: the guest is 10.0.2.15/24, the gateway 10.0.2.2
	 * (the host's loopback, in QEMU's namespace), DNS 10.0.2.3. */
	ADD(a, "-netdev"), ADD(a, "user,id=net0,ipv6=off");
	ADD(a, "-device"), ADD(a, "virtio-net-%s,netdev=net0", c->q35 ? "pci" : "device");
	return at;
}

static size_t build_argv(const struct qemu_config *c, struct argv *a)
{
	const char *bus = c->q35 ? "pci" : "device";
	const char *mem = c->vfs_socket ? ",memory-backend=mem" : "";
	char *append;

	ADD(a, "%s", c->binary);
	if (c->q35)
		ADD(a, "-M"), ADD(a, "q35%s", mem);
	else
		ADD(a, "-M"), ADD(a, "microvm,x-option-roms=off%s", mem), ADD(a, "-global"),
			ADD(a, "virtio-mmio.force-legacy=false");
	if (c->vfs_socket)
		ADD(a, "-object"), ADD(a, "memory-backend-memfd,id=mem,size=%lluM,share=on",
				       (unsigned long long)c->mem_mb);
	ADD(a, "-accel"), ADD(a, "%s", c->kvm ? "kvm" : "tcg");
	ADD(a, "-cpu"), ADD(a, "%s", c->kvm ? "host" : "qemu64");
	ADD(a, "-smp"), ADD(a, "%u", c->cpus ? c->cpus : 1);
	ADD(a, "-m"), ADD(a, "%lluM", (unsigned long long)c->mem_mb);
	ADD(a, "-nodefaults"), ADD(a, "-no-user-config"), ADD(a, "-no-reboot");
	ADD(a, "-display"), ADD(a, "none");
	ADD(a, "-sandbox"), ADD(a, "on,obsolete=deny,elevateprivileges=deny,spawn=deny,"
				   "resourcecontrol=deny");
	ADD(a, "-kernel"), ADD(a, "%s", c->kernel);
	ADD(a, "-initrd"), ADD(a, "%s", c->initrd);
	append = xasprintf("console=ttyS0 reboot=t panic=-1 rdinit=/init %s",
			   c->debug ? "loglevel=7" : "quiet loglevel=1");
	if (!c->kvm && !c->q35 && c->tsc_khz) {
		/* microvm has no HPET or PM timer; under TCG the TSC cannot be
		 * calibrated against the PIT, so the guest is told it. */
		char *s = xasprintf("%s tsc_early_khz=%lu tsc=reliable", append, c->tsc_khz);
		free(append);
		append = s;
	}
	ADD(a, "-append"), add(a, append);
	ADD(a, "-chardev"), ADD(a, "socket,id=qmp,fd=%d", FD_BASE);
	ADD(a, "-mon"), ADD(a, "chardev=qmp,mode=control");
	ADD(a, "-chardev"), ADD(a, "socket,id=con,fd=%d", FD_BASE + 1);
	ADD(a, "-serial"), ADD(a, "chardev:con");
	ADD(a, "-device"), ADD(a, "virtio-serial-%s,id=vser,max_ports=31", bus);
	for (size_t i = 0; i < c->nports; i++) {
		ADD(a, "-chardev"), ADD(a, "socket,id=port%zu,fd=%d", i, FD_BASE + 2 + (int)i);
		ADD(a, "-device"), ADD(a, "virtserialport,bus=vser.0,chardev=port%zu,name=%s", i,
				       c->ports[i].name);
	}
	for (size_t i = 0; i < c->nshares; i++) {
		char *dir = share_dir(c->rundir, &c->shares[i]);
		ADD(a, "-fsdev");
		ADD(a, "local,id=fs%zu,path=%s,security_model=%s,multidevs=remap%s", i, dir,
		    geteuid() == 0 ? "passthrough" : "none",
		    c->shares[i].readonly ? ",readonly=on" : "");
		ADD(a, "-device"),
			ADD(a, "virtio-9p-%s,fsdev=fs%zu,mount_tag=%s", bus, i, c->shares[i].tag);
		free(dir);
	}
	if (c->vfs_socket) {
		ADD(a, "-chardev"), ADD(a, "socket,id=vfs,path=%s", c->vfs_socket);
		ADD(a, "-device"), ADD(a, "vhost-user-fs-%s,chardev=vfs,tag=rootfs", bus);
	}
	return add_net(c, a);
}

int qemu_bind_shares(const char *rundir, const struct qemu_share *shares, size_t n)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		const struct qemu_share *s = &shares[i];
		char *dir = share_dir(rundir, s), *target = NULL;
		struct stat st;
		unsigned long fl = MS_BIND | MS_REMOUNT | MS_NODEV | MS_NOSUID;
		int ret = 0;
		if (stat(s->path, &st) < 0) {
			ret = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			target = xstrdup(dir);
		} else {
			const char *base =
				strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
			target = xasprintf("%s/%s", dir, base);
		}
		if (ret == 0 && mount(s->path, target, NULL, MS_BIND, NULL) < 0)
			ret = -errno;
		if (ret == 0 &&
		    mount(NULL, target, NULL, fl | (s->readonly ? MS_RDONLY : 0), NULL) < 0)
			ret = -errno;
		free(target);
		free(dir);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int qemu_make_share_dirs(const char *rundir, const struct qemu_share *shares, size_t n,
			 struct rung_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct qemu_share *s = &shares[i];
		char *dir = share_dir(rundir, s);
		struct stat st;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			rung_error_make(err, e, "mkdir `%s`", dir);
			free(dir);
			return -1;
		}
		if (stat(s->path, &st) < 0) {
			free(dir);
			return rung_error_make(err, errno, "share `%s`", s->path);
		}
		if (!S_ISDIR(st.st_mode)) {
			const char *base =
				strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
			char *f = xasprintf("%s/%s", dir, base);
			int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
			free(f);
		}
		free(dir);
	}
	return 0;
}

int qemu_spawn(const struct qemu_config *c, pid_t *pidp, struct rung_error *err)
{
	struct argv a = {0};
	int nfds = 2 + (int)c->nports, report[2];
	size_t net_at;
	pid_t pid;
	int e = 0;

	if (qemu_make_share_dirs(c->rundir, c->shares, c->nshares, err) < 0)
		return -1;
	if (pipe2(report, O_CLOEXEC) < 0)
		return rung_error_make(err, errno, "pipe");
	net_at = build_argv(c, &a);
	pid = fork();
	if (pid < 0) {
		e = errno;
		goto out;
	}
	if (pid == 0) {
		int src[2 + 32], high = 100, null;
		pid_t parent = getppid();
		int ret;
		close(report[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		if (c->net && !c->net_later && !vm_netns_has_uplink()) {
			/* Nothing to reach (Docker's --network none is a namespace
			 * with loopback alone): no NIC at all. */
			a.v[net_at] = (char *)"-nic";
			a.v[net_at + 1] = (char *)"none";
			a.v[net_at + 2] = NULL;
		}
		ret = qemu_bind_shares(c->rundir, c->shares, c->nshares);
		if (ret == 0 && c->vfs_socket && chdir(c->rundir) < 0)
			ret = -errno;
		if (ret == 0)
			ret = qemu_drop_privileges();
		/* A change of credentials clears the parent-death signal. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		if (ret < 0) {
			e = -ret;
			if (write(report[1], &e, sizeof(e)) < 0)
				(void)0;
			_exit(126);
		}
		src[0] = c->qmp_fd;
		src[1] = c->console_fd;
		for (size_t i = 0; i < c->nports && i < 32; i++)
			src[2 + i] = c->ports[i].fd;
		/* Out of the way first, then into place: sources may sit on targets. */
		for (int i = 0; i < nfds; i++)
			src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, high);
		for (int i = 0; i < nfds; i++)
			dup2(src[i], FD_BASE + i);
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(FD_BASE + 1, 2); /* QEMU's own errors go to the console log */
		syscall(SYS_close_range, FD_BASE + nfds, ~0u, 0);
		{
			/* Each signal QEMU gets at its defaults, none blocked. */
			sigset_t none;
			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
			for (int s = 1; s < NSIG; s++)
				signal(s, SIG_DFL);
		}
		execv(c->binary, a.v);
		_exit(127);
	}
	close(report[1]);
	report[1] = -1;
	if (read(report[0], &e, sizeof(e)) == sizeof(e))
		waitpid(pid, NULL, 0);
	else
		e = 0;
out:
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i]);
	free(a.v);
	if (e)
		return rung_error_make(err, e, "start QEMU");
	*pidp = pid;
	return 0;
}
