/*
 * virtio-fs for the VM's root (opt-in: `--vm-fs virtiofs`, or the
 * dev.rung.vm.fs annotation): one virtiofsd per VM, serving the root share
 * on a vhost-user socket that QEMU connects to. Like QEMU, it sees the
 * share through a private, non-recursive, nodev and nosuid bind under the
 * VM's run directory, so nothing mounted below the rootfs on the host
 * reaches the guest. It exits when QEMU disconnects.
 */
#ifndef RUNG_MICROVM_VIRTIOFSD_H
#define RUNG_MICROVM_VIRTIOFSD_H

#include <stdbool.h>
#include <sys/types.h>

struct qemu_share;
struct rung_error;

/* The socket's name, relative to the run directory (which both processes
 * make their working directory: a state directory's path may be longer
 * than a socket address holds). */
#define VIRTIOFSD_SOCKET "vfs.sock"

/* The virtiofsd to run: $RUNG_VIRTIOFSD, Debian's virtiofsd package
 * (/usr/libexec/virtiofsd), one on PATH, or the one QEMU 7.2 ships
 * (/usr/lib/qemu/virtiofsd); NULL when there is none. */
char *virtiofsd_binary(void);

/* Start virtiofsd on share (its directory made under rundir already) and
 * wait for its socket. debug: its log on our stderr. */
int virtiofsd_spawn(const char *rundir, const struct qemu_share *share, bool debug, pid_t *pid,
		    struct rung_error *err);

/* Stop it (if QEMU's end did not already) and reap it. */
void virtiofsd_stop(pid_t pid);

#endif
