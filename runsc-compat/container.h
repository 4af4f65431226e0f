/*
 * The sandbox process of an OCI container: what `create` forks. It builds
 * the sandbox from the spec, parks the init until `start`, serves the
 * control socket (start, kill, exec) and exits with the init's status.
 */
#ifndef RUNG_CONTAINER_H
#define RUNG_CONTAINER_H

#include <stdbool.h>

#include "sentry/net/net.h"

struct global_args;
struct oci_spec;
struct oci_process;
struct kernel_process;
struct rung_error;

struct container_args {
	struct global_args *g;
	const struct oci_spec *spec;
	const char *root, *id;
	const char *cgroup; /* joined first, so the gofer and stubs are in it too */
	int ready_fd;	    /* "ok", or an error message, then closed */
	int go_fd;	    /* a byte arrives once the caller is done with its part */
	/* A new network namespace was made: a byte here asks the caller to run
	 * the prestart and createRuntime hooks (Docker's configure it), and a
	 * second byte on go_fd says they ran; closed unwritten otherwise. */
	int hooks_fd;
	int console_fd;	  /* a connected console socket (process.terminal), or -1 */
	int preserve_fds; /* our fds 3 .. 3+n-1 become the init's (--preserve-fds) */
	bool donate;	  /* --file-access direct */
	int compat_fd;	  /* the `auto` record of this run, or -1 (compat.h) */
};

/* The body of the sandbox process; returns its exit status. */
int container_main(const struct container_args *a);

/* Does a host signal to the sandbox process reach the guest init as it is
 * (so that one sent while the sandbox is frozen waits for the thaw)? */
bool container_relays_signal(int sig);

/* Enter the sandbox's network namespace for network mode `mode`: the
 * spec's named one, a new one it asks for (Docker's hooks configure it:
 * *fresh), or with none in the spec a new, empty one, but the caller's in
 * `host` mode (container.c). */
int container_enter_netns(const struct oci_spec *spec, enum net_mode mode, bool *fresh,
			  struct rung_error *err);

/* An OCI process as the kernel starts it (pointers into op; stdio from the caller). */
void container_process(const struct oci_process *op, struct kernel_process *kp);

/* Open a host pty, send its master over console_fd (the console-socket
 * protocol: one SCM_RIGHTS message with a non-empty payload) and return the
 * slave, or -errno. width/height set the window when non-zero. */
int console_send_pty(int console_fd, unsigned width, unsigned height);

#endif
