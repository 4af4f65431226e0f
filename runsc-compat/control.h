/*
 * The control socket between rung's commands and a running sandbox
 * (<root>/<id>/control.sock, SOCK_SEQPACKET): one message per request,
 * a fixed header, a length-checked payload, descriptors by SCM_RIGHTS.
 *
 *   START                        release the parked init       -> OK
 *   KILL    a=signal b=all       signal the init (or everyone) -> OK
 *   EXEC    a=tty, JSON process, fds 0-2                       -> OK a=pid, later EXIT a=status
 *   SIGNAL  a=signal             to the connection's exec'd process -> (none)
 *   ERROR   payload = message (the reply to a failed request)
 */
#ifndef RUNG_CONTROL_H
#define RUNG_CONTROL_H

#include <stddef.h>
#include <stdint.h>

struct rung_error;

enum ctl_type {
	CTL_START = 1,
	CTL_KILL,
	CTL_EXEC,
	CTL_SIGNAL,
	CTL_TASK_LIMIT,	  /* a: the guest's new task limit (pids.limit), 0 for the default */
	CTL_MEMORY_LIMIT, /* a: the cgroup's new memory limit in KiB (memory.limit), 0: none */
	CTL_OK = 100,
	CTL_ERROR,
	CTL_EXIT,
};

struct ctl_header {
	uint32_t type;
	int32_t a, b;
	uint32_t len; /* payload bytes that follow */
};

#define CTL_MAX_PAYLOAD (1u << 20)
#define CTL_MAX_FDS	3

struct ctl_msg {
	struct ctl_header h;
	char *data; /* NUL-terminated copy of the payload (malloc'd), or NULL */
	int fds[CTL_MAX_FDS];
	int nfds;
};

/* The control socket path of a container. */
char *ctl_path(const char *root, const char *id);
/* Listen on path (replacing a stale socket). Returns the fd or -errno. */
int ctl_listen(const char *path);
/* Connect to a sandbox: "container not running" when nobody listens. */
int ctl_connect(const char *path, int *fd, struct rung_error *err);

/* Send one message (fds may be NULL). 0 or -errno. */
int ctl_send(int fd, uint32_t type, int32_t a, int32_t b, const void *data, size_t len,
	     const int *fds, int nfds);
/* Receive one message: 0, -ECONNRESET at the peer's close, -EPROTO for a
 * malformed one (bad length, truncated, too many fds: those are closed). */
int ctl_recv(int fd, struct ctl_msg *m);
void ctl_msg_release(struct ctl_msg *m);

/* Send a request and wait for its OK (a in *a) or ERROR (made into err). */
int ctl_call(int fd, uint32_t type, int32_t a, int32_t b, const void *data, size_t len,
	     const int *fds, int nfds, int32_t *reply_a, struct rung_error *err);

#endif
