/*
 * The gofer's serving loop and its confinement pieces, as gofer_main (and
 * the tests) put them together. Internal to gofer/ and tests/gofer/.
 */
#ifndef RUNG_GOFER_SERVE_H
#define RUNG_GOFER_SERVE_H

#include <stdbool.h>

struct rung_error;
struct gofer_server;

/*
 * Set up the io_uring serving fds[0..n) (ownership moves to the server):
 * procfd is /proc/self/fd (O_PATH), roots[0..nroots) the served trees'
 * roots (O_PATH; the rootfs first, then the bind mounts; ownership moves
 * too). read_only: every tree is read-only (changes fail with EROFS before
 * they are tried; the host refuses them anyway on a read-only mount). The
 * ring is restricted to the opcodes the gofer uses before it is enabled.
 */
int gofer_server_new(const int *fds, unsigned n, int procfd, const int *roots, unsigned nroots,
		     bool read_only, struct gofer_server **out, struct rung_error *err);
/* Serve until every channel has been closed. Returns 0, or < 0 if the ring failed. */
int gofer_server_run(struct gofer_server *s);
void gofer_server_free(struct gofer_server *s);

/* Install the gofer's seccomp allowlist (default: kill the process). procfd
 * is the only directory the synchronous openat/fchmodat may start from. */
int gofer_seccomp_install(int procfd, struct rung_error *err);

#endif
