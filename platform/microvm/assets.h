/*
 * What a VM boots: an uncompressed guest kernel (PVH entry) and an
 * initramfs holding rung-agent and the kernel's own modules for virtio,
 * 9p and overlayfs. Both are built once from the host's Debian kernel
 * package and cached under the VM cache directory.
 */
#ifndef RUNG_MICROVM_ASSETS_H
#define RUNG_MICROVM_ASSETS_H

#include <stdbool.h>

struct rung_error;

struct vm_assets {
	char *kernel;  /* an ELF vmlinux QEMU boots through PVH */
	char *initrd;  /* the initramfs (cpio) */
	char *release; /* the kernel's release, "6.1.0-57-amd64" ("custom" for --kernel) */
};

/* $RUNG_VM_CACHE, or /var/cache/rung/vm for root, ~/.cache/rung/vm otherwise (malloc'd). */
char *vm_cache_dir(void);

/*
 * Find the guest kernel (kernel: a path given with --kernel, else
 * $RUNG_VM_KERNEL, the configured default, or the newest /boot/vmlinuz-*
 * whose modules are installed), then build or reuse its cached vmlinux and
 * initramfs. progress: say what is being built on stderr.
 */
int vm_assets_get(const char *kernel, bool progress, struct vm_assets *out, struct rung_error *err);
void vm_assets_release(struct vm_assets *a);

/* The guest kernel file vm_assets_get would use (malloc'd, *release too), or NULL. */
char *vm_kernel_source(const char *kernel, char **release);

/* The agent binary built into rung (agent_blob.S). */
extern const unsigned char rung_agent_start[], rung_agent_end[];

#endif
