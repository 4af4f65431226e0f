/* Building, confining and ending one sandbox. */
#include "config.h"
#include "runsc-compat/sandbox.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/compat.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/confine.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/tmpfs.h"
#include "sentry/mm/memfile.h"
#include "gofer/gofer.h"
#include "gofer/client.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

/* Channels between the sentry and the gofer: requests from this many
 * sentry threads can be in flight at once. */
#define GOFER_CHANNELS 4

/* Host signals meant for the program end the sandbox the way they would end it. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void sandbox_block_signals(void)
{
	sigset_t set;

	/* A writer to a closed pipe gets EPIPE (the guest gets SIGPIPE from
	 * the sentry). */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	/* Every stub stop sends the sentry SIGCHLD; nobody wants it (tracers use
	 * waitpid), and a thread that did not block it would be woken for nothing
	 * on every guest system call. */
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *signal_thread(void *arg)
{
	struct kernel *k = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	for (;;) {
		if (sigwait(&set, &sig) == 0) {
			log_debug("host signal %d: ending the sandbox", sig);
			kernel_kill(k, sig);
		}
	}
	return NULL;
}

int sandbox_forward_signals(struct sandbox *sb, struct rung_error *err)
{
	pthread_t thr;
	int ret = pthread_create(&thr, NULL, signal_thread, sb->k);

	if (ret != 0)
		return rung_error_make(err, ret, "start the signal thread");
	pthread_detach(thr);
	return 0;
}

/* Nothing needs the gofer once the sandbox is over (it would exit by itself
 * when its channels close). */
static void stop_gofer(pid_t gofer)
{
	if (gofer > 0) {
		kill(gofer, SIGKILL);
		waitpid(gofer, NULL, 0);
	}
}

/* Does the list of mount options have opt? */
static bool has_option(char **opts, const char *opt)
{
	for (char **o = opts; o && *o; o++)
		if (strcmp(*o, opt) == 0)
			return true;
	return false;
}

/* The spec's extra mounts the sentry provides itself. proc, sysfs and /dev
 * are the kernel's own already; bind mounts come with the gofer's bind
 * support (refused until then). */
static int mount_spec(struct kernel *k, const struct oci_mount *m, struct rung_error *err)
{
	const char *type = m->type ? m->type : "bind";
	unsigned flags = 0;

	if (has_option(m->options, "ro"))
		flags |= MNT_RDONLY;
	if (has_option(m->options, "nosuid"))
		flags |= MNT_NOSUID;
	if (has_option(m->options, "nodev"))
		flags |= MNT_NODEV;
	if (has_option(m->options, "noexec"))
		flags |= MNT_NOEXEC;
	if (strcmp(type, "tmpfs") == 0) {
		uint32_t mode = 01777;
		for (char **o = m->options; o && *o; o++)
			if (strncmp(*o, "mode=", 5) == 0)
				mode = (uint32_t)strtoul(*o + 5, NULL, 8) & 07777;
		/* The sandbox's /dev is its own devfs: a tmpfs there is not wanted. */
		if (strcmp(m->destination, "/dev") == 0)
			return 0;
		return kernel_mount(k, m->destination, tmpfs_new(k->mf, mode, 0, 0), flags, "tmpfs",
				    err);
	}
	if (strcmp(type, "proc") == 0 || strcmp(type, "sysfs") == 0 ||
	    strcmp(type, "devpts") == 0 || strcmp(type, "mqueue") == 0 ||
	    strcmp(type, "cgroup") == 0 || strcmp(type, "cgroup2") == 0)
		return 0; /* the sandbox's own (or, for cgroup and mqueue, none yet) */
	if (strcmp(type, "bind") == 0 || has_option(m->options, "bind") ||
	    has_option(m->options, "rbind"))
		return rung_error_make(err, EINVAL,
				       "config: `mounts`: bind mount of `%s` on `%s` is not "
				       "supported yet",
				       m->source ? m->source : "", m->destination);
	return rung_error_make(err, EINVAL,
			       "config: `mounts`: type `%s` (on `%s`) is not supported", type,
			       m->destination);
}

int sandbox_setup(const struct sandbox_config *cfg, struct sandbox **out, struct rung_error *err)
{
	struct kernel_config kcfg = {
		.platform = cfg->platform,
		.strace = cfg->strace,
		.memory_limit = cfg->memory_limit,
		.task_limit = cfg->task_limit,
		.host_init_fd = cfg->host_init_fd,
		.init_unkillable = cfg->init_unkillable,
	};
	struct gofer_config gcfg = {.rootfs = cfg->rootfs, .read_only = cfg->overlay};
	struct gofer_client *client = NULL;
	struct sandbox *sb = xzalloc(sizeof(*sb));
	int fds[GOFER_CHANNELS];
	struct sysinfo si;
	int ret;

	sb->gofer = -1;
	sb->compat_fd = cfg->compat_fd > 2 ? cfg->compat_fd : -1;
	if (!kcfg.memory_limit)
		kcfg.memory_limit =
			sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 1ull << 32;
	if (cfg->rootfs) {
		ret = gofer_spawn(&gcfg, GOFER_CHANNELS, &sb->gofer, fds, err);
		if (ret < 0)
			goto fail;
		ret = gofer_client_new(fds, GOFER_CHANNELS, &client);
		if (ret < 0) {
			rung_error_make(err, -ret, "gofer client");
			goto fail;
		}
	}
	ret = kernel_create(&kcfg, &sb->k, err);
	if (ret < 0)
		goto fail;
	kernel_set_hostname(sb->k, cfg->hostname ? cfg->hostname : "rung");
	ret = cfg->rootfs ? kernel_boot_gofer_root(sb->k, client, cfg->donate, cfg->overlay, err)
			  : kernel_boot_empty_root(sb->k, err);
	client = NULL; /* the kernel owns it now */
	for (size_t i = 0; ret == 0 && i < cfg->nmounts; i++)
		ret = mount_spec(sb->k, &cfg->mounts[i], err);
	if (ret < 0)
		goto fail;
	if (cfg->tty >= 0)
		chrdev_set_tty(cfg->tty);
	if (cfg->confine) {
		struct confine_opts co = {
			.empty_root = true, .seccomp = true, .memfd = sb->k->mf->fd};
		ret = sentry_confine(&co, err);
		if (ret < 0) {
			rung_error_wrap(err, "confine the sandbox (rung needs root)");
			goto fail;
		}
	}
	*out = sb;
	return 0;
fail:
	if (client)
		gofer_client_free(client);
	sandbox_destroy(sb);
	return -1;
}

void sandbox_destroy(struct sandbox *sb)
{
	if (!sb)
		return;
	kernel_destroy(sb->k);
	stop_gofer(sb->gofer);
	if (sb->compat_fd >= 0)
		close(sb->compat_fd);
	free(sb);
}

int sandbox_wait(struct sandbox *sb)
{
	int status = kernel_wait(sb->k);

	compat_finish(sb->compat_fd, sb->k->unsupported_seen,
		      64 * ARRAY_SIZE(sb->k->unsupported_seen));
	sb->compat_fd = -1;
	sandbox_destroy(sb);
	return status;
}
