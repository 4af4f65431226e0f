/*
 * Sockets: the generic part. A socket is a file (on an internal "sockfs",
 * so fstat says S_IFSOCK and /proc/pid/fd says socket:[ino]) whose priv is
 * a struct socket; each family implements struct sock_ops. The syscall
 * layer (syscalls/sys_socket.c) copies every guest argument in once,
 * checks it, and hands the family a struct sock_msg whose data moves
 * through a msg_iter (guest iovecs or sentry memory).
 *
 * Families return -errno. A blocking operation that is interrupted returns
 * -ERESTARTSYS (-EINTR when a timeout was set, as Linux's sock_intr_errno).
 */
#ifndef RUNG_SOCKET_H
#define RUNG_SOCKET_H

#include "sentry/fs/hostinfo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

struct file;
struct mm;
struct poll_table;
struct task;

/* Linux's limits and defaults (sysctls of a fresh network namespace). */
#define SOCK_UIO_MAXIOV	  1024
#define SOCK_OPTMEM_MAX	  131072 /* net.core.optmem_max */
#define SOCK_WMEM_DEFAULT 212992 /* net.core.wmem_default */
#define SOCK_RMEM_DEFAULT 212992
/* net.core.wmem_max, rmem_max: the host's (sentry/fs/hostinfo.h) */
#define SOCK_WMEM_MAX	   host_wmem_max()
#define SOCK_RMEM_MAX	   host_rmem_max()
#define SOCK_MIN_SNDBUF	   4608
#define SOCK_MIN_RCVBUF	   2304
#define SOCK_SOMAXCONN	   4096
#define SCM_MAX_FD	   253
#define SOCK_MAX_TYPE	   11 /* SOCK_MAX: types at or above are EINVAL */
#define SOCK_TYPE_MASK	   0xf
#define SOCK_ADDR_MAX	   128 /* sizeof(struct sockaddr_storage) */
#define SOCK_RCV_SHUTDOWN  1
#define SOCK_SEND_SHUTDOWN 2
#define SOCK_TIMEO_NONE	   UINT64_MAX /* SO_*TIMEO unset: block for ever */

/* Where the bytes of a send or receive are: guest iovecs (mm set) or
 * sentry memory (mm NULL, for read/write ops called with sentry buffers). */
struct msg_iter {
	struct mm *mm;
	const struct iovec *iov;
	unsigned nr;
	unsigned idx; /* current iovec */
	size_t off;   /* offset in it */
	size_t count; /* bytes left in all */
};

void msg_iter_init(struct msg_iter *it, struct mm *mm, const struct iovec *iov, unsigned nr);
/* Copy up to len bytes in (from the iovecs) or out, advancing. Returns the
 * bytes copied; *fault is set when a bad guest address stopped it early. */
size_t msg_iter_copy_in(struct msg_iter *it, void *dst, size_t len, bool *fault);
size_t msg_iter_copy_out(struct msg_iter *it, const void *src, size_t len, bool *fault);

/* Descriptors in flight (SCM_RIGHTS): references on the files. */
struct scm_fds {
	int count;
	struct file *files[];
};

struct scm_fds *scm_fds_dup(const struct scm_fds *fds);
void scm_fds_put(struct scm_fds *fds);

/* Ancillary data of one message, in the sentry. */
#define SCM_INET_MAX 192 /* a timestamp, IP_PKTINFO, IP_TOS, IP_TTL, IPv6 the same */

struct scm {
	bool creds_set; /* send: SCM_CREDENTIALS given; recv: the message had them */
	struct ucred creds;
	bool passcred; /* recv: the socket wants SCM_CREDENTIALS */
	struct scm_fds *fds;
	/* recv, AF_INET/AF_INET6: control messages the stack made (whole
	 * cmsghdrs, each CMSG_SPACE long), put after the others */
	unsigned char inet[SCM_INET_MAX];
	size_t inet_len;
	/* send, AF_INET/AF_INET6: IP_TTL or IPV6_HOPLIMIT, IP_TOS or IPV6_TCLASS
	 * for this message only */
	bool ttl_set, tos_set;
	uint8_t ttl, tos;
};

struct sock_msg {
	struct task *t;
	struct msg_iter iter;
	int flags; /* MSG_* of the call (MSG_DONTWAIT added for O_NONBLOCK) */
	/* send: the destination, copied in (namelen 0: none) */
	const void *name;
	int namelen;
	/* recv: the source, when name_out is set (namelen_out 0: none) */
	void *name_out;
	int namelen_out;
	int out_flags; /* recv: MSG_TRUNC, MSG_CTRUNC ... */
	struct scm scm;
};

struct socket;

struct sock_ops {
	int family;
	bool errqueue; /* recvmsg reads MSG_ERRQUEUE itself (else: an empty queue) */
	int (*bind)(struct socket *s, const void *addr, int len);
	int (*connect)(struct socket *s, const void *addr, int len, bool nonblock);
	int (*listen)(struct socket *s, int backlog);
	/* A new connected socket in *out (a reference); flags: O_NONBLOCK of the listener's file. */
	int (*accept)(struct socket *s, bool nonblock, struct socket **out);
	/* The address (SOCK_ADDR_MAX bytes of addr); returns its length or -errno. */
	int (*getname)(struct socket *s, void *addr, bool peer);
	long (*sendmsg)(struct socket *s, struct sock_msg *m);
	long (*recvmsg)(struct socket *s, struct sock_msg *m);
	int (*shutdown)(struct socket *s, int how);
	int (*setsockopt)(struct socket *s, int level, int name, const void *val, unsigned len);
	/* *len: room in val on entry, the option's length on return. */
	int (*getsockopt)(struct socket *s, int level, int name, void *val, unsigned *len);
	unsigned (*poll)(struct socket *s, struct poll_table *pt);
	/* FIONREAD (SIOCINQ): bytes to read, or -errno. */
	long (*inq)(struct socket *s);
	/* The other ioctls of the kind (SIOCGSTAMP...): arg is the copied
	 * argument, as sys_ioctl shapes it; NULL: ENOTTY. */
	long (*ioctl)(struct socket *s, unsigned long cmd, void *arg);
	/* The file was closed for the last time: drop the file's reference. */
	void (*release)(struct socket *s);
};

struct socket {
	const struct sock_ops *ops;
	int type;
	struct file *file; /* the file whose priv this is (not referenced) */
};

/* SO_RCVTIMEO/SO_SNDTIMEO: a struct timeval to ns (SOCK_TIMEO_NONE for
 * zero), as Linux's sock_set_timeout; and back. */
int sock_timeout_set(uint64_t *out, const void *val, unsigned len);
void sock_timeout_get(uint64_t t, struct timeval *tv);
/* How long a blocking socket call may still wait. */
struct sock_timeo {
	bool none_left; /* do not wait: MSG_DONTWAIT, O_NONBLOCK, or the time is up */
	bool timed;	/* a timeout was set: an interruption gives EINTR */
	uint64_t deadline;
};
/* From SO_RCVTIMEO/SO_SNDTIMEO (ns, or SOCK_TIMEO_NONE) and the call's
 * non-blocking flag. */
struct sock_timeo sock_timeo_start(uint64_t timeo, bool nonblock);
/* What task_block's result ret means to a socket wait: 0, look again (also
 * when the time ran out: to->none_left is then set), or -ERESTARTSYS, or
 * -EINTR under a timeout, when interrupted. */
int sock_timeo_woken(struct sock_timeo *to, int ret);
/* SIGPIPE to the sender for a write to a broken stream, unless MSG_NOSIGNAL. */
void sock_sigpipe(struct sock_msg *msg);

/* Create a socket of family/type/protocol (type without flags). */
int socket_create(struct task *t, int family, int type, int protocol, struct socket **out);
int socket_create_pair(struct task *t, int family, int type, int protocol, struct socket **a,
		       struct socket **b);
/* The file of a new socket (flags: O_NONBLOCK); takes over the caller's reference. */
struct file *socket_file_new(struct socket *s, int flags);
/* The socket behind f, or NULL when f is not a socket. */
struct socket *socket_from_file(struct file *f);

#endif
