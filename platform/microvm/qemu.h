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
	bool net_later; /* the namespace is configured after the boot (by hooks):
			 * the NIC regardless; the host says at start (vm.h) */
	/* The root over virtio-fs: virtiofsd listens on this socket, relative
	 * to rundir (QEMU's working directory then); its memory is a shared
	 * memfd, as vhost-user needs. NULL: every share is 9p. */
	const char *vfs_socket;
};

/* The parent side: each share's directory under rundir (and an empty file
 * for a file share) to bind it on. */
int qemu_make_share_dirs(const char *rundir, const struct qemu_share *shares, size_t n,
			 struct rung_error *err);
/* In a child, in a new mount namespace: bind each share (alone, without
 * what is mounted below it) at its directory under rundir, nodev and
 * nosuid (and read-only when it is). Returns 0 or -errno. */
int qemu_bind_shares(const char *rundir, const struct qemu_share *shares, size_t n);

/* Fork and exec QEMU (it dies with the calling thread: PR_SET_PDEATHSIG). */
int qemu_spawn(const struct qemu_config *c, pid_t *pid, struct rung_error *err);

#endif
