/*
 * Starting QEMU for one VM: the command line (microvm or q35, KVM or TCG,
 * the kernel and initramfs, virtio-serial ports and 9p shares on
 * descriptors rung passes), in a mount namespace of its own where each
 * shared directory is a non-recursive, nodev, nosuid bind mount: the guest
 * sees the shared tree and nothing mounted below it on the host.
 */
#ifndef RUNG_MICROVM_QEMU_H
#define RUNG_MICROVM_QEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rung_error;

struct qemu_share {
	char *tag;  /* the 9p mount tag */
	char *path; /* a host directory, or a file (then only it is shared) */
	bool readonly;
};

struct qemu_port {
	char *name; /* the virtio-serial port name the guest sees */
	int fd;	    /* our child's end of a socketpair */
};

struct qemu_config {
	const char *binary, *kernel, *initrd;
	bool q35, kvm, debug;
	unsigned long tsc_khz; /* TCG on microvm: the guest cannot measure it */
	uint64_t mem_mb;
	unsigned cpus;
	const char *rundir; /* private to this VM: the shares' mount points */
	const struct qemu_share *shares;
	size_t nshares;
	const struct qemu_port *ports;
	size_t nports;
	int qmp_fd, console_fd; /* QEMU's ends: QMP, and the serial console + stderr */
	/* User-mode networking (slirp): a virtio-net NIC whose traffic leaves
	 * through QEMU's network namespace (the caller's: a container's sandbox
	 * process has joined the container's). A namespace with no interface up
	 * but loopback gets -nic none. */
	bool net;
};

/* Fork and exec QEMU (it dies with the calling thread: PR_SET_PDEATHSIG). */
int qemu_spawn(const struct qemu_config *c, pid_t *pid, struct rung_error *err);

#endif
