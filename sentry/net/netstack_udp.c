/*
 * UDP sockets of the user-space stack, over lwIP's raw API (udp_*).
 * Received datagrams wait on the socket with their source until read,
 * within the receive buffer (SO_RCVBUF); the rest are dropped, as Linux
 * drops them. lwIP does not pass ICMP errors to UDP: a connected socket
 * never learns of ECONNREFUSED.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <lwip/ip.h>
#include <lwip/netif.h>
#include <lwip/udp.h>

#include <errno.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define EV_IN		 (POLLIN | POLLRDNORM)
#define EV_OUT		 (POLLOUT | POLLWRNORM | POLLWRBAND)
#define UDP_MAX_PAYLOAD	 65507 /* 65535 - IPv4 and UDP headers */
#define UDP6_MAX_PAYLOAD 65527
#define DGRAM_OVERHEAD	 768 /* what a queued datagram costs beyond its data */

void ns_dgram_add(struct ns_sock *ns, struct pbuf *p, const struct ns_dgram *meta)
{
	struct ns_dgram *d;

	if (!ns_charge(ns, p->tot_len + DGRAM_OVERHEAD)) {
		pbuf_free(p);
		return;
	}
	d = xmalloc(sizeof(*d));
	*d = *meta;
	d->p = p;
	clock_gettime(CLOCK_REALTIME, &d->ts);
	list_add_tail(&d->link, &ns->dgrams);
	ns->rx_len += p->tot_len + DGRAM_OVERHEAD;
	ns_wake(ns, EV_IN);
}

size_t ns_dgram_cost(const struct pbuf *p)
{
	return p->tot_len + DGRAM_OVERHEAD;
}

void ns_dgram_queue(struct ns_sock *ns, struct pbuf *p, const ip_addr_t *addr, uint16_t port)
{
	struct ns_dgram d = {.port = port};

	/* Dropped, as Linux drops them, when the receive buffer is already
	 * past full (__udp_enqueue_schedule_skb: one datagram may take it
	 * past SO_RCVBUF, so an empty buffer takes any; ping sockets'
	 * sock_queue_rcv_skb stops at full) or past the sandbox's memory. */
	if ((ns->shutdown & SOCK_RCV_SHUTDOWN) ||
	    (ns->protocol == IPPROTO_UDP ? ns->rx_len > (size_t)ns->rcvbuf
					 : ns->rx_len >= (size_t)ns->rcvbuf)) {
		pbuf_free(p);
		return;
	}
	ip_addr_copy(d.addr, *addr);
	/* Called from lwIP's input: the packet's header is at hand. */
	ip_addr_copy(d.dst, *ip_current_dest_addr());
	d.v4 = !ip_current_is_v6();
	if (!d.v4) {
		d.tos = (uint8_t)IP6H_TC(ip6_current_header());
		d.ttl = (uint8_t)IP6H_HOPLIM(ip6_current_header());
	} else {
		d.tos = (uint8_t)IPH_TOS(ip4_current_header());
		d.ttl = (uint8_t)IPH_TTL(ip4_current_header());
	}
	d.ifindex = ns_ifindex(ip_current_input_netif());
	d.dport = ns->sock.type == SOCK_DGRAM && ns->protocol == IPPROTO_UDP && ns->pcb.udp
			  ? ns->pcb.udp->local_port
			  : 0;
	ns_dgram_add(ns, p, &d);
}

void ns_dgram_flush(struct ns_sock *ns)
{
	while (!list_empty(&ns->dgrams)) {
		struct ns_dgram *d = list_first_entry(&ns->dgrams, struct ns_dgram, link);
		list_del(&d->link);
		pbuf_free(d->p);
		free(d);
	}
	ns_uncharge(ns, ns->rx_len);
	ns->rx_len = 0;
}

/* udp_queue_rcv_one_skb's sk_filter_trim_cap: the program sees the UDP
 * header and the payload; false drops the datagram, else p is cut to what
 * it keeps. */
static bool udp_filter(struct ns_sock *ns, struct pbuf *p)
{
	size_t len = (size_t)p->tot_len + UDP_HLEN, keep;
	unsigned char *buf;

	if (pbuf_add_header(p, UDP_HLEN)) /* lwIP took the header off in front */
		return true;
	buf = xmalloc(len);
	pbuf_copy_partial(p, buf, (u16_t)len, 0);
	pbuf_remove_header(p, UDP_HLEN);
	keep = ns_filter_run(ns, buf, len, UDP_HLEN);
	free(buf);
	if (keep == 0)
		return false;
	if (keep < len)
		pbuf_realloc(p, (u16_t)(keep - UDP_HLEN));
	return true;
}

static void on_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
		    u16_t port)
{
	struct ns_sock *ns = arg;

	if (ns && (!ns->filter || udp_filter(ns, p)))
		ns_dgram_queue(ns, p, addr, port);
	else
		pbuf_free(p);
}

int ns_udp_new_pcb(struct ns_sock *ns)
{
	struct udp_pcb *pcb = udp_new_ip_type(ns_ip_type(ns));

	if (!pcb)
		return -ENOBUFS;
	ns->pcb.udp = pcb;
	udp_recv(pcb, on_recv, ns);
	ns_icmp_track(ns);
	ns_apply_opts(ns);
	return 0;
}

/* A wildcard binding for an unbound socket, or one to the address bind()
 * chose before a disconnect gave up the port (core lock held). */
static int autobind(struct ns_sock *ns)
{
	ip_addr_t any;

	if (ns->bound)
		return 0;
	if (ns->bind_addr_lock)
		ip_addr_copy(any, ns->local_ip);
	else if (ns->family == AF_INET6 && !ns->v6only)
		ip_addr_copy(any, *IP_ANY_TYPE);
	else
		ip_addr_set_any(ns->family == AF_INET6, &any);
	return ns_bind_locked(ns, &any, 0);
}

/*
 * An AF_INET address given to an AF_INET6 socket's connect or sendto: UDP
 * takes it as the v4-mapped one (Linux's __ip6_datagram_connect and
 * udpv6_sendmsg hand it to the IPv4 code), unless the socket is v6-only
 * (v6only_err then). 1 when addr was one, 0 when not, or -errno.
 */
static int v4_on_v6(const struct ns_sock *ns, const void *addr, int len, int v6only_err,
		    ip_addr_t *ip, uint16_t *port)
{
	struct sockaddr_in sin;
	sa_family_t fam;

	if (ns->family != AF_INET6 || len < (int)sizeof(fam))
		return 0;
	memcpy(&fam, addr, sizeof(fam));
	if (fam != AF_INET)
		return 0;
	if (ns->v6only)
		return -v6only_err;
	if (len < (int)sizeof(sin))
		return -EINVAL;
	memcpy(&sin, addr, sizeof(sin));
	ip_addr_set_ip4_u32_val(*ip, sin.sin_addr.s_addr);
	if (ip_addr_isany(ip))
		ip_addr_set_loopback(false, ip);
	*port = ntohs(sin.sin_port);
	return 1;
}

/*
 * connect(AF_UNSPEC), as Linux's __udp_disconnect: no peer; the local
 * address goes back to the wildcard unless bind() chose one, and the port
 * is given up unless bind() chose one (core lock held).
 */
static int udp_disconnect_locked(struct ns_sock *ns)
{
	ns->has_peer = false;
	ns->state = NS_CLOSED;
	ns->bound_dev[0] = '\0'; /* and SO_BINDTODEVICE's interface */
	if (!ns->pcb.udp)
		return 0;
	udp_disconnect(ns->pcb.udp);
	ns_apply_opts(ns);
	if (!ns->bind_addr_lock) {
		ip_addr_set_any(ns->family == AF_INET6, &ns->local_ip);
		if (ns->family == AF_INET6 && !ns->v6only)
			ip_addr_copy(ns->local_ip, *IP_ANY_TYPE);
		ip_addr_copy(ns->pcb.udp->local_ip, ns->local_ip);
	}
	if (!ns->bind_port_lock && ns->bound) {
		/* lwIP cannot unbind a pcb: a new one, with the options */
		udp_remove(ns->pcb.udp);
		ns->pcb.udp = NULL;
		ns_icmp_untrack(ns);
		ns->bound = false;
		ns->local_port = 0;
		return ns_udp_new_pcb(ns);
	}
	return 0;
}

static int udp_connect_op(struct socket *s, const void *addr, int len, bool nonblock)
{
	struct ns_sock *ns = NS(s);
	ip_addr_t ip, src;
	uint16_t port;
	bool unspec = false;
	struct netif *n;
	int ret = v4_on_v6(ns, addr, len, EAFNOSUPPORT, &ip, &port);

	if (ret == 0)
		ret = ns_addr_dest(ns, addr, len, &ip, &port, &unspec);
	if (ret < 0 && !unspec)
		return ret;
	ns_lock();
	if (unspec) {
		ret = udp_disconnect_locked(ns);
		goto out;
	}
	ret = autobind(ns);
	if (ret == 0)
		ret = ns_errno(udp_connect(ns->pcb.udp, &ip, port));
	if (ret == 0) {
		ip_addr_copy(ns->remote_ip, ip);
		ns->remote_port = port;
		ns->has_peer = true;
		ns->state = NS_CONNECTED;
		/* ip4_datagram_connect: a wildcard local address becomes the
		 * source the route gives (getsockname shows it) */
		if (!ns->bind_addr_lock && ns_route_source(ns, &ip, &src, &n))
			ip_addr_copy(ns->pcb.udp->local_ip, src);
		ip_addr_copy(ns->local_ip, ns->pcb.udp->local_ip);
	}
out:
	ns_unlock();
	return ret;
}

bool ns_addr_broadcast(const ip_addr_t *ip)
{
	struct netif *n;

	if (!IP_IS_V4(ip))
		return false;
	if (ip4_addr_get_u32(ip_2_ip4(ip)) == IPADDR_BROADCAST)
		return true;
	NETIF_FOREACH(n)
	{
		if (ip4_addr_isbroadcast(ip_2_ip4(ip), n))
			return true;
	}
	return false;
}

static long udp_sendmsg_op(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	size_t len = m->iter.count;
	ip_addr_t ip;
	uint16_t port;
	struct pbuf *p;
	bool fault = false, to_addr;
	long ret;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	ret = m->namelen > 0 ? v4_on_v6(ns, m->name, m->namelen, ENETUNREACH, &ip, &port) : 0;
	to_addr = ret == 1;
	if (ret == 0)
		ret = ns_msg_dest(ns, m, &ip, &port, &to_addr);
	if (ret < 0)
		return ret;
	if (to_addr && port == 0)
		return -EINVAL;
	if (len > (ns->family == AF_INET ? UDP_MAX_PAYLOAD : UDP6_MAX_PAYLOAD))
		return -EMSGSIZE;
	p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
	if (!p)
		return -ENOBUFS;
	/* A PBUF_RAM pbuf is one piece. */
	if (len && msg_iter_copy_in(&m->iter, p->payload, len, &fault) != len) {
		pbuf_free(p);
		return -EFAULT;
	}
	ns_lock();
	/* sock_alloc_send_skb: a pending error (an ICMP error's) first */
	if (ns->err) {
		ret = ns_take_error(ns);
		goto out;
	}
	if (ns->shutdown & SOCK_SEND_SHUTDOWN) {
		ret = -EPIPE;
		goto out;
	}
	if (!to_addr && !ns->has_peer) {
		ret = -EDESTADDRREQ;
		goto out;
	}
	if (to_addr && ns_addr_broadcast(&ip) && !ns->broadcast) {
		ret = -EACCES;
		goto out;
	}
	ret = autobind(ns);
	if (ret < 0)
		goto out;
	ns_apply_msg_opts(ns, &m->scm);
	/* before lwIP puts its headers in front of the data */
	ns_errq_note_send(ns, to_addr ? &ip : &ns->remote_ip, to_addr ? port : ns->remote_port,
			  p->payload, len);
	ret = ns_errno(to_addr ? udp_sendto(ns->pcb.udp, p, &ip, port) : udp_send(ns->pcb.udp, p));
	ns_apply_opts(ns);
	if (ret == 0)
		ret = (long)len;
out:
	ns_unlock();
	pbuf_free(p);
	if (ret == -EPIPE)
		sock_sigpipe(m);
	return ret;
}

void ns_put_cmsg(struct scm *scm, int level, int type, const void *data, size_t len)
{
	struct cmsghdr h = {.cmsg_len = CMSG_LEN(len), .cmsg_level = level, .cmsg_type = type};

	if (scm->inet_len + CMSG_SPACE(len) > sizeof(scm->inet))
		return;
	memset(scm->inet + scm->inet_len, 0, CMSG_SPACE(len));
	memcpy(scm->inet + scm->inet_len, &h, sizeof(h));
	memcpy(scm->inet + scm->inet_len + sizeof(h), data, len);
	scm->inet_len += CMSG_SPACE(len);
}

/* The control messages the socket's options ask for, in Linux's order:
 * the timestamp (sock_recv_timestamp), then ip_cmsg_recv's or
 * ip6_datagram_recv_ctl's (core lock held). */
static void dgram_meta(struct ns_sock *ns, const struct ns_dgram *d, struct scm *scm)
{
	int i;

	if (ns->timestamp == 1) {
		struct timeval tv = {d->ts.tv_sec, d->ts.tv_nsec / 1000};
		ns_put_cmsg(scm, SOL_SOCKET, SCM_TIMESTAMP, &tv, sizeof(tv));
	} else if (ns->timestamp == 2) {
		ns_put_cmsg(scm, SOL_SOCKET, SCM_TIMESTAMPNS, &d->ts, sizeof(d->ts));
	}
	if (ns->family == AF_INET6 && ns->recvpktinfo6) {
		struct in6_pktinfo pi = {.ipi6_ifindex = (unsigned)d->ifindex};
		struct sockaddr_storage ss;
		ns_addr_out(ns, &d->dst, 0, &ss);
		pi.ipi6_addr = ((struct sockaddr_in6 *)&ss)->sin6_addr;
		ns_put_cmsg(scm, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	}
	if (d->v4) { /* also on an AF_INET6 socket, as ip6_datagram_recv_ctl */
		if (ns->pktinfo) {
			struct in_pktinfo pi = {.ipi_ifindex = d->ifindex};
			pi.ipi_spec_dst.s_addr = ip_2_ip4(&d->dst)->addr;
			pi.ipi_addr.s_addr = ip_2_ip4(&d->dst)->addr;
			ns_put_cmsg(scm, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
		}
		if (ns->recvttl) {
			i = d->ttl;
			ns_put_cmsg(scm, IPPROTO_IP, IP_TTL, &i, sizeof(i));
		}
		if (ns->recvtos)
			ns_put_cmsg(scm, IPPROTO_IP, IP_TOS, &d->tos, 1);
		if (ns->origdst) {
			struct sockaddr_in sin = {.sin_family = AF_INET,
						  .sin_port = htons(d->dport)};
			sin.sin_addr.s_addr = ip_2_ip4(&d->dst)->addr;
			ns_put_cmsg(scm, IPPROTO_IP, IP_ORIGDSTADDR, &sin, sizeof(sin));
		}
		return;
	}
	if (ns->recvhoplimit6) {
		i = d->ttl;
		ns_put_cmsg(scm, IPPROTO_IPV6, IPV6_HOPLIMIT, &i, sizeof(i));
	}
	if (ns->recvtclass6) {
		i = d->tos;
		ns_put_cmsg(scm, IPPROTO_IPV6, IPV6_TCLASS, &i, sizeof(i));
	}
	if (ns->origdst6) {
		struct sockaddr_storage ss;
		ns_addr_out(ns, &d->dst, d->dport, &ss);
		ns_put_cmsg(scm, IPPROTO_IPV6, IPV6_ORIGDSTADDR, &ss, sizeof(struct sockaddr_in6));
	}
}

long ns_dgram_recvmsg(struct socket *s, struct sock_msg *m)
{
	struct ns_sock *ns = NS(s);
	struct sock_timeo to = sock_timeo_start(ns->rcvtimeo, m->flags & MSG_DONTWAIT);
	struct ns_dgram *d;
	size_t n, dlen;
	char *buf;
	bool fault = false;
	ip_addr_t from;
	uint16_t port;
	long ret;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (m->flags & MSG_ERRQUEUE)
		return ns_errq_recv(ns, m);
	pthread_mutex_lock(&ns->rlock);
	ns_lock();
	for (;;) {
		if (ns->err) {
			ret = ns_take_error(ns);
			goto fail;
		}
		if (!list_empty(&ns->dgrams))
			break;
		/* Linux's __skb_recv_datagram: a non-blocking read finds
		 * nothing (EAGAIN) before it looks at the shutdown */
		if ((ns->shutdown & SOCK_RCV_SHUTDOWN) && !to.none_left) {
			ret = 0;
			goto fail;
		}
		ret = ns_wait(ns, &to);
		if (ret < 0)
			goto fail;
	}
	d = list_first_entry(&ns->dgrams, struct ns_dgram, link);
	dlen = d->p->tot_len;
	n = MIN(dlen, m->iter.count);
	buf = xmalloc(n ? n : 1);
	pbuf_copy_partial(d->p, buf, (u16_t)n, 0);
	ip_addr_copy(from, d->addr);
	port = d->port;
	dgram_meta(ns, d, &m->scm);
	if (!ns->timestamp) { /* sock_recv_timestamp's sock_write_timestamp */
		ns->stamp = d->ts;
		ns->has_stamp = true;
	}
	if (!(m->flags & MSG_PEEK)) {
		list_del(&d->link);
		ns->rx_len -= dlen + DGRAM_OVERHEAD;
		ns_uncharge(ns, dlen + DGRAM_OVERHEAD);
		pbuf_free(d->p);
		free(d);
	}
	ns_unlock();
	pthread_mutex_unlock(&ns->rlock);
	msg_iter_copy_out(&m->iter, buf, n, &fault);
	free(buf);
	if (fault)
		return -EFAULT;
	if (m->name_out)
		m->namelen_out = ns_addr_out(ns, &from, port, m->name_out);
	if (n < dlen)
		m->out_flags |= MSG_TRUNC;
	return (long)(m->flags & MSG_TRUNC ? dlen : n);
fail:
	ns_unlock();
	pthread_mutex_unlock(&ns->rlock);
	return ret;
}

int ns_dgram_shutdown(struct socket *s, int how)
{
	struct ns_sock *ns = NS(s);
	int ret = 0;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	ns_lock();
	if (!ns->has_peer) {
		ret = -ENOTCONN;
	} else {
		if (how != SHUT_WR)
			ns->shutdown |= SOCK_RCV_SHUTDOWN;
		if (how != SHUT_RD)
			ns->shutdown |= SOCK_SEND_SHUTDOWN;
		ns_wake(ns, EV_IN | EV_OUT | POLLRDHUP | POLLHUP);
	}
	ns_unlock();
	return ret;
}

unsigned ns_dgram_poll(struct socket *s, struct poll_table *pt)
{
	struct ns_sock *ns = NS(s);
	unsigned mask = EV_OUT;

	poll_wait(pt, &ns->wq);
	ns_lock();
	if (ns->err)
		mask |= POLLERR;
	if (!list_empty(&ns->dgrams))
		mask |= EV_IN;
	if (ns->shutdown & SOCK_RCV_SHUTDOWN)
		mask |= EV_IN | POLLRDHUP;
	if (ns->shutdown == (SOCK_RCV_SHUTDOWN | SOCK_SEND_SHUTDOWN))
		mask |= POLLHUP;
	ns_unlock();
	return mask;
}

long ns_dgram_inq(struct socket *s)
{
	struct ns_sock *ns = NS(s);
	long n = 0;

	ns_lock();
	if (!list_empty(&ns->dgrams))
		n = list_first_entry(&ns->dgrams, struct ns_dgram, link)->p->tot_len;
	ns_unlock();
	return n;
}

/* sock_gettstamp: ENOENT until a datagram was read without a timestamp
 * option on. */
long ns_ioctl(struct socket *s, unsigned long cmd, void *arg)
{
	struct ns_sock *ns = NS(s);
	struct timespec ts;
	bool has;

	if (cmd != SIOCGSTAMP_OLD && cmd != SIOCGSTAMPNS_OLD && cmd != SIOCGSTAMP_NEW &&
	    cmd != SIOCGSTAMPNS_NEW)
		return -ENOTTY;
	ns_lock();
	has = ns->has_stamp;
	ts = ns->stamp;
	ns_unlock();
	if (!has)
		return -ENOENT;
	if (cmd == SIOCGSTAMP_OLD || cmd == SIOCGSTAMP_NEW) { /* the same on 64 bits */
		struct timeval tv = {ts.tv_sec, ts.tv_nsec / 1000};
		memcpy(arg, &tv, sizeof(tv));
	} else {
		memcpy(arg, &ts, sizeof(ts));
	}
	return 0;
}

int ns_dgram_listen(struct socket *s, int backlog)
{
	return -EOPNOTSUPP;
}

int ns_dgram_accept(struct socket *s, bool nonblock, struct socket **out)
{
	return -EOPNOTSUPP;
}

static void udp_release_op(struct socket *s)
{
	struct ns_sock *ns = NS(s);

	ns_lock();
	if (ns->pcb.udp)
		udp_remove(ns->pcb.udp);
	ns->pcb.udp = NULL;
	ns_icmp_untrack(ns);
	ns_dgram_flush(ns);
	ns_sock_free(ns);
	ns_unlock();
}

#define UDP_OPS(fam)                                                                            \
	{                                                                                       \
		.family = fam, .errqueue = true, .bind = ns_bind_op, .connect = udp_connect_op, \
		.listen = ns_dgram_listen, .accept = ns_dgram_accept, .getname = ns_getname,    \
		.sendmsg = udp_sendmsg_op, .recvmsg = ns_dgram_recvmsg,                         \
		.shutdown = ns_dgram_shutdown, .setsockopt = ns_setsockopt,                     \
		.getsockopt = ns_getsockopt, .poll = ns_dgram_poll, .inq = ns_dgram_inq,        \
		.ioctl = ns_ioctl, .release = udp_release_op,                                   \
	}

const struct sock_ops ns_udp_ops[2] = {UDP_OPS(AF_INET), UDP_OPS(AF_INET6)};
