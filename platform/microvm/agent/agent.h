/*
 * rung-agent: PID 1 of the guest. A small static program: it loads the
 * kernel modules the initramfs carries, mounts the container's root over
 * virtio-9p, starts processes in a container (their own PID and mount
 * namespaces), relays their stdio over named virtio-serial ports and
 * reports their exit on the control port (see ../proto.h).
 */
#ifndef RUNG_AGENT_H
#define RUNG_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AGENT_ROOT   "/rootfs" /* where the container's root is mounted */
#define AGENT_SHARES "/shares" /* 9p shares of bind mounts, one dir per tag */

/* A list of "key=value" records (pointers into a payload). */
struct records {
	const char **keys, **vals;
	size_t n;
};

int records_parse(const char *buf, size_t len, struct records *r);
void records_release(struct records *r);
const char *records_get(const struct records *r, const char *key);

/* One mount of the container's spec (strings point into the CONFIG payload copy). */
struct agent_mount {
	const char *dest, *type, *source, *tag;
	const char *opts[32];
	size_t nopts;
};

struct agent_config {
	char *payload; /* owns the strings below */
	struct records rec;
	bool readonly, overlay;
	struct agent_mount mounts[64];
	size_t nmounts;
};

extern struct agent_config config;

/* Log to the console (the kernel log port, for diagnostics only). */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* setup.c: modules and the root filesystem. */
void agent_load_modules(void);
int agent_configure(char *payload, size_t len, char *msg, size_t msglen);
/* In the container's init, in its new mount namespace: the spec's mounts,
 * a minimal /dev, then the root switched to the container's. */
int agent_enter_root(char *msg, size_t msglen);

/* net.c: eth0 behind QEMU's user-mode networking, when the VM has a NIC;
 * then, in the container's init before its root is entered, a resolv.conf
 * naming slirp's DNS when the container's names no reachable server. */
int agent_net_configure(char *msg, size_t msglen);
/* NET (CONFIG had "netlater"): eth0 up, or the NIC unbound. */
void agent_net_start(bool up);
void agent_net_resolv(void);

/* spawn.c: the child side of a process start (never returns). */
struct spawn_req {
	struct records rec;
	int stdio[3]; /* the child's ends of its stdio pipes */
	int report;   /* error messages go here; CLOEXEC, so exec closes it */
	int go;	      /* -1, or a pipe to wait on before exec (a parked init) */
	bool init;    /* the container's init: set up its mounts and root */
	bool tty;     /* stdio is a pty\'s slave: it becomes the controlling terminal */
	int join_mnt; /* an exec: init's mount namespace and root */
	int join_root;
};
void agent_spawn_child(struct spawn_req *req) __attribute__((noreturn));

#endif
