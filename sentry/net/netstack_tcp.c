/*
 * TCP sockets of the user-space stack, over lwIP's raw API (tcp_*).
 *
 * lwIP's callbacks (core lock held) keep the socket's state: received
 * pbufs are queued on ns->rx until the guest reads them, and only then
 * does the window open again (tcp_recved), which is the receive buffer;
 * the send buffer is lwIP's (tcp_sndbuf, TCP_SND_BUF bytes), freed as the
 * peer acknowledges (the sent callback wakes writers). A connection's pcb
 * belongs to lwIP once its error callback ran (it was freed) or once the
 * socket is closed (its callbacks are cleared first).
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <lwip/tcp.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define IO_CHUNK 65535 /* bytes moved through the sentry per lock hold (lwIP counts in u16_t) */
#define EV_IN	 (POLLIN | POLLRDNORM)
#define EV_OUT	 (POLLOUT | POLLWRNORM | POLLWRBAND)
#define EV_ALL	 (EV_IN | EV_OUT | POLLHUP | POLLRDHUP | POLLERR)

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err);
static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len);
static void on_err(void *arg, err_t err);

/* --- lwIP's side --------------------------------------------------------------- */

static void set_callbacks(struct ns_sock *ns, struct tcp_pcb *pcb)
{
	tcp_arg(pcb, ns);
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
}

/* Detach pcb from its socket: no callback will name it again. */
static void clear_callbacks(struct tcp_pcb *pcb)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
}

int ns_tcp_new_pcb(struct ns_sock *ns)
{
	struct tcp_pcb *pcb = tcp_new_ip_type(ns_ip_type(ns));

	if (!pcb)
		return -ENOBUFS;
	ns->pcb.tcp = pcb;
	set_callbacks(ns, pcb);
	ns_apply_opts(ns);
	return 0;
}

static void note_addrs(struct ns_sock *ns, struct tcp_pcb *pcb)
{
	ip_addr_copy(ns->local_ip, pcb->local_ip);
	ns->local_port = pcb->local_port;
	ip_addr_copy(ns->remote_ip, pcb->remote_ip);
	ns->remote_port = pcb->remote_port;
	ns->has_peer = true;
	ns->bound = true;
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct ns_sock *ns = arg;

	if (!ns) {
		if (p)
			pbuf_free(p);
		return ERR_OK;
	}
	if (!p) {
		ns->rx_fin = true;
		ns_wake(ns, EV_IN | POLLRDHUP);
		return ERR_OK;
	}
	/* No room in the sandbox's memory: lwIP keeps the data and offers it
	 * again later (its refused data), as a full receive buffer would. */
	if (!ns_charge(ns, p->tot_len))
		return ERR_MEM;
	if (ns->rx)
		pbuf_cat(ns->rx, p);
	else
		ns->rx = p;
	ns->rx_len += p->tot_len;
	/* SO_TIMESTAMP's (below): data that came while it was off has none */
	if (ns->timestamp)
		clock_gettime(CLOCK_REALTIME, &ns->stamp);
	else
		ns->stamp = (struct timespec){0};
	ns_wake(ns, EV_IN);
	return ERR_OK;
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct ns_sock *ns = arg;

	if (ns) {
		size_t n = MIN((size_t)len, ns->tx_charged);
		ns->tx_charged -= n;
		ns_uncharge(ns, n);
		ns_wake(ns, EV_OUT);
	}
	return ERR_OK;
}

/* The pcb is gone (lwIP freed it): a reset, a timeout, or our own abort. */
static void on_err(void *arg, err_t err)
{
	struct ns_sock *ns = arg;

	if (!ns)
		return;
	ns->pcb.tcp = NULL;
	if (ns->state == NS_CONNECTING) {
		ns->err = err == ERR_RST ? ECONNREFUSED : ETIMEDOUT;
		ns->state = NS_FAILED;
	} else {
		if (err == ERR_RST)
			ns->err = ECONNRESET;
		else if (err == ERR_ABRT)
			ns->err = ETIMEDOUT;
		else if (err != ERR_CLSD)
			ns->err = -ns_errno(err);
		ns->reset = true;
		if (ns->state == NS_CONNECTED)
			ns->state = NS_CLOSED;
	}
	ns_wake(ns, EV_ALL);
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct ns_sock *ns = arg;

	if (!ns)
		return ERR_OK;
	ns->state = NS_CONNECTED;
	note_addrs(ns, pcb);
	ns_wake(ns, EV_OUT);
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *newpcb, err_t err)
{
	struct ns_sock *l = arg, *ns;

	if (err != ERR_OK || !newpcb)
		return ERR_VAL;
	if (!l || l->acc_count > l->backlog) {
		/* The queue is full (Linux would drop the handshake's ACK; the
		 * connection is refused instead). */
		tcp_abort(newpcb);
		return ERR_ABRT;
	}
	ns = ns_sock_new(l->family, SOCK_STREAM, IPPROTO_TCP);
	ns->v6only = l->v6only;
	ns->reuseaddr = l->reuseaddr; /* the port's sharing rules name them */
	ns->reuseport = l->reuseport;
	ns->nodelay = l->nodelay;
	ns->keepalive = l->keepalive;
	ns->keepidle = l->keepidle;
	ns->keepintvl = l->keepintvl;
	ns->keepcnt = l->keepcnt;
	ns->sndbuf = l->sndbuf;
	ns->rcvbuf = l->rcvbuf;
	ns->linger_onoff = l->linger_onoff;
	ns->linger_secs = l->linger_secs;
	ns->tos = l->tos;
	ns->ttl = l->ttl;
	ns_inherit_opts(ns, l);
	ns->state = NS_CONNECTED;
	ns->pcb.tcp = newpcb;
	set_callbacks(ns, newpcb);
	ns_apply_opts(ns);
	note_addrs(ns, newpcb);
	list_add_tail(&ns->acc_link, &l->accq);
	l->acc_count++;
	ns_wake(l, EV_IN);
	return ERR_OK;
}

/* --- connection ---------------------------------------------------------------------------- */

/* Wait for the connection attempt to end (core lock held). */
static int wait_connected(struct ns_sock *ns, bool nonblock)
{
	struct sock_timeo to = sock_timeo_start(ns->sndtimeo, nonblock);
	int ret;

	while (ns->state == NS_CONNECTING) {
		ret = ns_wait(ns, &to);
		if (ret == -EAGAIN)
			return -EINPROGRESS;
		if (ret < 0)
			return ret;
	}
	if (ns->state == NS_FAILED) {
		ns->state = NS_CLOSED;
		ret = ns_take_error(ns);
		return ret ? ret : -ECONNABORTED;
	}
	return 0;
}

static int tcp_connect_op(struct socket *s, const void *addr, int len, bool nonblock)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip;
	uint16_t port;
	bool unspec;
	int ret = ns_addr_dest(ns, addr, len, &ip, &port, &unspec);
	err_t e;

	if (ret < 0 && !unspec)
		return ret;
	ns_lock();
	switch (ns->state) {
	case NS_CONNECTED:
		ret = -EISCONN;
		goto out;
	case NS_LISTEN:
		ret = -EISCONN;
		goto out;
	case NS_CONNECTING:
		ret = nonblock ? -EALREADY : wait_connected(ns, false);
		goto out;
	case NS_FAILED:
		ns->state = NS_CLOSED;
		ret = ns_take_error(ns);
		if (!ret)
			ret = -ECONNABORTED;
		goto out;
	case NS_CLOSED:
		break;
	}
	if (unspec) {
		ret = 0; /* disconnecting a closed socket */
		goto out;
	}
	if (ns->reset || ns->rx_fin || ns->shutdown) {
		ret = -EISCONN; /* the connection ended; the socket is not reused */
		goto out;
	}
	if (!ns->pcb.tcp) {
		ret = ns_tcp_new_pcb(ns);
		if (ret < 0)
			goto out;
	}
	ns->err = 0;
	e = tcp_connect(ns->pcb.tcp, &ip, port, on_connected);
	if (e != ERR_OK) {
		ret = e == ERR_BUF ? -EADDRNOTAVAIL : ns_errno(e);
		goto out;
	}
	ns->state = NS_CONNECTING;
	ip_addr_copy(ns->local_ip, ns->pcb.tcp->local_ip);
	ns->local_port = ns->pcb.tcp->local_port;
	ns->bound = true;
	ret = wait_connected(ns, nonblock);
out:
	ns_unlock();
	return ret;
}

static int tcp_listen_op(struct socket *s, int backlog)
{
	struct ns_sock *ns = NS(s);
	struct tcp_pcb *lpcb;
	err_t e = ERR_OK;
	int ret = 0;

	if (backlog < 0)
		backlog = 0;
	ns_lock();
	if (ns->state == NS_LISTEN) {
		ns->backlog = backlog;
		goto out;
	}
	if (ns->state != NS_CLOSED || ns->reset || ns->rx_fin || (!ns->pcb.tcp && ns->bound)) {
		ret = -EINVAL;
		goto out;
	}
	if (!ns->bound) {
		ip_addr_t any;
		if (ns->family == AF_INET6 && !ns->v6only)
			ip_addr_copy(any, *IP_ANY_TYPE);
		else
			ip_addr_set_any(ns->family == AF_INET6, &any);
		ret = ns_bind_locked(ns, &any, 0);
		if (ret < 0)
			goto out;
	}
	/* Linux checks again: another socket may have begun to listen. */
	if (ns_tcp_port_conflict(ns, &ns->local_ip, ns->local_port)) {
		ret = -EADDRINUSE;
		goto out;
	}
	lpcb = tcp_listen_with_backlog_and_err(ns->pcb.tcp, (u8_t)MIN(backlog, 255), &e);
	if (!lpcb) {
		ret = e == ERR_USE ? -EADDRINUSE : ns_errno(e);
		goto out;
	}
	/* lwIP freed the pcb and made a smaller listening one. */
	ns->pcb.tcp = lpcb;
	tcp_arg(lpcb, ns);
	tcp_accept(lpcb, on_accept);
	ns->backlog = backlog;
	ns->state = NS_LISTEN;
out:
	ns_unlock();
	return ret;
}

static int tcp_accept_op(struct socket *s, bool nonblock, struct socket **out)
{
	struct ns_sock *ns = NS(s), *c;
	struct sock_timeo to = sock_timeo_start(ns->rcvtimeo, nonblock);
	int ret = 0;

	ns_lock();
	while (list_empty(&ns->accq)) {
		if (ns->state != NS_LISTEN) {
			ret = -EINVAL;
			goto out;
		}
		ret = ns_wait(ns, &to);
		if (ret < 0)
			goto out;
	}
	c = list_first_entry(&ns->accq, struct ns_sock, acc_link);
	list_del_init(&c->acc_link);
	ns->acc_count--;
	*out = &c->sock;
out:
	ns_unlock();
	return ret;
}

static int tcp_shutdown_op(struct socket *s, int how)
{
	struct ns_sock *ns = NS(s);
	int ret = 0;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	ns_lock();
	if (ns->state == NS_LISTEN) {
		/* Linux closes the listener on SHUT_RD; keep it simple: it stops
		 * taking connections. */
		if (how != SHUT_WR) {
			ns->shutdown |= SOCK_RCV_SHUTDOWN;
			ns_wake(ns, EV_ALL);
		}
		goto out;
	}
	if (ns->state != NS_CONNECTED && !(ns->state == NS_CLOSED && (ns->reset || ns->rx_fin))) {
		ret = -ENOTCONN;
		goto out;
	}
	if (how != SHUT_WR)
		ns->shutdown |= SOCK_RCV_SHUTDOWN;
	if (how != SHUT_RD && !(ns->shutdown & SOCK_SEND_SHUTDOWN)) {
		ns->shutdown |= SOCK_SEND_SHUTDOWN;
		if (ns->pcb.tcp) {
			tcp_shutdown(ns->pcb.tcp, 0, 1);
			tcp_output(ns->pcb.tcp);
		}
	}
	ns_wake(ns, EV_ALL);
out:
	ns_unlock();
	return ret;
}

/* --- data -------------------------------------------------------------------------------------- */

/* Give n read bytes back to the window (core lock held). */
static void consume(struct ns_sock *ns, size_t n)
{
	while (n) {
		size_t k = MIN(n, (size_t)0xffff);
		ns->rx = pbuf_free_header(ns->rx, (u16_t)k);
		ns->rx_len -= k;
		ns_uncharge(ns, k);
		if (ns->pcb.tcp)
			tcp_recved(ns->pcb.tcp, (u16_t)k);
		n -= k;
	}
}

/*
 * tcp_recvmsg's control messages: with SO_TIMESTAMP(NS), when data was
 * read, the time the latest data arrived (tcp_recv_timestamp gives the
 * last segment read's; none for data that came untimed); with TCP_INQ, the bytes left to read (1 at the
 * end of the stream, as tcp_inq_hint). Core lock held.
 */
static void tcp_recv_cmsgs(struct ns_sock *ns, struct sock_msg *m, size_t copied)
{
	int inq;

	if (!copied || !ns->stamp.tv_sec) {
		/* nothing read, or it came untimed */
	} else if (ns->timestamp == 1) {
		struct timeval tv = {ns->stamp.tv_sec, ns->stamp.tv_nsec / 1000};
		ns_put_cmsg(&m->scm, SOL_SOCKET, SCM_TIMESTAMP, &tv, sizeof(tv));
	} else if (ns->timestamp == 2) {
		ns_put_cmsg(&m->scm, SOL_SOCKET, SCM_TIMESTAMPNS, &ns->stamp, sizeof(ns->stamp));
	}
	if (ns->inq) {
		inq = (int)MIN(ns->rx_len, (size_t)INT32_MAX);
		if (!inq && (ns->rx_fin || (ns->shutdown & SOCK_RCV_SHUTDOWN)))
			inq = 1;
		ns_put_cmsg(&m->scm, IPPROTO_TCP, TCP_CM_INQ, &inq, sizeof(inq));
	}
}

static long tcp_recvmsg_op(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	bool peek = m->flags & MSG_PEEK, waitall = (m->flags & MSG_WAITALL) && !peek;
	bool trunc = m->flags & MSG_TRUNC;
	size_t want = m->iter.count, copied = 0;
	struct sock_timeo to = sock_timeo_start(ns->rcvtimeo, m->flags & MSG_DONTWAIT);
	char *buf = NULL;
	long ret = 0;

	if (m->flags & MSG_OOB)
		return -EINVAL; /* no urgent data is ever kept */
	pthread_mutex_lock(&ns->rlock);
	ns_lock();
	if (ns->state == NS_LISTEN ||
	    (ns->state == NS_CLOSED && !ns->reset && !ns->rx_fin && !ns->rx_len)) {
		ret = -ENOTCONN;
		goto out;
	}
	if (want == 0)
		goto out;
	while (copied < want) {
		if (ns->rx_len > 0) {
			size_t n = MIN(MIN(ns->rx_len, want - copied), (size_t)IO_CHUNK);
			bool fault = false;
			if (peek)
				n = MIN(ns->rx_len - MIN(ns->rx_len, copied), want - copied);
			if (n == 0)
				break;
			if (!trunc) {
				if (!buf)
					buf = xmalloc(IO_CHUNK);
				n = MIN(n, (size_t)IO_CHUNK);
				pbuf_copy_partial(ns->rx, buf, (u16_t)n,
						  (u16_t)(peek ? copied : 0));
				ns_unlock();
				size_t got = msg_iter_copy_out(&m->iter, buf, n, &fault);
				ns_lock();
				if (!peek)
					consume(ns, got);
				copied += got;
				if (fault) {
					if (!copied)
						ret = -EFAULT;
					break;
				}
			} else {
				if (!peek)
					consume(ns, n);
				copied += n;
			}
			if (peek && copied >= ns->rx_len)
				break;
			continue;
		}
		if (copied && !waitall)
			break;
		if (ns->reset || ns->err) {
			if (!copied)
				ret = ns_take_error(ns);
			break;
		}
		if (ns->rx_fin || (ns->shutdown & SOCK_RCV_SHUTDOWN))
			break;
		/* a refused or timed-out connect: tcp_done shut the socket down,
		 * so once the error is taken, reads end at once */
		if (ns->state == NS_FAILED)
			break;
		if (ns->state != NS_CONNECTED) {
			if (!copied)
				ret = -ENOTCONN;
			break;
		}
		ret = ns_wait(ns, &to);
		if (ret < 0) {
			if (copied)
				ret = 0;
			break;
		}
	}
	if (ret >= 0)
		tcp_recv_cmsgs(ns, m, copied);
out:
	ns_unlock();
	pthread_mutex_unlock(&ns->rlock);
	free(buf);
	return copied ? (long)copied : ret;
}

/* Room for more in lwIP's send queue (core lock held). */
static size_t send_room(struct tcp_pcb *pcb)
{
	if (tcp_sndqueuelen(pcb) >= TCP_SND_QUEUELEN - 1)
		return 0;
	return tcp_sndbuf(pcb);
}

static long tcp_sendmsg_op(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	struct sock_timeo to = sock_timeo_start(ns->sndtimeo, m->flags & MSG_DONTWAIT);
	size_t total = m->iter.count, sent = 0;
	char *buf = NULL;
	long ret = 0;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP; /* urgent data: not done */
	pthread_mutex_lock(&ns->wlock);
	ns_lock();
	if (ns->state == NS_CONNECTING) {
		ret = wait_connected(ns, m->flags & MSG_DONTWAIT);
		if (ret == -EINPROGRESS)
			ret = -EAGAIN;
		if (ret < 0)
			goto out;
	}
	while (sent < total || total == 0) {
		size_t chunk, done = 0;
		bool fault = false;

		if (ns->err && ns->reset) {
			ret = ns_take_error(ns);
			break;
		}
		if ((ns->shutdown & SOCK_SEND_SHUTDOWN) || ns->reset || ns->state != NS_CONNECTED ||
		    !ns->pcb.tcp) {
			ret = -EPIPE;
			break;
		}
		if (total == 0)
			break;
		if (send_room(ns->pcb.tcp) == 0) {
			tcp_output(ns->pcb.tcp);
			ret = ns_wait(ns, &to);
			if (ret < 0)
				break;
			continue;
		}
		chunk = MIN(MIN(total - sent, send_room(ns->pcb.tcp)), (size_t)IO_CHUNK);
		if (!buf)
			buf = xmalloc(IO_CHUNK);
		ns_unlock();
		chunk = msg_iter_copy_in(&m->iter, buf, chunk, &fault);
		ns_lock();
		while (done < chunk) {
			size_t n;
			err_t e;
			if (!ns->pcb.tcp || ns->reset) {
				ret = ns->err ? ns_take_error(ns) : -EPIPE;
				break;
			}
			n = MIN(chunk - done, send_room(ns->pcb.tcp));
			if (n == 0) {
				tcp_output(ns->pcb.tcp);
				ret = ns_wait(ns, &to);
				if (ret < 0)
					break;
				continue;
			}
			/* Queued data is charged until acknowledged. With none in
			 * flight, no acknowledgement will make room: ENOBUFS. */
			if (!ns_charge(ns, n)) {
				if (!ns->tx_charged) {
					ret = -ENOBUFS;
					break;
				}
				tcp_output(ns->pcb.tcp);
				ret = ns_wait(ns, &to);
				if (ret < 0)
					break;
				continue;
			}
			e = tcp_write(ns->pcb.tcp, buf + done, (u16_t)n,
				      TCP_WRITE_FLAG_COPY |
					      (m->flags & MSG_MORE ? TCP_WRITE_FLAG_MORE : 0));
			if (e == ERR_OK)
				ns->tx_charged += n;
			else
				ns_uncharge(ns, n);
			if (e == ERR_MEM) {
				tcp_output(ns->pcb.tcp);
				ret = ns_wait(ns, &to);
				if (ret < 0)
					break;
				continue;
			}
			if (e != ERR_OK) {
				ret = ns_errno(e);
				break;
			}
			done += n;
		}
		sent += done;
		if (ns->pcb.tcp && !ns->cork)
			tcp_output(ns->pcb.tcp);
		if (ret < 0)
			break;
		if (fault) {
			ret = -EFAULT;
			break;
		}
	}
out:
	if (ret == -EPIPE && !sent)
		sock_sigpipe(m);
	ns_unlock();
	pthread_mutex_unlock(&ns->wlock);
	free(buf);
	return sent ? (long)sent : ret;
}

/* --- readiness ----------------------------------------------------------------------------------- */

static unsigned tcp_poll_op(struct socket *s, struct poll_table *pt)
{
	struct ns_sock *ns = NS(s);
	unsigned mask = 0;
	bool rd_closed, wr_closed;

	poll_wait(pt, &ns->wq);
	ns_lock();
	if (ns->state == NS_LISTEN) {
		if (!list_empty(&ns->accq))
			mask |= EV_IN;
		goto out;
	}
	if (ns->err)
		mask |= POLLERR;
	rd_closed = ns->rx_fin || ns->reset || (ns->shutdown & SOCK_RCV_SHUTDOWN);
	wr_closed = ns->reset || (ns->shutdown & SOCK_SEND_SHUTDOWN);
	if ((rd_closed && wr_closed) || ns->state == NS_CLOSED || ns->state == NS_FAILED)
		mask |= POLLHUP;
	if (ns->state == NS_CONNECTING)
		goto out;
	if (rd_closed)
		mask |= EV_IN | POLLRDHUP;
	if (ns->rx_len)
		mask |= EV_IN;
	if (wr_closed || !ns->pcb.tcp || ns->state != NS_CONNECTED ||
	    send_room(ns->pcb.tcp) >= TCP_SND_BUF / 4)
		mask |= POLLOUT | POLLWRNORM;
out:
	ns_unlock();
	return mask;
}

static long tcp_inq_op(struct socket *s)
{
	struct ns_sock *ns = NS(s);
	long n;

	ns_lock();
	n = ns->state == NS_LISTEN ? -EINVAL : (long)ns->rx_len;
	ns_unlock();
	return n;
}

/* --- closing ------------------------------------------------------------------------------------- */

/* End ns's connection and free it (core lock held). A close with unread
 * data, or with SO_LINGER set to 0, resets the connection as Linux does. */
static void tcp_destroy_locked(struct ns_sock *ns)
{
	struct tcp_pcb *pcb = ns->pcb.tcp;

	if (ns->state == NS_LISTEN) {
		while (!list_empty(&ns->accq)) {
			struct ns_sock *c = list_first_entry(&ns->accq, struct ns_sock, acc_link);
			list_del_init(&c->acc_link);
			c->linger_onoff = 1;
			c->linger_secs = 0;
			tcp_destroy_locked(c);
		}
		if (pcb) {
			tcp_arg(pcb, NULL);
			tcp_accept(pcb, NULL);
			tcp_close(pcb);
		}
	} else if (pcb) {
		clear_callbacks(pcb);
		if (ns->rx_len || (ns->linger_onoff && ns->linger_secs == 0)) {
			tcp_abort(pcb);
		} else if (tcp_close(pcb) != ERR_OK) {
			tcp_abort(pcb); /* no memory for the FIN */
		} else {
			tcp_output(pcb);
		}
	}
	ns->pcb.tcp = NULL;
	if (ns->rx)
		pbuf_free(ns->rx);
	ns->rx = NULL;
	ns_sock_free(ns);
}

static void tcp_release_op(struct socket *s)
{
	ns_lock();
	tcp_destroy_locked(NS(s));
	ns_unlock();
}

#define TCP_OPS(fam)                                                                               \
	{                                                                                          \
		.family = fam, .bind = ns_bind_op, .connect = tcp_connect_op,                      \
		.listen = tcp_listen_op, .accept = tcp_accept_op, .getname = ns_getname,           \
		.sendmsg = tcp_sendmsg_op, .recvmsg = tcp_recvmsg_op, .shutdown = tcp_shutdown_op, \
		.setsockopt = ns_setsockopt, .getsockopt = ns_getsockopt, .poll = tcp_poll_op,     \
		.ioctl = ns_ioctl, .inq = tcp_inq_op, .release = tcp_release_op,                   \
	}

const struct sock_ops ns_tcp_ops[2] = {TCP_OPS(AF_INET), TCP_OPS(AF_INET6)};
