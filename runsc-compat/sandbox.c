/* Building, confining and ending one sandbox. */
#include "config.h"
#include "runsc-compat/sandbox.h"
#include "runsc-compat/mounts.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/compat.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/confine.h"
#include "sentry/kernel/outside.h"
#include "sentry/fs/hostinfo.h"
#include "sentry/fs/hosttty.h"
#include "sentry/mm/memfile.h"
#include "gofer/gofer.h"
#include "gofer/client.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Channels between the sentry and the gofer: requests from this many
 * sentry threads can be in flight at once. */
#define GOFER_CHANNELS 4

/*
 * Host signals meant for the program. On a terminal, the keyboard's
 * (SIGINT, SIGQUIT, SIGTSTP) go to the foreground process group of the
 * guest's session, as the terminal would send them to a native job, and
 * SIGWINCH follows the terminal's size; SIGCONT continues a guest init
 * that stopped rung with it (sentry/fs/hosttty.h). Otherwise, and always
 * for SIGTERM and SIGHUP, the signal ends the sandbox the way it would end
 * the program; SIGTSTP stops rung.
 */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH, SIGCONT};

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
		sig = sigwaitinfo(&set, NULL);
		switch (sig) {
		case SIGINT:
		case SIGQUIT:
		case SIGTSTP:
			if (hosttty_forward_signal(sig)) {
				log_debug("host signal %d: to the guest's foreground job", sig);
				break;
			}
			if (sig == SIGTSTP) {
				host_stop_self(SIGTSTP);
				break;
			}
			log_debug("host signal %d: ending the sandbox", sig);
			kernel_kill(k, sig);
			break;
		case SIGWINCH:
			hosttty_resized();
			break;
		case SIGCONT:
			hosttty_continued(k);
			break;
		case -1:
			break;
		default:
			log_debug("host signal %d: ending the sandbox", sig);
			kernel_kill(k, sig);
			break;
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

/* linux.sysctl: each one the guest kernel models, or an error naming it. */
static int set_sysctls(struct kernel *k, const struct sandbox_config *cfg, struct rung_error *err)
{
	for (size_t i = 0; i < cfg->n_sysctl; i++) {
		const char *key = cfg->sysctl_keys[i];
		int ret = kernel_sysctl_set(k, key, cfg->sysctl_values[i]);

		if (ret == -ENOENT) {
			char known[512];
			size_t off = 0;

			known[0] = '\0';
			for (size_t j = 0; kernel_sysctl_name(j) && off < sizeof(known); j++)
				off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
							j ? ", " : "", kernel_sysctl_name(j));
			return rung_error_make(err, EINVAL,
					       "config: `linux.sysctl`: `%s` is not a sysctl the "
					       "sandbox's kernel models (it has: %s)",
					       key, known);
		}
		if (ret < 0)
			return rung_error_make(err, EINVAL,
					       "config: `linux.sysctl`: bad value `%s` for `%s`",
					       cfg->sysctl_values[i], key);
	}
	return 0;
}

/* linux.readonlyPaths, then linux.maskedPaths, as runc applies them (after
 * the mounts, so that the masks sit on the read-only binds; paths that do
 * not exist are skipped). */
static int protect_paths(struct kernel *k, const struct sandbox_config *cfg, struct rung_error *err)
{
	for (char **p = cfg->readonly_paths; p && *p; p++)
		if (kernel_remount_readonly(k, *p, err) < 0)
			return rung_error_wrap(err, "config: `linux.readonlyPaths`");
	for (char **p = cfg->masked_paths; p && *p; p++)
		if (kernel_mask_path(k, *p, err) < 0)
			return rung_error_wrap(err, "config: `linux.maskedPaths`");
	return 0;
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
	struct mount_plan plan;
	int fds[GOFER_CHANNELS];
	bool job_control;
	int ret;

	/* Before the job state is first asked for. */
	outside_init(cfg->supervisor > 2 ? cfg->supervisor : -1);
	hostjob_init();
	job_control = cfg->tty >= 0 && hosttty_job_control(cfg->tty);

	sb->gofer = -1;
	sb->compat_fd = cfg->compat_fd > 2 ? cfg->compat_fd : -1;
	/* Under a job-control shell, the init is part of rung's job. */
	if (job_control)
		kcfg.init_job_stop = hosttty_init_job;
	/* Every mount is checked (and its source found) before anything starts. */
	ret = mounts_plan(cfg->mounts, cfg->nmounts, &plan, err);
	if (ret < 0) {
		free(sb);
		return ret;
	}
	if (plan.nbinds && !cfg->rootfs) {
		ret = rung_error_make(err, EINVAL,
				      "bind mounts need a root filesystem (the gofer)");
		goto fail;
	}
	gcfg.binds = plan.binds;
	gcfg.nbinds = plan.nbinds;
	if (!kcfg.memory_limit)
		kcfg.memory_limit = host_ram_bytes();
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
	/* The root holds a reference of its own on the client; ours serves the binds. */
	ret = cfg->rootfs ? kernel_boot_gofer_root(sb->k, gofer_client_get(client), cfg->donate,
						   cfg->overlay, cfg->root_readonly, err)
			  : kernel_boot_empty_root(sb->k, err);
	if (ret == 0)
		ret = mounts_apply(sb->k, &plan, client, cfg->donate, err);
	if (ret == 0)
		ret = protect_paths(sb->k, cfg, err);
	if (ret == 0)
		ret = set_sysctls(sb->k, cfg, err);
	/* Before confinement: the stack opens what it needs on the host. */
	if (ret == 0) {
		struct net_options no = {.mode = cfg->network,
					 .egress = cfg->egress,
					 .keeper_cgroups = cfg->keeper_cgroups};
		ret = net_setup(sb->k, &no, err);
	}
	if (ret < 0)
		goto fail;
	gofer_client_free(client);
	client = NULL;
	mounts_plan_free(&plan);
	if (cfg->tty >= 0 && hosttty_setup(sb->k, cfg->tty, job_control) < 0)
		log_debug("the caller's terminal is not one the guest can have");
	if (cfg->confine) {
		struct confine_opts co = {.empty_root = true,
					  .seccomp = true,
					  .memfd = sb->k->mf->fd,
					  .host_network = cfg->network == NET_MODE_HOST};
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
	mounts_plan_free(&plan);
	sandbox_destroy(sb);
	return -1;
}

uint64_t sandbox_guest_memory(uint64_t cgroup_limit)
{
	uint64_t own = MIN(MAX(cgroup_limit / 8, 16ull << 20), cgroup_limit / 4);

	return cgroup_limit - own;
}

int sandbox_join_netns(const char *path, const char *what, struct rung_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return rung_error_make(err, e, "%s: join the network namespace `%s`", what, path);
	}
	close(fd);
	return 0;
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
