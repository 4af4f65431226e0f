/* A level-1 container's namespaces: which to create, which to join, lo, hostname. */
#include "config.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/spec.h"
#include "lib/error.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int level1_clone_flags(const struct oci_spec *spec, int *flags, struct rung_error *err)
{
	static const struct {
		const char *type;
		int flag;
	} map[] = {
		{"pid", CLONE_NEWPID}, {"network", CLONE_NEWNET}, {"mount", CLONE_NEWNS},
		{"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS},	  {"cgroup", 0},
	};

	*flags = 0;
	for (size_t i = 0; i < spec->n_namespaces; i++) {
		const struct oci_namespace *ns = &spec->namespaces[i];
		bool known = false;
		for (size_t j = 0; j < sizeof(map) / sizeof(map[0]); j++) {
			if (strcmp(ns->type, map[j].type) != 0)
				continue;
			known = true;
			if (!ns->path)
				*flags |= map[j].flag;
		}
		if (!known)
			return rung_error_make(err, EINVAL,
					       "config: `linux.namespaces`: a %s namespace is not "
					       "supported with --isolation=container",
					       ns->type);
	}
	if (!(*flags & CLONE_NEWNS))
		return rung_error_make(err, EINVAL,
				       "config: `linux.namespaces`: --isolation=container needs a "
				       "mount namespace");
	if (spec->hostname && !(*flags & CLONE_NEWUTS))
		return rung_error_make(err, EINVAL,
				       "config: `hostname` needs a private uts namespace");
	return 0;
}

int level1_join_late(const struct oci_spec *spec, struct rung_error *err)
{
	const struct oci_namespace *net = spec_namespace(spec, "network");

	if (net && net->path) {
		int fd = open(net->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return rung_error_make(err, e, "join the network namespace `%s`",
					       net->path);
		}
		close(fd);
	}
	/* Made now that we are in the container's cgroup, so that it is the
	 * namespace's root. */
	if (spec_namespace(spec, "cgroup") && unshare(CLONE_NEWCGROUP) < 0)
		return rung_error_make(err, errno, "create a cgroup namespace");
	return 0;
}

int level1_lo_up(struct rung_error *err)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return rung_error_make(err, errno, "bring up lo: socket");
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		ret = rung_error_make(err, errno, "bring up lo");
	ifr.ifr_flags |= IFF_UP;
	if (ret == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		ret = rung_error_make(err, errno, "bring up lo");
	close(fd);
	return ret;
}

int level1_hostname(const struct oci_spec *spec, struct rung_error *err)
{
	if (spec->hostname && sethostname(spec->hostname, strlen(spec->hostname)) < 0)
		return rung_error_make(err, errno, "set the hostname `%s`", spec->hostname);
	return 0;
}
