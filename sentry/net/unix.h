/*
 * AF_UNIX sockets, entirely inside the sentry: SOCK_STREAM, SOCK_DGRAM and
 * SOCK_SEQPACKET with Linux's semantics (net/unix/af_unix.c), names in the
 * filesystem (an S_IFSOCK file made through the VFS) or in the sandbox's
 * abstract namespace, SCM_RIGHTS and SCM_CREDENTIALS.
 */
#ifndef RUNG_NET_UNIX_H
#define RUNG_NET_UNIX_H

struct kernel;
struct socket;
struct task;

int unix_create(struct task *t, int type, int protocol, struct socket **out);
int unix_create_pair(struct task *t, int type, int protocol, struct socket **a, struct socket **b);

/* The sandbox's unix socket namespace (names and the lock over every unix
 * socket's state); made on first use, freed with the kernel. */
struct unix_net;
void unix_net_free(struct unix_net *net);

#include <stdbool.h>
#include <stdint.h>

/* What /proc/net/unix shows of one socket (sentry/net/procnet.c). */
struct unix_sock_info {
	int refs, type;
	bool listening;
	bool connected;	  /* a peer (a datagram socket's by connect) */
	bool has_file;	  /* not a server end still in a listener's queue */
	uint64_t ino;	  /* its file's inode (0: none yet) */
	const char *path; /* sun_path of its name (path_len bytes; 0: unnamed) */
	int path_len;
};

/* fn for each live unix socket of k, oldest first, under the sockets'
 * lock: fn must not block or call back into the sockets. */
void unix_for_each_sock(struct kernel *k, void (*fn)(const struct unix_sock_info *, void *),
			void *arg);

#endif
