/* Host detection for the VM tiers (see detect.h). */
#include "config.h"
#include "platform/microvm/detect.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does /proc/cpuinfo list flag (a whole word) for the first CPU? */
static bool cpu_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *tok = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n");
		     tok; tok = strtok(NULL, " \t\n"))
			if (strcmp(tok, flag) == 0)
				found = true;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

int vm_kvm_usable(struct rung_error *err)
{
	const char *force = getenv("RUNG_VM_ACCEL");
	int fd, vm, api;

	if (force && strcmp(force, "kvm") == 0)
		return 0;
	if (force && strcmp(force, "tcg") == 0)
		return rung_error_make(err, 0, "RUNG_VM_ACCEL=tcg");
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return rung_error_make(err, errno, "/dev/kvm");
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		close(fd);
		return rung_error_make(err, 0, "/dev/kvm speaks API %d, not %d", api,
				       KVM_API_VERSION);
	}
	vm = ioctl(fd, KVM_CREATE_VM, 0);
	if (vm < 0) {
		int e = errno;
		close(fd);
		return rung_error_make(err, e, "KVM_CREATE_VM");
	}
	close(vm);
	close(fd);
	if (!cpu_flag("vmx") && !cpu_flag("svm"))
		return rung_error_make(err, 0,
				       "/dev/kvm works but the CPU has neither VMX nor SVM (a "
				       "paravirtual KVM such as PVM, which boots only guests built "
				       "for it)");
	return 0;
}

unsigned long vm_host_tsc_khz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	double mhz = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0)
		if (strncmp(line, "cpu MHz", 7) == 0 &&
		    sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
			break;
	free(line);
	fclose(f);
	return (unsigned long)(mhz * 1000.0);
}

bool vm_netns_has_uplink(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	bool up = false;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	for (i = ifs; i && i->if_index && fd >= 0 && !up; i++) {
		struct ifreq r = {0};
		snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", i->if_name);
		if (ioctl(fd, SIOCGIFFLAGS, &r) == 0 && (r.ifr_flags & IFF_UP) &&
		    !(r.ifr_flags & IFF_LOOPBACK))
			up = true;
	}
	if (ifs)
		if_freenameindex(ifs);
	if (fd >= 0)
		close(fd);
	return up;
}

int vm_vsock_usable(const char *dev, struct rung_error *err)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT)
		return rung_error_make(err, 0,
				       "no %s (the host kernel's vhost_vsock module: `modprobe "
				       "vhost_vsock`, or a kernel built with CONFIG_VHOST_VSOCK)",
				       dev);
	return rung_error_make(err, errno, "open `%s`", dev);
}

char *vm_find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL;

	dirs = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", d, name);
		if (access(cand, X_OK) == 0) {
			free(dirs);
			return cand;
		}
		free(cand);
	}
	free(dirs);
	return NULL;
}

char *vm_qemu_binary(void)
{
	const char *env = getenv("RUNG_QEMU");

	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	return vm_find_program("qemu-system-x86_64");
}
