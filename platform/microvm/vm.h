/*
 * One VM of the microVM (microvm) or full-VM (q35) tier: QEMU booted on the
 * cached kernel and initramfs, the container's root shared over 9p, and
 * rung-agent inside, reached over the "rung.ctl" virtio-serial port. The
 * processes it runs (the init, and execs) each have three ports of their
 * own for stdio; this module relays them to host descriptors.
 *
 * Single-threaded: the owner drives everything with vm_step(), and may
 * add descriptors of its own to the same poll with vm_watch().
 */
#ifndef RUNG_MICROVM_VM_H
#define RUNG_MICROVM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;
struct oci_mount;
struct oci_process;
struct vm;

struct vm_options {
	bool q35;	      /* --isolation=vm: the full VM */
	bool allow_emulation; /* TCG when KVM cannot run the guest */
	bool debug;	      /* the guest kernel's log on stderr */
	const char *kernel;   /* --kernel, or NULL */
	uint64_t mem_bytes;   /* the VM's memory (0: the default) */
	unsigned cpus;
	const char *rootfs;
	bool readonly, overlay; /* overlay: writes go to guest memory */
	const char *hostname;
	bool pidns;    /* the container's processes in a PID namespace (its init is 1) */
	bool defaults; /* rung do: the guest's own /proc, /sys, /dev first, then mounts */
	const struct oci_mount *mounts;
	size_t nmounts;
	const char *rundir; /* a directory for this VM alone (made and removed here) */
	bool net;	    /* user-mode networking through our network namespace (qemu.h) */
	bool net_later;	    /* the namespace gets configured after the boot (by the
			 * spec's hooks): the NIC regardless, eth0 at vm_net_start */
	bool virtiofs;	    /* the root over virtio-fs (virtiofsd.h), not 9p */
};

/* What a process's end reports: its exit code as a shell shows it
 * (128 + signal), 255 when the VM went away first. */
typedef void (*vm_exit_fn)(void *arg, int code);

/* Boot the VM and configure the guest; the agent is ready when this returns. */
int vm_boot(const struct vm_options *o, struct vm **out, struct rung_error *err);

/* Start a process. The init (the first) may be parked until vm_release_init.
 * io: host descriptors for its stdin, stdout, stderr (-1: none), owned by
 * the VM from here on. caps: apply the process's capability sets. Its id
 * and guest pid are returned. */
int vm_spawn(struct vm *vm, const struct oci_process *p, bool caps, int io[3], bool park,
	     vm_exit_fn fn, void *arg, uint32_t *id, int *pid, struct rung_error *err);
int vm_release_init(struct vm *vm, struct rung_error *err);
/* Signal process id (all: every process in the VM). */
void vm_signal(struct vm *vm, uint32_t id, int sig, bool all);
/* net_later: the guest's network, decided now that the namespace is
 * configured (up: bring eth0 up; otherwise unbind the NIC). */
void vm_net_start(struct vm *vm, bool up);
/* The new window size of process id's terminal (a no-op without one). */
void vm_resize(struct vm *vm, uint32_t id, unsigned cols, unsigned rows);

void vm_watch(struct vm *vm, int fd, short events,
	      void (*cb)(struct vm *vm, int fd, short revents, void *arg), void *arg);
void vm_unwatch(struct vm *vm, int fd);

/* One round of the event loop (timeout_ms < 0: until something happens). */
void vm_step(struct vm *vm, int timeout_ms);
/* Has the init ended (or the VM gone)? Then vm_status is its exit code. */
bool vm_finished(const struct vm *vm);
int vm_status(const struct vm *vm);
/* Is this VM emulated (TCG)? */
bool vm_emulated(const struct vm *vm);

/* Stop QEMU (QMP quit, then SIGKILL), reap it, remove the run directory. */
void vm_destroy(struct vm *vm);

#endif
