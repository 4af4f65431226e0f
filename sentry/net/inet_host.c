/*
 * `--network=host` (inet_host.h): each guest AF_INET/AF_INET6 socket is a
 * host socket of the sandbox's network namespace, made non-blocking by the
 * sentry. Guest data is copied through sentry buffers; a guest call that
 * must wait sleeps on the socket's host_waitq (sentry/fs/hostpoll.h), so
 * guest signals interrupt it as they interrupt a wait on a unix socket.
 * Socket options go to the host from an allowlist: none of them carries a
 * pointer the host would follow into the sentry's memory.
 */
#include "config.h"
#include "sentry/net/inet_host.h"
#include "sentry/net/socket.h"
#include "sentry/fs/file.h"
#include "sentry/fs/hostpoll.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/net/net.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

/* Bytes copied through the sentry per host call on a stream. */
#define STREAM_CHUNK (256u << 10)
/* The largest datagram (IPv6 jumbograms aside). */
#define DGRAM_MAX 65536u

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif

struct inet_host {
	struct socket s;
	int fd; /* the host socket (non-blocking, close-on-exec) */
	int family;
	struct net_state *net; /* the registry it is in (k->net), or NULL */
	struct list_head node; /* in net->socks */
	uint32_t uid;	       /* the creator's euid (/proc/net) */
	struct host_waitq hw;
	uint64_t rcvtimeo, sndtimeo; /* ns, or SOCK_TIMEO_NONE */
	int recverr;		     /* IP_RECVERR / IPV6_RECVERR, kept here */
};

static const struct sock_ops inet_host_ops;

static struct inet_host *H(struct socket *s)
{
	return container_of(s, struct inet_host, s);
}

static struct inet_host *host_sock_new(int fd, int family, int type)
{
	struct inet_host *h = xzalloc(sizeof(*h));
	struct task *t = current_task();

	h->s.ops = &inet_host_ops;
	h->s.type = type;
	h->fd = fd;
	h->family = family;
	h->rcvtimeo = h->sndtimeo = SOCK_TIMEO_NONE;
	host_waitq_init(&h->hw, fd);
	list_init(&h->node);
	if (t && t->k->net) {
		h->net = t->k->net;
		h->uid = t->creds.euid;
		pthread_mutex_lock(&h->net->socks_lock);
		list_add_tail(&h->node, &h->net->socks);
		pthread_mutex_unlock(&h->net->socks_lock);
	}
	return h;
}

/* An ICMP "ping" socket: the guest's groups against its
 * net.ipv4.ping_group_range, as Linux's ping_init_sock. */
static bool ping_allowed(struct task *t)
{
	const struct net_sysctl *n = &t->k->net_sysctl;
	const struct creds *c = &t->creds;

	if (c->egid >= n->ping_group_lo && c->egid <= n->ping_group_hi)
		return true;
	for (uint32_t i = 0; i < c->ngroups; i++)
		if (c->groups[i] >= n->ping_group_lo && c->groups[i] <= n->ping_group_hi)
			return true;
	return false;
}

int inet_host_create(struct task *t, int family, int type, int protocol, struct socket **out)
{
	int fd;

	if (type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_RAW)
		return -ESOCKTNOSUPPORT;
	if (type == SOCK_DGRAM && (protocol == IPPROTO_ICMP || protocol == IPPROTO_ICMPV6) &&
	    !ping_allowed(t))
		return -EACCES;
	/* The sentry has no capabilities: a raw socket is EPERM from the host,
	 * as for a guest without CAP_NET_RAW. */
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
	if (fd < 0)
		return -errno;
	*out = &host_sock_new(fd, family, type)->s;
	return 0;
}

/* --- waiting ------------------------------------------------------------------------- */

struct host_wait {
	struct poll_table pt;
	struct task *t;
	struct waitq *wq;
	struct waiter w;
};

static void host_wait_queue(struct poll_table *pt, struct waitq *wq)
{
	struct host_wait *hw = container_of(pt, struct host_wait, pt);

	if (hw->wq)
		return;
	hw->wq = wq;
	waiter_prepare(wq, &hw->w, hw->t);
}

/*
 * Wait until the host socket has one of events (or an error or hangup), or
 * *deadline (0: none; set to 1 once passed) goes by. 0: try again;
 * -EAGAIN: no time was left; -ERESTARTSYS (no timeout set) or -EINTR
 * (a timeout set) when interrupted.
 */
static int host_wait(struct inet_host *h, unsigned events, uint64_t timeo, uint64_t *deadline)
{
	struct task *t = current_task();
	struct host_wait hw = {.pt = {.queue = host_wait_queue, .key = events}, .t = t};
	unsigned ready;
	uint32_t snap;
	int r = 0;

	if (timeo == 0 || *deadline == 1 || !t)
		return -EAGAIN;
	if (timeo != SOCK_TIMEO_NONE && *deadline == 0)
		*deadline = monotonic_ns() + timeo;
	snap = task_wake_snapshot(t);
	ready = host_waitq_poll(&h->hw, &hw.pt) & (events | POLLERR | POLLHUP);
	if (!ready)
		r = task_block(t, snap, timeo == SOCK_TIMEO_NONE ? 0 : *deadline);
	if (hw.wq)
		waiter_finish(hw.wq, &hw.w);
	if (r == -ETIMEDOUT)
		*deadline = 1;
	if (r == -EINTR)
		return timeo == SOCK_TIMEO_NONE ? -ERESTARTSYS : -EINTR;
	return 0;
}

/* --- the operations ------------------------------------------------------------------- */

/* The port of an AF_INET/AF_INET6 address (0 when it has none). */
static unsigned sockaddr_port(const void *addr, int len)
{
	const struct sockaddr_in *in = addr;

	if (len >= (int)sizeof(*in) && (in->sin_family == AF_INET || in->sin_family == AF_INET6))
		return ntohs(in->sin_port); /* sin6_port is at the same place */
	return 0;
}

static int ih_bind(struct socket *s, const void *addr, int len)
{
	struct task *t = current_task();
	unsigned port = sockaddr_port(addr, len);

	/* The guest's right to a privileged port (the sentry holds
	 * CAP_NET_BIND_SERVICE for every guest in this mode). */
	if (t && port && port < t->k->net_sysctl.unprivileged_port_start &&
	    !creds_capable(&t->creds, KCAP_NET_BIND_SERVICE))
		return -EACCES;
	return bind(H(s)->fd, addr, (socklen_t)len) < 0 ? -errno : 0;
}

/* The result of a connection under way (SO_ERROR), once it is over. */
static int connect_result(struct inet_host *h)
{
	int e = 0;
	socklen_t n = sizeof(e);

	if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &e, &n) < 0)
		return -errno;
	return -e;
}

static int ih_connect(struct socket *s, const void *addr, int len, bool nonblock)
{
	struct inet_host *h = H(s);
	uint64_t deadline = 0;
	int ret;

	if (connect(h->fd, addr, (socklen_t)len) == 0)
		return 0;
	ret = -errno;
	/* A connection under way: wait for it unless the guest's socket is
	 * non-blocking (EALREADY: a connect restarted after a signal). */
	if ((ret != -EINPROGRESS && ret != -EALREADY) || nonblock || s->type != SOCK_STREAM)
		return ret;
	for (;;) {
		unsigned ev = host_poll_now(h->fd);
		int w;

		if (ev & (POLLOUT | POLLERR | POLLHUP))
			return connect_result(h);
		w = host_wait(h, POLLOUT, h->sndtimeo, &deadline);
		if (w == -EAGAIN)
			return -EINPROGRESS; /* SO_SNDTIMEO ran out, as Linux */
		if (w < 0)
			return w;
	}
}

static int ih_listen(struct socket *s, int backlog)
{
	return listen(H(s)->fd, backlog) < 0 ? -errno : 0;
}

static int ih_accept(struct socket *s, bool nonblock, struct socket **out)
{
	struct inet_host *h = H(s);
	uint64_t deadline = 0;

	for (;;) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), w;

		if (fd >= 0) {
			*out = &host_sock_new(fd, h->family, s->type)->s;
			return 0;
		}
		if (errno != EAGAIN || nonblock)
			return errno == EAGAIN ? -EAGAIN : -errno;
		w = host_wait(h, POLLIN, h->rcvtimeo, &deadline);
		if (w < 0)
			return w;
	}
}

static int ih_getname(struct socket *s, void *addr, bool peer)
{
	socklen_t n = SOCK_ADDR_MAX;
	int r = peer ? getpeername(H(s)->fd, addr, &n) : getsockname(H(s)->fd, addr, &n);

	return r < 0 ? -errno : (int)n;
}

/* The MSG_* flags a guest send or receive may hand the host. */
#define SEND_FLAGS (MSG_OOB | MSG_DONTROUTE | MSG_EOR | MSG_MORE | MSG_CONFIRM)
#define RECV_FLAGS (MSG_OOB | MSG_PEEK | MSG_TRUNC)

static long ih_sendmsg(struct socket *s, struct sock_msg *m)
{
	struct inet_host *h = H(s);
	bool stream = s->type == SOCK_STREAM, fault = false;
	size_t total = m->iter.count, sent = 0, have = 0, off = 0;
	size_t cap = stream ? MIN(total, (size_t)STREAM_CHUNK) : MIN(total, (size_t)DGRAM_MAX);
	uint64_t deadline = 0;
	char *buf;
	long ret = 0;

	if (!stream && total > DGRAM_MAX)
		return -EMSGSIZE;
	if (m->scm.fds)
		return -EOPNOTSUPP; /* SCM_RIGHTS is for unix sockets */
	buf = xmalloc(cap ? cap : 1);
	do {
		struct msghdr mh = {.msg_name = (void *)m->name,
				    .msg_namelen = (socklen_t)m->namelen,
				    .msg_iov = &(struct iovec){0},
				    .msg_iovlen = 1};
		ssize_t n;

		if (off == have) {
			have = msg_iter_copy_in(&m->iter, buf, cap, &fault);
			off = 0;
			if (fault && (!stream || have == 0)) {
				ret = -EFAULT;
				break;
			}
		}
		mh.msg_iov->iov_base = buf + off;
		mh.msg_iov->iov_len = have - off;
		n = sendmsg(h->fd, &mh, (m->flags & SEND_FLAGS) | MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0) {
			sent += (size_t)n;
			off += (size_t)n;
			if (!stream || fault)
				break;
			continue;
		}
		if (errno != EAGAIN) {
			ret = -errno;
			break;
		}
		if (m->flags & MSG_DONTWAIT) {
			ret = -EAGAIN;
			break;
		}
		ret = host_wait(h, POLLOUT, h->sndtimeo, &deadline);
		if (ret < 0)
			break;
	} while (sent < total);
	free(buf);
	if (ret == -EPIPE && !sent)
		sock_sigpipe(m);
	if (sent)
		return (long)sent;
	return ret;
}

static long ih_recvmsg(struct socket *s, struct sock_msg *m)
{
	struct inet_host *h = H(s);
	bool stream = s->type == SOCK_STREAM, fault;
	bool waitall = stream && (m->flags & (MSG_WAITALL | MSG_PEEK)) == MSG_WAITALL;
	size_t want = m->iter.count, got = 0;
	size_t cap = stream ? MIN(want, (size_t)STREAM_CHUNK) : DGRAM_MAX;
	uint64_t deadline = 0;
	char name[SOCK_ADDR_MAX];
	char *buf = xmalloc(cap ? cap : 1);
	long ret = 0;

	m->namelen_out = 0;
	for (;;) {
		/* A datagram is taken whole (truncated to what the guest asked for). */
		struct iovec v = {buf, stream ? MIN(cap, want - got) : MIN(cap, want)};
		struct msghdr mh = {.msg_name = m->name_out ? name : NULL,
				    .msg_namelen = m->name_out ? sizeof(name) : 0,
				    .msg_iov = &v,
				    .msg_iovlen = 1};
		ssize_t n;

		n = recvmsg(h->fd, &mh, (m->flags & RECV_FLAGS) | MSG_DONTWAIT);
		if (n >= 0) {
			size_t copy = MIN((size_t)n, v.iov_len);
			size_t done = msg_iter_copy_out(&m->iter, buf, copy, &fault);

			if (m->name_out && mh.msg_namelen) {
				m->namelen_out = (int)MIN(mh.msg_namelen, sizeof(name));
				memcpy(m->name_out, name, (size_t)m->namelen_out);
			}
			m->out_flags = mh.msg_flags & (MSG_TRUNC | MSG_EOR | MSG_OOB | MSG_CTRUNC);
			if (fault && done == 0 && got == 0) {
				ret = -EFAULT;
				break;
			}
			if (!stream) {
				/* MSG_TRUNC asks for the datagram's real length. */
				ret = (m->flags & MSG_TRUNC) ? n : (long)done;
				goto out;
			}
			got += done;
			if (n == 0 || !waitall || got == want || fault)
				break;
			continue;
		}
		if (n < 0 && errno != EAGAIN) {
			ret = -errno;
			break;
		}
		if (m->flags & MSG_DONTWAIT) {
			ret = -EAGAIN;
			break;
		}
		ret = host_wait(h, POLLIN, h->rcvtimeo, &deadline);
		if (ret < 0)
			break;
	}
	if (got)
		ret = (long)got;
out:
	free(buf);
	return ret;
}

static int ih_shutdown(struct socket *s, int how)
{
	return shutdown(H(s)->fd, how) < 0 ? -errno : 0;
}

/* The options the host gets as they are: plain values, no pointers. */
static bool option_passed(int level, int name)
{
	static const int sol_socket[] = {SO_REUSEADDR, SO_REUSEPORT, SO_KEEPALIVE,   SO_RCVBUF,
					 SO_SNDBUF,    SO_LINGER,    SO_BROADCAST,   SO_OOBINLINE,
					 SO_RCVLOWAT,  SO_SNDLOWAT,  SO_ERROR,	     SO_TYPE,
					 SO_DOMAIN,    SO_PROTOCOL,  SO_ACCEPTCONN,  SO_PRIORITY,
					 SO_DONTROUTE, SO_MARK,	     SO_INCOMING_CPU};
	static const int tcp[] = {
		TCP_NODELAY,	  TCP_MAXSEG,	    TCP_CORK,	       TCP_KEEPIDLE,
		TCP_KEEPINTVL,	  TCP_KEEPCNT,	    TCP_SYNCNT,	       TCP_LINGER2,
		TCP_DEFER_ACCEPT, TCP_WINDOW_CLAMP, TCP_INFO,	       TCP_QUICKACK,
		TCP_CONGESTION,	  TCP_USER_TIMEOUT, TCP_NOTSENT_LOWAT, TCP_FASTOPEN};
	static const int ip[] = {IP_TOS,
				 IP_TTL,
				 IP_MTU_DISCOVER,
				 IP_MULTICAST_TTL,
				 IP_MULTICAST_LOOP,
				 IP_MULTICAST_IF,
				 IP_ADD_MEMBERSHIP,
				 IP_DROP_MEMBERSHIP,
				 IP_FREEBIND,
				 IP_BIND_ADDRESS_NO_PORT,
				 IP_MTU};
	static const int ipv6[] = {
		IPV6_V6ONLY,	     IPV6_TCLASS,	IPV6_UNICAST_HOPS, IPV6_MULTICAST_HOPS,
		IPV6_MULTICAST_LOOP, IPV6_MULTICAST_IF, IPV6_JOIN_GROUP,   IPV6_LEAVE_GROUP,
		IPV6_MTU_DISCOVER,   IPV6_MTU};
	const int *v;
	size_t n;

	switch (level) {
	case SOL_SOCKET:
		v = sol_socket, n = ARRAY_SIZE(sol_socket);
		break;
	case IPPROTO_TCP:
		v = tcp, n = ARRAY_SIZE(tcp);
		break;
	case IPPROTO_IP:
		v = ip, n = ARRAY_SIZE(ip);
		break;
	case IPPROTO_IPV6:
		v = ipv6, n = ARRAY_SIZE(ipv6);
		break;
	default:
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] == name)
			return true;
	return false;
}

static bool is_timeo(int level, int name, bool rcv)
{
	return level == SOL_SOCKET && (rcv ? name == SO_RCVTIMEO || name == SO_RCVTIMEO_NEW
					   : name == SO_SNDTIMEO || name == SO_SNDTIMEO_NEW);
}

/*
 * IP_RECVERR and IPV6_RECVERR (glibc's resolver sets one on every DNS
 * socket, and gives up if it fails) are kept by the sentry, not passed:
 * the host socket would queue ICMP errors for MSG_ERRQUEUE, which this
 * mode cannot read, and the queue would take the socket's receive buffer.
 */
static bool is_recverr(int level, int name)
{
	return (level == IPPROTO_IP && name == IP_RECVERR) ||
	       (level == IPPROTO_IPV6 && name == IPV6_RECVERR);
}

static int ih_setsockopt(struct socket *s, int level, int name, const void *val, unsigned len)
{
	struct inet_host *h = H(s);

	if (is_recverr(level, name)) {
		if (len < sizeof(int))
			return -EINVAL;
		memcpy(&h->recverr, val, sizeof(int));
		h->recverr = h->recverr != 0;
		return 0;
	}

	if (is_timeo(level, name, true))
		return sock_timeout_set(&h->rcvtimeo, val, len);
	if (is_timeo(level, name, false))
		return sock_timeout_set(&h->sndtimeo, val, len);
	if (!option_passed(level, name))
		return -ENOPROTOOPT;
	return setsockopt(h->fd, level, name, val, len) < 0 ? -errno : 0;
}

static int ih_getsockopt(struct socket *s, int level, int name, void *val, unsigned *len)
{
	struct inet_host *h = H(s);
	socklen_t n = *len;

	if (is_timeo(level, name, true) || is_timeo(level, name, false)) {
		struct timeval tv;
		sock_timeout_get(is_timeo(level, name, true) ? h->rcvtimeo : h->sndtimeo, &tv);
		*len = MIN(*len, (unsigned)sizeof(tv));
		memcpy(val, &tv, *len);
		return 0;
	}
	if (is_recverr(level, name)) {
		*len = MIN(*len, (unsigned)sizeof(int));
		memcpy(val, &h->recverr, *len);
		return 0;
	}
	if (!option_passed(level, name))
		return -ENOPROTOOPT;
	if (getsockopt(h->fd, level, name, val, &n) < 0)
		return -errno;
	*len = n;
	return 0;
}

static unsigned ih_poll(struct socket *s, struct poll_table *pt)
{
	return host_waitq_poll(&H(s)->hw, pt);
}

static long ih_inq(struct socket *s)
{
	int n;

	return ioctl(H(s)->fd, FIONREAD, &n) < 0 ? -errno : n;
}

static void ih_release(struct socket *s)
{
	struct inet_host *h = H(s);

	if (h->net) {
		pthread_mutex_lock(&h->net->socks_lock);
		list_del(&h->node);
		pthread_mutex_unlock(&h->net->socks_lock);
	}
	host_waitq_release(&h->hw);
	close(h->fd);
	free(h);
}

static const struct sock_ops inet_host_ops = {
	.family = AF_INET,
	.bind = ih_bind,
	.connect = ih_connect,
	.listen = ih_listen,
	.accept = ih_accept,
	.getname = ih_getname,
	.sendmsg = ih_sendmsg,
	.recvmsg = ih_recvmsg,
	.shutdown = ih_shutdown,
	.setsockopt = ih_setsockopt,
	.getsockopt = ih_getsockopt,
	.poll = ih_poll,
	.inq = ih_inq,
	.release = ih_release,
};

/* --- /proc/net ---------------------------------------------------------------------------- */

/* "ADDR:PORT" as Linux prints it: the address's raw 32-bit words in hex. */
static void proc_addr(struct strbuf *o, const struct sockaddr_storage *ss, socklen_t len)
{
	const struct sockaddr_in *in = (const void *)ss;
	const struct sockaddr_in6 *in6 = (const void *)ss;
	uint32_t w[4] = {0};

	if (ss->ss_family == AF_INET6 && len >= sizeof(*in6)) {
		memcpy(w, &in6->sin6_addr, 16);
		strbuf_printf(o, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3],
			      ntohs(in6->sin6_port));
	} else if (ss->ss_family == AF_INET && len >= sizeof(*in)) {
		strbuf_printf(o, "%08X:%04X", in->sin_addr.s_addr, ntohs(in->sin_port));
	} else {
		strbuf_printf(o, "%s:0000",
			      ss->ss_family == AF_INET6 ? "0000000000000000000000000000"
							  "0000"
							: "00000000");
	}
}

void inet_host_proc(struct kernel *k, int family, int type, struct strbuf *o)
{
	struct net_state *n = k->net;
	struct inet_host *h;
	int sl = 0;

	if (!n)
		return;
	pthread_mutex_lock(&n->socks_lock);
	list_for_each_entry(h, &n->socks, node) {
		struct sockaddr_storage local = {.ss_family = (sa_family_t)family},
					peer = {.ss_family = (sa_family_t)family};
		socklen_t llen = sizeof(local), plen = sizeof(peer);
		int rx = 0, tx = 0, state;
		struct tcp_info ti;
		socklen_t tl = sizeof(ti);

		if (h->family != family || h->s.type != type)
			continue;
		if (getsockname(h->fd, (struct sockaddr *)&local, &llen) < 0)
			llen = 0;
		if (getpeername(h->fd, (struct sockaddr *)&peer, &plen) < 0)
			plen = 0;
		if (type == SOCK_STREAM)
			state = getsockopt(h->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0
					? ti.tcpi_state
					: TCP_CLOSE;
		else
			state = plen ? TCP_ESTABLISHED : TCP_CLOSE;
		if (ioctl(h->fd, FIONREAD, &rx) < 0)
			rx = 0;
		if (ioctl(h->fd, TIOCOUTQ, &tx) < 0)
			tx = 0;
		strbuf_printf(o, "%4d: ", sl++);
		proc_addr(o, &local, llen);
		strbuf_printf(o, " ");
		proc_addr(o, &peer, plen);
		strbuf_printf(o,
			      " %02X %08X:%08X 00:00000000 00000000 %5u        0 %lu 1 "
			      "0000000000000000 100 0 0 10 0\n",
			      state, tx, rx, h->uid,
			      h->s.file && h->s.file->inode ? (unsigned long)h->s.file->inode->ino
							    : 0ul);
	}
	pthread_mutex_unlock(&n->socks_lock);
}
