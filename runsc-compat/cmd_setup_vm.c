/* rung setup-vm [--kernel K]: build and cache the guest kernel and initramfs,
 * and say what this host can run at the VM levels. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "platform/microvm/assets.h"
#include "platform/microvm/detect.h"
#include "platform/microvm/virtiofsd.h"
#include "lib/error.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_setup_vm(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *kernel = g->vm_kernel;
	struct rung_error kerr = {0};
	struct vm_assets a;
	char *qemu, *cache, *why;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			kernel = argv[++i];
		else if (strncmp(argv[i], "--kernel=", 9) == 0)
			kernel = argv[i] + 9;
		else
			return rung_error_make(err, 0, "setup-vm: usage: setup-vm [--kernel PATH]");
	}
	qemu = vm_qemu_binary();
	if (!qemu)
		return rung_error_make(
			err, 0, "QEMU not found: install qemu-system-x86 (or set RUNG_QEMU)");
	if (vm_assets_get(kernel, true, &a, err) < 0) {
		free(qemu);
		return -1;
	}
	cache = vm_cache_dir();
	printf("qemu:      %s\nkernel:    %s (%s)\ninitramfs: %s\ncache:     %s\n", qemu, a.kernel,
	       a.release, a.initrd, cache);
	if (vm_kvm_usable(&kerr) == 0) {
		printf("accel:     KVM\n");
	} else {
		why = rung_error_string(&kerr);
		printf("accel:     TCG emulation only (--allow-emulation): %s\n", why);
		free(why);
	}
	rung_error_release(&kerr);
	if (vm_vsock_usable("/dev/vhost-vsock", &kerr) == 0) {
		printf("vsock:     /dev/vhost-vsock works (rung still uses virtio-serial: "
		       "no vsock transport yet)\n");
	} else {
		why = rung_error_string(&kerr);
		printf("vsock:     unavailable: %s; stdio and control use virtio-serial\n", why);
		free(why);
	}
	rung_error_release(&kerr);
	why = virtiofsd_binary();
	printf("virtiofsd: %s\n", why ? why : "none (--vm-fs virtiofs unavailable)");
	free(why);
	vm_assets_release(&a);
	free(cache);
	free(qemu);
	return 0;
}
