/* What this host offers the VM tiers: KVM, the host TSC, the QEMU binary. */
#ifndef RUNG_MICROVM_DETECT_H
#define RUNG_MICROVM_DETECT_H

#include <stdbool.h>

struct rung_error;

/*
 * Can KVM run an ordinary guest here? /dev/kvm must open, speak API 12,
 * create a VM, and the CPU must have VMX or SVM: a KVM without them (PVM,
 * the hypervisor of some cloud sandboxes) runs only guests built for it.
 * 0, or < 0 with the reason in err. RUNG_VM_ACCEL=kvm|tcg overrides.
 */
int vm_kvm_usable(struct rung_error *err);

/* The host TSC frequency in kHz (TCG guests on microvm need it), or 0. */
unsigned long vm_host_tsc_khz(void);

/* The QEMU binary: $RUNG_QEMU, or qemu-system-x86_64 on $PATH (malloc'd),
 * or NULL when there is none. */
char *vm_qemu_binary(void);
/* Does our network namespace have an interface up besides loopback? (One
 * with loopback alone, Docker's --network none, gets the VM no network.) */
bool vm_netns_has_uplink(void);

/* Can this host give a VM a vsock device (vhost-vsock-device/-pci)? It
 * needs dev, normally /dev/vhost-vsock (the host's vhost_vsock module),
 * opened read-write. 0, or -1 with why in err. rung reports it (setup-vm);
 * its stdio and control stay on virtio-serial either way. */
int vm_vsock_usable(const char *dev, struct rung_error *err);

/* name in a directory of $PATH (malloc'd), or NULL. */
char *vm_find_program(const char *name);

#endif
