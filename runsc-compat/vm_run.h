/* The VM levels (microvm, vm) behind `rung do` and the OCI commands. */
#ifndef RUNG_VM_RUN_H
#define RUNG_VM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct global_args;
struct rung_error;
struct container_args;
struct oci_mount;

struct vm_do_opts {
	const char *rootfs;
	bool overlay;			/* writes stay in guest memory */
	bool readonly;			/* --read-only: the guest's / refuses writes */
	const struct oci_mount *mounts; /* -v and --tmpfs */
	size_t nmounts;
	bool q35;	    /* --isolation=vm */
	uint64_t memory;    /* --memory-limit: the VM's size */
	const char *kernel; /* --kernel */
};

/* rung do at a VM level: the program's exit status, or < 0 with err. */
int vm_do(struct global_args *g, const struct vm_do_opts *o, char **argv, struct rung_error *err);

/* The sandbox process of a container at a VM level (what container_main
 * is for the sentry): boots the VM at create, serves the control socket,
 * exits with the init's status. */
int vm_container_main(const struct container_args *a, bool q35);

#endif
