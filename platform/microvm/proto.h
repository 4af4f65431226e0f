/*
 * The protocol between rung (the host) and rung-agent (PID 1 in the guest),
 * spoken on the virtio-serial port named "rung.ctl". Shared by both sides;
 * the agent is built on its own, so this header uses libc types only.
 *
 * Every message is a fixed header followed by len payload bytes. A payload
 * is a list of records "key=value\0" (values may hold any byte but NUL).
 *
 *   agent -> host  HELLO   a = protocol version            the agent is up
 *   host -> agent  CONFIG  root, mounts, hostname          -> OK | ERROR
 *   host -> agent  SPAWN   id, process (the init is id 1)  -> STARTED a=pid | ERROR
 *                          a = 1: park the init just before its exec
 *   host -> agent  SIGNAL  id, a = signal, b = 1: every process in the VM;
 *                          a = 0: release the parked init
 *   host -> agent  WINSIZE id, a = columns, b = rows: the new size of the
 *                          process's terminal (SIGWINCH follows in the guest)
 *   host -> agent  NET     a = 1: bring eth0 up now; a = 0: no network (the
 *                          NIC is unbound); after CONFIG's "netlater" only
 *   agent -> host  EOF     id, a = stream (1 stdout, 2 stderr), b = bytes sent on it
 *   agent -> host  EXIT    id, a = wait status             (after both EOFs)
 *
 * A process's stdio travels on its own ports "rung.<id>.in", ".out", ".err";
 * data only. The end of the host's stdin is the host shutting down its
 * socket for writing (QEMU then passes EOF on after the data; a close would
 * be a hangup, and QEMU drops what it has not read yet). The end of an
 * output stream is its EOF message: the host reads until it has
 * that many bytes, because a virtio-serial port cannot carry an EOF from
 * the guest. The exit status comes only from EXIT on this port, never from
 * the console, which the workload can write to.
 */
#ifndef RUNG_MICROVM_PROTO_H
#define RUNG_MICROVM_PROTO_H

#include <stdint.h>

#define VMP_VERSION	1
#define VMP_MAX_PAYLOAD (256u * 1024)
#define VMP_CTL_PORT	"rung.ctl"
#define VMP_INIT_ID	1u

enum vmp_type {
	VMP_HELLO = 1,
	VMP_CONFIG,
	VMP_SPAWN,
	VMP_SIGNAL,
	VMP_WINSIZE,
	VMP_NET,
	VMP_OK = 100,
	VMP_ERROR,
	VMP_STARTED,
	VMP_EOF,
	VMP_EXIT,
};

struct vmp_header {
	uint32_t type;
	uint32_t id; /* the process (0: none) */
	int64_t a, b;
	uint32_t len; /* payload bytes that follow */
	uint32_t reserved;
};

/*
 * Record keys. CONFIG: "root" (the 9p tag of the rootfs), "rootfs" ("9p"),
 * "readonly", "overlay" (a tmpfs layer over a read-only root), "hostname",
 * "pidns" (the init and its execs in a PID namespace of their own),
 * "netlater" (eth0 waits for NET);
 * one mount is "mount" (destination) then its "mtype", "msource", "mopt"
 * (one per option), "mtag" (a 9p tag the source is relative to).
 * SPAWN: "arg" (in order), "env", "cwd", "uid", "gid", "group" (extra gid),
 * "rlimit" ("resource soft hard"), "umask", "capbnd" (bounding set, hex),
 * "nonewprivs".
 */

#endif
