/*
 * Socket options of the user-space stack's sockets, with Linux's checks:
 * SOL_SOCKET, IPPROTO_TCP, IPPROTO_IP and IPPROTO_IPV6. What lwIP can do
 * is passed on to the pcb (SO_REUSEADDR, SO_KEEPALIVE and its timers,
 * TCP_NODELAY, IP_TOS, IP_TTL); the rest is kept and reported back.
 * Anything else is ENOPROTOOPT.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "lib/util.h"

#include <lwip/priv/tcp_priv.h> /* struct tcp_seg, TCP_SLOW_INTERVAL */
#include <lwip/tcp.h>
#include <lwip/ip.h>
#include <lwip/netif.h>
#include <lwip/udp.h>

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <string.h>
#include <sys/time.h>

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif
#define KCAP_NET_ADMIN	    12
#define KCAP_NET_RAW	    13
#define MAX_TCP_KEEPIDLE    32767
#define MAX_TCP_KEEPINTVL   32767
#define MAX_TCP_KEEPCNT	    127
#define MAX_TCP_SYNCNT	    127
#define TCP_FIN_TIMEOUT_MAX 120	    /* seconds */
#define TCP_RMEM_MAX	    6291456 /* net.ipv4.tcp_rmem[2] */
#define TCP_CA_NAME_MAX	    16
#define TCP_INFO_LEN	    232 /* sizeof(struct tcp_info) in Linux 6.1 */
#ifndef TCP_INQ
#define TCP_INQ 36
#endif
#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL 46
#endif

/* The pcb's common part, whichever protocol (core lock held). */
static struct ip_pcb *ip_pcb(struct ns_sock *ns)
{
	if (ns->sock.type == SOCK_STREAM)
		return (struct ip_pcb *)ns->pcb.tcp;
	return (struct ip_pcb *)ns->pcb.udp;
}

void ns_apply_opts(struct ns_sock *ns)
{
	struct ip_pcb *p = ip_pcb(ns);

	if (!p)
		return;
	if (ns->reuseaddr || ns->reuseport)
		ip_set_option(p, SOF_REUSEADDR);
	else
		ip_reset_option(p, SOF_REUSEADDR);
	{
		struct netif *dev = ns->bound_dev[0] ? ns_netif_by_name(ns->bound_dev) : NULL;
		p->netif_idx = dev ? netif_get_index(dev) : NETIF_NO_INDEX;
	}
	p->tos = (u8_t)(ns->family == AF_INET6 ? ns->tclass : ns->tos);
	p->ttl = (u8_t)(ns->ttl >= 0 ? ns->ttl : NS_TTL_DEFAULT);
	if (ns->family == AF_INET6 && ns->hops >= 0)
		p->ttl = (u8_t)ns->hops;
	if (ns->sock.type != SOCK_STREAM || ns->state == NS_LISTEN)
		return;
	if (ns->keepalive)
		ip_set_option(p, SOF_KEEPALIVE);
	else
		ip_reset_option(p, SOF_KEEPALIVE);
	ns->pcb.tcp->keep_idle = (u32_t)ns->keepidle * 1000;
	ns->pcb.tcp->keep_intvl = (u32_t)ns->keepintvl * 1000;
	ns->pcb.tcp->keep_cnt = (u32_t)ns->keepcnt;
	if (ns->nodelay)
		tcp_nagle_disable(ns->pcb.tcp);
	else
		tcp_nagle_enable(ns->pcb.tcp);
}

void ns_apply_msg_opts(struct ns_sock *ns, const struct scm *scm)
{
	struct ip_pcb *p = ip_pcb(ns);

	if (!p)
		return;
	if (scm->ttl_set)
		p->ttl = scm->ttl;
	if (scm->tos_set)
		p->tos = scm->tos;
}

void ns_inherit_opts(struct ns_sock *ns, const struct ns_sock *l)
{
	ns->broadcast = l->broadcast;
	ns->oobinline = l->oobinline;
	ns->cork = l->cork;
	ns->rcvbuf_locked = l->rcvbuf_locked;
	ns->rcvlowat = l->rcvlowat;
	ns->priority = l->priority;
	ns->maxseg = l->maxseg;
	ns->user_timeout = l->user_timeout;
	ns->tclass = l->tclass;
	ns->hops = l->hops;
	ns->recverr = l->recverr;
	ns->recverr6 = l->recverr6;
	ns->rcvtimeo = l->rcvtimeo;
	ns->sndtimeo = l->sndtimeo;
	ns->dontroute = l->dontroute;
	ns->rxq_ovfl = l->rxq_ovfl;
	ns->inq = l->inq;
	ns->freebind = l->freebind;
	ns->recvtos = l->recvtos;
	ns->recvttl = l->recvttl;
	ns->pktinfo = l->pktinfo;
	ns->recvpktinfo6 = l->recvpktinfo6;
	ns->recvtclass6 = l->recvtclass6;
	ns->recvhoplimit6 = l->recvhoplimit6;
	ns->timestamp = l->timestamp;
	ns->mark = l->mark;
	ns->busy_poll = l->busy_poll;
	ns->syncnt = l->syncnt;
	ns->linger2 = l->linger2;
	ns->window_clamp = l->window_clamp;
	ns->notsent_lowat = l->notsent_lowat;
	ns->pmtudisc = l->pmtudisc;
	memcpy(ns->congestion, l->congestion, sizeof(ns->congestion));
}

int ns_take_error(struct ns_sock *ns)
{
	int e = ns->err;

	ns->err = 0;
	return -e;
}

/* sock_setbindtodevice: a name of the stack's interfaces ("" unbinds);
 * binding again needs CAP_NET_RAW. The pcb then takes and sends packets on
 * that interface only. */
static int set_bindtodevice(struct ns_sock *ns, const void *val, unsigned len)
{
	char name[IFNAMSIZ] = {0};
	struct netif *n = NULL;

	memcpy(name, val, MIN(len, (unsigned)IFNAMSIZ - 1));
	if (name[0] && !(n = ns_netif_by_name(name)))
		return -ENODEV;
	if (ns->bound_dev[0] && !ns_capable(KCAP_NET_RAW))
		return -EPERM;
	memcpy(ns->bound_dev, name, sizeof(ns->bound_dev));
	ns_apply_opts(ns);
	return 0;
}

static int set_socket(struct ns_sock *ns, int name, const void *val, unsigned len, int v)
{
	switch (name) {
	case SO_BINDTODEVICE:
		return set_bindtodevice(ns, val, len);
	case SO_DETACH_FILTER: /* sk_detach_filter */
		if (ns->filter_locked)
			return -EPERM;
		if (!ns->filter)
			return -ENOENT;
		sockfilter_free(ns->filter);
		ns->filter = NULL;
		return 0;
	case SO_LOCK_FILTER:
		if (ns->filter_locked && !v)
			return -EPERM;
		ns->filter_locked = v != 0;
		return 0;
	case SO_RCVTIMEO:
	case SO_RCVTIMEO_NEW:
		return sock_timeout_set(&ns->rcvtimeo, val, len);
	case SO_SNDTIMEO:
	case SO_SNDTIMEO_NEW:
		return sock_timeout_set(&ns->sndtimeo, val, len);
	case SO_LINGER: {
		struct linger l;
		if (len < sizeof(l))
			return -EINVAL;
		memcpy(&l, val, sizeof(l));
		ns->linger_onoff = l.l_onoff != 0;
		ns->linger_secs = l.l_linger;
		return 0;
	}
	case SO_REUSEADDR:
		ns->reuseaddr = v != 0;
		break;
	case SO_REUSEPORT:
		ns->reuseport = v != 0;
		break;
	case SO_KEEPALIVE:
		ns->keepalive = v != 0;
		break;
	case SO_BROADCAST:
		ns->broadcast = v != 0;
		break;
	case SO_PASSCRED: /* kept: inet sockets carry no credentials (before 6.16, any socket took it) */
		ns->passcred = v != 0;
		return 0;
	case SO_NO_CHECK:
		ns->no_check = v != 0;
		break;
	case SO_OOBINLINE:
		ns->oobinline = v != 0;
		break;
	case SO_SNDBUF:
	case SO_RCVBUF: {
		uint32_t n = MIN((uint32_t)v,
				 (uint32_t)(name == SO_SNDBUF ? SOCK_WMEM_MAX : SOCK_RMEM_MAX));
		if (name == SO_SNDBUF) {
			ns->sndbuf = MAX((int)n * 2, SOCK_MIN_SNDBUF);
		} else {
			ns->rcvbuf = MAX((int)n * 2, SOCK_MIN_RCVBUF);
			ns->rcvbuf_locked = true;
		}
		return 0;
	}
	case SO_SNDBUFFORCE:
	case SO_RCVBUFFORCE:
		if (!ns_capable(KCAP_NET_ADMIN))
			return -EPERM;
		v = MIN(MAX(v, 0), INT_MAX / 2);
		if (name == SO_SNDBUFFORCE)
			ns->sndbuf = MAX(v * 2, SOCK_MIN_SNDBUF);
		else
			ns->rcvbuf = MAX(v * 2, SOCK_MIN_RCVBUF), ns->rcvbuf_locked = true;
		return 0;
	case SO_RCVLOWAT:
		if (v < 0)
			v = INT_MAX;
		if (ns->sock.type == SOCK_STREAM) /* as tcp_set_rcvlowat */
			v = MIN(v, (ns->rcvbuf_locked ? ns->rcvbuf : TCP_RMEM_MAX) >> 1);
		ns->rcvlowat = v ? v : 1;
		return 0;
	case SO_SNDLOWAT:
		return -ENOPROTOOPT; /* as Linux: read-only, always 1 */
	case SO_MARK:
		if (!ns_capable(KCAP_NET_ADMIN) && !ns_capable(KCAP_NET_RAW))
			return -EPERM;
		ns->mark = v;
		return 0;
	case SO_TIMESTAMP:
	case SO_TIMESTAMPNS:
		ns->timestamp = v ? (name == SO_TIMESTAMPNS ? 2 : 1) : 0;
		return 0;
	case SO_BUSY_POLL:
		if (v < 0)
			return -EINVAL;
		ns->busy_poll = v;
		return 0;
	case SO_DONTROUTE:
		ns->dontroute = v != 0;
		return 0;
	case SO_RXQ_OVFL:
		ns->rxq_ovfl = v != 0;
		return 0;
	case SO_INCOMING_CPU:
		ns->incoming_cpu = v;
		return 0;
	case SO_ZEROCOPY: /* accepted, as Linux for TCP and UDP; sends copy anyway */
		if (v < 0 || v > 1)
			return -EINVAL;
		ns->zerocopy = v;
		return 0;
	case SO_PRIORITY:
		if ((v < 0 || v > 6) && !ns_capable(KCAP_NET_ADMIN) && !ns_capable(KCAP_NET_RAW))
			return -EPERM;
		ns->priority = v;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	ns_apply_opts(ns);
	return 0;
}

/* TCP_DEFER_ACCEPT is kept as Linux keeps it, a count of SYN-ACK
 * retransmissions (1 s doubling up to 120 s), so what reads back is the
 * time those take: secs_to_retrans and retrans_to_secs. */
#define DEFER_TIMEOUT_INIT 1
#define DEFER_RTO_MAX	   120

static int secs_to_retrans(int seconds)
{
	int res = 0, timeout = DEFER_TIMEOUT_INIT, period = timeout;

	if (seconds <= 0)
		return 0;
	res = 1;
	while (seconds > period && res < 255) {
		res++;
		timeout = MIN(timeout << 1, DEFER_RTO_MAX);
		period += timeout;
	}
	return res;
}

static int retrans_to_secs(int retrans)
{
	int timeout = DEFER_TIMEOUT_INIT, period = 0;

	if (retrans > 0) {
		period = timeout;
		while (--retrans) {
			timeout = MIN(timeout << 1, DEFER_RTO_MAX);
			period += timeout;
		}
	}
	return period;
}

static int set_tcp(struct ns_sock *ns, int name, int v)
{
	if (ns->sock.type != SOCK_STREAM)
		return -ENOPROTOOPT;
	switch (name) {
	case TCP_NODELAY:
		ns->nodelay = v != 0;
		break;
	case TCP_KEEPIDLE:
		if (v < 1 || v > MAX_TCP_KEEPIDLE)
			return -EINVAL;
		ns->keepidle = v;
		break;
	case TCP_KEEPINTVL:
		if (v < 1 || v > MAX_TCP_KEEPINTVL)
			return -EINVAL;
		ns->keepintvl = v;
		break;
	case TCP_KEEPCNT:
		if (v < 1 || v > MAX_TCP_KEEPCNT)
			return -EINVAL;
		ns->keepcnt = v;
		break;
	case TCP_MAXSEG:
		if (v && (v < 88 || v > 32767))
			return -EINVAL;
		ns->maxseg = v;
		return 0;
	case TCP_CORK:
		ns->cork = v != 0;
		if (!ns->cork && ns->pcb.tcp && ns->state == NS_CONNECTED)
			tcp_output(ns->pcb.tcp);
		return 0;
	case TCP_QUICKACK:
		ns->quickack = v != 0;
		return 0;
	case TCP_USER_TIMEOUT:
		if (v < 0)
			return -EINVAL;
		ns->user_timeout = v;
		return 0;
	case TCP_DEFER_ACCEPT: /* kept: connections are handed over at once */
		ns->defer_accept = secs_to_retrans(v);
		return 0;
	case TCP_SYNCNT:
		if (v < 1 || v > MAX_TCP_SYNCNT)
			return -EINVAL;
		ns->syncnt = v;
		return 0;
	case TCP_LINGER2:
		ns->linger2 = v < 0 ? -1 : (v == 0 ? 60 : MIN(v, TCP_FIN_TIMEOUT_MAX));
		return 0;
	case TCP_WINDOW_CLAMP:
		if (!v) {
			if (ns->state != NS_CLOSED)
				return -EINVAL;
			ns->window_clamp = 0;
		} else {
			ns->window_clamp = MAX(v, SOCK_MIN_RCVBUF / 2);
		}
		return 0;
	case TCP_NOTSENT_LOWAT:
		ns->notsent_lowat = v;
		return 0;
	case TCP_INQ:
		if (v < 0 || v > 1)
			return -EINVAL;
		ns->inq = v;
		return 0;
	case TCP_REPAIR:
		if (!ns_capable(KCAP_NET_ADMIN))
			return -EPERM;
		return -ENOPROTOOPT; /* not done */
	case TCP_FASTOPEN:
		if (v < 0 || (ns->state != NS_CLOSED && ns->state != NS_LISTEN))
			return -EINVAL;
		ns->fastopen = v;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	ns_apply_opts(ns);
	return 0;
}

/* TCP_CONGESTION: the name of an algorithm Linux builds in. */
static int set_congestion(struct ns_sock *ns, const char *val, unsigned len)
{
	char name[TCP_CA_NAME_MAX] = {0};

	if (ns->sock.type != SOCK_STREAM)
		return -ENOPROTOOPT;
	if (len < 1)
		return -EINVAL;
	memcpy(name, val, MIN(len, (unsigned)TCP_CA_NAME_MAX - 1));
	if (strcmp(name, "cubic") && strcmp(name, "reno"))
		return -ENOENT;
	memcpy(ns->congestion, name, sizeof(name));
	return 0;
}

static int set_ip(struct ns_sock *ns, int name, int v)
{
	switch (name) {
	case IP_TOS:
		if (ns->sock.type == SOCK_STREAM)
			v = (v & ~3) | (ns->tos & 3); /* the ECN bits are the stack's */
		ns->tos = v & 0xff;
		break;
	case IP_TTL:
		if (v != -1 && (v < 1 || v > 255))
			return -EINVAL;
		ns->ttl = v;
		break;
	case IP_RECVERR: /* off: the queue goes, as ip_setsockopt's purge */
		ns->recverr = v != 0;
		if (!v)
			ns_errq_flush(ns);
		return 0;
	case IP_MTU_DISCOVER:
		if (v < IP_PMTUDISC_DONT || v > IP_PMTUDISC_OMIT)
			return -EINVAL;
		ns->pmtudisc = v;
		return 0;
	case IP_RECVTOS:
		ns->recvtos = v != 0;
		return 0;
	case IP_RECVTTL:
		ns->recvttl = v != 0;
		return 0;
	case IP_PKTINFO:
		ns->pktinfo = v != 0;
		return 0;
	case IP_RECVORIGDSTADDR:
		ns->origdst = v != 0;
		return 0;
	case IP_FREEBIND:
		ns->freebind = v != 0;
		return 0;
	case IP_TRANSPARENT:
		if (!ns_capable(KCAP_NET_ADMIN) && !ns_capable(KCAP_NET_RAW))
			return -EPERM;
		return -ENOPROTOOPT; /* not done */
	case IP_MULTICAST_TTL:
		if (ns->sock.type == SOCK_STREAM)
			return -EINVAL;
		if (v == -1)
			v = 1;
		if (v < 0 || v > 255)
			return -EINVAL;
		ns->mc_ttl = v;
		return 0;
	case IP_MULTICAST_LOOP:
		ns->mc_loop = v != 0;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	ns_apply_opts(ns);
	return 0;
}

static int set_ipv6(struct ns_sock *ns, int name, int v)
{
	if (ns->family != AF_INET6)
		return -ENOPROTOOPT;
	switch (name) {
	case IPV6_V6ONLY:
		if (ns->bound || ns->pcb.tcp)
			return -EINVAL;
		ns->v6only = v != 0;
		return 0;
	case IPV6_TCLASS:
		if (v < -1 || v > 0xff)
			return -EINVAL;
		ns->tclass = v < 0 ? 0 : v;
		break;
	case IPV6_UNICAST_HOPS:
		if (v < -1 || v > 255)
			return -EINVAL;
		ns->hops = v;
		break;
	case IPV6_RECVERR:
		ns->recverr6 = v != 0;
		if (!v)
			ns_errq_flush(ns);
		return 0;
	case IPV6_RECVPKTINFO:
		ns->recvpktinfo6 = v != 0;
		return 0;
	case IPV6_RECVTCLASS:
		ns->recvtclass6 = v != 0;
		return 0;
	case IPV6_RECVORIGDSTADDR:
		ns->origdst6 = v != 0;
		return 0;
	case IPV6_RECVHOPLIMIT:
		ns->recvhoplimit6 = v != 0;
		return 0;
	case IPV6_MULTICAST_HOPS:
		if (ns->sock.type == SOCK_STREAM)
			return -ENOPROTOOPT;
		if (v < -1 || v > 255)
			return -EINVAL;
		ns->mc6_hops = v == -1 ? 1 : v;
		return 0;
	case IPV6_MULTICAST_LOOP:
		if (v != 0 && v != 1)
			return -EINVAL;
		ns->mc6_loop = v;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	ns_apply_opts(ns);
	return 0;
}

/* IP options whose value may be a single byte, as Linux's. */
static bool ip_char_opt(int name)
{
	switch (name) {
	case IP_TOS:
	case IP_TTL:
	case IP_RECVTOS:
	case IP_RECVTTL:
	case IP_PKTINFO:
	case IP_MTU_DISCOVER:
	case IP_RECVERR:
	case IP_FREEBIND:
	case IP_TRANSPARENT:
	case IP_MULTICAST_TTL:
	case IP_MULTICAST_LOOP:
		return true;
	}
	return false;
}

/* SO_ATTACH_FILTER: the program is read and checked before the stack is
 * locked; it replaces the one before. */
static int attach_filter(struct ns_sock *ns, const void *val, unsigned len)
{
	struct sockfilter *f, *old = NULL;
	struct task *t = ns_current();
	int ret;

	if (!t)
		return -EINVAL;
	ret = sockfilter_new(t, val, len, &f);
	if (ret < 0)
		return ret;
	ns_lock();
	if (ns->filter_locked) {
		old = f;
		ret = -EPERM;
	} else {
		old = ns->filter;
		ns->filter = f;
	}
	ns_unlock();
	if (old)
		sockfilter_free(old);
	return ret;
}

int ns_setsockopt(struct socket *s, int level, int name, const void *val, unsigned len)
{
	struct ns_sock *ns = NS(s);
	int v = 0, ret;

	if (level == IPPROTO_TCP && name == TCP_CONGESTION) {
		ns_lock();
		ret = set_congestion(ns, val, len);
		ns_unlock();
		return ret;
	}
	if (level == SOL_SOCKET && name == SO_ATTACH_FILTER)
		return attach_filter(ns, val, len);
	if ((level == IPPROTO_IP && (name == IP_ADD_MEMBERSHIP || name == IP_DROP_MEMBERSHIP)) ||
	    (level == IPPROTO_IPV6 &&
	     (name == IPV6_ADD_MEMBERSHIP || name == IPV6_DROP_MEMBERSHIP)))
		return ns_mcast_membership(ns, level, name, val, len);
	if (len >= sizeof(int)) {
		memcpy(&v, val, sizeof(int));
	} else if (level == IPPROTO_IP && ip_char_opt(name)) {
		/* do_ip_setsockopt: a char will do; some need at least that */
		v = len ? *(const unsigned char *)val : 0;
		if (!len &&
		    (name == IP_TTL || name == IP_MULTICAST_TTL || name == IP_MULTICAST_LOOP))
			return -EINVAL;
	} else if (!(level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO ||
					     name == SO_LINGER || name == SO_BINDTODEVICE))) {
		return -EINVAL;
	}
	ns_lock();
	switch (level) {
	case SOL_SOCKET:
		ret = set_socket(ns, name, val, len, v);
		break;
	case IPPROTO_TCP:
		ret = set_tcp(ns, name, v);
		break;
	case IPPROTO_IP:
		ret = set_ip(ns, name, v);
		break;
	case IPPROTO_IPV6:
		ret = set_ipv6(ns, name, v);
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	ns_unlock();
	return ret;
}

union optval {
	int i;
	struct timeval tv;
	struct linger l;
	char name[TCP_CA_NAME_MAX];
	unsigned char info[TCP_INFO_LEN];
	uint64_t u64;
};

/* TCP_INFO from what lwIP knows of the connection: the state, the
 * timers, the segment size and the congestion window; the rest 0. */
static void tcp_info_fill(struct ns_sock *ns, union optval *v)
{
	struct tcp_pcb *p = ns->state == NS_LISTEN ? NULL : ns->pcb.tcp;
	struct tcp_info ti;
	struct tcp_seg *seg;

	memset(&ti, 0, sizeof(ti));
	ti.tcpi_state = (uint8_t)ns_linux_state(ns);
	if (ns->state == NS_LISTEN) { /* as tcp_get_info: the queue and its limit */
		ti.tcpi_unacked = (uint32_t)ns->acc_count;
		ti.tcpi_sacked = (uint32_t)ns->backlog;
		memcpy(v->info, &ti, sizeof(ti));
		return;
	}
	ti.tcpi_rto = 1000000; /* TCP_TIMEOUT_INIT until lwIP has a pcb */
	ti.tcpi_snd_mss = ns->maxseg ? (uint32_t)ns->maxseg : 536;
	ti.tcpi_advmss = ti.tcpi_snd_mss;
	if (p && ns->state == NS_CONNECTED) {
		uint32_t mss = tcp_mss(p) ? tcp_mss(p) : 536;
		ti.tcpi_retransmits = p->nrtx;
		ti.tcpi_rto = (uint32_t)p->rto * TCP_SLOW_INTERVAL * 1000;
		ti.tcpi_snd_mss = ti.tcpi_rcv_mss = ti.tcpi_advmss = mss;
		ti.tcpi_rtt = (uint32_t)(p->sa >> 3) * TCP_SLOW_INTERVAL * 1000;
		ti.tcpi_rttvar = (uint32_t)(p->sv >> 2) * TCP_SLOW_INTERVAL * 1000;
		ti.tcpi_snd_cwnd = p->cwnd / mss;
		ti.tcpi_snd_ssthresh = p->ssthresh / mss;
		ti.tcpi_rcv_space = p->rcv_wnd;
		for (seg = p->unacked; seg; seg = seg->next)
			ti.tcpi_unacked++;
	}
	memcpy(v->info, &ti, sizeof(ti));
}

static int get_socket(struct ns_sock *ns, int name, union optval *v, unsigned *lv)
{
	switch (name) {
	case SO_TYPE:
		v->i = ns->sock.type;
		break;
	case SO_DOMAIN:
		v->i = ns->family;
		break;
	case SO_LOCK_FILTER:
		v->i = ns->filter_locked;
		break;
	case SO_PROTOCOL:
		v->i = ns->protocol;
		break;
	case SO_ERROR:
		v->i = -ns_take_error(ns);
		break;
	case SO_ACCEPTCONN: /* a listener shut for reading no longer listens */
		v->i = ns->state == NS_LISTEN && !(ns->shutdown & SOCK_RCV_SHUTDOWN);
		break;
	case SO_SNDBUF:
		v->i = ns->sndbuf;
		break;
	case SO_RCVBUF:
		v->i = ns->rcvbuf;
		break;
	case SO_REUSEADDR:
		v->i = ns->reuseaddr;
		break;
	case SO_REUSEPORT:
		v->i = ns->reuseport;
		break;
	case SO_KEEPALIVE:
		v->i = ns->keepalive;
		break;
	case SO_BROADCAST:
		v->i = ns->broadcast;
		break;
	case SO_PASSCRED:
		v->i = ns->passcred;
		break;
	case SO_NO_CHECK:
		v->i = ns->no_check;
		break;
	case SO_OOBINLINE:
		v->i = ns->oobinline;
		break;
	case SO_RCVLOWAT:
		v->i = ns->rcvlowat;
		break;
	case SO_SNDLOWAT:
		v->i = 1;
		break;
	case SO_PRIORITY:
		v->i = ns->priority;
		break;
	case SO_MARK:
		v->i = ns->mark;
		break;
	case SO_TIMESTAMP:
		v->i = ns->timestamp == 1;
		break;
	case SO_TIMESTAMPNS:
		v->i = ns->timestamp == 2;
		break;
	case SO_BUSY_POLL:
		v->i = ns->busy_poll;
		break;
	case SO_DONTROUTE:
		v->i = ns->dontroute;
		break;
	case SO_RXQ_OVFL:
		v->i = ns->rxq_ovfl;
		break;
	case SO_ZEROCOPY:
		v->i = ns->zerocopy;
		break;
	case SO_INCOMING_CPU:
		v->i = ns->incoming_cpu;
		break;
	case SO_BINDTODEVICE: { /* sock_getbindtodevice */
		size_t n = strlen(ns->bound_dev);
		if (!n) {
			*lv = 0;
			break;
		}
		if (*lv < n + 1)
			return -EINVAL;
		memcpy(v->name, ns->bound_dev, n + 1);
		*lv = (unsigned)n + 1;
		break;
	}
	case SO_COOKIE: {
		static uint64_t next_cookie = 1; /* core lock held */
		if (!ns->cookie)
			ns->cookie = next_cookie++;
		v->u64 = ns->cookie;
		*lv = sizeof(v->u64);
		break;
	}
	case SO_LINGER:
		v->l.l_onoff = ns->linger_onoff;
		v->l.l_linger = ns->linger_secs;
		*lv = sizeof(v->l);
		break;
	case SO_RCVTIMEO:
	case SO_RCVTIMEO_NEW:
		sock_timeout_get(ns->rcvtimeo, &v->tv);
		*lv = sizeof(v->tv);
		break;
	case SO_SNDTIMEO:
	case SO_SNDTIMEO_NEW:
		sock_timeout_get(ns->sndtimeo, &v->tv);
		*lv = sizeof(v->tv);
		break;
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

union optval;
static void tcp_info_fill(struct ns_sock *ns, union optval *v);

static int get_tcp(struct ns_sock *ns, int name, union optval *v, unsigned *lv)
{
	if (ns->sock.type != SOCK_STREAM)
		return -ENOPROTOOPT;
	switch (name) {
	case TCP_NODELAY:
		v->i = ns->nodelay;
		break;
	case TCP_KEEPIDLE:
		v->i = ns->keepidle;
		break;
	case TCP_KEEPINTVL:
		v->i = ns->keepintvl;
		break;
	case TCP_KEEPCNT:
		v->i = ns->keepcnt;
		break;
	case TCP_MAXSEG:
		if (ns->state == NS_CONNECTED && ns->pcb.tcp)
			v->i = tcp_mss(ns->pcb.tcp);
		else
			v->i = ns->maxseg ? ns->maxseg : 536;
		break;
	case TCP_CORK:
		v->i = ns->cork;
		break;
	case TCP_QUICKACK:
		v->i = ns->quickack;
		break;
	case TCP_USER_TIMEOUT:
		v->i = ns->user_timeout;
		break;
	case TCP_DEFER_ACCEPT:
		v->i = retrans_to_secs(ns->defer_accept);
		break;
	case TCP_SYNCNT:
		v->i = ns->syncnt;
		break;
	case TCP_LINGER2:
		v->i = ns->linger2;
		break;
	case TCP_WINDOW_CLAMP:
		v->i = ns->window_clamp;
		if (!v->i && ns->state == NS_CONNECTED)
			v->i = TCP_WND; /* lwIP's window: what the stack clamps to */
		break;
	case TCP_NOTSENT_LOWAT:
		v->i = ns->notsent_lowat;
		break;
	case TCP_INQ:
		v->i = ns->inq;
		break;
	case TCP_FASTOPEN:
		v->i = ns->fastopen;
		break;
	case TCP_THIN_LINEAR_TIMEOUTS:
		v->i = 0;
		break;
	case TCP_INFO:
		tcp_info_fill(ns, v);
		*lv = TCP_INFO_LEN;
		break;
	case TCP_CONGESTION:
		memcpy(v->name, ns->congestion, sizeof(v->name));
		*lv = sizeof(v->name);
		break;
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

/* IP_MTU, IPV6_MTU: the MTU of the interface toward the peer. */
static int route_mtu(struct ns_sock *ns, union optval *v)
{
	struct netif *n;

	if (!ns->has_peer)
		return -ENOTCONN;
	n = ip_route(&ns->local_ip, &ns->remote_ip);
	if (!n)
		return -ENOTCONN;
	v->i = n->mtu;
	return 0;
}

static int get_ip(struct ns_sock *ns, int name, union optval *v)
{
	switch (name) {
	case IP_TOS:
		v->i = ns->tos;
		break;
	case IP_TTL:
		v->i = ns->ttl >= 0 ? ns->ttl : NS_TTL_DEFAULT;
		break;
	case IP_RECVERR:
		v->i = ns->recverr;
		break;
	case IP_RECVTOS:
		v->i = ns->recvtos;
		break;
	case IP_RECVTTL:
		v->i = ns->recvttl;
		break;
	case IP_PKTINFO:
		v->i = ns->pktinfo;
		break;
	case IP_RECVORIGDSTADDR:
		v->i = ns->origdst;
		break;
	case IP_MTU_DISCOVER:
		v->i = ns->pmtudisc;
		break;
	case IP_MTU:
		return route_mtu(ns, v);
	case IP_FREEBIND:
		v->i = ns->freebind;
		break;
	case IP_TRANSPARENT:
	case IP_HDRINCL:
		v->i = 0;
		break;
	case IP_MULTICAST_TTL:
		v->i = ns->mc_ttl;
		break;
	case IP_MULTICAST_LOOP:
		v->i = ns->mc_loop;
		break;
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

static int get_ipv6(struct ns_sock *ns, int name, union optval *v)
{
	if (ns->family != AF_INET6)
		return -ENOPROTOOPT;
	switch (name) {
	case IPV6_V6ONLY:
		v->i = ns->v6only;
		break;
	case IPV6_TCLASS:
		v->i = ns->tclass;
		break;
	case IPV6_UNICAST_HOPS:
		v->i = ns->hops >= 0 ? ns->hops : NS_TTL_DEFAULT;
		break;
	case IPV6_RECVERR:
		v->i = ns->recverr6;
		break;
	case IPV6_RECVPKTINFO:
		v->i = ns->recvpktinfo6;
		break;
	case IPV6_RECVTCLASS:
		v->i = ns->recvtclass6;
		break;
	case IPV6_RECVORIGDSTADDR:
		v->i = ns->origdst6;
		break;
	case IPV6_RECVHOPLIMIT:
		v->i = ns->recvhoplimit6;
		break;
	case IPV6_MULTICAST_HOPS:
		v->i = ns->mc6_hops;
		break;
	case IPV6_MULTICAST_LOOP:
		v->i = ns->mc6_loop;
		break;
	case IPV6_MTU:
		return route_mtu(ns, v);
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

int ns_getsockopt(struct socket *s, int level, int name, void *val, unsigned *len)
{
	struct ns_sock *ns = NS(s);
	union optval v;
	unsigned lv = sizeof(int);
	int ret;

	memset(&v, 0, sizeof(v));
	ns_lock();
	switch (level) {
	case SOL_SOCKET:
		ret = get_socket(ns, name, &v, &lv);
		break;
	case IPPROTO_TCP:
		ret = get_tcp(ns, name, &v, &lv);
		break;
	case IPPROTO_IP:
		ret = get_ip(ns, name, &v);
		break;
	case IPPROTO_IPV6:
		/* an AF_INET socket's other levels reach do_ip_getsockopt */
		ret = ns->family == AF_INET ? -EOPNOTSUPP : get_ipv6(ns, name, &v);
		break;
	default:
		ret = ns->family == AF_INET && level != IPPROTO_UDP ? -EOPNOTSUPP : -ENOPROTOOPT;
		break;
	}
	ns_unlock();
	if (ret)
		return ret;
	if (level == SOL_SOCKET && name == SO_COOKIE && *len < lv)
		return -EINVAL; /* no truncated cookie, as sk_getsockopt */
	if (*len > lv)
		*len = lv;
	memcpy(val, &v, *len);
	return 0;
}
