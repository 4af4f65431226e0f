/*
 * What QEMU keeps of rung's privileges: run as root, rung starts QEMU as
 * the unprivileged user nobody (65534:65534, no supplementary groups)
 * with four capabilities kept as ambient ones, the file powers its 9p
 * server needs in passthrough mode to act for the guest's users on the
 * shared tree: CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID.
 * Every other capability is gone from all sets and from the bounding set,
 * and no_new_privs is set. Called in QEMU's child once its shares are
 * bound. In a user namespace where nobody is unmapped, QEMU keeps its user.
 */
#ifndef RUNG_MICROVM_QEMU_PRIVS_H
#define RUNG_MICROVM_QEMU_PRIVS_H

#include <sys/types.h>

#define QEMU_UID 65534
#define QEMU_GID 65534

/* Returns 0 (also when not root: nothing to drop) or -errno. */
int qemu_drop_privileges(void);

#endif
