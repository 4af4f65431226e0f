/*
 * Confining the sandbox process before guest code runs (bubblewrap style:
 * short, linear, fail-fast). Afterwards it has:
 *  - an empty, read-only root in a mount namespace of its own: the host's
 *    filesystem is gone (the gofer serves the guest's files);
 *  - no capabilities at all, bounding set included (with --network=host,
 *    CAP_NET_BIND_SERVICE alone, for the host sockets it binds);
 *  - its seccomp allowlist (sentry/kernel/filter.c).
 * Must run while the process has a single thread (unshare needs it).
 */
#include "config.h"
#include "sentry/kernel/confine.h"
#include "sentry/kernel/disasm.h"
#include "sentry/kernel/filter.h"
#include "lib/error.h"
#include "lib/log.h"

#include <cap-ng.h>
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

/* An empty tmpfs becomes "/" and the old root is detached. */
static int empty_root(struct rung_error *err)
{
	if (unshare(CLONE_NEWNS) < 0)
		return rung_error_make(err, errno, "unshare the mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return rung_error_make(err, errno, "make the mounts private");
	/* /proc exists on every host: mount the empty root over it, then pivot. */
	if (mount("rung-empty", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,nr_inodes=1,mode=0555") < 0)
		return rung_error_make(err, errno, "mount an empty tmpfs");
	if (chdir("/proc") < 0)
		return rung_error_make(err, errno, "chdir to the empty root");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return rung_error_make(err, errno, "pivot_root into the empty root");
	/* The old root is stacked on the new one: detach it. */
	if (umount2(".", MNT_DETACH) < 0)
		return rung_error_make(err, errno, "detach the host's root");
	if (chdir("/") < 0)
		return rung_error_make(err, errno, "chdir /");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		return rung_error_make(err, errno, "make the empty root read-only");
	return 0;
}

/* Every capability goes, but with --network=host CAP_NET_BIND_SERVICE:
 * the host sockets the sentry binds for the guest may take ports below
 * 1024 (the guest's own right to is checked by the sentry). */
static int drop_caps(bool host_network, struct rung_error *err)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (host_network &&
	    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET,
			 CAP_NET_BIND_SERVICE) < 0)
		return rung_error_make(err, EPERM, "keep CAP_NET_BIND_SERVICE");
	if (capng_apply(CAPNG_SELECT_ALL) < 0)
		return rung_error_make(err, EPERM, "drop every capability");
	return 0;
}

int sentry_confine(const struct confine_opts *o, struct rung_error *err)
{
	int ret = 0;

	if (o->empty_root) {
		disasm_preload(); /* its library is gone with the host's root */
		ret = empty_root(err);
	}
	if (ret == 0)
		ret = drop_caps(o->host_network, err);
	if (ret == 0 && o->seccomp)
		ret = sentry_filter_install(o->memfd, o->host_network, err);
	if (ret == 0)
		log_debug("sentry confined:%s %s%s", o->empty_root ? " empty root," : "",
			  o->host_network ? "only CAP_NET_BIND_SERVICE" : "no capabilities",
			  o->seccomp ? ", seccomp allowlist" : "");
	return ret;
}
